package pairwise

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/golden/" + name
	if *update {
		if err := os.MkdirAll("testdata/golden", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s (-want +got)\n%s", name, d)
	}
}

func sampleReport() Report {
	m := fullMatrix([]string{"n1", "n2", "n3", "n4"}, KindBW, slowIf(has("n3"), 10))
	m.Pattern, m.Planned = "full", 6
	m.Pairs[3].Result, m.Pairs[3].Error = nil, "running the client side on n4: agent answered 401: missing or wrong token (Authorization: Bearer <token>)"
	m.Rounds = []RoundTiming{{1, 2, 5.01}, {2, 2, 5.02}, {3, 2, 5.03}}
	return Report{Matrix: m, Findings: pairwiserules.Check(m.Input(nil), pairwiserules.Options{})}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sampleReport(), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "matrix.txt", b.Bytes())
	b.Reset()
	if err := WriteText(&b, sampleReport(), TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[31m10.00\x1b[0m") || !strings.Contains(b.String(), "\x1b[32m") {
		t.Errorf("colour output lacks red slow or green healthy cells:\n%s", b.String())
	}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, sampleReport().Matrix); err != nil {
		t.Fatal(err)
	}
	golden(t, "matrix.csv", b.Bytes())
}

func TestWriteJSONRoundTrip(t *testing.T) {
	r := sampleReport()
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r, back); d != "" {
		t.Errorf("round trip (-want +got)\n%s", d)
	}
	if !strings.Contains(b.String(), `"id": "perf.node_slow"`) {
		t.Errorf("JSON lacks the finding:\n%s", b.String())
	}
}

func TestWriteTextLatency(t *testing.T) {
	m := fullMatrix([]string{"gpu1", "gpu2", "gpu3", "gpu4"}, KindLat, func(a, b string) float64 {
		if has("gpu2")(a, b) {
			return 9.5
		}
		return 1.5
	})
	m.Pattern, m.Planned, m.Interrupted = "full", 6, true
	m.Pairs = m.Pairs[:4] // stopped during round 2... of 3
	var b bytes.Buffer
	if err := WriteText(&b, Report{Matrix: m, Findings: pairwiserules.Check(m.Input(nil), pairwiserules.Options{})}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "matrix_lat.txt", b.Bytes())
}
