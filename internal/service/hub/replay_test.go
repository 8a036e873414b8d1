package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// replayVariants is how many versions of each body the replay farm
// serves in turn, each with other counter rates.
const replayVariants = 16

// replayBodies are one agent's answers cut where the node's name goes:
// parts joined by the JSON string of the name make the body.
type replayBodies struct {
	healthCode int
	health     [][]byte
	ports      [replayVariants][][]byte
	// lean are the same without the raw readings (?readings=0).
	lean [replayVariants][][]byte
}

// captureAgent runs a real agent on the simulated h100-ndr node with
// faults and traffic on every active port (40% of line rate), samples it
// twice 15 s apart so that every counter has a rate, and returns its
// /api/v1/health and /api/v1/ports answers.
func captureAgent(tb testing.TB, faults ...string) (health []byte, code int, ports []byte) {
	tb.Helper()
	var fs []simnode.Fault
	for _, f := range faults {
		x, err := simnode.ParseFault(f)
		if err != nil {
			tb.Fatal(err)
		}
		fs = append(fs, x)
	}
	n, err := simnode.Build(simnode.Options{Faults: fs})
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if err := n.Write(dir); err != nil {
		tb.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	live := simnode.NewLive(n, &simnode.Scenario{Name: "replay", LoadPermille: 400})
	now := func() time.Time { return t0.Add(live.Elapsed) }
	a, err := agent.New(agent.Options{Read: agent.RootSource(r, now), Ethtool: agent.EthtoolFor(r), Interval: 15 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	for i := range 2 {
		if i > 0 {
			live.Step(15 * time.Second)
			if _, err := n.Update(dir); err != nil {
				tb.Fatal(err)
			}
		}
		if err := a.Sample(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	get := func(path string) ([]byte, int) {
		rec := httptest.NewRecorder()
		a.Handler(agent.HandlerOptions{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Body.Bytes(), rec.Code
	}
	health, code = get("/api/v1/health")
	ports, pc := get("/api/v1/ports")
	if pc != http.StatusOK {
		tb.Fatalf("ports: HTTP %d: %s", pc, ports)
	}
	return health, code, ports
}

// replayOf prepares the bodies the replay farm serves for one agent's
// captured answers: the node's name cut out, and replayVariants versions
// of the ports document whose counter rates are the captured ones scaled
// by 0.5 to 1.5 (data) and whose error counters move in one version out
// of four.
func replayOf(tb testing.TB, health []byte, code int, ports []byte) *replayBodies {
	tb.Helper()
	var h agent.Health
	if err := json.Unmarshal(health, &h); err != nil {
		tb.Fatal(err)
	}
	name := h.Host
	rb := &replayBodies{healthCode: code, health: cutName(health, name)}
	for k := range replayVariants {
		var p agent.Ports
		if err := json.Unmarshal(ports, &p); err != nil {
			tb.Fatal(err)
		}
		f := 0.5 + float64(k)/replayVariants
		moved := false
		for i := range p.Ports {
			for j := range p.Ports[i].Rates {
				r := &p.Ports[i].Rates[j]
				if r.PerSecond == nil {
					continue
				}
				v := *r.PerSecond * f
				if k%4 == 3 && !moved && r.Name == "symbol_error" {
					v, moved = float64(k)/10, true
				}
				r.PerSecond = &v
			}
		}
		rb.ports[k] = cutName(agentJSON(tb, p), name)
		for i := range p.Ports {
			p.Ports[i].Readings = []trend.Reading{} // as the agent leaves them out
		}
		rb.lean[k] = cutName(agentJSON(tb, p), name)
	}
	return rb
}

// agentJSON encodes v as the agent does (indented).
func agentJSON(tb testing.TB, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// cutName splits body at every JSON string that is name.
func cutName(body []byte, name string) [][]byte {
	q, _ := json.Marshal(name)
	return bytes.Split(body, q)
}

// replayAgent answers as one agent from prepared bodies; each ports
// answer is the next version.
type replayAgent struct {
	host  []byte // the node's name as a JSON string
	b     *replayBodies
	polls atomic.Uint64
	// full: answer as an agent before ?readings=0 (readings always).
	full bool
}

func (ra *replayAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var parts [][]byte
	code := http.StatusOK
	switch r.URL.Path {
	case "/api/v1/health":
		parts, code = ra.b.health, ra.b.healthCode
	case "/api/v1/ports":
		k := ra.polls.Add(1) % replayVariants
		parts = ra.b.ports[k]
		if r.URL.Query().Get("readings") == "0" && !ra.full {
			parts = ra.b.lean[k]
		}
	default:
		http.NotFound(w, r)
		return
	}
	n := len(ra.host) * (len(parts) - 1)
	for _, p := range parts {
		n += len(p)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(code)
	for i, p := range parts {
		if i > 0 {
			w.Write(ra.host)
		}
		w.Write(p)
	}
}

// serveReplayFarm serves n replayed agents, each on its own loopback
// listener (as many connections as real agents), the answers captured
// from three real agents: a healthy node, one with a port in Polling
// (every 50th) and one with a narrow link (every 50th). It returns the
// agents file's lines.
func serveReplayFarm(ctx context.Context, tb testing.TB, n int) string {
	replay := func(faults ...string) *replayBodies {
		health, code, ports := captureAgent(tb, faults...)
		return replayOf(tb, health, code, ports)
	}
	healthy, polling, narrow := replay(), replay("polling:mlx5_5/1"), replay("width:mlx5_2/1=2")
	var lines bytes.Buffer
	for i := range n {
		host := fmt.Sprintf("gpu%04d", i)
		b := healthy
		switch i % 50 {
		case 7:
			b = polling
		case 23:
			b = narrow
		}
		q, _ := json.Marshal(host)
		ra := &replayAgent{host: q, b: b, full: os.Getenv("IBDOCTOR_HUB_REPLAY") == "full"}
		ra.polls.Store(uint64(i)) // the agents do not move in step
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		srv := &http.Server{Handler: ra, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		go func() { <-ctx.Done(); srv.Close() }()
		fmt.Fprintf(&lines, "%s %s\n", ln.Addr(), host)
	}
	return lines.String()
}

// TestReplayAgentAnswersAsTheAgent checks that the replay farm's answers
// decode as the agent's, that its counter rates move between polls, and
// that the hub reads the same from an agent that leaves the readings out
// (?readings=0) as from one before that, which sends them.
func TestReplayAgentAnswersAsTheAgent(t *testing.T) {
	health, code, ports := captureAgent(t, "polling:mlx5_5/1")
	b := replayOf(t, health, code, ports)
	got := map[bool][]result{}
	for _, full := range []bool{false, true} {
		ra := &replayAgent{host: []byte(`"gpu0042"`), b: b, full: full}
		srv := httptest.NewServer(ra)
		h := &Hub{opts: Options{Timeout: 10 * time.Second, Client: srv.Client(), Now: time.Now}}
		for range 3 {
			r := h.poll(context.Background(), &node{t: Target{Base: srv.URL}})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.health.Host != "gpu0042" || r.ports.Host != "gpu0042" {
				t.Fatalf("host %q / %q, want gpu0042", r.health.Host, r.ports.Host)
			}
			if len(r.health.Findings) == 0 {
				t.Fatal("the polling port's finding is missing")
			}
			if len(r.rates) != 10 {
				t.Fatalf("%d ports, want 10", len(r.rates))
			}
			got[full] = append(got[full], r)
		}
		srv.Close()
	}
	rcv := func(i int) float64 { return got[false][i].rates[0].RcvBps }
	if rcv(0) <= 0 || rcv(0) == rcv(1) || rcv(1) == rcv(2) {
		t.Errorf("receive rates over three polls %v %v %v: want positive and moving", rcv(0), rcv(1), rcv(2))
	}
	for i := range got[false] {
		lean, full := got[false][i], got[true][i]
		if !reflect.DeepEqual(lean.rates, full.rates) || !reflect.DeepEqual(lean.ports, full.ports) {
			t.Errorf("poll %d: without readings\n%+v\nwith\n%+v", i, lean.rates, full.rates)
		}
	}
	size := func(parts [][]byte) int { return len(bytes.Join(parts, nil)) }
	if lean, full := size(b.lean[0]), size(b.ports[0]); lean*3/2 > full {
		t.Errorf("the answer without readings is %d bytes of %d", lean, full)
	}
}

// pathTransport answers each path with a fixed body, without a network.
type pathTransport map[string][]byte

func (p pathTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b, ok := p[r.URL.Path]
	if !ok {
		return &http.Response{StatusCode: http.StatusNotFound, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
	}
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b)), Header: http.Header{}, Request: r}, nil
}

// BenchmarkPollDecode is the hub's side of one agent's poll without the
// network: reading and decoding the health and ports answers of a real
// agent on the h100-ndr node (10 ports, every counter with a rate).
func BenchmarkPollDecode(b *testing.B) {
	health, _, ports := captureAgent(b)
	h := &Hub{opts: Options{Timeout: 10 * time.Second, Now: time.Now,
		Client: &http.Client{Transport: pathTransport{"/api/v1/health": health, "/api/v1/ports": ports}}}}
	n := &node{t: Target{Base: "http://gpu0001:9315"}}
	b.SetBytes(int64(len(health) + len(ports)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if r := h.poll(context.Background(), n); r.err != nil {
			b.Fatal(r.err)
		}
	}
}

// BenchmarkRecordCycle2000 records one poll cycle of 2,000 agents into
// the history when the step is the interval (every cycle writes a step
// per node, the most the history writes): applying the results and
// committing them.
func BenchmarkRecordCycle2000(b *testing.B) {
	health, _, ports := captureAgent(b)
	st, err := hubstore.Open(filepath.Join(b.TempDir(), "hub.db"), hubstore.Options{Retention: 3 * time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var targets []Target
	for i := range 2000 {
		addr := fmt.Sprintf("10.0.%d.%d:9315", i/250, i%250+1)
		targets = append(targets, Target{Name: fmt.Sprintf("gpu%04d", i), Base: "http://" + addr, Addr: addr})
	}
	c := &clock{t: t0}
	h, err := New(context.Background(), Options{Targets: targets, Store: st, Now: c.Now})
	if err != nil {
		b.Fatal(err)
	}
	src := &Hub{opts: Options{Timeout: 10 * time.Second, Now: c.Now,
		Client: &http.Client{Transport: pathTransport{"/api/v1/health": health, "/api/v1/ports": ports}}}}
	r0 := src.poll(context.Background(), &node{t: Target{Base: "http://x:1"}})
	if r0.err != nil {
		b.Fatal(r0.err)
	}
	rs := make([]result, len(h.order))
	cycle := func() {
		for i, name := range h.order {
			r := r0
			p := *r0.ports
			p.Ports = slices.Clone(p.Ports) // record drops the rates it stored
			r.n, r.t, r.ports = h.nodes[name], c.Now(), &p
			rs[i] = r
		}
		if err := h.record(context.Background(), rs); err != nil {
			b.Fatal(err)
		}
		c.Add(h.Step())
	}
	cycle()
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		cycle()
	}
}
