package perf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
)

func testFactory(env map[string]string) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cmdutil.Factory{
		Out: &out, ErrOut: &errOut,
		Now:    func() time.Time { return time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC) },
		Getenv: func(k string) string { return env[k] },
	}, &out, &errOut
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return -1
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPairwiseFlags(t *testing.T) {
	hosts := writeFile(t, "hosts", "127.0.0.2:1\n127.0.0.3:1\n")
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, o *PairwiseOptions)
	}{
		{name: "token from env", args: []string{"--hosts", hosts}, env: map[string]string{"IBDOCTOR_TOKEN": "t"},
			check: func(t *testing.T, o *PairwiseOptions) {
				want := pairwise.Test{Backend: "tcp", Kind: "bw", DurationMS: 5000, Size: 128 << 10, Streams: 1}
				if d := cmp.Diff(want, o.Test); d != "" || o.Token != "t" || o.Pattern != "full" {
					t.Errorf("token %q pattern %q test (-want +got)\n%s", o.Token, o.Pattern, d)
				}
			}},
		{name: "perftest", args: []string{"--hosts", hosts, "--token", "x", "--backend", "perftest", "--device", "mlx5_1", "--gid-index", "3", "--duration", "2s"},
			check: func(t *testing.T, o *PairwiseOptions) {
				p := o.Test.Perftest
				if p == nil || p.Device != "mlx5_1" || p.GIDIndex == nil || *p.GIDIndex != 3 || p.IBPort != 1 || o.Test.Size != 65536 {
					t.Errorf("perftest settings %+v test %+v", p, o.Test)
				}
			}},
		{name: "perftest without gid", args: []string{"--hosts", hosts, "--token", "x", "--backend", "perftest", "--device", "mlx5_1"},
			check: func(t *testing.T, o *PairwiseOptions) {
				if o.Test.Perftest.GIDIndex != nil {
					t.Errorf("gid index set without --gid-index")
				}
			}},
		{name: "no hosts", args: []string{"--token", "x"}, wantErr: "give the agents with --hosts FILE"},
		{name: "hosts and from-agents", args: []string{"--token", "x", "--hosts", hosts, "--from-agents", "http://127.0.0.1:9090"}, wantErr: "not both"},
		{name: "from-agents", args: []string{"--token", "x", "--from-agents", "http://127.0.0.1:9090", "--agents-job", "ib"},
			check: func(t *testing.T, o *PairwiseOptions) {
				if o.FromAgents != "http://127.0.0.1:9090" || o.AgentsJob != "ib" || o.HostsFile != "" {
					t.Errorf("from-agents options %+v", o)
				}
			}},
		{name: "no token", args: []string{"--hosts", hosts}, wantErr: "no token"},
		{name: "pattern needs topology", args: []string{"--hosts", hosts, "--token", "x", "--pattern", "rail"}, wantErr: "needs --topology"},
		{name: "bad pattern", args: []string{"--hosts", hosts, "--token", "x", "--pattern", "star"}, wantErr: "--pattern \"star\""},
		{name: "perftest needs device", args: []string{"--hosts", hosts, "--token", "x", "--backend", "perftest"}, wantErr: "needs --device"},
		{name: "bad device", args: []string{"--hosts", hosts, "--token", "x", "--backend", "perftest", "--device", "mlx5_0;id"}, wantErr: "device"},
		{name: "bad backend", args: []string{"--hosts", hosts, "--token", "x", "--backend", "ssh"}, wantErr: "backend"},
		{name: "bad repeat", args: []string{"--hosts", hosts, "--token", "x", "--repeat", "0"}, wantErr: "--repeat 0"},
		{name: "bad fraction", args: []string{"--hosts", hosts, "--token", "x", "--slow-fraction", "1.5"}, wantErr: "slow-fraction"},
		{name: "too short", args: []string{"--hosts", hosts, "--token", "x", "--duration", "1ms"}, wantErr: "duration"},
		{name: "bad format", args: []string{"--hosts", hosts, "--token", "x", "--format", "xml"}, wantErr: "unknown format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := testFactory(tt.env)
			var got *PairwiseOptions
			cmd := NewCmdPairwise(f, func(o *PairwiseOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
		})
	}
}

