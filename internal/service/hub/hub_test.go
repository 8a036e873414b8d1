package hub

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

var t0 = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// simAgent is a real agent on a simulated node, served over HTTP on a
// loopback port that can be stopped and started again.
type simAgent struct {
	t    *testing.T
	host string
	a    *agent.Agent
	h    http.Handler
	addr string
	srv  *http.Server
	// wrap, when set, wraps the agent's handler (to count or delay
	// requests).
	wrap func(http.Handler) http.Handler
}

// simRoot is a simulated node written once per fault set and read once;
// agents of that fault set share its snapshot (writing and reading a node
// takes seconds on a loaded machine).
type simRoot struct {
	root *rootfs.Root
	snap *snapshot.Snapshot
}

var (
	simMu    sync.Mutex
	simRoots = map[string]*simRoot{}
	simDirs  []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, r := range simRoots {
		r.root.Close()
	}
	for _, d := range simDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func simRootOf(t testing.TB, faults ...string) *simRoot {
	t.Helper()
	simMu.Lock()
	defer simMu.Unlock()
	key := strings.Join(faults, " ")
	if r, ok := simRoots[key]; ok {
		return r
	}
	var fs []simnode.Fault
	for _, f := range faults {
		x, err := simnode.ParseFault(f)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, x)
	}
	n, err := simnode.Build(simnode.Options{Faults: fs})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "ibdoctor-hub-test-")
	if err != nil {
		t.Fatal(err)
	}
	simDirs = append(simDirs, dir)
	if err := n.Write(dir); err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := agent.RootSource(r, nil)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	simRoots[key] = &simRoot{root: r, snap: snap}
	return simRoots[key]
}

