package nccl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
)

// The corpora of the parsers.
const (
	testsData = "../../parse/nccltests/testdata/"
	logData   = "../../parse/nccllog/testdata/"
)

// run executes `nccl ARGS` in-process and returns stdout and the exit code.
func run(t *testing.T, stdin string, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmdutil.Factory{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut,
		Now: func() time.Time { return time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC) }}
	cmd := NewCmd(f)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	code := 0
	var ee *cmdutil.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.Code
	case err != nil:
		t.Fatalf("unexpected error: %v", err)
	}
	return out.String(), code
}

func simRoot(t *testing.T, faults ...string) string {
	t.Helper()
	var fs []simnode.Fault
	for _, s := range faults {
		f, err := simnode.ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	n, err := simnode.Build(simnode.Options{Host: "gpu017", Faults: fs})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "root")
	if err := n.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPerfCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"healthy text", []string{"perf", "--collective", "all_reduce", "--expect-busbw", "20", testsData + "nccl340-old-format-2gpu.txt"}, 0,
			[]string{"all_reduce, 2 ranks, 64 KiB to 128 MiB", "peak busbw at large sizes: 21.86 GB/s (expected 20.0 GB/s, 109%)", "HEALTHY"}},
		{"low busbw", []string{"perf", "--collective", "all_reduce", "--expect-busbw", "40", testsData + "nccl340-old-format-2gpu.txt"}, 2,
			[]string{"CRITICAL nccl.busbw_low", "55% of the expected --expect-busbw 40.0 GB/s"}},
		{"non-mpi copies", []string{"perf", testsData + "not-mpi-two-headers.txt"}, 1, []string{"nccl.test_not_distributed"}},
		{"one file missing", []string{"perf", testsData + "spark-2node-allreduce.txt", "nope.txt"}, 1, []string{"not analysed:", "nope.txt"}},
		{"all files bad", []string{"perf", "nope.txt"}, 3, []string{"nope.txt"}},
		{"not nccl-tests", []string{"perf", logData + "nccl902-old-error12.log"}, 3, []string{"no nccl-tests header or result row"}},
		{"IB disabled on two hosts", []string{"perf", testsData + "gistcswinter-2node-ib-disabled.txt"}, 1, []string{"WARNING  nccl.ib_disabled", "NCCL_IB_DISABLE=1"}},
		{"IB disabled, expect ib", []string{"perf", "--expect-ib", testsData + "gistcswinter-2node-ib-disabled.txt"}, 2, []string{"CRITICAL nccl.ib_disabled"}},
		{"bad collective", []string{"perf", "--collective", "allfoo", "x"}, 3, nil},
		{"bad efficiency", []string{"perf", "--efficiency", "2", "x"}, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit = %d, want %d\n%s", code, tt.code, out)
			}
			for _, c := range tt.contains {
				if !strings.Contains(out, c) {
					t.Errorf("output lacks %q:\n%s", c, out)
				}
			}
		})
	}
}