// startAgents serves the perf API on the given loopback addresses and
// returns a hosts file naming them.
func startAgents(t *testing.T, limits map[string]float64, ips ...string) string {
	t.Helper()
	var lines []string
	for _, ip := range ips {
		ln, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Skipf("cannot listen on %s: %v", ip, err)
		}
		limit := 50e6 // healthy agents are capped too: loopback speed swings with machine load
		if l, ok := limits[ip]; ok {
			limit = l
		}
		srv := &http.Server{Handler: pairwise.NewServer(pairwise.ServerOptions{Token: "tok", RateLimit: limit}), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		lines = append(lines, ln.Addr().String()+" node-"+strings.TrimPrefix(ip, "127.0.0."))
	}
	return writeFile(t, "hosts", "# test agents\n"+strings.Join(lines, "\n")+"\n")
}

func TestPairwiseRunJSON(t *testing.T) {
	hosts := startAgents(t, map[string]float64{"127.0.0.13": 2.5e6}, "127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.14")
	out := filepath.Join(t.TempDir(), "result.json")
	f, stdout, _ := testFactory(map[string]string{"IBDOCTOR_TOKEN": "tok"})
	cmd := NewCmdPairwise(f, nil)
	cmd.SetArgs([]string{"--hosts", hosts, "--duration", "200ms", "--repeat", "3", "--format", "json", "--slow-fraction", "0.2", "--out", out})
	err := cmd.Execute()
	if code := exitCode(err); code != 2 {
		t.Fatalf("exit %d (%v), want 2 (critical finding)", code, err)
	}
	var rep pairwise.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "perf.node_slow" || rep.Findings[0].Subject.Host != "node-13" {
		t.Errorf("findings %+v, want perf.node_slow on node-13 only", rep.Findings)
	}
	saved, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(saved, stdout.Bytes()) {
		t.Errorf("--out differs from stdout (%v)", err)
	}
}

func TestPairwiseInterrupted(t *testing.T) {
	hosts := startAgents(t, nil, "127.0.0.21", "127.0.0.22", "127.0.0.23")
	out := filepath.Join(t.TempDir(), "partial.json")
	f, stdout, stderr := testFactory(nil)
	cmd := NewCmdPairwise(f, func(o *PairwiseOptions) error {
		// Ctrl-C before the run: nothing measured, the file still written.
		o.Interrupt = func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}
		return pairwiseRun(o)
	})
	cmd.SetArgs([]string{"--hosts", hosts, "--token", "tok", "--duration", "100ms", "--format", "csv", "--out", out})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "interrupted: 0 of 3 pairs measured") {
		t.Errorf("stderr %q", stderr.String())
	}
	if stdout.String() != "round,a,b,backend,kind,gbps,latency_median_us,latency_p99_us,error\n" {
		t.Errorf("csv %q", stdout.String())
	}
	var rep pairwise.Report
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil || !rep.Matrix.Interrupted || rep.Matrix.Planned != 3 {
		t.Errorf("--out %s: %v", b, err)
	}
}

func TestPairwiseBadHostsFile(t *testing.T) {
	hosts := writeFile(t, "hosts", "127.0.0.2:1\n127.0.0.3:99999\n")
	f, _, _ := testFactory(nil)
	cmd := NewCmdPairwise(f, nil)
	cmd.SetArgs([]string{"--hosts", hosts, "--token", "x"})
	err := cmd.Execute()
	if exitCode(err) != 3 || !strings.Contains(err.Error(), hosts+" line 2") {
		t.Fatalf("err = %v, want exit 3 naming %s line 2", err, hosts)
	}
}

