package agent

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/store"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// liveNode writes a simulated node to a temp dir and returns a driver that
// advances the scenario and rewrites the files.
type liveNode struct {
	t    *testing.T
	dir  string
	live *simnode.Live
	root *rootfs.Root
}

func newLiveNode(t *testing.T, profile, scenario string) *liveNode {
	t.Helper()
	n, err := simnode.Build(simnode.Options{Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := simnode.ScenarioByName(scenario)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := n.Write(dir); err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return &liveNode{t: t, dir: dir, live: simnode.NewLive(n, sc), root: r}
}

func (l *liveNode) now() time.Time { return t0.Add(l.live.Elapsed) }

func (l *liveNode) step(d time.Duration) {
	l.live.Step(d)
	if _, err := l.live.Node.Update(l.dir); err != nil {
		l.t.Fatal(err)
	}
}

func (l *liveNode) agent(t *testing.T, st *store.Store, interval time.Duration, th trend.Thresholds) *Agent {
	a, err := New(Options{Read: RootSource(l.root, l.now), Ethtool: EthtoolFor(l.root), Interval: interval, Thresholds: &th, Store: st, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// shortWindows judges over 30 s so a 90 s scenario has two windows.
func shortWindows() trend.Thresholds {
	th := trend.Defaults()
	th.Window = trend.Duration(30 * time.Second)
	return th
}

func findingsOf(v *View) map[string]bool {
	out := map[string]bool{}
	for _, a := range v.Active {
		out[a.Finding.ID+" "+a.Finding.Subject.Device] = true
	}
	return out
}

func TestMixedScenarioEndToEnd(t *testing.T) {
	l := newLiveNode(t, "h100-ndr", "mixed")
	a := l.agent(t, nil, 10*time.Second, shortWindows())
	ctx := context.Background()
	var maxOOB float64
	for i := 0; i <= 9; i++ { // 0..90 s
		if i > 0 {
			l.step(10 * time.Second)
		}
		if err := a.Sample(ctx); err != nil {
			t.Fatal(err)
		}
		for _, r := range a.View().Rates {
			// The first interval holds the scenario's jump of the counter to
			// 5000 below 2^32: a real rise, not a wrap; judge from 20 s on.
			if r.Device == "mlx5_5" && r.Name == "out_of_buffer" && l.live.Elapsed >= 20*time.Second {
				if !r.Rate.Known() || r.Rate.PerSecond < 0 {
					t.Fatalf("at %s out_of_buffer rate %+v: the 32-bit wrap must give a known rate", l.live.Elapsed, r.Rate)
				}
				maxOOB = max(maxOOB, r.Rate.PerSecond)
			}
			if r.Device == "mlx5_4" && r.Rate.Known() && r.Rate.PerSecond > 1e12 {
				t.Fatalf("reset produced an absurd rate on mlx5_4 %s: %v", r.Name, r.Rate)
			}
		}
	}
	if maxOOB < 900 || maxOOB > 1100 {
		t.Errorf("out_of_buffer peak rate %.0f/s, want about 1000/s across the wrap", maxOOB)
	}
	got := findingsOf(a.View())
	for _, want := range []string{"port.link_flapping mlx5_3", "port.symbol_errors mlx5_2", "rdma.out_of_buffer mlx5_5"} {
		if !got[want] {
			t.Errorf("missing %s; have %v", want, got)
		}
	}
	for k := range got {
		if strings.HasSuffix(k, " mlx5_4") {
			t.Errorf("counter reset on mlx5_4 raised %s", k)
		}
	}
}

func TestStateSurvivesRestart(t *testing.T) {
	l := newLiveNode(t, "h100-ndr", "flap")
	dir := t.TempDir()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := l.agent(t, st, 10*time.Second, shortWindows())
	ctx := context.Background()
	for i := 0; i <= 8; i++ {
		if i > 0 {
			l.step(10 * time.Second)
		}
		if err := a.Sample(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var first time.Time
	for _, f := range a.View().Active {
		if f.Finding.ID == "port.link_flapping" {
			first = f.FirstSeen
		}
	}
	if first.IsZero() {
		t.Fatalf("no flapping finding before restart: %v", findingsOf(a.View()))
	}
	st.Close()

	st, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := l.agent(t, st, 10*time.Second, shortWindows())
	l.step(10 * time.Second)
	if err := b.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	var again time.Time
	for _, f := range b.View().Active {
		if f.Finding.ID == "port.link_flapping" {
			again = f.FirstSeen
		}
	}
	if !again.Equal(first) {
		t.Errorf("first seen after restart %v, want %v (flap history and first-seen must survive)", again, first)
	}
	// The restored window gives rates at once.
	if len(b.View().Rates) == 0 {
		t.Error("no rates on the first sample after a restart: history not restored")
	}
}

func TestHTTP(t *testing.T) {
	l := newLiveNode(t, "roce-400g", "traffic")
	a := l.agent(t, nil, 5*time.Second, shortWindows())
	h := a.Handler(HandlerOptions{})
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("/api/v1/health"); code != 503 || !strings.Contains(body, `"verdict": "not_judged"`) || !strings.Contains(body, `"not_judged": "no sample read yet"`) {
		t.Errorf("health before the first sample: %d %s", code, body)
	}
	if code, _ := get("/healthz"); code != 503 {
		t.Errorf("healthz before the first sample: %d", code)
	}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if i > 0 {
			l.step(5 * time.Second)
		}
		if err := a.Sample(ctx); err != nil {
			t.Fatal(err)
		}
	}
	code, body := get("/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{"ibdoctor_port_xmit_bytes_total{", `link_layer="Ethernet"`, "ibdoctor_port_data_rate_bytes_per_second{", "ibdoctor_build_info{", "ibdoctor_source_up{source=\"ethtool\"} 1", "ibdoctor_port_ethtool_total{", "ibdoctor_process_resident_memory_bytes"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// gzip: the cached sample part and the per-scrape part are two gzip
	// members of one stream.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	h.ServeHTTP(rec, req)
	zr, err := gzip.NewReader(rec.Body)
	if err != nil || rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip /metrics: %v %v", err, rec.Header())
	}
	unz, err := io.ReadAll(zr)
	if err != nil || string(unz) != body && !(strings.Contains(string(unz), "ibdoctor_port_xmit_bytes_total{") && strings.Contains(string(unz), "ibdoctor_process_resident_memory_bytes")) {
		t.Errorf("gzip body differs: %v", err)
	}
	code, body = get("/api/v1/health")
	var hl Health
	if err := json.Unmarshal([]byte(body), &hl); err != nil {
		t.Fatal(err)
	}
	if (hl.ExitCode == 2) != (code == 503) || hl.Verdict == "not_judged" || hl.Host == "" {
		t.Errorf("health %d: %+v", code, hl)
	}
	code, body = get("/api/v1/ports")
	var ps Ports
	if err := json.Unmarshal([]byte(body), &ps); err != nil || code != 200 {
		t.Fatalf("ports %d: %v", code, err)
	}
	var sawData bool
	for _, p := range ps.Ports {
		for _, r := range p.Rates {
			if r.Name == "port_xmit_data" && r.PerSecond != nil && *r.PerSecond > 1e9 {
				sawData = true
			}
		}
	}
	if len(ps.Ports) == 0 || !sawData || ps.Interval != 5 {
		t.Errorf("ports: %d ports, data rate seen %v, interval %v", len(ps.Ports), sawData, ps.Interval)
	}
}

func TestGuard(t *testing.T) {
	perf := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ran") })
	a, err := New(Options{Read: fakeRead})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, token, method, path, auth string
		want                            int
	}{
		{"read without token", "", "GET", "/api/v1/health", "", 503},
		{"post to a read endpoint", "", "POST", "/api/v1/health", "", 405},
		{"perf refused read-only", "", "GET", "/api/v1/perf/info", "", 403},
		{"perf without auth", "s3cret", "POST", "/api/v1/perf/run", "", 401},
		{"perf wrong token", "s3cret", "POST", "/api/v1/perf/run", "Bearer nope", 401},
		{"perf with token", "s3cret", "POST", "/api/v1/perf/run", "Bearer s3cret", 200},
		{"unknown path", "", "GET", "/nope", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := a.Handler(HandlerOptions{Token: tt.token, Perf: perf})
			req := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("%s %s: %d, want %d (%s)", tt.method, tt.path, rec.Code, tt.want, rec.Body.String())
			}
		})
	}
}

func TestReadFailureKeepsLastSample(t *testing.T) {
	a, err := New(Options{Read: fakeRead})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.opts.Read = func(context.Context) (*snapshot.Snapshot, error) { return nil, io.ErrUnexpectedEOF }
	if err := a.Sample(context.Background()); err == nil {
		t.Fatal("read failure not returned")
	}
	v := a.View()
	if v.Snapshot == nil || v.SourceUp["sysfs"] || v.CollectErrors["sys"] != 1 {
		t.Errorf("after a failed read: snapshot kept %v, sysfs up %v, errors %v", v.Snapshot != nil, v.SourceUp["sysfs"], v.CollectErrors)
	}
}

// fakeRead is a one-port node built in code, for tests that need no
// changing files.
func fakeRead(context.Context) (*snapshot.Snapshot, error) {
	active := ib.StateActive
	rate := ib.NewRate(4, ib.SpeedNDR)
	return &snapshot.Snapshot{Host: "gpu001", Taken: t0, Devices: []snapshot.Device{{Name: "mlx5_0", Ports: []snapshot.Port{{
		Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &active, Rate: &rate}}}}}, nil
}