func TestPerfJSONAndStdin(t *testing.T) {
	in := "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\r\n" +
		"#  Rank  0 Group  0 Pid  1 on a device  0 [0x01] GPU\r\n#  Rank  1 Group  0 Pid  2 on b device  0 [0x01] GPU\r\n" +
		"     1048576        262144     float     sum      -1    27.76   37.78   37.78      12    27.49   38.15   38.15       0\r\n" +
		"# Out of bounds values : 12 FAILED\r\n"
	out, code := run(t, in, "perf", "--format", "json", "--collective", "all_reduce", "-")
	if code != 2 {
		t.Fatalf("exit = %d\n%s", code, out)
	}
	var doc struct {
		Verdict  string `json:"verdict"`
		ExitCode int    `json:"exit_code"`
		Files    []struct {
			Output struct {
				Runs []struct {
					Rows []struct {
						Size       int64 `json:"size"`
						OutOfPlace struct {
							Wrong int64 `json:"wrong"`
						} `json:"out_of_place"`
					} `json:"rows"`
				} `json:"runs"`
			} `json:"output"`
		} `json:"files"`
		Findings []struct {
			ID string `json:"id"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Verdict != "critical" || doc.ExitCode != 2 || len(doc.Findings) != 1 || doc.Findings[0].ID != "nccl.wrong_results" ||
		doc.Files[0].Output.Runs[0].Rows[0].OutOfPlace.Wrong != 12 {
		t.Errorf("doc = %+v", doc)
	}
}

func TestLogCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"ib ok", []string{"log", logData + "nccl-tests185-roce-init.log"}, 0,
			[]string{"dgxh100-4:460770", "mlx5_10:1/RoCE mlx5_11:1/RoCE", "NCCL 2.19.3+cuda12.3", "HEALTHY"}},
		{"retry exceeded", []string{"log", logData + "nccl1814-retry-then-flush.log"}, 2,
			[]string{"CRITICAL nccl.ibv_error", "status 12 IBV_WC_RETRY_EXC_ERR", "events: 3 completion"}},
		{"socket, no expectation", []string{"log", testsData + "meowth-oob-failed-socket.txt"}, 1, []string{"WARNING  nccl.socket_fallback"}},
		{"socket, expect ib", []string{"log", "--expect-ib", testsData + "meowth-oob-failed-socket.txt"}, 2, []string{"CRITICAL nccl.socket_fallback"}},
		{"not a log", []string{"log", testsData + "spark-2node-allreduce.txt"}, 3, []string{"no NCCL log line"}},
		{"one job, two files", []string{"log", logData + "nccl-tests185-roce-init.log", testsData + "meowth-oob-failed-socket.txt"}, 2,
			[]string{"CRITICAL nccl.socket_fallback  " + testsData + "meowth-oob-failed-socket.txt", "while 2 use IB/RoCE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit = %d, want %d\n%s", code, tt.code, out)
			}
			for _, c := range tt.contains {
				if !strings.Contains(out, c) {
					t.Errorf("output lacks %q:\n%s", c, out)
				}
			}
		})
	}
}

// A simulated node root answers the questions the flags would: it has RDMA
// devices (socket fallback is critical) and its slowest active port sets
// the line rate.
func TestRootFromSimulatedNode(t *testing.T) {
	// One root (writing one costs seconds on a loaded machine): the
	// default H100 profile with mlx5_2 trained at 2X, so its slowest
	// compute port runs at 200 Gb/s; the 100G RoCE frontend is not on the
	// NCCL path.
	root := simRoot(t, "width:mlx5_2/1=2")
	out, code := run(t, "", "log", "--root", root, testsData+"meowth-oob-failed-socket.txt")
	if code != 2 || !strings.Contains(out, "CRITICAL nccl.socket_fallback") || !strings.Contains(out, "has RDMA devices") {
		t.Errorf("log --root: exit %d\n%s", code, out)
	}
	out, _ = run(t, "", "perf", "--collective", "all_reduce", "--root", root, testsData+"nccl340-old-format-2gpu.txt")
	if !strings.Contains(out, "line rate 200 Gb/s from mlx5_2 port 1") || !strings.Contains(out, "expected 20.0 GB/s") ||
		!strings.Contains(out, "1 × 200 Gb/s / 8 × 0.80 = 20.0 GB/s (NICs per node from --root "+root+": 8 IB ports; no rank list: 2 ranks hold at most 1 per node") {
		t.Errorf("perf --root with a 2X port:\n%s", out)
	}
	if _, code := run(t, "", "log", "--root", filepath.Join(t.TempDir(), "missing.tar.gz"), logData+"nccl902-old-error12.log"); code != 3 {
		t.Errorf("unusable root: exit %d, want 3", code)
	}
}

// built2Node writes a 2-node all_reduce output, 8 ranks per host, whose
// 1 GiB row peaks at busbw GB/s, and returns its path.
func built2Node(t *testing.T, busbw float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n")
	for r := 0; r < 16; r++ {
		fmt.Fprintf(&b, "#  Rank %2d Group  0 Pid %d on %s device  %d [0000:%02x:00] NVIDIA H100 80GB HBM3\n", r, 4000+r, []string{"gpu-a", "gpu-b"}[r/8], r%8, 0x18+r%8)
	}
	alg := busbw / (2 * 15.0 / 16)
	tm := 1073741824 / (alg * 1e3)
	fmt.Fprintf(&b, "  1073741824     268435456     float     sum      -1  %8.1f  %6.2f  %6.2f       0  %8.1f  %6.2f  %6.2f       0\n", tm, alg, busbw, tm, alg, busbw)
	path := filepath.Join(t.TempDir(), "all_reduce_perf.2n.out")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --line-rate is one NIC's rate: a 2-node run's expectation is the node's
// NICs × that rate, and the report says where the NIC count came from.
func TestPerfNICsPerNode(t *testing.T) {
	tests := []struct {
		name  string
		busbw float64
		args  []string
		code  int
		want  []string
	}{
		{"one NIC's worth on 8-GPU nodes", 44, []string{"--line-rate", "400"}, 2, []string{
			"peak busbw at large sizes: 44.00 GB/s (expected 320.0 GB/s, 14%)",
			"expectation: 8 × 400 Gb/s / 8 × 0.80 = 320.0 GB/s (NICs per node from the rank layout: 8 ranks per host, one NIC per GPU assumed",
			"CRITICAL nccl.busbw_low"}},
		{"4 x 200G NICs per node", 96, []string{"--line-rate", "200", "--nics-per-node", "4"}, 0, []string{
			"(expected 80.0 GB/s, 120%)", "expectation: 4 × 200 Gb/s / 8 × 0.80 = 80.0 GB/s (--nics-per-node)", "HEALTHY"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, "", append(append([]string{"perf"}, tt.args...), built2Node(t, tt.busbw))...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			for _, s := range tt.want {
				if !strings.Contains(out, s) {
					t.Errorf("%q not in\n%s", s, out)
				}
			}
		})
	}
	if _, code := run(t, "", "perf", "--nics-per-node", "-1", "x"); code == 0 {
		t.Error("--nics-per-node -1 accepted")
	}
}

// An nccl-tests output with only its header (the run stopped before the
// first size) judged nothing: exit 3, never HEALTHY, and the JSON
// document says so.
func TestPerfHeaderOnlyNotJudged(t *testing.T) {
	header := "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n#  Rank  0 Group  0 Pid 1 on gpu1 device  0 [0000:9d:00] NVIDIA H100 80GB HBM3\n#  Rank  1 Group  0 Pid 2 on gpu2 device  0 [0000:9d:00] NVIDIA H100 80GB HBM3\n"
	out, code := run(t, header, "perf", "-")
	if code != 3 || strings.Contains(out, "HEALTHY") || !strings.Contains(out, "no result row") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, code = run(t, header, "perf", "--format", "json", "-")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 3 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if doc["verdict"] != "not_judged" || doc["exit_code"] != 3.0 || doc["findings"] == nil {
		t.Errorf("document %s", out)
	}
}