func TestPairwiseCrossLeafText(t *testing.T) {
	hosts := startAgents(t, nil, "127.0.0.31", "127.0.0.32", "127.0.0.33", "127.0.0.34")
	topo := writeFile(t, "topo", "node-31 leafA\nnode-32 leafA\nnode-33 leaf=leafB spine=s1\nnode-34 leafB\n")
	f, stdout, stderr := testFactory(map[string]string{"IBDOCTOR_TOKEN": "tok"})
	f.IsTTY = true
	cmd := NewCmdPairwise(f, nil)
	// Slow fraction 0.2: loopback under machine load is noisy, and this
	// test is about the pattern and the output.
	cmd.SetArgs([]string{"--hosts", hosts, "--topology", topo, "--pattern", "cross-leaf", "--duration", "200ms", "--repeat", "3", "--slow-fraction", "0.2"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out := stdout.String()
	// Two leaves of two hosts: one round, node-31 with node-33 and
	// node-32 with node-34, nothing inside a leaf.
	for _, want := range []string{
		"pairwise tcp bw test, pattern cross-leaf: 4 nodes, 2 of 2 pairs measured in 1 rounds",
		"round 1: 2 pairs in",
		"no slow node, pair, link or switch found",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "  1 node-31") {
			// Columns: self, node-32 (same leaf, untested), node-33, node-34 (untested).
			if f := strings.Fields(l); len(f) != 6 || f[2] != "-" || f[3] != "." || f[5] != "." {
				t.Errorf("row of node-31 %q", l)
			}
		}
	}
	if !strings.Contains(stderr.String(), "] 2/2 pairs") {
		t.Errorf("no progress bar on a terminal: %q", stderr.String())
	}
}

func TestPairwisePatternWithoutPlacedHosts(t *testing.T) {
	hosts := writeFile(t, "hosts", "127.0.0.2:1\n127.0.0.3:1\n")
	topo := writeFile(t, "topo", "other1 leafA\nother2 leafB\n")
	f, _, _ := testFactory(nil)
	cmd := NewCmdPairwise(f, nil)
	cmd.SetArgs([]string{"--hosts", hosts, "--token", "x", "--topology", topo, "--pattern", "same-leaf"})
	err := cmd.Execute()
	if exitCode(err) != 3 || !strings.Contains(err.Error(), "no pair to test") {
		t.Fatalf("err = %v, want exit 3 'no pair to test'", err)
	}
}

func TestPairwisePreflight(t *testing.T) {
	hosts := startAgents(t, nil, "127.0.0.51", "127.0.0.52")
	// A third agent that is not listening: a warning, its pairs fail.
	dead := writeFile(t, "hosts", strings.TrimSpace(readAll(t, hosts))+"\n127.0.0.53:1 node-53\n")
	tests := []struct {
		name     string
		hosts    string
		args     []string
		wantCode int
		wantErr  []string
	}{
		{"wrong token", hosts, []string{"--token", "nope"}, 3, []string{
			"line 2: agent node-51 (127.0.0.51:", "error: agent answered 401", "2 of 2 agents cannot run the tcp test"}},
		{"backend not enabled", hosts, []string{"--token", "tok", "--backend", "perftest", "--device", "mlx5_0"}, 3, []string{
			"error: backend perftest is not enabled there (enabled: tcp)"}},
		{"longer than the agents allow", hosts, []string{"--token", "tok", "--duration", "2m"}, 3, []string{
			"error: tests longer than 1m0s are refused there"}},
		{"unreachable agent", dead, []string{"--token", "tok"}, 2, []string{
			"line 4: agent node-53 (127.0.0.53:1): warning: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := testFactory(nil)
			cmd := NewCmdPairwise(f, nil)
			cmd.SetArgs(append([]string{"--hosts", tt.hosts, "--duration", "100ms"}, tt.args...))
			err := cmd.Execute()
			if code := exitCode(err); code != tt.wantCode {
				t.Fatalf("exit %d (%v), want %d\n%s", code, err, tt.wantCode, stderr.String())
			}
			all := stderr.String()
			if err != nil {
				all += err.Error()
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(all, w) {
					t.Errorf("stderr lacks %q:\n%s", w, all)
				}
			}
			if tt.wantCode == 2 && !strings.Contains(stdout.String(), "perf.node_failed") {
				t.Errorf("unreachable agent not reported as node_failed:\n%s", stdout.String())
			}
		})
	}
}

func readAll(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
