package analyze_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli"
	analyzecmd "github.com/ibdoctor/ibdoctor/internal/cli/analyze"
	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/diagnose/analyze"
)

func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmdutil.Factory{
		In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut,
		Now:     func() time.Time { return time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC) },
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return nil },
		Version: "test",
	}
	code := cli.Run(f, args)
	return out.String(), errOut.String(), code
}

const corpus = "../../diagnose/analyze/testdata/"

var update = flag.Bool("update", false, "rewrite golden files")

// The text report of a typical ticket paste, byte for byte.
func TestAnalyzeTicketGolden(t *testing.T) {
	out, errOut, code := run(t, "", "analyze", "testdata/ticket.txt")
	if code != 2 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if *update {
		if err := os.WriteFile("testdata/ticket.golden", []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/ticket.golden")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("report differs from testdata/ticket.golden (-update to rewrite):\n%s", out)
	}
}

func TestAnalyzeText(t *testing.T) {
	out, errOut, code := run(t, "", "analyze", corpus+"ibstat-cx6-ib-down-nccl-tests-128.txt", corpus+"dmesg-T-flaps.txt")
	if code != 1 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		// Disabled without a LID beside ACTIVE ports: maybe off on purpose.
		"analyze: WARNING (2 warning) — 2 files, 2 outputs",
		"lines 1-44      ibstat           3 HCAs, 3 ports (2 ACTIVE) — 1 warning",
		"dmesg            5 kernel messages — 1 warning",
		"WARNING  port.disabled  mlx5_1 port 1",
		"evidence: " + corpus + "ibstat-cx6-ib-down-nccl-tests-128.txt:27 = Physical state: Disabled",
		"next:     ibportstate -C mlx5_1 -P 1 -D 0 1 enable", // the device named, not the first HCA
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestAnalyzeJSONFromStdin(t *testing.T) {
	paste, err := os.ReadFile(corpus + "ibstat-ibpanic-gpud-752.txt")
	if err != nil {
		t.Fatal(err)
	}
	flaps, _ := os.ReadFile(corpus + "dmesg-T-flaps.txt")
	out, _, code := run(t, strings.ReplaceAll(string(paste)+string(flaps), "\n", "\r\n"), "analyze", "--format", "json", "-")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	var doc struct {
		Files []struct {
			File     string
			Segments []struct {
				Kind, Lines, Summary string
				Skipped              []string
				Findings             []json.RawMessage
			}
		}
		Findings []struct {
			ID      string
			Subject struct{ File string }
		}
		Verdict  string
		ExitCode int `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "null") {
		t.Errorf("JSON holds null:\n%s", out)
	}
	if len(doc.Files) != 1 || doc.Files[0].File != "stdin" || len(doc.Files[0].Segments) != 3 {
		t.Fatalf("files %+v", doc.Files)
	}
	ibstat := doc.Files[0].Segments[1]
	if ibstat.Kind != "ibstat" || ibstat.Lines != "3-20" || ibstat.Summary != "1 HCA, 1 port (1 ACTIVE)" || !strings.Contains(strings.Join(ibstat.Skipped, "\n"), "stdin:20: the tool crashed here (ibpanic)") {
		t.Errorf("ibstat segment %+v", ibstat)
	}
	if doc.Verdict != "warning" || doc.ExitCode != 1 || len(doc.Findings) != 1 || doc.Findings[0].ID != "kmsg.link_flap" || doc.Findings[0].Subject.File != "stdin" {
		t.Errorf("verdict %q exit %d findings %+v", doc.Verdict, doc.ExitCode, doc.Findings)
	}
}

func TestAnalyzeNotRecognised(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "frag.txt")
	if err := os.WriteFile(p, []byte("Physical state: LinkUp\nRate: 200\nSpeed: fast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "", "analyze", p, filepath.Join(dir, "missing.txt"))
	if code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	for _, want := range []string{"frag.txt: not recognised as the output of any tool ibdoctor reads; closest: ibstat (score 66/100)", "analyze: NOT ANALYSED (exit 3) — 2 files, 0 outputs", "missing.txt: could not be read: open "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Forcing the kind does not make a fragment parse: still exit 3 (a
	// fragment with a State line is read: analyze's TestMessyPastes).
	if _, _, code := run(t, "", "analyze", "--kind", "ibstat", p); code != 3 {
		t.Errorf("--kind ibstat on a fragment: exit %d, want 3", code)
	}
}

func TestAnalyzeFlags(t *testing.T) {
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"analyze"}, 3, "give at least one FILE"},
		{[]string{"analyze", "--kind", "ibstats", "x"}, 3, `--kind "ibstats" is not a known kind`},
		{[]string{"analyze", "--line-rate", "-1", "x"}, 3, "must not be negative"},
		{[]string{"analyze", "-", "-"}, 3, "standard input (-) can be read once"},
		{[]string{"analyze", "--format", "yaml", "x"}, 3, "format"},
		{[]string{"analyze", "--expect", "/nonexistent.yaml", corpus + "sminfo-master.txt"}, 3, "nonexistent.yaml"},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, "", tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.err) {
			t.Errorf("%v: exit %d stderr %q, want %d and %q", tt.args, code, errOut, tt.code, tt.err)
		}
	}
}

func TestAnalyzeKindList(t *testing.T) {
	out, _, code := run(t, "", "analyze", "--kind", "list")
	if code != 0 || !strings.Contains(out, "ibv_devinfo") || !strings.Contains(out, "nccl-tests") || strings.Count(out, "\n") != len(analyze.Kinds) {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, _, _ = run(t, "", "analyze", "--kind", "list", "--format", "json")
	var kinds []struct{ Kind, Description string }
	if err := json.Unmarshal([]byte(out), &kinds); err != nil || len(kinds) != len(analyze.Kinds) {
		t.Errorf("json kinds %v %v", kinds, err)
	}
}

func TestAnalyzeLineRateJudgesPerftest(t *testing.T) {
	out, _, code := run(t, "", "analyze", "--line-rate", "100", "--format", "json", corpus+"perftest132-write-a-gbits-cut.txt")
	if code == 3 || !strings.Contains(out, `"perf.`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if strings.Contains(out, "bandwidth not judged") {
		t.Errorf("--line-rate not passed on:\n%s", out)
	}
}

// --expect judges HCA outputs against a baseline, as check does.
func TestAnalyzeExpect(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, yaml string
		code       int
		ids        string
	}{
		{"a device missing", "version: 1\ndevices:\n  - name: mlx5_*\n    count: 4\n", 2, "port.disabled port.missing"},
		{"the down port ignored", "version: 1\ndevices:\n  - name: mlx5_1\n    ports:\n      - port: 1\n        ignore: true\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			if err := os.WriteFile(p, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "", "analyze", "--expect", p, "--format", "json", corpus+"ibstat-cx6-ib-down-nccl-tests-128.txt")
			var doc struct{ Findings []struct{ ID string } }
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v: %s %s", err, out, errOut)
			}
			var ids []string
			for _, f := range doc.Findings {
				ids = append(ids, f.ID)
			}
			slices.Sort(ids)
			if code != tt.code || strings.Join(ids, " ") != tt.ids {
				t.Errorf("exit %d findings %v, want %d %q", code, ids, tt.code, tt.ids)
			}
		})
	}
}

