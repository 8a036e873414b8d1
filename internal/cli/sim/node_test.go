package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

func factory() (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &cmdutil.Factory{
		Out: out, ErrOut: errOut, Now: time.Now,
		Getenv: func(string) string { return "" },
	}, out, errOut
}

// execNode runs `sim node` with args through the real flag parsing and run
// function, and returns the exit code as cli.Run would.
func execNode(t *testing.T, args []string, tweak func(*NodeOptions)) (int, string, string) {
	t.Helper()
	f, out, errOut := factory()
	cmd := NewCmdNode(f, func(o *NodeOptions) error {
		if tweak != nil {
			tweak(o)
		}
		return RunNode(o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	code := finding.ExitHealthy
	if err != nil {
		code = finding.ExitCannot
		var ee *cmdutil.ExitError
		if errors.As(err, &ee) {
			code = ee.Code
		}
		errOut.WriteString(err.Error())
	}
	return code, out.String(), errOut.String()
}

func TestNodeWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	code, out, errOut := execNode(t, []string{"--out", dir, "--profile", "a100-hdr", "--host", "gpu017",
		"--fault", "width:mlx5_2/1=2", "--fault", "missing:mlx5_7"}, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"wrote " + dir + ": profile a100-hdr, host gpu017, ",
		"  fault width:mlx5_2/1=2\n",
		"mlx5_2  0000:",
		"100 Gb/sec (2X HDR)",
		"mlx5_7  ",
		"absent",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "sys/class/infiniband/mlx5_2/ports/1/rate"))
	if err != nil || string(b) != "100 Gb/sec (2X HDR)\n" {
		t.Errorf("rate %q %v", b, err)
	}
	if h, _ := os.ReadFile(filepath.Join(dir, "proc/sys/kernel/hostname")); string(h) != "gpu017\n" {
		t.Errorf("hostname %q", h)
	}
	// A second write into the same directory is refused, then forced.
	code, _, errOut = execNode(t, []string{"--out", dir}, nil)
	if code != finding.ExitCannot || !strings.Contains(errOut, "is not empty") || !strings.Contains(errOut, "--force") {
		t.Errorf("non-empty --out: exit %d %q", code, errOut)
	}
	code, _, errOut = execNode(t, []string{"--out", dir, "--force", "--format", "json"}, nil)
	if code != 0 {
		t.Fatalf("--force: exit %d %s", code, errOut)
	}
	if _, err := os.Lstat(filepath.Join(dir, "sys/class/infiniband/mlx5_8")); err != nil {
		t.Errorf("forced h100 write lacks mlx5_8: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "sys/class/infiniband/mlx5_7")); err != nil {
		t.Errorf("stale missing fault survived --force: %v", err)
	}
}

func TestNodeJSON(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := execNode(t, []string{"--out", dir, "--format", "json", "--fault", "down:mlx5_8/1"}, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Profile string `json:"profile"`
		Files   int    `json:"files"`
		Faults  []struct {
			Kind, Target string
		} `json:"faults"`
		Devices []struct {
			Device, State, Rate, NetDev string
			Present                     bool
		} `json:"devices"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if s.Profile != "h100-ndr" || s.Files < 2000 || len(s.Devices) != 10 || len(s.Faults) != 1 || s.Faults[0].Target != "mlx5_8/1" {
		t.Errorf("summary %+v", s)
	}
	d := s.Devices[8]
	if d.Device != "mlx5_8" || d.State != "DOWN/Disabled" || d.Rate != "40 Gb/sec (4X QDR)" || d.NetDev != "ens1f0np0" || !d.Present {
		t.Errorf("mlx5_8 %+v", d)
	}
}

func TestNodeList(t *testing.T) {
	code, out, _ := execNode(t, []string{"--list"}, nil)
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"h100-ndr (default)", "a100-hdr", "roce-400g", "down:DEV/PORT", "e.g. --fault saturate:mlx5_1/1/symbol_error", "LIVE SCENARIOS", "  mixed\n", "  wrap\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("--list lacks %q", want)
		}
	}
	code, out, _ = execNode(t, []string{"--list", "--format", "json"}, nil)
	var l struct {
		Profiles  []struct{ Name string }
		Faults    []struct{ Name, Syntax, Example string }
		Scenarios []struct{ Name string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l.Profiles) != 3 || len(l.Faults) < 20 || len(l.Scenarios) < 6 {
		t.Errorf("--list json: %d %+v", code, l)
	}
}

func TestNodeFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{}, "--out DIR is required"},
		{[]string{"--out", "x", "--fault", "explode:mlx5_0/1"}, `unknown kind "explode"`},
		{[]string{"--out", "x", "--fault", "width:mlx5_2/1=3"}, "want 1, 2, 4, 8 or 12"},
		{[]string{"--out", "x", "--live", "--interval", "0s"}, "--interval must be positive"},
		{[]string{"--out", "x", "--scenario", "wrap"}, "need --live"},
		{[]string{"--out", "x", "--live", "--scenario", "storm"}, `unknown scenario "storm"`},
		{[]string{"--out", "x", "--format", "yaml"}, "unknown format"},
	}
	for _, c := range cases {
		code, _, errOut := execNode(t, c.args, nil)
		if code != finding.ExitCannot || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, %q; want 3 and %q", c.args, code, errOut, c.msg)
		}
	}
	// Faults that do not fit the profile fail at build time, naming the fault.
	dir := t.TempDir()
	code, _, errOut := execNode(t, []string{"--out", dir, "--profile", "a100-hdr", "--fault", "down:mlx5_9/1"}, nil)
	if code != finding.ExitCannot || !strings.Contains(errOut, `fault "down:mlx5_9/1"`) || !strings.Contains(errOut, "mlx5_9") {
		t.Errorf("unfit fault: %d %q", code, errOut)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a failed build wrote %d entries", len(ents))
	}
}

// TestNodeLive runs the wrap scenario for 8 simulated seconds without
// waiting: the root on disk shows the 32-bit Q counter after its wrap.
func TestNodeLive(t *testing.T) {
	dir := t.TempDir()
	steps := 0
	code, _, errOut := execNode(t, []string{"--out", dir, "--live", "--scenario", "wrap", "--interval", "2s", "--duration", "8s"},
		func(o *NodeOptions) {
			o.Sleep = func(context.Context, time.Duration) error { steps++; return nil }
		})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if steps != 4 {
		t.Errorf("%d steps of 2s in 8s", steps)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sys/class/infiniband/mlx5_5/ports/1/hw_counters/out_of_buffer"))
	// 2^32-5000 set at the first step, +1000/s for the 6 s after it.
	if err != nil || string(b) != "1000\n" {
		t.Errorf("out_of_buffer after the wrap: %q %v", b, err)
	}
	for _, want := range []string{"live: scenario wrap, every 2s", "live: t=0s mlx5_5/1 hw_counters/out_of_buffer set", "live: stopped after 8s"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}
