package doctor

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	diagdoctor "github.com/ibdoctor/ibdoctor/internal/diagnose/doctor"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
)

var testNow = time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)

// runDoctor executes the command in-process and returns stdout and the
// exit code.
func runDoctor(t *testing.T, environ []string, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmdutil.Factory{
		In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Now:     func() time.Time { return testNow },
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return environ },
		Version: "test",
	}
	cmd := NewCmd(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	code := 0
	if err != nil {
		var ee *cmdutil.ExitError
		if !errors.As(err, &ee) {
			// Cobra's own flag errors: the root command maps them to 3.
			return "error: " + err.Error(), finding.ExitCannot
		}
		code = ee.Code
		if ee.Err != nil {
			out.WriteString("error: " + ee.Err.Error())
		}
	}
	return out.String(), code
}

// simRoot renders a simulated node with faults, plus extra files, into a
// bundle (.tar.gz) and returns its path. A bundle is one file write, so the
// tests stay fast on a loaded machine, and it exercises the bundle path of
// the doctor (cmd/ outputs instead of live sources).
func simRoot(t *testing.T, profile string, extra map[string]string, faults ...string) string {
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
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	put := func(h *tar.Header, data []byte) {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range n.Entries() {
		if _, ok := extra[e.Path]; ok {
			continue
		}
		switch e.Kind {
		case simnode.KindFile:
			put(&tar.Header{Name: e.Path, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(e.Data))}, e.Data)
		case simnode.KindSymlink:
			put(&tar.Header{Name: e.Path, Typeflag: tar.TypeSymlink, Linkname: e.Target, Mode: 0o777}, nil)
		default:
			put(&tar.Header{Name: e.Path + "/", Typeflag: tar.TypeDir, Mode: 0o755}, nil)
		}
	}
	var names []string
	for p := range extra {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		put(&tar.Header{Name: p, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(extra[p]))}, []byte(extra[p]))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gpu017.tar.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, dir, rel, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func doctorJSON(t *testing.T, environ []string, args ...string) (diagdoctor.Result, int) {
	t.Helper()
	out, code := runDoctor(t, environ, append(args, "--format", "json")...)
	var r diagdoctor.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON (%v):\n%s", err, out)
	}
	return r, code
}