// RunE hands the parsed flags to the run function.
func TestAnalyzeOptions(t *testing.T) {
	var got *analyzecmd.Options
	f := &cmdutil.Factory{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	cmd := analyzecmd.NewCmd(f, func(o *analyzecmd.Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--kind", "dmesg", "--line-rate", "400", "--expect-busbw", "360", "--expect", "e.yaml", "--format", "json", "a.txt", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Kind != "dmesg" || got.LineRate != 400 || got.ExpectBusBW != 360 || got.Expect != "e.yaml" ||
		got.Format != cmdutil.FormatJSON || !slices.Equal(got.Files, []string{"a.txt", "-"}) {
		t.Errorf("options %+v", got)
	}
}

// --root: a simulated node's RDMA devices make a socket fallback critical,
// and its ports give perftest the line rate.
func TestAnalyzeRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "node")
	if _, errOut, code := run(t, "", "sim", "node", "--out", root); code != 0 {
		t.Fatalf("sim node: exit %d %s", code, errOut)
	}
	out, errOut, code := run(t, "", "analyze", "--root", root, "--format", "json", corpus+"nccl952-socket-channels.log", corpus+"perftest132-write-a-gbits-cut.txt")
	if code != 2 {
		t.Fatalf("exit %d, want 2: %s %s", code, errOut, out)
	}
	var doc struct {
		Findings []struct{ ID, Severity string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(doc.Findings, func(f struct{ ID, Severity string }) bool {
		return f.ID == "nccl.socket_fallback" && f.Severity == "critical"
	}) {
		t.Errorf("findings %+v, want a critical nccl.socket_fallback", doc.Findings)
	}
	if !strings.Contains(out, "taken from") || !strings.Contains(out, "in --root "+root) {
		t.Errorf("perftest line rate not taken from --root:\n%s", out)
	}
	if _, errOut, code := run(t, "", "analyze", "--root", filepath.Join(root, "missing"), corpus+"sminfo-master.txt"); code != 3 || !strings.Contains(errOut, "--root") {
		t.Errorf("missing root: exit %d %q", code, errOut)
	}
}
