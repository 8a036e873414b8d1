package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
)

// stdPorts decodes a ports document with encoding/json, as the hub did
// before decodePorts.
func stdPorts(b []byte) (*agent.Ports, []hubstore.PortRate, error) {
	var doc portsDoc
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return nil, nil, err
	}
	p := doc.ports()
	rs := portRates(p)
	for i := range p.Ports {
		p.Ports[i].Rates = nil
	}
	return p, rs, nil
}

const smallPorts = `{"host":"gpu01","taken":"2026-12-01T08:00:15Z","interval_seconds":15,"ports":[
 {"device":"mlx5_0","port":1,"link_layer":"InfiniBand","state":"ACTIVE","rate_gbps":400,"phys_state":"LinkUp",
  "readings":[{"src":"counters","name":"port_rcv_data","v":123,"bits":64,"sat":true,"unit":"4-octet words","x":[{"y":"]}"}]}],
  "rates":[{"src":"counters","name":"port_rcv_data","per_second":1.5e9,"status":"ok"},
   {"src":"counters","name":"port_xmit_data","per_second":2e9,"status":"ok"},
   {"src":"counters","name":"symbol_error","per_second":0.25,"status":"ok"},
   {"src":"counters","name":"link_downed","per_second":-1,"status":"ok"},
   {"src":"hw_counters","name":"out_of_sequence","per_second":7,"status":"ok"},
   {"src":"counters","name":"port_rcv_errors","status":"no_data"}]},
 {"device":"mlx5_1","port":1,"netdev":"eth2","link_layer":"Ethernet","state":"DOWN","rates":[],"pcie_link":"Gen5 x16"}]}
`

// TestDecodePortsAsEncodingJSON: the fast reader gives what
// encoding/json gives, and sends to encoding/json what it does not read
// exactly (escapes, keys in another case, members twice, null numbers),
// which then still decodes or fails as before.
func TestDecodePortsAsEncodingJSON(t *testing.T) {
	health, code, captured := captureAgent(t, "polling:mlx5_5/1")
	_, _ = health, code
	for _, tc := range []struct {
		name string
		doc  string
		fast bool // the fast reader reads it
		ok   bool // encoding/json accepts it
	}{
		{"real agent", string(captured), true, true},
		{"small", smallPorts, true, true},
		{"escaped host", strings.Replace(smallPorts, `"gpu01"`, `"gpu\u00301"`, 1), false, true},
		{"key in another case", strings.Replace(smallPorts, `"state":"DOWN"`, `"State":"DOWN"`, 1), false, true},
		{"member twice", strings.Replace(smallPorts, `"port":1,`, `"port":1,"port":2,`, 1), false, true},
		{"null string", strings.Replace(smallPorts, `"netdev":"eth2"`, `"netdev":null`, 1), false, true},
		{"null rate", strings.Replace(smallPorts, `"per_second":2e9`, `"per_second":null`, 1), true, true},
		{"null ports", `{"host":"a","ports":null}`, true, true},
		{"unknown members", `{"v":[1,{"a":"\"}"}],"host":"a","ports":[{"device":"d","port":2,"extra":{"k":[true,false,null]}}]}`, true, true},
		{"port not an integer", strings.Replace(smallPorts, `"port":1,`, `"port":1.5,`, 1), false, false},
		{"rate a string", strings.Replace(smallPorts, `"per_second":0.25`, `"per_second":"0.25"`, 1), false, false},
		{"truncated", smallPorts[:len(smallPorts)/2], false, false},
		{"not JSON", `<html>502</html>`, false, false},
		{"bad time", strings.Replace(smallPorts, `2026-12-01T08:00:15Z`, `yesterday`, 1), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.doc)
			_, _, ferr := fastPorts(b)
			if (ferr == nil) != tc.fast {
				t.Errorf("fast reader: %v, want read %v", ferr, tc.fast)
			}
			wp, wr, werr := stdPorts(b)
			if (werr == nil) != tc.ok {
				t.Fatalf("encoding/json: %v, want accepted %v", werr, tc.ok)
			}
			p, r, err := decodePorts(b)
			if (err == nil) != tc.ok {
				t.Fatalf("decodePorts: %v, want accepted %v", err, tc.ok)
			}
			if err != nil {
				return
			}
			if !reflect.DeepEqual(p, wp) || !reflect.DeepEqual(r, wr) {
				t.Errorf("decodePorts gives\n%+v\n%+v\nencoding/json\n%+v\n%+v", p, r, wp, wr)
			}
		})
	}
	// The small document's sums: the last data rate, positive error
	// counters and no hw_counters.
	_, r, _ := decodePorts([]byte(smallPorts))
	want := []hubstore.PortRate{{Port: "mlx5_0/1", RcvBps: 1.5e9, XmitBps: 2e9, ErrPerS: 0.25}, {Port: "mlx5_1/1"}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("rates %+v, want %+v", r, want)
	}
}

