package fabric

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
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
		{"check", "--from", capture, "--ibsim", "sim0"},
		{"path", "1", "2", "--from", capture, "--ibsim", "sim0"},
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

// TestCheckOfflineNotConfirmed: leaf1 loses its entry for h3 (LID 7) in a
// copy of the capture; the critical route_missing says it could not be
// checked with ibtracert, the collection being offline.
func TestCheckOfflineNotConfirmed(t *testing.T) {
	dir := t.TempDir()
	ents, err := os.ReadDir(capture)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(capture, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "dump_fts.txt" {
			b = []byte(strings.Replace(string(b), "0x0007 005 : (Channel Adapter portguid 0x0000000000100005: 'h3')\n", "", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, code := run(t, "check", "--from", dir, "--format", "json")
	if code != 2 {
		t.Fatalf("exit %d", code)
	}
	var doc Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range doc.Findings {
		if f.ID == "fabric.route_missing" && f.Severity == finding.Critical {
			got = append(got, f.Summary)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "leaf1 has no forwarding entry for 1 destination LID (h3 (lid 7))") ||
		!strings.HasSuffix(got[0], " — not confirmed: offline collection") {
		t.Errorf("critical route_missing: %q", got)
	}
}

// TestGapLines: counter gaps are summed up per tool, reason and cause;
// --verbose lists each.
func TestGapLines(t *testing.T) {
	var gaps []fabricrules.Gap
	for sw := 2; sw <= 4; sw++ {
		for p := 1; p <= 3; p++ {
			gaps = append(gaps, fabricrules.Gap{Source: "ibqueryerrors", Kind: "pma_query_failed", Node: fmt.Sprintf("spine%d", sw), NodeType: "Switch", LID: sw, Port: p,
				Reason: fmt.Sprintf("port counters of spine%d LID %d port %d could not be read", sw, sw, p), Cause: fabricrules.NoRouteCause})
		}
	}
	gaps = append(gaps,
		fabricrules.Gap{Source: "ibqueryerrors", Kind: "pma_query_failed", Node: "h1", NodeType: "CA", LID: 9, Port: 1, Reason: "port counters of h1 LID 9 port 1 could not be read"},
		fabricrules.Gap{Source: "sminfo", Reason: "not collected"})
	tests := []struct {
		name    string
		verbose bool
		want    []string
	}{
		{"summary", false, []string{
			"sminfo: not collected",
			"ibqueryerrors: counters of 3 switches (9 ports) could not be read: " + fabricrules.NoRouteCause,
			"ibqueryerrors: port counters of h1 LID 9 port 1 could not be read",
			"(every port: --verbose, or --format json)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, gapLines(gaps, tt.verbose)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	// Nothing summed up: no pointer to the full list.
	if l := gapLines(gaps[len(gaps)-2:], false); len(l) != 2 || strings.Contains(strings.Join(l, "\n"), "--verbose") {
		t.Errorf("single gaps: %q", l)
	}
	if n := len(gapLines(gaps, true)); n != len(gaps) {
		t.Errorf("verbose: %d lines for %d gaps", n, len(gaps))
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

// TestGoldenManySwitches: the text report of a fabric with many switches
// and many gaps (testdata/README.md) names one cause per finding and sums
// the 64 counter gaps up in two lines: apart from the finding blocks it
// fits in a few lines.
func TestGoldenManySwitches(t *testing.T) {
	out, _, code := run(t, "check", "--from", "testdata/manyswitches.tar.gz")
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	// The source path is the argument: keep it stable.
	golden := filepath.Join("testdata", "manyswitches.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), out); d != "" {
		t.Errorf("report differs from %s (-want +got):\n%s", golden, d)
	}
	// Lines outside the finding blocks (a block runs from its severity
	// line to the blank line after it).
	outside, inBlock := 0, false
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "CRITICAL ") || strings.HasPrefix(l, "WARNING ") || strings.HasPrefix(l, "INFO "):
			inBlock = true
		case l == "":
			inBlock = false
			outside++
		case !inBlock:
			outside++
		}
	}
	if outside > 12 {
		t.Errorf("%d lines outside the finding blocks, want at most 12:\n%s", outside, out)
	}
	if n := strings.Count(out, "\nCRITICAL fabric.route_missing"); n != 1 {
		t.Errorf("%d critical route_missing blocks, want 1 (one cause)", n)
	}
}

// A host without RDMA ports (or a collection without a topology) judged
// nothing: exit 3, never HEALTHY, and the JSON document is printed with
// verdict "not_judged" and what was missing.
func TestCheckNoTopologyNotJudged(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ibnetdiscover.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"check", "diff"} {
		args := []string{cmd, "--from", dir}
		if cmd == "diff" {
			plan := filepath.Join(dir, "plan.txt")
			if err := os.WriteFile(plan, []byte("h1 1 leaf1 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--plan", plan)
		}
		text, _, code := run(t, args...)
		if code != 3 || strings.Contains(text, "HEALTHY") || !strings.Contains(text, "NOT JUDGED") {
			t.Errorf("%s: exit %d:\n%s", cmd, code, text)
		}
		out, _, code := run(t, append(args, "--format", "json")...)
		var doc Document
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 3 {
			t.Fatalf("%s: exit %d, %v:\n%s", cmd, code, err, out)
		}
		if doc.Verdict != finding.VerdictNotJudged || doc.ExitCode != 3 || !strings.Contains(doc.NotJudged, "no fabric topology") || doc.Findings == nil {
			t.Errorf("%s: document %s", cmd, out)
		}
	}
}
