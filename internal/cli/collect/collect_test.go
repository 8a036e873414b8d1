package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

const fixture = "../../source/sysfs/testdata/node1"

func factory() (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &cmdutil.Factory{
		Out: out, ErrOut: errOut, Version: "v-test",
		Now:    func() time.Time { return time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC) },
		Getenv: func(string) string { return "" },
	}, out, errOut
}

func execute(f *cmdutil.Factory, args ...string) error {
	cmd := NewCmd(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(f.Out)
	cmd.SetErr(f.ErrOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.Execute()
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*cmdutil.ExitError); ok {
		return ee.Code
	}
	return -1
}

func TestCollect(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "node.tar.gz")
	f, stdout, _ := factory()
	if err := execute(f, "--root", fixture, "--out", out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wrote " + out, "for host gpu-node-017", "3 RDMA devices, 3 ports, 10 PCI functions, 1 GPU, 4 net devices"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if info, err := os.Stat(out); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("bundle %v, %v; want mode 0600", info, err)
	}
	s, err := sysfs.ReadRoot(context.Background(), out)
	if err != nil || len(s.Devices) != 3 || s.Host != "gpu-node-017" {
		t.Fatalf("reading the bundle back: %v, %v", s, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temp files left behind: %v", ents)
	}

	// A second run refuses to overwrite, --force overwrites.
	f, _, _ = factory()
	if err := execute(f, "--root", fixture, "--out", out); exitCode(err) != finding.ExitCannot || !strings.Contains(err.Error(), "--force") {
		t.Errorf("overwrite without --force: %v", err)
	}
	f, _, _ = factory()
	if err := execute(f, "--root", fixture, "--out", out, "--force", "--format", "json"); err != nil {
		t.Fatal(err)
	}
}

func TestCollectStdoutJSON(t *testing.T) {
	f, stdout, stderr := factory()
	if err := execute(f, "--root", fixture, "--out", "-", "--format", "json"); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(stdout.Bytes(), []byte{0x1f, 0x8b}) {
		t.Fatal("stdout is not the gzip bundle")
	}
	var sum struct {
		Out   string `json:"out"`
		Bytes int64  `json:"bytes"`
		Meta  struct {
			Host    string `json:"host"`
			Version string `json:"ibdoctor_version"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(stderr.Bytes(), &sum); err != nil {
		t.Fatalf("summary on stderr is not JSON: %v\n%s", err, stderr)
	}
	if sum.Out != "-" || sum.Bytes != int64(stdout.Len()) || sum.Meta.Host != "gpu-node-017" || sum.Meta.Version != "v-test" {
		t.Errorf("summary = %+v (bundle %d bytes)", sum, stdout.Len())
	}
}

func TestCollectErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"--root", fixture}, "--out is required"},
		{[]string{"--root", fixture, "--out", filepath.Join(dir, "x.zip")}, "FILE.tar.gz"},
		{[]string{"--root", dir, "--out", filepath.Join(dir, "x.tar.gz")}, "no sys/"},
		{[]string{"--root", filepath.Join(dir, "missing"), "--out", filepath.Join(dir, "y.tar.gz")}, "cannot open root"},
		{[]string{"--root", fixture, "--out", filepath.Join(dir, "nodir", "z.tar.gz")}, "no such file"},
		{[]string{"--root", fixture, "--out", "a.tar.gz", "extra"}, "unknown command"},
	}
	for _, tt := range tests {
		f, _, _ := factory()
		err := execute(f, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%v: err = %v, want %q", tt.args, err, tt.msg)
		}
		// Cobra's own argument errors are mapped to exit 3 by cli.Run.
		if tt.msg != "unknown command" && exitCode(err) != finding.ExitCannot {
			t.Errorf("%v: exit code %d, want %d", tt.args, exitCode(err), finding.ExitCannot)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed runs left files: %v", ents)
	}
}
