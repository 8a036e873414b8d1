package fabric

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
)

const capture = "../../rules/fabric/testdata/spineleaf"

func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	f := &cmdutil.Factory{Out: out, ErrOut: errOut, Now: func() time.Time { return time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) }}
	cmd := NewCmd(f)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	code := 0
	var ee *cmdutil.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.Code
		if ee.Err != nil {
			errOut.WriteString(ee.Err.Error())
		}
	case err != nil:
		code = -1
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), code
}

func TestCheckFromCapture(t *testing.T) {
	out, _, code := run(t, "check", "--from", capture, "--format", "json")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (critical)", code)
	}
	var doc Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, f := range doc.Findings {
		ids[f.ID+"/"+string(f.Severity)]++
	}
	want := map[string]int{"fabric.link_degraded/critical": 1, "fabric.route_missing/warning": 1, "fabric.congestion/warning": 1, "fabric.link_errors/warning": 2}
	if len(ids) != len(want) {
		t.Errorf("findings %v, want %v", ids, want)
	}
	for k, n := range want {
		if ids[k] != n {
			t.Errorf("%s: %d, want %d", k, ids[k], n)
		}
	}
	if doc.Summary != (Summary{Switches: 4, CAs: 4, Links: 8, Tables: 4}) || len(doc.Gaps) != 8 || doc.Verdict == "" {
		t.Errorf("summary %+v, %d gaps, verdict %q", doc.Summary, len(doc.Gaps), doc.Verdict)
	}
	quiet, _, code := run(t, "check", "--from", capture, "--no-routing", "--threshold", "xmit_wait=100000", "--threshold", "link_downed=10", "--threshold", "link_error_recovery=10")
	if code != 2 || strings.Contains(quiet, "fabric.congestion") || strings.Contains(quiet, "fabric.link_errors") {
		t.Errorf("thresholds not applied (exit %d):\n%s", code, quiet)
	}
	text, _, code := run(t, "check", "--from", capture, "--no-routing")
	if code != 2 || !strings.Contains(text, "fabric.link_degraded") || strings.Contains(text, "route_missing") || !strings.Contains(text, "gaps: 8") {
		t.Errorf("text (exit %d):\n%s", code, text)
	}
}

func TestDiffAndPath(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.txt")
	if err := os.WriteFile(plan, []byte("leaf1 1 h2 1\nleaf1 2 h1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "diff", "--from", capture, "--plan", plan)
	if code != 2 || !strings.Contains(out, "fabric.cable_miswired") || !strings.Contains(out, "fabric.cable_unexpected") {
		t.Errorf("diff (exit %d):\n%s", code, out)
	}
	out, _, code = run(t, "path", "h1", "h4", "--from", capture)
	if code != 0 || !strings.HasPrefix(out, "From ca {0x0000000000100000} portnum 1 lid 2-2 \"h1\"") || !strings.Contains(out, "To ca {0x0000000000100006}") {
		t.Errorf("path (exit %d):\n%s", code, out)
	}
	// spine1 has no entry for spine2's LID (3) in the capture.
	out, _, code = run(t, "path", "spine1", "3", "--from", capture, "--format", "json")
	var pr PathResult
	if code != 2 || json.Unmarshal([]byte(out), &pr) != nil || pr.OK || !strings.Contains(pr.Error, "no forwarding entry for lid 3") {
		t.Errorf("broken path (exit %d): %s", code, out)
	}
}

func TestBadArguments(t *testing.T) {
	tests := [][]string{
		{"diff", "--from", capture},
		{"collect"},
		{"check", "--from", "/nonexistent"},
		{"check", "--from", capture, "--plan", "/nonexistent"},
		{"path", "h1", "nosuchnode", "--from", capture},
		{"check", "--ca", "mlx5_0;reboot", "--from", ""},
		{"check", "--from", capture, "--threshold", "symbol_errors"},
		{"check", "--from", capture, "--threshold", "bogus=1"},
	}
	for _, args := range tests {
		_, errOut, code := run(t, args...)
		if code != 3 || errOut == "" {
			t.Errorf("%v: exit %d (%q), want 3 with a message", args, code, errOut)
		}
	}
}

func TestCollectFromSaved(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "copy.tar.gz")
	out, _, code := run(t, "collect", "--from", capture, "--out", dst)
	if code != 0 || !strings.Contains(out, "saved 5 of 5") {
		t.Fatalf("collect (exit %d): %s", code, out)
	}
	if _, _, code := run(t, "check", "--from", dst, "--no-routing"); code != 2 {
		t.Errorf("check of the re-saved tarball: exit %d", code)
	}
	out, _, code = run(t, "collect", "--from", capture, "--out", filepath.Join(t.TempDir(), "dir"), "--format", "json")
	var sum struct {
		Saved   int
		Outputs []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.Saved != 5 || len(sum.Outputs) != 5 {
		t.Errorf("collect --format json: exit %d, %v, %+v", code, err, sum)
	}
}