// newAgent builds a real agent on the simulated node with faults,
// reporting host, and samples it once.
func newAgent(t testing.TB, host string, faults ...string) *agent.Agent {
	t.Helper()
	sr := simRootOf(t, faults...)
	read := func(context.Context) (*snapshot.Snapshot, error) {
		s := *sr.snap
		s.Host = host
		s.Taken = time.Now()
		return &s, nil
	}
	a, err := agent.New(agent.Options{Read: read, Ethtool: agent.EthtoolFor(sr.root)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	return a
}

// newSimAgent serves a real agent on the simulated node with faults.
func newSimAgent(t *testing.T, host string, faults ...string) *simAgent {
	t.Helper()
	a := newAgent(t, host, faults...)
	s := &simAgent{t: t, host: host, a: a, h: a.Handler(agent.HandlerOptions{})}
	s.start("127.0.0.1:0")
	t.Cleanup(s.stop)
	return s
}

func (s *simAgent) start(addr string) {
	s.t.Helper()
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the old socket may linger a moment
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	h := s.h
	if s.wrap != nil {
		h = s.wrap(h)
	}
	s.srv = &http.Server{Handler: h}
	go s.srv.Serve(ln)
}

func (s *simAgent) stop() {
	if s.srv != nil {
		s.srv.Close()
		s.srv = nil
	}
}

func (s *simAgent) target() Target {
	return Target{Name: s.host, Base: "http://" + s.addr, Addr: s.addr}
}

func newHub(t *testing.T, c *clock, o Options, agents ...*simAgent) *Hub {
	t.Helper()
	if o.Store == nil {
		st, err := hubstore.Open(filepath.Join(t.TempDir(), "hub.db"), hubstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		o.Store = st
	}
	for _, a := range agents {
		o.Targets = append(o.Targets, a.target())
	}
	if o.Interval == 0 {
		o.Interval = 15 * time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	o.Now = c.Now
	h, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func openIDs(t *testing.T, st *hubstore.Store, host string) map[string]bool {
	t.Helper()
	rows, err := st.Findings(context.Background(), hubstore.FindingQuery{Host: host, OpenOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, r := range rows {
		out[r.Finding.ID] = true
	}
	return out
}

// TestPollRealAgents polls three real agents, one with a broken port,
// and checks the fleet, the node page and the findings timeline against
// what each agent's own health says.
func TestPollRealAgents(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	healthy1, broken, healthy2 := newSimAgent(t, "gpu01"), newSimAgent(t, "gpu02", "polling:mlx5_5/1"), newSimAgent(t, "gpu03")
	h := newHub(t, c, Options{}, healthy1, broken, healthy2)
	if err := h.PollOnce(ctx); err != nil {
		t.Fatal(err)
	}
	fl, err := h.Data().Fleet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fl.Nodes) != 3 {
		t.Fatalf("fleet has %d nodes", len(fl.Nodes))
	}
	for i, sa := range []*simAgent{healthy1, broken, healthy2} {
		v := sa.a.View()
		var fs []finding.Finding
		for _, a := range v.Active {
			fs = append(fs, a.Finding)
		}
		want := nodeHealth(fs)
		row := fl.Nodes[i]
		if row.Host != sa.host || row.Health != want || row.Error != "" || !row.LastSeen.Equal(t0) {
			t.Errorf("%s: row %+v, want health %s", sa.host, row, want)
		}
		if len(row.Ports) != len(v.Sample.Ports) {
			t.Errorf("%s: %d port cells, agent has %d ports", sa.host, len(row.Ports), len(v.Sample.Ports))
		}
		open := openIDs(t, h.st, sa.host)
		for _, f := range fs {
			if !open[f.ID] {
				t.Errorf("%s: agent's finding %s not open in the timeline", sa.host, f.ID)
			}
		}
	}
	if fl.Nodes[1].Health == web.OK || fl.Nodes[0].Health != web.OK {
		t.Fatalf("the broken node is %s, the healthy one %s", fl.Nodes[1].Health, fl.Nodes[0].Health)
	}
	var polling web.Health
	for _, p := range fl.Nodes[1].Ports {
		if p.Name == "mlx5_5/1" {
			polling = p.Health
		}
	}
	if polling == web.OK || polling == "" {
		t.Errorf("the polling port's cell is %q", polling)
	}
	n, err := h.Data().Node(ctx, "gpu02")
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Findings) == 0 || len(n.Ports) == 0 || n.Findings[0].Opened != t0 {
		t.Fatalf("node page: %d findings, %d ports", len(n.Findings), len(n.Ports))
	}
	if _, err := h.Data().Node(ctx, "nosuch"); !errors.Is(err, web.ErrNotFound) {
		t.Errorf("unknown node: %v", err)
	}
}

// TestUnreachableOpensAndCloses stops an agent: after two failed polls
// hub.agent_unreachable opens with the agent's address in its remedy, the
// node's other findings stay open; when the agent answers again it
// closes.
func TestUnreachableOpensAndCloses(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	sa := newSimAgent(t, "gpu02", "polling:mlx5_5/1")
	h := newHub(t, c, Options{Interval: 10 * time.Second}, sa)
	if err := h.PollOnce(ctx); err != nil {
		t.Fatal(err)
	}
	before := openIDs(t, h.st, "gpu02")
	addr := sa.addr
	sa.stop()
	for i := range 2 {
		c.Add(10 * time.Second)
		if err := h.PollOnce(ctx); err != nil {
			t.Fatal(err)
		}
		open := openIDs(t, h.st, "gpu02")
		if got := open["hub.agent_unreachable"]; got != (i == 1) {
			t.Fatalf("after %d failed polls: unreachable open = %v", i+1, got)
		}
	}
	fl, _ := h.Data().Fleet(ctx)
	if fl.Nodes[0].Health != web.Unreachable || fl.Nodes[0].Error == "" {
		t.Fatalf("stopped agent: %+v", fl.Nodes[0])
	}
	open := openIDs(t, h.st, "gpu02")
	for id := range before {
		if !open[id] {
			t.Errorf("%s closed while the agent was unreachable", id)
		}
	}
	rows, _ := h.st.Findings(ctx, hubstore.FindingQuery{ID: "hub.agent_unreachable"})
	if len(rows) != 1 {
		t.Fatalf("%d unreachable rows", len(rows))
	}
	f := rows[0].Finding
	if !strings.Contains(strings.Join(f.Remedy, "\n"), "curl -s http://"+addr+"/healthz") || f.Subject.Host != "gpu02" || len(f.Evidence) == 0 {
		t.Errorf("remedy not filled with the agent's address %s: %q (evidence %v)", addr, f.Remedy, f.Evidence)
	}
	sa.start(addr)
	// The second failure backs off two intervals.
	c.Add(20 * time.Second)
	if err := h.PollOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if openIDs(t, h.st, "gpu02")["hub.agent_unreachable"] {
		t.Fatal("unreachable still open after the agent answered")
	}
	rows, _ = h.st.Findings(ctx, hubstore.FindingQuery{ID: "hub.agent_unreachable"})
	if len(rows) != 1 || !rows[0].Closed.Equal(t0.Add(40*time.Second)) || rows[0].Finding.Evidence[0].Value == "" {
		t.Fatalf("closed row: %+v", rows)
	}
	fl, _ = h.Data().Fleet(ctx)
	if fl.Nodes[0].Health == web.Unreachable || fl.Nodes[0].Error != "" {
		t.Fatalf("after the agent answered: %+v", fl.Nodes[0])
	}
	tl, err := h.Data().Timeline(ctx, t0, "gpu02")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range tl.Events {
		if e.ID == "hub.agent_unreachable" && e.Opened.Equal(t0.Add(20*time.Second)) && e.Closed.Equal(t0.Add(40*time.Second)) {
			found = true
		}
	}
	if !found {
		t.Errorf("timeline lacks the outage: %+v", tl.Events)
	}
}

// TestRestartKeepsOpenFindings starts a second hub on the same store: a
// finding the first one opened is closed by the second, not opened twice.
func TestRestartKeepsOpenFindings(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	sa := newSimAgent(t, "gpu02", "polling:mlx5_5/1")
	st, err := hubstore.Open(filepath.Join(t.TempDir(), "hub.db"), hubstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h1 := newHub(t, c, Options{Store: st}, sa)
	h1.PollOnce(ctx)
	n1 := len(openIDs(t, st, "gpu02"))
	c.Add(time.Minute)
	h2 := newHub(t, c, Options{Store: st}, sa)
	h2.PollOnce(ctx)
	all, _ := st.Findings(ctx, hubstore.FindingQuery{Host: "gpu02"})
	if n1 == 0 || len(all) != n1 {
		t.Fatalf("after a restart: %d rows, first hub opened %d", len(all), n1)
	}
	sa.stop()
	for range 2 {
		c.Add(time.Minute)
		h2.PollOnce(ctx)
	}
	if !openIDs(t, st, "gpu02")["hub.agent_unreachable"] {
		t.Fatal("restarted hub does not see the agent go away")
	}
}

func TestBackoffBounded(t *testing.T) {
	h := &Hub{opts: Options{Interval: 15 * time.Second, MaxBackoff: 2 * time.Minute}}
	for _, c := range []struct {
		failures int
		want     time.Duration
	}{{1, 15 * time.Second}, {2, 30 * time.Second}, {3, time.Minute}, {4, 2 * time.Minute}, {5, 2 * time.Minute}, {100, 2 * time.Minute}} {
		if got := h.backoff(c.failures); got != c.want {
			t.Errorf("backoff after %d failures: %s, want %s", c.failures, got, c.want)
		}
	}
}

// TestBackoffAgainstDeadAgent polls an address where nothing answers
// HTTP (a listener that closes every connection) every interval for 20
// minutes: the attempts thin out, but never more than MaxBackoff apart.
func TestBackoffAgainstDeadAgent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	c := &clock{t: t0}
	addr := ln.Addr().String()
	h := newHub(t, c, Options{Targets: []Target{{Name: "dead", Base: "http://" + addr, Addr: addr}}, MaxBackoff: 2 * time.Minute})
	var attempts []time.Time
	for range 80 { // 20 minutes at 15 s
		before := conns.Load()
		h.PollOnce(context.Background())
		if conns.Load() > before {
			attempts = append(attempts, c.Now())
		}
		c.Add(15 * time.Second)
	}
	if len(attempts) < 10 || len(attempts) > 20 {
		t.Fatalf("%d attempts in 20 minutes: want fewer than every interval, at least every 2 minutes", len(attempts))
	}
	for i := 1; i < len(attempts); i++ {
		if gap := attempts[i].Sub(attempts[i-1]); gap > 2*time.Minute {
			t.Fatalf("attempts %s apart, above MaxBackoff", gap)
		}
	}
}

// TestInFlightBounded polls ten real agents, each of which holds its
// request a moment, with MaxInFlight 3.
func TestInFlightBounded(t *testing.T) {
	var cur, peak atomic.Int64
	slow := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := cur.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			cur.Add(-1)
			next.ServeHTTP(w, r)
		})
	}
	base := newSimAgent(t, "gpu00")
	var agents []*simAgent
	for i := range 10 {
		sa := &simAgent{t: t, host: "gpu" + string(rune('a'+i)), a: base.a, h: base.h, wrap: slow}
		sa.start("127.0.0.1:0")
		t.Cleanup(sa.stop)
		agents = append(agents, sa)
	}
	c := &clock{t: t0}
	h := newHub(t, c, Options{MaxInFlight: 3}, agents...)
	if err := h.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > 3 || p < 2 {
		t.Fatalf("peak of %d requests at once, want 2..3", p)
	}
	fl, _ := h.Data().Fleet(context.Background())
	for _, n := range fl.Nodes {
		if n.Error != "" {
			t.Fatalf("%s: %s", n.Host, n.Error)
		}
	}
}

// TestTimeout: an agent that answers after the timeout counts as a
// failed poll that says so.
func TestTimeout(t *testing.T) {
	sa := newSimAgent(t, "gpu01")
	sa.stop()
	sa.wrap = func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			next.ServeHTTP(w, r)
		})
	}
	sa.start(sa.addr)
	c := &clock{t: t0}
	h := newHub(t, c, Options{Timeout: 100 * time.Millisecond}, sa)
	start := time.Now()
	h.PollOnce(context.Background())
	if d := time.Since(start); d > time.Second {
		t.Fatalf("poll took %s with a 100 ms timeout", d)
	}
	fl, _ := h.Data().Fleet(context.Background())
	if !strings.Contains(fl.Nodes[0].Error, "no answer within 100ms") {
		t.Fatalf("error %q", fl.Nodes[0].Error)
	}
}

