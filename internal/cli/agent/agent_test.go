package agent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
)

func factory(env map[string]string) (*cmdutil.Factory, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cmdutil.Factory{Out: &out, ErrOut: &errOut, Now: time.Now, Getenv: func(k string) string { return env[k] }, Version: "test"}, &errOut
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(*Options) bool
		wantErr string
	}{
		{"defaults", nil, nil, func(o *Options) bool {
			return o.Listen == ":9315" && o.Interval == 15*time.Second && o.Root == "/" && o.Token == "" && o.StateDir == ""
		}, ""},
		{"token from the environment", nil, map[string]string{"IBDOCTOR_TOKEN": "s3"}, func(o *Options) bool { return o.Token == "s3" }, ""},
		{"flag token wins", []string{"--token", "flag"}, map[string]string{"IBDOCTOR_TOKEN": "s3"}, func(o *Options) bool { return o.Token == "flag" }, ""},
		{"all flags", []string{"--root", "/tmp/x", "--listen", "127.0.0.1:0", "--interval", "5s", "--state-dir", "/var/lib/ibdoctor", "--config", "c.yaml", "--expect", "e.yaml", "--format", "json"}, nil,
			func(o *Options) bool {
				return o.Root == "/tmp/x" && o.Listen == "127.0.0.1:0" && o.Interval == 5*time.Second && o.StateDir == "/var/lib/ibdoctor" && o.Config == "c.yaml" && o.Expect == "e.yaml" && o.Format == cmdutil.FormatJSON
			}, ""},
		{"perf backends", []string{"--perf-backends", "tcp,perftest", "--perf-rate-limit", "5e7", "--perf-max-duration", "20s"}, nil, func(o *Options) bool {
			return len(o.PerfBackends) == 2 && o.PerfBackends[1] == "perftest" && o.PerfRateLimit == 5e7 && o.PerfMaxDuration == 20*time.Second
		}, ""},
		{"perf backend default is tcp", nil, nil, func(o *Options) bool { return len(o.PerfBackends) == 1 && o.PerfBackends[0] == "tcp" }, ""},
		{"unknown perf backend", []string{"--perf-backends", "ssh"}, nil, nil, `unknown backend "ssh"`},
		{"negative rate limit", []string{"--perf-rate-limit", "-1"}, nil, nil, "--perf-rate-limit"},
		{"one thread by default, as node_exporter", nil, nil, func(o *Options) bool { return o.GoMaxProcs == 1 }, ""},
		{"GOMAXPROCS sets the default", nil, map[string]string{"GOMAXPROCS": "4"}, func(o *Options) bool { return o.GoMaxProcs == 4 }, ""},
		{"the flag wins over GOMAXPROCS", []string{"--gomaxprocs", "0"}, map[string]string{"GOMAXPROCS": "4"}, func(o *Options) bool { return o.GoMaxProcs == 0 }, ""},
		{"bad GOMAXPROCS", nil, map[string]string{"GOMAXPROCS": "many"}, nil, `GOMAXPROCS="many"`},
		{"negative gomaxprocs", []string{"--gomaxprocs", "-2"}, nil, nil, "--gomaxprocs -2"},
		{"interval too short", []string{"--interval", "100ms"}, nil, nil, "below 1s"},
		{"bad interval", []string{"--interval", "soon"}, nil, nil, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := factory(tt.env)
			var got *Options
			cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
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
			if !tt.check(got) {
				t.Errorf("options %+v", got)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(bad, []byte("window: 1m\nwindw: 2m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"config with an unknown key", Options{Root: dir, Config: bad, Interval: time.Second, Listen: "127.0.0.1:0"}, "agent.yaml: yaml: unmarshal errors:\n  line 2: field windw not found"},
		{"missing root", Options{Root: filepath.Join(dir, "nope"), Interval: time.Second, Listen: "127.0.0.1:0"}, "cannot open root"},
		{"missing config", Options{Root: dir, Config: filepath.Join(dir, "none.yaml"), Interval: time.Second}, "none.yaml"},
		{"root without sys/", Options{Root: dir, Interval: time.Second, Listen: "127.0.0.1:0"}, "root has no sys/ directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := factory(nil)
			tt.o.F = f
			err := Run(context.Background(), &tt.o)
			var ee *cmdutil.ExitError
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if !errors.As(err, &ee) || ee.Code != 3 {
				t.Errorf("exit code: %v", err)
			}
		})
	}
}

func TestRunServesAndStops(t *testing.T) {
	n, err := simnode.Build(simnode.Options{Profile: "roce-400g"})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := n.Write(root); err != nil {
		t.Fatal(err)
	}
	f, errOut := factory(nil)
	addr := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	o := &Options{F: f, Root: root, Listen: "127.0.0.1:0", Interval: time.Second, StateDir: t.TempDir(), GoMaxProcs: 1, Ready: func(a string) { addr <- a }}
	procs := runtime.GOMAXPROCS(0)
	go func() { done <- Run(ctx, o) }()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("agent exited: %v (%s)", err, errOut)
	case <-time.After(20 * time.Second):
		t.Fatal("agent did not start listening")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no fresh sample within 30 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	resp, err := http.Post(base+"/api/v1/perf/run", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("perf without a token configured: %d, want 403", resp.StatusCode)
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("while the agent runs: GOMAXPROCS %d, want 1", got)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("agent did not stop")
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("after the agent stopped: GOMAXPROCS %d, want %d back", got, procs)
	}
	if !strings.Contains(errOut.String(), "stopped") {
		t.Errorf("log: %s", errOut)
	}
}
