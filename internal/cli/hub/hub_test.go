package hub

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

func factory(env map[string]string) (*cmdutil.Factory, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cmdutil.Factory{Out: &out, ErrOut: &errOut, Now: time.Now, Getenv: func(k string) string { return env[k] }, Version: "test"}, &errOut
}

func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(*Options) bool
		wantErr string
	}{
		{"defaults", []string{"--agents", "a.txt"}, nil, func(o *Options) bool {
			return o.Listen == "127.0.0.1:9316" && o.Interval == 15*time.Second && o.DB == "ibdoctor-hub.db" && o.retention == 14*24*time.Hour && o.MaxInFlight == 64 && o.Token == ""
		}, ""},
		{"token from the environment", []string{"--agents", "a.txt"}, map[string]string{"IBDOCTOR_TOKEN": "s3"}, func(o *Options) bool { return o.Token == "s3" }, ""},
		{"retention in hours", []string{"--prometheus", "http://p:9090", "--retention", "36h"}, nil, func(o *Options) bool { return o.retention == 36*time.Hour }, ""},
		{"fabric and perf only", []string{"--fabric-from", "f.tgz", "--perf-from", "runs"}, nil, func(o *Options) bool { return o.FabricFrom == "f.tgz" }, ""},
		{"agents and prometheus", []string{"--agents", "a.txt", "--prometheus", "http://p:9090"}, nil, nil, "--agents and --prometheus exclude each other"},
		{"fabric from and live", []string{"--agents", "a.txt", "--fabric-from", "x", "--fabric-live"}, nil, nil, "--fabric-from and --fabric-live exclude each other"},
		{"nothing", nil, nil, nil, "nothing to watch"},
		{"prometheus not a URL", []string{"--prometheus", "prometheus:9090"}, nil, nil, "--prometheus"},
		{"interval", []string{"--agents", "a.txt", "--interval", "500ms"}, nil, nil, "below 1s"},
		{"retention days", []string{"--agents", "a.txt", "--retention", "0d"}, nil, nil, "whole number of days"},
		{"retention garbage", []string{"--agents", "a.txt", "--retention", "soon"}, nil, nil, "--retention"},
		{"retention below interval", []string{"--agents", "a.txt", "--retention", "10s"}, nil, nil, "shorter than --interval"},
		{"in flight", []string{"--agents", "a.txt", "--max-in-flight", "0"}, nil, nil, "--max-in-flight"},
		{"fabric every", []string{"--agents", "a.txt", "--fabric-live", "--fabric-every", "5s"}, nil, nil, "below 1m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := factory(tt.env)
			var got *Options
			cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				var ee *cmdutil.ExitError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ee) || ee.Code != 3 {
					t.Fatalf("error %v, want exit 3 with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}

func TestBadAgentsFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "agents.txt")
	os.WriteFile(p, []byte("gpu01:9315\n# comment\ngpu02\n"), 0o600)
	f, _ := factory(nil)
	o := &Options{F: f, Agents: p, DB: filepath.Join(dir, "hub.db"), Listen: "127.0.0.1:0", Interval: time.Second, Timeout: time.Second, MaxInFlight: 4, Retention: "1d"}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	err := Run(context.Background(), o)
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || !strings.Contains(err.Error(), p+" line 3") {
		t.Fatalf("error %v, want exit 3 naming %s line 3", err, p)
	}
}

// TestRunServesAPI runs the command against a real agent on a simulated
// node, with a saved fabric collection, and reads the API.
func TestRunServesAPI(t *testing.T) {
	n, err := simnode.Build(simnode.Options{Host: "h1"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := n.Write(filepath.Join(dir, "root")); err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(filepath.Join(dir, "root"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, err := agent.New(agent.Options{Read: agent.RootSource(r, nil), Ethtool: agent.EthtoolFor(r)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	aln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go agent.Serve(ctx, aln, a.Handler(agent.HandlerOptions{}))
	agents := filepath.Join(dir, "agents.txt")
	os.WriteFile(agents, []byte(aln.Addr().String()+" h1\n"), 0o600)
	f, errOut := factory(nil)
	ready := make(chan string, 1)
	o := &Options{F: f, Agents: agents, DB: filepath.Join(dir, "hub.db"), Listen: "127.0.0.1:0", Interval: time.Second, Timeout: 2 * time.Second,
		MaxInFlight: 4, Retention: "1h", FabricFrom: "../../rules/fabric/testdata/spineleaf", Ready: func(addr string) { ready <- addr }}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("hub exited: %v\n%s", err, errOut)
	case <-time.After(30 * time.Second):
		t.Fatal("hub did not listen within 30 s")
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := get("/api/v1/nodes/h1")
		if code == 200 && strings.Contains(body, `"Group": "leaf1"`) && strings.Contains(body, `"Health": "ok"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node h1 not polled within 30 s: %d %s\n%s", code, body, errOut)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code, body := get("/api/v1/fabric"); code != 200 || !strings.Contains(body, "spine1") {
		t.Fatalf("fabric: %d %s", code, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hub stopped with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("hub did not stop")
	}
	if !strings.Contains(errOut.String(), "ibdoctor hub: stopped") {
		t.Errorf("log: %s", errOut)
	}
}