// FuzzDecodePorts: a ports document encoding/json accepts decodes to
// the same ports and rates.
func FuzzDecodePorts(f *testing.F) {
	f.Add([]byte(smallPorts))
	f.Add([]byte(`{"host":"a","ports":[{"device":"d","port":2,"rates":[{"src":"counters","name":"port_rcv_data","per_second":1}]}]}`))
	f.Add([]byte(`{"ports":[{"Device":"x","rates":null}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		wp, wr, werr := stdPorts(b)
		p, r, err := decodePorts(b)
		if werr != nil {
			return // the fast reader may accept what it skips unchecked
		}
		if err != nil {
			t.Fatalf("decodePorts refuses what encoding/json accepts: %v", err)
		}
		if !reflect.DeepEqual(p, wp) || !reflect.DeepEqual(r, wr) {
			t.Fatalf("decodePorts gives\n%+v\n%+v\nencoding/json\n%+v\n%+v", p, r, wp, wr)
		}
	})
}

// BenchmarkDecodePorts decodes a real agent's ports document (h100-ndr,
// 10 ports, every counter with a rate, indented as the agent writes it)
// with the hub's reader and with encoding/json.
func BenchmarkDecodePorts(b *testing.B) {
	_, _, doc := captureAgent(b)
	for _, bc := range []struct {
		name string
		f    func([]byte) (*agent.Ports, []hubstore.PortRate, error)
	}{{"decodePorts", decodePorts}, {"encoding-json", stdPorts}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if _, _, err := bc.f(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// reportCPU reports the process's CPU time per operation (cpu-ns/op)
// when the returned function runs: on a machine shared with other work
// the wall time per operation mostly measures the others.
func reportCPU(b *testing.B) func() {
	c0 := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

// answerTransport answers /api/v1/health with a healthy agent's document
// and /api/v1/ports with code and body; length -1 leaves the length
// unknown.
type answerTransport struct {
	code   int
	body   []byte
	length int64
}

func (a answerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/api/v1/health" {
		b := []byte(`{"host":"gpu01","verdict":"healthy","exit_code":0,"findings":[]}`)
		return &http.Response{StatusCode: 200, Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b)), Header: http.Header{}, Request: r}, nil
	}
	return &http.Response{StatusCode: a.code, Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: a.length, Header: http.Header{}, Request: r}, nil
}

// TestPollBadPortsAnswers: a ports answer the hub cannot use fails the
// poll with the URL and the reason, and a good one after it on the same
// pooled buffers reads whole.
func TestPollBadPortsAnswers(t *testing.T) {
	big := bytes.Repeat([]byte(" "), maxAnswer+1)
	for _, tc := range []struct {
		name string
		a    answerTransport
		want string
	}{
		{"not JSON", answerTransport{200, []byte("<html>502</html>"), 16}, "http://gpu01:9315/api/v1/ports?readings=0: not the agent's API"},
		{"HTTP 500", answerTransport{500, []byte("sampler stuck\n"), 14}, "/api/v1/ports?readings=0: HTTP 500: sampler stuck"},
		{"announced too long", answerTransport{200, []byte("{}"), maxAnswer + 1}, "/api/v1/ports?readings=0: the answer is 33554433 bytes, over 32 MiB"},
		{"too long", answerTransport{200, big, -1}, "/api/v1/ports?readings=0: the answer is over 32 MiB"},
		{"cut short", answerTransport{200, []byte(smallPorts[:100]), -1}, "/api/v1/ports?readings=0: not the agent's API: unexpected EOF"},
		{"good", answerTransport{200, []byte(smallPorts), -1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Hub{opts: Options{Timeout: 10 * time.Second, Now: time.Now, Client: &http.Client{Transport: tc.a}}}
			r := h.poll(context.Background(), &node{t: Target{Base: "http://gpu01:9315"}})
			switch {
			case tc.want == "" && r.err != nil:
				t.Fatalf("poll: %v", r.err)
			case tc.want == "":
				if len(r.ports.Ports) != 2 || len(r.rates) != 2 || r.rates[0].RcvBps != 1.5e9 {
					t.Errorf("ports %+v rates %+v", r.ports, r.rates)
				}
			case r.err == nil || !strings.Contains(r.err.Error(), tc.want):
				t.Errorf("poll error %v, want %q", r.err, tc.want)
			case r.ports != nil || r.rates != nil || r.health != nil:
				t.Errorf("a failed poll keeps ports %v, rates %v, health %v", r.ports, r.rates, r.health)
			}
		})
	}
}