func idsOf(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// TestFaults runs the doctor on simulated roots, one fault each: every
// doctor check must fire on its fault and the healthy root must stay clean.
func TestFaults(t *testing.T) {
	tests := []struct {
		profile string
		faults  []string
		want    string
		code    int
		args    []string
	}{
		{"h100-ndr", []string{"xid:gpu3=79"}, "gpu.xid", 2, nil},
		{"h100-ndr", []string{"xid:gpu1=48"}, "gpu.xid", 2, nil},
		{"h100-ndr", []string{"aer:mlx5_2/nonfatal/CmpltTO=1"}, "pcie.aer_errors", 2, nil},
		{"roce-400g", []string{"flap:mlx5_3/1=3"}, "kmsg.link_flap", 1, nil},
		{"h100-ndr", []string{"module-event:mlx5_2=high-temp"}, "kmsg.module_event", 2, nil},
		{"h100-ndr", []string{"mlx5-health:mlx5_3"}, "kmsg.mlx5_health", 2, nil},
		{"h100-ndr", []string{"no-module:nvidia_peermem"}, "nccl.peermem_missing", 1, nil},
		{"h100-ndr", []string{"iommu=translated"}, "host.iommu_translated", 1, nil},
		{"h100-ndr", []string{"no-uverbs:mlx5_0"}, "container.uverbs_missing", 2, nil},
		{"h100-ndr", []string{"no-rdma-cm"}, "container.rdma_cm_missing", 1, nil},
		{"roce-400g", []string{"no-gid-v2:mlx5_5/1"}, "roce.gid_missing_v2", 2, nil},
		{"roce-400g", []string{"mtu:enp26s0np0=1500"}, "roce.mtu_mismatch", 1, nil},
		{"roce-400g", []string{"ethtool:enp24s0np0/tx_pause_storm_error_events=2"}, "roce.pfc_storm", 2, nil},
		{"roce-400g", []string{"ethtool:enp24s0np0/rx_crc_errors_phy=5000"}, "roce.phy_errors", 1, nil},
		{"roce-400g", []string{"ethtool:enp24s0np0/rx_prio3_pause=900000000"}, "roce.pause_heavy", 1, nil},
		// Both NICs under GPU2/GPU3's switch down: they reach the network
		// through the root complex while the other GPUs have PIX NICs.
		{"h100-ndr", []string{"down:mlx5_2/1", "down:mlx5_3/1"}, "topo.gpu_nic_far", 2, nil},
		// The simulated job (PID 48213, also proc/self).
		{"h100-ndr", []string{"memlock=65536"}, "host.memlock_limited", 2, nil},
		{"h100-ndr", []string{"env:NCCL_IB_DISABLE=1"}, "nccl.ib_disabled", 2, []string{"--pid", "48213"}},
		{"h100-ndr", []string{"env:NCCL_IB_HCA=mlx5_0,mlx5_9:2"}, "nccl.ib_hca_unknown", 2, []string{"--pid", "48213"}},
		{"h100-ndr", []string{"env:NCCL_IB_HCA==mlx5_3", "down:mlx5_3/1"}, "nccl.ib_hca_port_down", 2, []string{"--pid", "48213"}},
		{"h100-ndr", []string{"env:NCCL_SOCKET_IFNAME=lo"}, "nccl.socket_ifname_missing", 1, []string{"--pid", "48213"}},
		{"roce-400g", []string{"env:NCCL_IB_GID_INDEX=0"}, "nccl.gid_index_wrong", 2, []string{"--pid", "48213"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.faults, ","), func(t *testing.T) {
			root := simRoot(t, tt.profile, nil, tt.faults...)
			r, code := doctorJSON(t, nil, append([]string{"--root", root}, tt.args...)...)
			if !slices.Contains(idsOf(r.Findings), tt.want) {
				t.Fatalf("findings %v lack %s", idsOf(r.Findings), tt.want)
			}
			if code != tt.code || r.ExitCode != tt.code {
				t.Errorf("exit code %d (document %d), want %d; findings %v", code, r.ExitCode, tt.code, idsOf(r.Findings))
			}
		})
	}
}

func TestHealthyRoot(t *testing.T) {
	for _, p := range []string{"h100-ndr", "roce-400g"} {
		root := simRoot(t, p, nil)
		r, code := doctorJSON(t, nil, "--root", root)
		if code != 0 || len(r.Findings) != 0 {
			t.Errorf("%s: code %d, findings %v", p, code, idsOf(r.Findings))
		}
		if r.Topology == nil || !strings.HasPrefix(r.Topology.SuggestedHCA, "=mlx5_0,") {
			t.Errorf("%s: topology %+v", p, r.Topology)
		}
	}
}

func TestTextReport(t *testing.T) {
	root := simRoot(t, "h100-ndr", nil, "xid:gpu3=79", "no-rdma-cm")
	out, code := runDoctor(t, nil, "--root", root)
	if code != 2 {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{
		"ibdoctor doctor gpu017: CRITICAL (1 critical, 1 warning)",
		"Start here: Xid 79 on GPU3 (0000:",
		"(and 1 more below)\n\nRunbook\n  1. ports and counters",
		"  3. kernel log                       1 critical",
		"  6. container device access          1 warning",
		"GPU3 (0000:", "has fallen off the PCIe bus",
		"GPU–NIC topology (from the PCI tree)",
		"suggested NCCL_IB_HCA==mlx5_0,",
		"What to do next\n  1. gpu.xid (GPU 3 critical): drain the node",
		"  2. container.rdma_cm_missing",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "gpu.fallen_off_bus") || strings.Index(out, "gpu.xid") > strings.Index(out, "container.rdma_cm_missing") {
		t.Error("critical finding not listed first, or the Xid 79 reported twice")
	}
}

func TestNvidiaSMIDisagrees(t *testing.T) {
	// nvidia-smi claims GPU0 is across the socket from mlx5_0, which the PCI
	// tree puts under GPU0's own switch.
	smi := "\tGPU0\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \tSYS\t0-55\t0\t\tN/A\nNIC0\tSYS\t X \t\t\t\t\n\nNIC Legend:\n\n  NIC0: mlx5_0\n"
	root := simRoot(t, "h100-ndr", map[string]string{"cmd/nvidia-smi-topo-m.txt": smi})
	r, code := doctorJSON(t, nil, "--root", root)
	if got := idsOf(r.Findings); !slices.Equal(got, []string{"topo.nvidia_smi_disagrees"}) || code != 1 {
		t.Fatalf("findings %v, exit %d", got, code)
	}
	if ev := r.Findings[0].Evidence; len(ev) != 1 || ev[0].Value != "GPU0–mlx5_0: nvidia-smi SYS, sysfs PIX" {
		t.Errorf("evidence %+v", ev)
	}
	// A broken file is a note, not a failure.
	root = simRoot(t, "h100-ndr", map[string]string{"cmd/nvidia-smi-topo-m.txt": "\tGPU0\tNIC0\tCPU Affinity\nGPU0\t X \tBOGUS\t0\n"})
	r, code = doctorJSON(t, nil, "--root", root)
	if code != 0 || !slices.ContainsFunc(r.NotChecked, func(s string) bool { return strings.Contains(s, "nvidia-smi-topo-m.txt line 2") }) {
		t.Errorf("exit %d, notes %v", code, r.NotChecked)
	}
}

func TestJobEnvAndLimits(t *testing.T) {
	// A job's proc entries as the kernel shows them.
	root := simRoot(t, "h100-ndr", map[string]string{
		"proc/4242/environ": "NCCL_IB_HCA=mlx5_0,mlx4_0\x00NCCL_SOCKET_IFNAME=lo\x00NCCL_IB_DISABLE=1\x00",
		"proc/4242/limits":  "Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                65536                bytes     \n",
	})
	r, code := doctorJSON(t, nil, "--root", root, "--pid", "4242")
	ids := idsOf(r.Findings)
	for _, want := range []string{"nccl.ib_disabled", "nccl.ib_hca_unknown", "nccl.socket_ifname_missing", "host.memlock_limited"} {
		if !slices.Contains(ids, want) {
			t.Errorf("findings %v lack %s", ids, want)
		}
	}
	if code != 2 {
		t.Errorf("exit %d", code)
	}

	// --env takes this process's environment instead of the job's.
	r, _ = doctorJSON(t, []string{"NCCL_IB_GID_INDEX=0", "NCCL_IB_HCA==mlx5_0,mlx5_1"}, "--root", root, "--env")
	if ids := idsOf(r.Findings); slices.Contains(ids, "nccl.ib_disabled") || len(ids) != 0 {
		t.Errorf("--env findings = %v, want none on an IB node", ids)
	}

	// --nccl-env reads a file.
	dir := t.TempDir()
	writeFile(t, dir, "job.env", "export NCCL_IB_HCA=mlx5_1:2\n")
	env := filepath.Join(dir, "job.env")
	r, _ = doctorJSON(t, nil, "--root", root, "--nccl-env", env)
	if ids := idsOf(r.Findings); !slices.Contains(ids, "nccl.ib_hca_unknown") {
		t.Errorf("--nccl-env findings = %v", ids)
	}
}

func TestKernelLogWindow(t *testing.T) {
	var b strings.Builder
	for _, day := range []string{"Sat Nov 21", "Sat Nov 21", "Sat Nov 28", "Sat Nov 28"} {
		b.WriteString("[" + day + " 10:11:12 2026] mlx5_core 0000:86:00.1 ens2f1np1: Link down\n")
	}
	// dmesg -T output: dated records, so the window ends at the last one.
	root := simRoot(t, "roce-400g", map[string]string{"cmd/dmesg.txt": b.String()})
	r, _ := doctorJSON(t, nil, "--root", root, "--since", "48h")
	var flap *finding.Finding
	for i := range r.Findings {
		if r.Findings[i].ID == "kmsg.link_flap" {
			flap = &r.Findings[i]
		}
	}
	if flap == nil || !strings.Contains(flap.Summary, "went down 2 times in the last 2d") {
		t.Fatalf("flap finding = %+v", flap)
	}
	r, _ = doctorJSON(t, nil, "--root", root, "--since", "0")
	for _, f := range r.Findings {
		if f.ID == "kmsg.link_flap" && !strings.Contains(f.Summary, "4 times in the kernel log") {
			t.Errorf("--since 0 summary %q", f.Summary)
		}
	}
}

// TestNCCLLog: a job's NCCL debug log is judged with the node (the nccl
// package's rules; RDMA present makes a socket fallback critical).
func TestNCCLLog(t *testing.T) {
	root := simRoot(t, "h100-ndr", nil)
	r, code := doctorJSON(t, nil, "--root", root, "--nccl-log", "../../parse/nccllog/testdata/nccl952-socket-channels.log")
	var fb *finding.Finding
	for i := range r.Findings {
		if r.Findings[i].ID == "nccl.socket_fallback" {
			fb = &r.Findings[i]
		}
	}
	if fb == nil || fb.Severity != finding.Critical || fb.Subject.Host != "gpu017" || code != 2 {
		t.Fatalf("exit %d, socket fallback %+v in %v", code, fb, idsOf(r.Findings))
	}
}

func TestCannotRun(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--root", "/nonexistent/root"}, "cannot open root"},
		{[]string{"--env", "--nccl-env", "x"}, "exclusive"},
		{[]string{"--since", "-1h"}, "--since"},
		{[]string{"--pid", "-3"}, "--pid"},
		{[]string{"--root", "/", "--nccl-env", "/nonexistent/env"}, "--nccl-env"},
		{[]string{"--root", "/", "--nccl-log", "/nonexistent/log"}, "--nccl-log"},
		{[]string{"--root", "/", "--expect", "/nonexistent/expect.yaml"}, "expect"},
		{[]string{"--format", "yaml"}, "format"},
	}
	for _, tt := range tests {
		out, code := runDoctor(t, nil, tt.args...)
		if code != finding.ExitCannot || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, output %q; want 3 and %q", tt.args, code, out, tt.want)
		}
	}
}

