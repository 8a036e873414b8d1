package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
)

var update = flag.Bool("update", false, "rewrite golden files")

// run executes ibdoctor in-process and returns stdout, stderr and the exit
// code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmdutil.Factory{
		In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Now:     func() time.Time { return time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC) },
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return nil },
		Version: "test",
	}
	code := Run(f, args)
	return out.String(), errOut.String(), code
}

// simRoot writes a simulated node with faults and returns its directory.
func simRoot(t *testing.T, profile string, faults ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "root")
	if err := simNode(t, profile, faults...).Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// simBundle writes a simulated node as a bundle .tar.gz and returns its
// path: much faster than writing its thousands of files to a directory.
func simBundle(t *testing.T, profile string, faults ...string) string {
	t.Helper()
	n := simNode(t, profile, faults...)
	p := filepath.Join(t.TempDir(), "node.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(n.WriteTarGz(f), f.Close()); err != nil {
		t.Fatal(err)
	}
	return p
}

func simNode(t *testing.T, profile string, faults ...string) *simnode.Node {
	t.Helper()
	var fs []simnode.Fault
	for _, s := range faults {
		f, err := simnode.ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	n, err := simnode.Build(simnode.Options{Profile: profile, Host: "gpu017", Faults: fs})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func checkJSON(t *testing.T, args ...string) (report.Document, int) {
	t.Helper()
	out, stderr, code := run(t, append([]string{"check", "--format", "json"}, args...)...)
	var doc report.Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("check JSON: %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
	return doc, code
}

func findingKeys(doc report.Document) []string {
	var ks []string
	for _, f := range doc.Findings {
		ks = append(ks, f.ID+" "+string(f.Severity)+" "+report.SubjectString(f.Subject))
	}
	slices.Sort(ks)
	return ks
}

func TestCheckProfilesHealthy(t *testing.T) {
	for _, p := range []string{"h100-ndr", "a100-hdr", "roce-400g"} {
		t.Run(p, func(t *testing.T) {
			doc, code := checkJSON(t, "--root", simRoot(t, p))
			if code != 0 || len(doc.Findings) != 0 || len(doc.Gaps) != 0 || doc.Verdict != "healthy" {
				t.Fatalf("healthy %s: exit %d, findings %v, gaps %v", p, code, findingKeys(doc), doc.Gaps)
			}
		})
	}
}

// Each simulator fault is found by check, with the right ID, and nothing
// else is reported.
func TestCheckFindsEachFault(t *testing.T) {
	tests := []struct {
		profile string
		fault   string
		want    []string
		code    int
		gap     string
	}{
		{"h100-ndr", "down:mlx5_3/1", []string{"port.down critical mlx5_3 port 1 (ibp58s0)"}, 2, ""},
		{"h100-ndr", "polling:mlx5_3/1", []string{"port.polling critical mlx5_3 port 1 (ibp58s0)"}, 2, ""},
		{"h100-ndr", "disabled:mlx5_3/1", []string{"port.disabled critical mlx5_3 port 1 (ibp58s0)"}, 2, ""},
		{"h100-ndr", "init:mlx5_3/1", []string{"port.init_no_sm critical mlx5_3 port 1 (ibp58s0)"}, 2, ""},
		{"h100-ndr", "armed:mlx5_3/1", []string{"port.init_no_sm critical mlx5_3 port 1 (ibp58s0)"}, 2, ""},
		{"h100-ndr", "down:mlx5_9/1", []string{"port.disabled critical mlx5_9 port 1 (ens1f1np1)"}, 2, ""},
		{"h100-ndr", "width:mlx5_2/1=2", []string{"port.width_degraded critical mlx5_2 port 1 (ibp56s0)"}, 2, ""},
		{"a100-hdr", "speed:mlx5_2/1=EDR", []string{"port.speed_degraded critical mlx5_2 port 1 (ibp74s0)"}, 2, ""},
		{"h100-ndr", "pcie-width:mlx5_4=8", []string{"pcie.link_degraded critical mlx5_4"}, 2, ""},
		{"h100-ndr", "pcie-speed:mlx5_4=3", []string{"pcie.link_degraded critical mlx5_4"}, 2, ""},
		{"h100-ndr", "pcie-width:gpu3=8", []string{"pcie.link_degraded critical GPU 0000:3b:00.0"}, 2, ""},
		{"h100-ndr", "saturate:mlx5_1/1/symbol_error", []string{"port.counter_saturated warning mlx5_1 port 1 (ibp26s0)"}, 1, ""},
		{"h100-ndr", "saturate:mlx5_1/1/link_downed", []string{"port.counter_saturated warning mlx5_1 port 1 (ibp26s0)"}, 1, ""},
		{"h100-ndr", "counter:mlx5_1/1/symbol_error=1234", []string{"port.symbol_errors warning mlx5_1 port 1 (ibp26s0)"}, 1, ""},
		{"h100-ndr", "fw:mlx5_5=28.36.1010", []string{"port.fw_mismatch warning mlx5_5"}, 1, ""},
		{"h100-ndr", "pkeys:mlx5_3/1=0x7fff", []string{"port.pkey_limited_only warning mlx5_3 port 1 (ibp58s0)"}, 1, ""},
		{"h100-ndr", "pkeys:mlx5_3/1=none", []string{"port.pkey_none critical mlx5_3 port 1 (ibp58s0)"}, 2, ""},
		{"h100-ndr", "pkeys:mlx5_3/1=0x7fff,0x8001", nil, 0, ""},
		{"h100-ndr", "mtu:ibp58s0=2044", []string{"port.ipoib_mtu_mismatch warning mlx5_3 port 1 (ibp58s0)"}, 1, ""},
		{"h100-ndr", "unreadable:mlx5_0/1/counters/port_rcv_data", nil, 0, "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data"},
		{"h100-ndr", "no-counters:mlx5_6", nil, 0, ""},
		{"h100-ndr", "missing:mlx5_7", nil, 0, ""}, // gone from the bus: invisible without an expectation; see TestBaselineThenCheck
		{"h100-ndr", "unbound:mlx5_7", []string{"port.missing critical PCI 0000:ba:00.0"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			doc, code := checkJSON(t, "--root", simBundle(t, tt.profile, tt.fault))
			got := findingKeys(doc)
			if !slices.Equal(got, tt.want) || code != tt.code {
				t.Fatalf("exit %d, findings:\n%s\nwant exit %d:\n%s", code, strings.Join(got, "\n"), tt.code, strings.Join(tt.want, "\n"))
			}
			if tt.gap == "" && len(doc.Gaps) > 0 || tt.gap != "" && (len(doc.Gaps) != 1 || doc.Gaps[0].Path != tt.gap) {
				t.Fatalf("gaps %v, want %q", doc.Gaps, tt.gap)
			}
		})
	}
}

func TestBaselineThenCheck(t *testing.T) {
	good := simRoot(t, "h100-ndr")
	exp := filepath.Join(t.TempDir(), "expect.yaml")
	if _, stderr, code := run(t, "baseline", "--root", good, "--out", exp); code != 0 {
		t.Fatalf("baseline exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(exp)
	for _, s := range []string{"version: 1", "host: gpu017", `- name: mlx5_0`, `rate: 400 Gb/sec (4X NDR)`, `fw_ver: 28.39.2048`, `driver_version: 24.10-1.1.4`, `speed: 32.0 GT/s PCIe   # Gen5`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("baseline lacks %q:\n%s", s, data)
		}
	}
	if doc, code := checkJSON(t, "--root", good, "--expect", exp); code != 0 || len(doc.Findings) != 0 {
		t.Fatalf("the node it was written from: exit %d %v", code, findingKeys(doc))
	}
	bad := simBundle(t, "h100-ndr", "missing:mlx5_7", "fw:mlx5_5=28.36.1010", "pcie-speed:mlx5_4=4", "speed:mlx5_1/1=HDR", "driver=24.07-0.6.1")
	doc, code := checkJSON(t, "--root", bad, "--expect", exp)
	want := []string{
		"host.driver_mismatch warning gpu017",
		"pcie.link_degraded critical mlx5_4",
		"port.fw_mismatch warning mlx5_5",
		"port.missing critical mlx5_7",
		"port.speed_degraded critical mlx5_1 port 1 (ibp26s0)",
	}
	if got := findingKeys(doc); code != 2 || !slices.Equal(got, want) {
		t.Fatalf("exit %d, findings:\n%s\nwant:\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCannotRun(t *testing.T) {
	badExp := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(badExp, []byte("version: 1\ndevices:\n  - name: mlx5_0\n    ports:\n      - port: 1\n        rate: fast\n"), 0o644)
	tests := []struct {
		args    []string
		errText string
	}{
		{[]string{"check", "--root", "/nonexistent/root"}, "cannot open root"},
		{[]string{"check", "--root", t.TempDir()}, "no sys/ directory"},
		{[]string{"check", "--root", simBundle(t, "h100-ndr"), "--expect", badExp}, "bad.yaml line 6: invalid expectation: rate:"},
		{[]string{"check", "--format", "xml"}, `unknown format "xml"`},
		{[]string{"status", "extra-arg"}, "unknown command"},
		{[]string{"nosuchcommand"}, "unknown command"},
		{[]string{"rules", "port.nonexistent"}, "unknown finding ID"},
		// A group command with an unknown subcommand, and an unknown
		// flag value, are errors, not the group's help with exit 0.
		{[]string{"fabric", "bogus"}, `unknown command "bogus" for "ibdoctor fabric"`},
		{[]string{"perf", "bogus"}, `unknown command "bogus" for "ibdoctor perf"`},
		{[]string{"nccl", "bogus"}, `unknown command "bogus" for "ibdoctor nccl"`},
		{[]string{"sim", "bogus"}, `unknown command "bogus" for "ibdoctor sim"`},
		{[]string{"rules", "--area", "bogus"}, `unknown area "bogus"`},
		{[]string{"fabric", "check", "--from", "x", "--ibsim", "y"}, "--from and --ibsim exclude each other"},
	}
	for _, tt := range tests {
		_, stderr, code := run(t, tt.args...)
		if code != 3 || !strings.Contains(stderr, tt.errText) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", tt.args, code, stderr, tt.errText)
		}
	}
}

// The text outputs of status and check on a faulty node are kept as golden
// files (go test ./internal/cli -update rewrites them); they are also what
// the README shows.
// A group command without arguments still prints its help and exits 0;
// a known --area still lists only that area.
func TestGroupHelpAndArea(t *testing.T) {
	out, _, code := run(t, "fabric")
	if code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("ibdoctor fabric: exit %d, output %q; want its help and 0", code, out)
	}
	out, _, code = run(t, "rules", "--area", "fabric")
	if code != 0 || !strings.Contains(out, "fabric.link_down") || strings.Contains(out, "port.down") {
		t.Errorf("rules --area fabric: exit %d, output %q", code, out)
	}
}

func TestGoldenText(t *testing.T) {
	root := simRoot(t, "h100-ndr", "width:mlx5_2/1=2", "polling:mlx5_5/1", "pcie-width:mlx5_4=8",
		"saturate:mlx5_1/1/symbol_error", "fw:mlx5_6=28.36.1010", "unreadable:mlx5_0/1/counters/port_rcv_data")
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"status.txt", []string{"status", "--root", root}, 0},
		{"check.txt", []string{"check", "--root", root}, 2},
	} {
		out, stderr, code := run(t, c.args...)
		if code != c.code {
			t.Fatalf("%v: exit %d (%s)", c.args, code, stderr)
		}
		if strings.Contains(out, "\x1b[") {
			t.Fatalf("%s: color escape codes without a terminal", c.name)
		}
		out = strings.ReplaceAll(out, root, "ROOT")
		golden := filepath.Join("testdata", c.name)
		if *update {
			os.WriteFile(golden, []byte(out), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%s differs from %s (run with -update after review):\n%s", c.name, golden, out)
		}
	}
}

func TestStatusJSON(t *testing.T) {
	out, _, code := run(t, "status", "--format", "json", "--root", simBundle(t, "h100-ndr", "down:mlx5_9/1"))
	var st report.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	if len(st.Ports) != 10 || st.Verdict != "critical" {
		t.Fatalf("ports %d verdict %s", len(st.Ports), st.Verdict)
	}
	p0, p9 := st.Ports[0], st.Ports[9]
	if p0.Device != "mlx5_0" || p0.Rate == nil || p0.Rate.Gbps() != 400 || p0.RateGbps == nil || *p0.RateGbps != 400 || p0.RateText != "400 Gb/s 4X NDR" || p0.Verdict != "ok" || p0.PCIeLink != "Gen5 x16 / Gen5 x16" || p0.LID == nil {
		t.Errorf("mlx5_0: %+v", p0)
	}
	// A down RoCE port's "40 Gb/sec (4X QDR)" is the kernel's placeholder:
	// status reports no rate for it.
	if p9.Device != "mlx5_9" || p9.Rate != nil || p9.RateGbps != nil || p9.RateText != "-" || p9.Verdict != "critical" || p9.NetDev != "ens1f1np1" || p9.RoCEv2GID == "" || p9.LID != nil {
		t.Errorf("mlx5_9: %+v", p9)
	}
}

// A run that stops before judging anything still prints a JSON object
// when JSON was asked for (verdict not_judged, the reason); text runs and
// runs that printed their own document are left alone.
func TestCannotRunJSON(t *testing.T) {
	tests := []struct {
		args   []string
		object bool
		reason string
	}{
		{[]string{"check", "--root", "/nonexistent/root", "--format", "json"}, true, "cannot open root"},
		{[]string{"doctor", "--root", "/nonexistent/root", "--format", "json"}, true, "cannot open root"},
		{[]string{"analyze", "--format", "json", "/nonexistent/file.txt"}, true, ""},
		{[]string{"check", "--root", "/nonexistent/root"}, false, ""},
	}
	for _, tt := range tests {
		out, _, code := run(t, tt.args...)
		if code != 3 {
			t.Errorf("%v: exit %d", tt.args, code)
		}
		if !tt.object {
			if out != "" {
				t.Errorf("%v: stdout %q, want none", tt.args, out)
			}
			continue
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Errorf("%v: stdout is not one JSON object (%v): %q", tt.args, err, out)
			continue
		}
		if doc["verdict"] != "not_judged" || doc["exit_code"] != 3.0 || doc["findings"] == nil {
			t.Errorf("%v: %s", tt.args, out)
		}
		if r, _ := doc["not_judged"].(string); !strings.Contains(r, tt.reason) || r == "" {
			t.Errorf("%v: reason %q, want %q in it", tt.args, r, tt.reason)
		}
	}
}

// TestCheckHeadlineCountsOnlyJudgedPorts: a port whose state file is gone
// was not judged, so the headline must not count it as checked.
func TestCheckHeadlineCountsOnlyJudgedPorts(t *testing.T) {
	root := simRoot(t, "h100-ndr")
	for _, f := range []string{"state", "rate"} {
		if err := os.Remove(filepath.Join(root, "sys/class/infiniband/mlx5_0/ports/1", f)); err != nil {
			t.Fatal(err)
		}
	}
	out, _, _ := run(t, "check", "--root", root)
	first, _, _ := strings.Cut(out, "\n")
	if !strings.Contains(first, "9 of 10 ports checked (state not read: mlx5_0/1)") {
		t.Errorf("headline %q does not say that mlx5_0/1 was not judged", first)
	}
	if !strings.Contains(out, "mlx5_0/ports/1/state: missing") {
		t.Errorf("the missing state file is not listed as a gap:\n%s", out)
	}
}
