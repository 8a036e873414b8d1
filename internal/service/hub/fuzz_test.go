package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/parse"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
)

// FuzzParseAgents: an agents file either parses into distinct agents and
// names, each re-read alone as the same agent, or fails naming its
// source (and, for a bad line, the line).
func FuzzParseAgents(f *testing.F) {
	for _, s := range []string{
		"# rack 1\ngpu01:9315\n\n  gpu02:9315   # spare\n",
		"https://10.0.0.5:8443/ibdoctor/ node5\n",
		"http://gpu03\n[fd00::1]:9315\n127.0.0.1:9001\n127.0.0.1:9002\n",
		"ftp://gpu01:21\n", "http://gpu01:9315/?x=1\n", "gpu01:9315 a b\n", "gpu01:9315 n\ngpu02:9315 n\n",
		"http://u@h:1/p%20q x\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ts, err := ParseAgents(strings.NewReader(in), "agents.txt")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "agents.txt") {
				t.Fatalf("error does not name the file: %v", err)
			}
			var pe *parse.Error
			if errors.As(err, &pe) && (pe.Line < 1 || pe.Line > strings.Count(in, "\n")+1) {
				t.Fatalf("error names line %d of %d: %v", pe.Line, strings.Count(in, "\n")+1, err)
			}
			return
		}
		bases, names := map[string]bool{}, map[string]bool{}
		for _, a := range ts {
			if a.Name == "" || a.Addr == "" || !strings.HasPrefix(a.Base, "http") {
				t.Fatalf("incomplete agent %+v", a)
			}
			if bases[a.Base] || names[a.Name] {
				t.Fatalf("agent %+v listed twice", a)
			}
			bases[a.Base], names[a.Name] = true, true
			again, err := ParseAgents(strings.NewReader(a.Base+" "+a.Name+"\n"), "again")
			if err != nil {
				t.Fatalf("agent %+v does not read back: %v", a, err)
			}
			if again[0] != a {
				t.Fatalf("agent %+v reads back as %+v", a, again[0])
			}
		}
	})
}

func seedReport(f *testing.F) []byte {
	hosts := []string{"h1", "h2", "h3"}
	m := &pairwise.Matrix{Hosts: hosts, Test: pairwise.Test{Backend: "tcp", Kind: pairwise.KindBW}, Pattern: "full",
		Started: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Planned: 6}
	for _, a := range hosts {
		for _, b := range hosts {
			if a != b {
				m.Pairs = append(m.Pairs, pairwise.PairResult{A: a, B: b, Result: &pairwise.Result{BitsPerSecond: 100e9}})
			}
		}
	}
	var b bytes.Buffer
	if err := pairwise.WriteJSON(&b, pairwise.Report{Matrix: m}); err != nil {
		f.Fatal(err)
	}
	return b.Bytes()
}

// FuzzDecodeReport: a perf-run document the hub accepts has hosts, a
// start time and pairs between its hosts, writes back into a document
// it accepts again with the same run, and gets one ID; a refused one is
// refused naming its source.
func FuzzDecodeReport(f *testing.F) {
	doc := seedReport(f)
	f.Add(doc)
	f.Add(bytes.Replace(doc, []byte(`"h2"`), []byte(`"h9"`), 1))
	f.Add([]byte(`{"matrix":{"hosts":["a"],"started":"2026-01-01T00:00:00Z","pairs":[{"a":"a","b":"b"}]}}`))
	f.Add([]byte(`{"matrix":null}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		rep, err := decodeReport(doc, "run.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "run.json: ") {
				t.Fatalf("error does not name the document: %v", err)
			}
			return
		}
		if rep.Matrix == nil || len(rep.Matrix.Hosts) == 0 || rep.Matrix.Started.IsZero() {
			t.Fatalf("accepted a document without hosts or start")
		}
		if id := runID(rep, doc); id != runID(rep, doc) || !strings.Contains(id, "-") {
			t.Fatalf("run ID %q", id)
		}
		var b bytes.Buffer
		if err := pairwise.WriteJSON(&b, *rep); err != nil {
			return // a value JSON cannot write (NaN) came in as a string
		}
		again, err := decodeReport(b.Bytes(), "again.json")
		if err != nil {
			t.Fatalf("accepted document does not read back: %v\n%s", err, b.Bytes())
		}
		if len(again.Matrix.Hosts) != len(rep.Matrix.Hosts) || len(again.Matrix.Pairs) != len(rep.Matrix.Pairs) ||
			!again.Matrix.Started.Equal(rep.Matrix.Started) || testName(again.Matrix.Test) != testName(rep.Matrix.Test) {
			t.Fatalf("document reads back as another run")
		}
	})
}

type bodyTransport struct {
	code int
	body []byte
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: b.code, Body: io.NopCloser(bytes.NewReader(b.body)), Header: http.Header{}, Request: r}, nil
}

// FuzzPromQuery: any answer of a Prometheus server (or of something else
// at its address) gives samples with labels and numbers, or an error.
func FuzzPromQuery(f *testing.F) {
	for _, s := range []string{
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","instance":"gpu01:9315","job":"ibdoctor"},"value":[1700000000.1,"1"]},{"metric":{"instance":"gpu02:9315"},"value":[1700000000.1,"NaN"]}]}}`,
		`{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`,
		`{"status":"success","data":{"resultType":"matrix","result":[]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":null,"value":[1,2]}]}}`,
		`<html>502 Bad Gateway</html>`,
	} {
		f.Add(200, []byte(s))
	}
	f.Fuzz(func(t *testing.T, code int, body []byte) {
		code = 100 + int(uint(code)%500)
		h := &Hub{opts: Options{Prometheus: &Prometheus{URL: "http://prom:9090"}, Timeout: time.Second,
			Client: &http.Client{Transport: bodyTransport{code, body}}}}
		s, err := h.query(context.Background(), `up{job="ibdoctor"}`)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		for _, x := range s {
			if math.IsInf(x.v, 0) && !strings.Contains(strings.ToLower(string(body)), "inf") {
				t.Fatalf("infinite sample %v from %s", x.v, body)
			}
		}
		_ = fmt.Sprint(s)
	})
}