func TestBadEnvFile(t *testing.T) {
	root := simRoot(t, "h100-ndr", nil)
	dir := t.TempDir()
	writeFile(t, dir, "bad.env", "NCCL_IB_HCA=mlx5_0\nthis is not an assignment\n")
	env := filepath.Join(dir, "bad.env")
	out, code := runDoctor(t, nil, "--root", root, "--nccl-env", env)
	if code != finding.ExitCannot || !strings.Contains(out, "bad.env line 2") {
		t.Errorf("exit %d, output %q", code, out)
	}
}

// --pid of a process that is not there judged nothing of the job: exit 3,
// never HEALTHY, and the JSON document says what was missing.
func TestPIDNotThere(t *testing.T) {
	root := simRoot(t, "h100-ndr", nil)
	out, code := runDoctor(t, nil, "--root", root, "--pid", "999999")
	if code != finding.ExitCannot || strings.Contains(out, "HEALTHY") || !strings.Contains(out, "no process 999999") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	r, code := doctorJSON(t, nil, "--root", root, "--pid", "999999")
	if code != finding.ExitCannot || r.Verdict != finding.VerdictNotJudged || !strings.Contains(r.NotJudged, "no process 999999") || r.Findings == nil {
		t.Errorf("exit %d, document %+v", code, r.Outcome)
	}
	// The same root without --pid, or with the job's own PID, is judged.
	if r, code := doctorJSON(t, nil, "--root", root); code != 0 || !r.IsJudged() {
		t.Errorf("without --pid: exit %d, %+v", code, r.Outcome)
	}
}

// Without root the bridges' ACS is one line under "Not checked", not one
// collection gap per bridge; the JSON keeps every gap.
func TestACSUnreadGrouped(t *testing.T) {
	root := simRoot(t, "h100-ndr", nil, "acs=header-only")
	out, code := runDoctor(t, nil, "--root", root)
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	if n := strings.Count(out, "/config"); n != 0 || strings.Contains(out, "collection:") {
		t.Errorf("%d config gap lines:\n%s", n, out)
	}
	if !strings.Contains(out, "  - PCIe ACS not checked on 20 of 20 bridges between GPUs and NICs (0000:16:00.0 ") || !strings.Contains(out, "sudo lspci -vvv") {
		t.Errorf("no grouped ACS line:\n%s", out)
	}
	r, _ := doctorJSON(t, nil, "--root", root)
	if len(r.Gaps) != 20 {
		t.Errorf("JSON has %d gaps, want the 20 config files", len(r.Gaps))
	}
}