// TestHistorySteps: polls within one step are written as one sample
// with the worst health and the mean rates when the next step starts.
func TestHistorySteps(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	sa := newSimAgent(t, "gpu01")
	st, err := hubstore.Open(filepath.Join(t.TempDir(), "hub.db"), hubstore.Options{Retention: 12 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// 12 h over 720 points: one per minute.
	h := newHub(t, c, Options{Store: st, Interval: 15 * time.Second}, sa)
	if h.Step() != time.Minute {
		t.Fatalf("step %s", h.Step())
	}
	for range 4 {
		h.PollOnce(ctx)
		c.Add(15 * time.Second)
	}
	if ns, _ := st.NodeSamples(ctx, "gpu01", time.Time{}); len(ns) != 0 {
		t.Fatalf("a step in progress was written: %+v", ns)
	}
	sa.stop()
	h.PollOnce(ctx) // t0+1m: one failure is not yet recorded
	if ns, _ := st.NodeSamples(ctx, "gpu01", time.Time{}); len(ns) != 0 {
		t.Fatalf("one failed poll wrote history: %+v", ns)
	}
	c.Add(15 * time.Second)
	h.PollOnce(ctx) // the second: unreachable, in the next step
	ns, _ := st.NodeSamples(ctx, "gpu01", time.Time{})
	pr, _ := st.PortRates(ctx, "gpu01", time.Time{})
	if len(ns) != 1 || !ns[0].T.Equal(t0) || ns[0].Health != string(web.OK) || len(pr) != 1 || len(pr[0].Ports) == 0 {
		t.Fatalf("first step: samples %+v, rates %d", ns, len(pr))
	}
	h.Flush(ctx)
	ns, _ = st.NodeSamples(ctx, "gpu01", time.Time{})
	if len(ns) != 2 || ns[1].Health != string(web.Unreachable) || ns[1].Error == "" {
		t.Fatalf("second step: %+v", ns)
	}
	n, err := h.Data().Node(ctx, "gpu01")
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Series) == 0 || len(n.Series[0].Points) == 0 {
		t.Fatalf("node page has no series")
	}
}

// TestRestoredFindingsWaitForTheirNode: open findings of a host that is
// not polled yet (with --prometheus, nodes appear at discovery) are given
// to the node when it appears, so they close instead of being opened twice.
func TestRestoredFindingsWaitForTheirNode(t *testing.T) {
	ctx := context.Background()
	st, err := hubstore.Open(filepath.Join(t.TempDir(), "hub.db"), hubstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	row := &hubstore.FindingRow{Host: "node-b", Subject: "mlx5_0/1", Opened: t0,
		Finding: finding.Finding{ID: "port.down", Severity: finding.Critical, Subject: finding.Subject{Host: "node-b", Device: "mlx5_0", Port: 1}}}
	if err := st.Commit(ctx, &hubstore.Batch{Open: []*hubstore.FindingRow{row}}); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: t0.Add(time.Hour)}
	h := newHub(t, c, Options{Store: st})
	h.mu.Lock()
	n := h.addNode(Target{Name: "node-b", Base: "http://127.0.0.1:1", Addr: "127.0.0.1:1"})
	h.mu.Unlock()
	if len(n.open) != 1 {
		t.Fatalf("discovered node has %d open findings, want the restored one", len(n.open))
	}
	// A healthy poll closes it.
	b := &hubstore.Batch{}
	h.mu.Lock()
	h.sync(b, n, c.Now(), nil, false)
	h.mu.Unlock()
	if err := h.commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if open := openIDs(t, st, "node-b"); len(open) != 0 {
		t.Fatalf("still open: %v", open)
	}
}

// TestAgentWithoutSample: an agent that answers before its first sample
// is not unreachable; the node's health is unknown until it has one.
func TestAgentWithoutSample(t *testing.T) {
	ctx := context.Background()
	sr := simRootOf(t)
	a, err := agent.New(agent.Options{Read: func(context.Context) (*snapshot.Snapshot, error) {
		s := *sr.snap
		s.Host, s.Taken = "gpu07", time.Now()
		return &s, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	sa := &simAgent{t: t, host: "gpu07", a: a, h: a.Handler(agent.HandlerOptions{})}
	sa.start("127.0.0.1:0")
	t.Cleanup(sa.stop)
	c := &clock{t: t0}
	h := newHub(t, c, Options{}, sa)
	for range 3 {
		if err := h.PollOnce(ctx); err != nil {
			t.Fatal(err)
		}
		c.Add(15 * time.Second)
	}
	fl, _ := h.Data().Fleet(ctx)
	if n := fl.Nodes[0]; n.Health != web.Unknown || !strings.Contains(n.Error, "not read its node yet") || len(openIDs(t, h.st, "gpu07")) != 0 {
		t.Fatalf("agent without a sample: %+v, open %v", n, openIDs(t, h.st, "gpu07"))
	}
	if err := a.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	h.PollOnce(ctx)
	fl, _ = h.Data().Fleet(ctx)
	if n := fl.Nodes[0]; n.Health != web.OK || n.Error != "" {
		t.Fatalf("after the first sample: %+v", n)
	}
}
