package pairwise

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"
)

const testToken = "s3cret-token"

// startAgent serves the perf API on ip (a 127.0.0.x address) and returns
// the agent as a hosts-file entry.
func startAgent(t *testing.T, ip string, opts ServerOptions) Host {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	srv := &http.Server{Handler: NewServer(opts), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return Host{Addr: ln.Addr().String(), Name: ip}
}

func post(t *testing.T, h Host, path, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+h.Addr+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const tcpBW = `{"test":{"backend":"tcp","kind":"bw","duration_ms":100}}`

func TestServerAuth(t *testing.T) {
	open := startAgent(t, "127.0.0.1", ServerOptions{})
	agent := startAgent(t, "127.0.0.1", ServerOptions{Token: testToken})
	tests := []struct {
		name     string
		h        Host
		token    string
		wantCode int
		wantBody string
	}{
		{"no token configured", open, testToken, http.StatusForbidden, "has no token"},
		{"no token configured, none sent", open, "", http.StatusForbidden, "has no token"},
		{"missing token", agent, "", http.StatusUnauthorized, "missing or wrong token"},
		{"wrong token", agent, "s3cret-tokeN", http.StatusUnauthorized, "missing or wrong token"},
		{"prefix of token", agent, "s3cret", http.StatusUnauthorized, "missing or wrong token"},
		{"right token", agent, testToken, http.StatusOK, `"port":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, tt.h, PathServer, tt.token, tcpBW)
			if code != tt.wantCode || !strings.Contains(body, tt.wantBody) {
				t.Errorf("got %d %s, want %d with %q", code, body, tt.wantCode, tt.wantBody)
			}
		})
	}
}

func TestServerValidation(t *testing.T) {
	agent := startAgent(t, "127.0.0.1", ServerOptions{Token: testToken, MaxDuration: 10 * time.Second})
	tests := []struct {
		name, path, body string
		wantCode         int
		wantBody         string
	}{
		{"unknown field", PathServer, `{"test":{"backend":"tcp","kind":"bw","duration_ms":100,"cmd":"sh"}}`, 400, "unknown field"},
		{"two values", PathServer, tcpBW + tcpBW, 400, "more than one"},
		{"not json", PathServer, `backend=tcp`, 400, "request body"},
		{"too big", PathServer, `{"test":{"backend":"` + strings.Repeat("x", maxBody) + `"}}`, 400, "too large"},
		{"backend", PathServer, `{"test":{"backend":"ssh","kind":"bw","duration_ms":100}}`, 400, "ssh"},
		{"backend not enabled", PathServer, `{"test":{"backend":"perftest","kind":"bw","duration_ms":1000,"perftest":{"device":"mlx5_0"}}}`, 400, "not enabled"},
		{"kind", PathServer, `{"test":{"backend":"tcp","kind":"iops","duration_ms":100}}`, 400, "kind"},
		{"duration long", PathServer, `{"test":{"backend":"tcp","kind":"bw","duration_ms":60000}}`, 400, "duration 1m0s out of range"},
		{"duration short", PathServer, `{"test":{"backend":"tcp","kind":"bw","duration_ms":1}}`, 400, "duration"},
		{"streams", PathServer, `{"test":{"backend":"tcp","kind":"bw","duration_ms":100,"streams":1000}}`, 400, "streams"},
		{"size", PathServer, `{"test":{"backend":"tcp","kind":"bw","duration_ms":100,"size":-5}}`, 400, "size"},
		{"client peer", PathClient, `{"test":{"backend":"tcp","kind":"bw","duration_ms":100},"peer":"-x","port":1,"key":"00112233445566778899aabbccddeeff"}`, 400, "peer"},
		{"client port", PathClient, `{"test":{"backend":"tcp","kind":"bw","duration_ms":100},"peer":"127.0.0.1","port":0,"key":"00112233445566778899aabbccddeeff"}`, 400, "port 0"},
		{"client key", PathClient, `{"test":{"backend":"tcp","kind":"bw","duration_ms":100},"peer":"127.0.0.1","port":9,"key":"zz"}`, 400, "key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, agent, tt.path, testToken, tt.body)
			if code != tt.wantCode || !strings.Contains(body, tt.wantBody) {
				t.Errorf("got %d %s, want %d with %q", code, body, tt.wantCode, tt.wantBody)
			}
		})
	}
	// GET on a POST endpoint.
	req, _ := http.NewRequest(http.MethodGet, "http://"+agent.Addr+PathServer, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET %s = %d, want 405", PathServer, resp.StatusCode)
	}
}

func TestServerBusy(t *testing.T) {
	agent := startAgent(t, "127.0.0.1", ServerOptions{Token: testToken, AcceptTimeout: 300 * time.Millisecond})
	if code, body := post(t, agent, PathServer, testToken, tcpBW); code != 200 {
		t.Fatalf("first: %d %s", code, body)
	}
	code, body := post(t, agent, PathServer, testToken, tcpBW)
	if code != http.StatusConflict || !strings.Contains(body, "busy") {
		t.Fatalf("second while the first waits: %d %s, want 409", code, body)
	}
	// Nobody connects: the server side gives up after AcceptTimeout and
	// the agent is free again.
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, _ = post(t, agent, PathServer, testToken, tcpBW)
		if code == 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code != 200 {
		t.Fatalf("agent still busy after the accept timeout: %d", code)
	}
}

// TestPairwiseTCP runs the whole path: four agents on 127.0.0.2-5, one of
// them throttled to 2.5 MB/s (0.02 Gb/s), a full round-robin over the tcp
// backend, and culprit inference that must name the throttled node and
// nothing else. Unthrottled loopback speed swings with the load of the
// build machine (1.7 to 38 Gb/s seen in one run), so the healthy agents are
// capped at 50 MB/s (0.4 Gb/s), which a loaded machine still reaches, and
// the slow fraction is 0.2: the throttled node is 20 times slower, a
// healthy pair would have to lose 80%.
func TestPairwiseTCP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real TCP tests for about a second")
	}
	var hosts []Host
	for i, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		opts := ServerOptions{Token: testToken, RateLimit: 50e6}
		if i == 2 {
			opts.RateLimit = 2.5e6
		}
		hosts = append(hosts, startAgent(t, ip, opts))
	}
	var mu sync.Mutex
	var progress []int
	r := &Runner{
		Token: testToken, Hosts: hosts,
		Test: Test{Backend: BackendTCP, Kind: KindBW, DurationMS: 200},
		// Three runs per pair, median kept: a stall of the loaded build
		// machine during one run must not fail the test.
		Repeat:   3,
		Progress: func(done, total int) { mu.Lock(); progress = append(progress, done); mu.Unlock() },
	}
	m, err := r.Run(context.Background(), RoundRobin(len(hosts)))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pairs) != 6 || len(m.Rounds) != 3 || m.Interrupted {
		t.Fatalf("pairs %d rounds %d interrupted %v", len(m.Pairs), len(m.Rounds), m.Interrupted)
	}
	for _, p := range m.Pairs {
		if p.Result == nil {
			t.Fatalf("%s → %s failed: %s", p.A, p.B, p.Error)
		}
		throttled := p.A == "127.0.0.4" || p.B == "127.0.0.4"
		gbps := p.Result.BitsPerSecond / 1e9
		t.Logf("%s → %s: %.3f Gb/s", p.A, p.B, gbps)
		if throttled && (gbps > 0.04 || gbps < 0.005) {
			t.Errorf("throttled pair %s → %s: %.3f Gb/s, want about 0.02", p.A, p.B, gbps)
		}
		if !throttled && (gbps < 0.1 || gbps > 0.6) {
			t.Errorf("pair %s → %s: %.3f Gb/s, want about 0.4", p.A, p.B, gbps)
		}
	}
	for _, p := range m.Pairs {
		if p.Runs != 3 {
			t.Errorf("%s → %s: %d runs, want 3", p.A, p.B, p.Runs)
		}
	}
	if d := cmp.Diff([]int{1, 2, 3, 4, 5, 6}, slices.Sorted(slices.Values(progress))); d != "" {
		t.Errorf("progress (-want +got)\n%s", d)
	}
	fs := pairwiserules.Check(m.Input(nil), pairwiserules.Options{SlowFraction: 0.2})
	if d := cmp.Diff([]got{{"perf.node_slow", "127.0.0.4"}}, summarize(fs)); d != "" {
		t.Errorf("findings (-want +got)\n%s", d)
	}
}

func TestPairwiseTCPLatency(t *testing.T) {
	a := startAgent(t, "127.0.0.2", ServerOptions{Token: testToken})
	b := startAgent(t, "127.0.0.3", ServerOptions{Token: testToken})
	r := &Runner{Token: testToken, Hosts: []Host{a, b}, Test: Test{Backend: BackendTCP, Kind: KindLat, DurationMS: 100}}
	m, err := r.Run(context.Background(), RoundRobin(2))
	if err != nil {
		t.Fatal(err)
	}
	res := m.Pairs[0].Result
	if res == nil {
		t.Fatal(m.Pairs[0].Error)
	}
	if res.Samples < 10 || res.LatencyMedianUS <= 0 || res.LatencyP99US < res.LatencyMedianUS {
		t.Errorf("latency result %+v", res)
	}
}

func TestRunnerWrongToken(t *testing.T) {
	a := startAgent(t, "127.0.0.2", ServerOptions{Token: testToken})
	b := startAgent(t, "127.0.0.3", ServerOptions{Token: testToken})
	r := &Runner{Token: "wrong", Hosts: []Host{a, b}, Test: Test{Backend: BackendTCP, Kind: KindBW, DurationMS: 100}}
	m, err := r.Run(context.Background(), RoundRobin(2))
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Pairs[0]; p.Result != nil || !strings.Contains(p.Error, "401") {
		t.Errorf("pair %+v, want a 401 error", p)
	}
}

func TestRunnerInterrupted(t *testing.T) {
	var hosts []Host
	for _, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		hosts = append(hosts, startAgent(t, ip, ServerOptions{Token: testToken}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{Token: testToken, Hosts: hosts, Test: Test{Backend: BackendTCP, Kind: KindBW, DurationMS: 100},
		Progress: func(done, _ int) {
			if done == 2 {
				cancel() // as SIGINT would, after the first round
			}
		}}
	m, err := r.Run(ctx, RoundRobin(4))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Pairs {
		t.Logf("%s → %s: %v %s", p.A, p.B, p.Result, p.Error)
	}
	if !m.Interrupted || len(m.Pairs) != 2 || m.Planned != 6 {
		t.Errorf("interrupted %v pairs %d planned %d, want true 2 6", m.Interrupted, len(m.Pairs), m.Planned)
	}
}

// fakeExec replays perftest outputs and records the argv it was given.
type fakeExec struct {
	mu    sync.Mutex
	argvs [][]string
	out   map[string]string // by role: "server", "client"
}

func (f *fakeExec) Start(_ context.Context, argv []string) (Process, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.argvs = append(f.argvs, argv)
	role := "client"
	if !strings.Contains(argv[len(argv)-1], ".") {
		role = "server" // no peer address at the end
	}
	return fakeProc{bytes.NewReader([]byte(f.out[role]))}, nil
}

type fakeProc struct{ r io.Reader }

func (p fakeProc) Output() io.Reader { return p.r }
func (p fakeProc) Wait() error       { return nil }

func TestPairwisePerftest(t *testing.T) {
	fx := &fakeExec{out: map[string]string{
		"server": readTestdata(t, "perftest/server_waiting.txt"),
		"client": readTestdata(t, "perftest/ib_write_bw_spark_q4.txt"),
	}}
	opts := ServerOptions{Token: testToken, Backends: []string{BackendPerftest}, Exec: fx}
	a := startAgent(t, "127.0.0.2", opts)
	b := startAgent(t, "127.0.0.3", opts)
	r := &Runner{Token: testToken, Hosts: []Host{a, b}, Test: Test{Backend: BackendPerftest, Kind: KindBW, DurationMS: 5000, Streams: 4,
		Perftest: &PerftestParams{Device: "rocep1s0f1", GIDIndex: intp(3)}}}
	m, err := r.Run(context.Background(), RoundRobin(2))
	if err != nil {
		t.Fatal(err)
	}
	res := m.Pairs[0].Result
	if res == nil {
		t.Fatal(m.Pairs[0].Error)
	}
	if res.BitsPerSecond != 111.71e9 {
		t.Errorf("bandwidth %v, want 111.71e9", res.BitsPerSecond)
	}
	if len(fx.argvs) != 2 {
		t.Fatalf("argvs %q", fx.argvs)
	}
	srv, cli := fx.argvs[0], fx.argvs[1]
	port := srv[slices.Index(srv, "-p")+1]
	want := []string{"ib_write_bw", "-d", "rocep1s0f1", "-i", "1", "-x", "3", "-s", "65536", "-D", "5", "-q", "4", "-p", port, "--report_gbits", "-F"}
	if d := cmp.Diff(want, srv); d != "" {
		t.Errorf("server argv (-want +got)\n%s", d)
	}
	// The client connects to the server's address: B of the pair.
	if d := cmp.Diff(append(want, m.Pairs[0].B), cli); d != "" {
		t.Errorf("client argv (-want +got)\n%s", d)
	}
}

func TestPerftestServerNeverListens(t *testing.T) {
	fx := &fakeExec{out: map[string]string{"server": "Couldn't get device attributes\nUnable to open the device\n"}}
	agent := startAgent(t, "127.0.0.1", ServerOptions{Token: testToken, Backends: []string{BackendPerftest}, Exec: fx})
	body := `{"test":{"backend":"perftest","kind":"bw","duration_ms":1000,"perftest":{"device":"mlx5_9"}}}`
	code, resp := post(t, agent, PathServer, testToken, body)
	if code != 500 || !strings.Contains(resp, "exited before listening") || !strings.Contains(resp, "Unable to open the device") {
		t.Fatalf("got %d %s", code, resp)
	}
	// The agent is free again once the process is gone.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		code, _ = post(t, agent, PathServer, testToken, body)
		if code != http.StatusConflict {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code == http.StatusConflict {
		t.Fatal("agent stayed busy")
	}
}

func TestInfoEndpoint(t *testing.T) {
	agent := startAgent(t, "127.0.0.1", ServerOptions{Token: testToken, RateLimit: 1e6})
	req, _ := http.NewRequest(http.MethodGet, "http://"+agent.Addr+PathInfo, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info InfoResponse
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(InfoResponse{Backends: []string{"tcp"}, MaxDurationMS: 60000, RateLimit: 1e6}, info); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}

func TestStopServer(t *testing.T) {
	agent := startAgent(t, "127.0.0.1", ServerOptions{Token: testToken})
	code, body := post(t, agent, PathServer, testToken, tcpBW)
	if code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	var sr ServerResponse
	if err := json.Unmarshal([]byte(body), &sr); err != nil {
		t.Fatal(err)
	}
	del := func(port string) int {
		req, _ := http.NewRequest(http.MethodDelete, "http://"+agent.Addr+PathServer+"/"+port, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := del("1"); c != http.StatusNotFound {
		t.Errorf("DELETE of an unknown port: %d, want 404", c)
	}
	if c := del("x"); c != http.StatusBadRequest {
		t.Errorf("DELETE of a non-number: %d, want 400", c)
	}
	if c := del(fmt.Sprint(sr.Port)); c != http.StatusOK {
		t.Fatalf("DELETE: %d", c)
	}
	// Free again well before the 30 s accept timeout.
	deadline := time.Now().Add(2 * time.Second)
	for code = 0; code != 200 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		code, _ = post(t, agent, PathServer, testToken, tcpBW)
	}
	if code != 200 {
		t.Fatalf("agent still busy after DELETE: %d", code)
	}
}

// TestDeadAgent: one agent of four does not answer. Its pairs fail and it
// is perf.node_failed; its partners' server sides are stopped at once, so
// no other pair fails and the run does not wait for accept timeouts.
func TestDeadAgent(t *testing.T) {
	var hosts []Host
	for _, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"} {
		// Capped, as in TestPairwiseTCP, so load cannot fake a slow pair.
		hosts = append(hosts, startAgent(t, ip, ServerOptions{Token: testToken, RateLimit: 50e6}))
	}
	ln, err := net.Listen("tcp", "127.0.0.5:0")
	if err != nil {
		t.Skip(err)
	}
	deadAddr := ln.Addr().String()
	ln.Close() // nothing listens there now
	hosts = append(hosts, Host{Addr: deadAddr, Name: "dead"})
	r := &Runner{Token: testToken, Hosts: hosts, Test: Test{Backend: BackendTCP, Kind: KindBW, DurationMS: 200}, Repeat: 3}
	if probs := r.Preflight(context.Background()); len(probs) != 1 || probs[0].Host.Name != "dead" || probs[0].Fatal {
		t.Errorf("preflight %+v, want one non-fatal problem for dead", probs)
	}
	start := time.Now()
	m, err := r.Run(context.Background(), RoundRobin(4))
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("run took %v", el)
	}
	for _, p := range m.Pairs {
		if p.Result != nil {
			t.Logf("%s → %s: %.3f Gb/s", p.A, p.B, p.Result.BitsPerSecond/1e9)
		}
		dead := p.A == "dead" || p.B == "dead"
		if dead != (p.Result == nil) {
			t.Errorf("%s → %s: result %v error %q", p.A, p.B, p.Result, p.Error)
		}
	}
	// Slow fraction 0.2 as in TestPairwiseTCP: this test is about failures.
	if d := cmp.Diff([]got{{"perf.node_failed", "dead"}}, summarize(pairwiserules.Check(m.Input(nil), pairwiserules.Options{SlowFraction: 0.2}))); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}
