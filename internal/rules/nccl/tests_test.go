package nccl

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccltests"
)

// testsData is the nccl-tests corpus; its README says what each file
// must produce.
const testsData = "../../parse/nccltests/testdata/"

func parseTestsFile(t *testing.T, name string) *nccltests.Output {
	t.Helper()
	f, err := os.Open(testsData + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := nccltests.Parse(f, name)
	if err != nil {
		t.Fatalf("nccltests.Parse(%s): %v", name, err)
	}
	return out
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	return out
}

// TestTestsCorpus runs every real sample through parser and rules and
// checks what each must and must not produce (internal/parse/nccltests/testdata/README.md).
func TestTestsCorpus(t *testing.T) {
	tests := []struct {
		file      string
		opts      TestsOptions
		runs      int
		rows      int // of the first run
		ranks     int // RunSummary.Ranks of the first run
		skipped   int
		want      []string // exact findings id/severity, sorted as reported
		wantNotes []string // substrings that must appear in some note
	}{
		{file: "nccl340-old-format-2gpu.txt", runs: 1, rows: 12, want: nil,
			wantNotes: []string{"does not name the collective"}},
		{file: "nccl340-old-format-2gpu.txt", opts: TestsOptions{Collective: nccltests.AllReduce, ExpectBusBW: 20}, runs: 1, rows: 12, ranks: 2,
			wantNotes: []string{"2 ranks inferred"}},
		{file: "nccl340-old-format-2gpu.txt", opts: TestsOptions{Collective: nccltests.AllReduce, ExpectBusBW: 40}, runs: 1, rows: 12, ranks: 2,
			want: []string{"nccl.busbw_low/critical"}},
		{file: "nccl340-old-format-2gpu.txt", opts: TestsOptions{Collective: nccltests.AllReduce, ExpectBusBW: 25}, runs: 1, rows: 12, ranks: 2,
			want: []string{"nccl.busbw_low/warning"}},
		{file: "spark-2node-allreduce.txt", opts: TestsOptions{LineRateGbps: 200}, runs: 1, rows: 4, ranks: 2,
			wantNotes: []string{"below 16 MiB", "without the footer"}},
		{file: "h100-16rank-header.txt", runs: 1, rows: 0, ranks: 12, wantNotes: []string{"no result rows"}},
		{file: "not-mpi-two-headers.txt", runs: 1, rows: 0, ranks: 1,
			want: []string{"nccl.test_not_distributed/warning"}, wantNotes: []string{"did not form one communicator"}},
		{file: "nccl-tests182-not-mpi-2gpu-each.txt", opts: TestsOptions{LineRateGbps: 200}, runs: 1, rows: 0, ranks: 2,
			want: []string{"nccl.test_not_distributed/warning"}, wantNotes: []string{"did not form one communicator"}},
		{file: "alltoall-single-rank.txt", opts: TestsOptions{ExpectBusBW: 40}, runs: 1, rows: 1, ranks: 1,
			wantNotes: []string{"single-rank run"}},
		{file: "p5-tag-output.txt", runs: 1, rows: 3},
		{file: "gh200-2rank-ib-truncated.txt", opts: TestsOptions{Collective: nccltests.AllReduce}, runs: 1, rows: 11, ranks: 2, skipped: 1,
			wantNotes: []string{"skipped: gh200-2rank-ib-truncated.txt:12: malformed line: time \"-1\""}},
		{file: "rtx4090-pcie-tree-8gpu.txt", opts: TestsOptions{LineRateGbps: 400}, runs: 1, rows: 1, ranks: 8},
		{file: "rtx4090-pcie-tree-8gpu.txt", opts: TestsOptions{SmallLatencyUS: 20}, runs: 1, rows: 1, ranks: 8,
			want: []string{"nccl.small_msg_latency/warning"}},
		{file: "mscclpp-nvls-8gpu-rows.txt", opts: TestsOptions{Collective: nccltests.AllReduce}, runs: 1, rows: 6, ranks: 8},
		{file: "mscclpp-nvls-8gpu-rows.txt", opts: TestsOptions{Collective: nccltests.AllGather}, runs: 1, rows: 6, ranks: 0,
			wantNotes: []string{"rank count is unknown"}},
		{file: "mooncake-8gpu-rows.txt", opts: TestsOptions{Collective: nccltests.AllReduce, ExpectBusBW: 250}, runs: 1, rows: 11, ranks: 8,
			want: []string{"nccl.no_plateau/info"}},
		{file: "meowth-oob-failed-socket.txt", runs: 1, rows: 0, ranks: 2},
		{file: "gistcswinter-2node-ib-disabled.txt", runs: 1, rows: 5, ranks: 2,
			want: []string{"nccl.ib_disabled/warning"}, wantNotes: []string{"without the footer"}},
		{file: "gistcswinter-2node-ib-disabled.txt", opts: TestsOptions{ExpectIB: true}, runs: 1, rows: 5, ranks: 2,
			want: []string{"nccl.ib_disabled/critical"}},
		{file: "util-cu-writer-2rank.json", opts: TestsOptions{Collective: nccltests.AllReduce}, runs: 1, rows: 2, ranks: 2,
			want: []string{"nccl.wrong_results/critical"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out := parseTestsFile(t, tt.file)
			if len(out.Runs) != tt.runs {
				t.Fatalf("runs = %d, want %d", len(out.Runs), tt.runs)
			}
			if got := len(out.Runs[0].Rows); got != tt.rows {
				t.Errorf("rows = %d, want %d", got, tt.rows)
			}
			if len(out.Skipped) != tt.skipped {
				t.Errorf("skipped = %v, want %d", out.Skipped, tt.skipped)
			}
			a := CheckTests(out, tt.opts)
			if a.Runs[0].Ranks != tt.ranks {
				t.Errorf("ranks = %d, want %d", a.Runs[0].Ranks, tt.ranks)
			}
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, a.Findings)
			}
			for _, w := range tt.wantNotes {
				if !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, w) }) {
					t.Errorf("no note contains %q; notes: %q", w, a.Notes)
				}
			}
			for _, f := range a.Findings {
				if f.Summary == "" || len(f.Evidence) == 0 || f.Subject.File != tt.file {
					t.Errorf("finding %s lacks summary, evidence or file: %+v", f.ID, f)
				}
			}
		})
	}
}

// Inputs built here rather than from the corpus: each changes one thing in
// a real layout (the spark header) to make one rule fire.
const sparkHead = `# nThread 1 nGpus 1 minBytes 8192 maxBytes 8589934592 step: 2(factor) warmup iters: 10 iters: 100 agg iters: 1 validation: 1 graph: 0 unalign: 0
#  Rank  0 Group  0 Pid 1666603 on spark-d708 device  0 [000f:01:00] NVIDIA GB10
#  Rank  1 Group  0 Pid 1669515 on spark-dbf4 device  0 [000f:01:00] NVIDIA GB10
`

func TestTestsRules(t *testing.T) {
	tests := []struct {
		name  string
		input string
		opts  TestsOptions
		want  []string
	}{
		{"wrong elements", sparkHead + "     1048576        262144     float     sum      -1    27.76   37.78   37.78      12    27.49   38.15   38.15       0\n# Out of bounds values : 12 FAILED\n",
			TestsOptions{Collective: nccltests.AllReduce}, []string{"nccl.wrong_results/critical"}},
		// Old nccl-tests' "error" column: the largest deviation, with
		// "*" when over the type's tolerance (a small one is rounding).
		{"old error column over tolerance", sparkHead + "     1048576        262144     float     sum      -1    27.76   37.78   37.78  3e-01*    27.49   38.15   38.15  2e-07\n",
			TestsOptions{Collective: nccltests.AllReduce}, []string{"nccl.wrong_results/critical"}},
		{"old error column rounding", sparkHead + "     1048576        262144     float     sum      -1    27.76   37.78   37.78  2e-07    27.49   38.15   38.15  0e+00\n",
			TestsOptions{Collective: nccltests.AllReduce}, nil},
		{"out-of-bounds footer only", sparkHead + "# Out of bounds values : 248 FAILED\n", TestsOptions{}, []string{"nccl.wrong_results/critical"}},
		{"busbw factor wrong", sparkHead + "    33554432       8388608     float     sum      -1    195.40  171.72  300.51       0   195.40  171.73  300.52       0\n",
			TestsOptions{Collective: nccltests.AllReduce}, []string{"nccl.busbw_inconsistent/warning"}},
		{"in-place half speed", sparkHead +
			"    33554432       8388608     float     sum      -1    1000.0   33.55   33.55       0   2000.0   16.78   16.78       0\n" +
			"    67108864      16777216     float     sum      -1    2000.0   33.55   33.55       0   4000.0   16.78   16.78       0\n",
			TestsOptions{Collective: nccltests.AllReduce}, []string{"nccl.inplace_asymmetry/warning"}},
		{"both slow: links", sparkHead +
			"        8192          2048     float     sum      -1    350.15    0.02    0.02       0    300.33    0.03    0.03       0\n" +
			"    67108864      16777216     float     sum      -1    6710.0   10.00   10.00       0   6710.0   10.00   10.00       0\n",
			TestsOptions{Collective: nccltests.AllReduce, LineRateGbps: 200}, []string{"nccl.busbw_low/critical"}},
		{"small slow, large fine", sparkHead +
			"        8192          2048     float     sum      -1    350.15    0.02    0.02       0    300.33    0.03    0.03       0\n" +
			"    67108864      16777216     float     sum      -1    2796.0   24.00   24.00       0   2796.0   24.00   24.00       0\n",
			TestsOptions{Collective: nccltests.AllReduce, LineRateGbps: 200}, []string{"nccl.small_msg_latency/warning"}},
		// Two hosts, 160 us for 8 B, no expectation (aws-samples
		// awsome-distributed-training's 2x p4de EFA reference run): normal
		// for EFA or TCP, slow for IB; only a log naming IB decides.
		{"small slow, two hosts, transport unknown", sparkHead +
			"           8             2     float     sum      -1    164.3    0.00    0.00      0    163.3    0.00    0.00      0\n",
			TestsOptions{Collective: nccltests.AllReduce}, nil},
		{"small slow, two hosts over IB", sparkHead +
			"           8             2     float     sum      -1    164.3    0.00    0.00      0    163.3    0.00    0.00      0\n",
			TestsOptions{Collective: nccltests.AllReduce, Net: []NetUse{{Host: "spark-d708", Network: "IB"}, {Host: "spark-dbf4", Network: "IB"}}}, []string{"nccl.small_msg_latency/warning"}},
		{"small slow, one host", strings.Replace(sparkHead, "spark-dbf4", "spark-d708", 1) +
			"           8             2     float     sum      -1    164.3    0.00    0.00      0    163.3    0.00    0.00      0\n",
			TestsOptions{Collective: nccltests.AllReduce}, []string{"nccl.small_msg_latency/warning"}},
		// A launch line that turns NCCL's IB transport off (the
		// gistcswinter sample's mpirun line, shortened).
		{"IB disabled on two hosts", "root@h:/# mpirun -np 2 -x NCCL_IB_DISABLE=1 ./build/all_reduce_perf -b 8 -e 64M\n" + sparkHead +
			"    67108864      16777216     float     sum      -1    6710.0   10.00   10.00       0   6710.0   10.00   10.00       0\n",
			TestsOptions{}, []string{"nccl.ib_disabled/warning"}},
		{"IB disabled, no rows yet", "root@h:/# mpirun -np 2 -x NCCL_IB_DISABLE=1 ./build/all_reduce_perf\n" + sparkHead,
			TestsOptions{ExpectIB: true}, []string{"nccl.ib_disabled/critical"}},
		{"IB disabled set to 0", "$ NCCL_IB_DISABLE=0 mpirun -np 2 ./build/all_reduce_perf\n" + sparkHead +
			"    67108864      16777216     float     sum      -1    2796.0   24.00   24.00       0   2796.0   24.00   24.00       0\n",
			TestsOptions{}, nil},
		{"IB disabled on one host", "$ mpirun -np 2 -x NCCL_IB_DISABLE=1 ./build/all_reduce_perf\n" + strings.Replace(sparkHead, "spark-dbf4", "spark-d708", 1) +
			"    67108864      16777216     float     sum      -1    2796.0   24.00   24.00       0   2796.0   24.00   24.00       0\n",
			TestsOptions{}, nil},
		{"IB disabled but the log shows IB", "$ mpirun -np 2 -x NCCL_IB_DISABLE=1 ./build/all_reduce_perf\n" + sparkHead +
			"    67108864      16777216     float     sum      -1    2796.0   24.00   24.00       0   2796.0   24.00   24.00       0\n",
			TestsOptions{Net: []NetUse{{Host: "spark-d708", Network: "IB"}, {Host: "spark-dbf4", Network: "IB"}}}, nil},
		{"healthy", sparkHead +
			"        8192          2048     float     sum      -1    35.15    0.23    0.23       0    30.33    0.27    0.27       0\n" +
			"    67108864      16777216     float     sum      -1    2796.0   24.00   24.00       0   2796.0   24.00   24.00       0\n",
			TestsOptions{Collective: nccltests.AllReduce, LineRateGbps: 200}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := nccltests.Parse(strings.NewReader(tt.input), "t.txt")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckTests(out, tt.opts)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
		})
	}
}

// FuzzCheckTests runs the rules over whatever the parser accepts: they
// must not panic on any parsed output.
func FuzzCheckTests(f *testing.F) {
	files, _ := filepath.Glob(testsData + "*.*")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := nccltests.Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		a := CheckTests(out, TestsOptions{Collective: nccltests.AllReduce, LineRateGbps: 400})
		if len(a.Runs) != len(out.Runs) {
			t.Fatalf("%d summaries for %d runs", len(a.Runs), len(out.Runs))
		}
	})
}

// Newer nccl-tests print a version line per process, so the copies of a
// non-MPI launch parse as separate runs; the header lines are those of the
// spark sample with each process listing only itself.
func TestCopiesAsSeparateRuns(t *testing.T) {
	one := func(host string, pid int) string {
		return "# nccl-tests version 2.20.0 (b4d5bee) nccl-headers=23102 nccl-library=23102\n" +
			"# Collective test starting: all_reduce_perf\n" +
			"# nThread 1 nGpus 1 minBytes 8192 maxBytes 8589934592 step: 2(factor) warmup iters: 10 iters: 100 agg iters: 1 validation: 1 graph: 0 unalign: 0\n" +
			"#  Rank  0 Group  0 Pid " + strconv.Itoa(pid) + " on " + host + " device  0 [000f:01:00] NVIDIA GB10\n" +
			"        8192          2048     float     sum      -1    35.15    0.00    0.00       0    30.33    0.00    0.00       0\n"
	}
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"two hosts", one("spark-d708", 1666603) + one("spark-dbf4", 1669515), []string{"nccl.test_not_distributed/warning"}},
		{"rerun on one host", one("spark-d708", 1666603) + one("spark-d708", 1666999), nil},
	} {
		out, err := nccltests.Parse(strings.NewReader(tc.in), "c.txt")
		if err != nil {
			t.Fatal(err)
		}
		a := CheckTests(out, TestsOptions{})
		if diff := cmp.Diff(tc.want, ids(a.Findings)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// twoNodes is the header of a 2-node all_reduce with gpus ranks per host
// (nccl-tests rank lines), infoLines of NCCL_DEBUG=INFO output, and one
// 1 GiB row peaking at busbw GB/s (algbw = busbw / 2(n-1)/n).
func twoNodes(gpus int, busbw float64, infoLines string) string {
	var b strings.Builder
	b.WriteString("# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n")
	n := 2 * gpus
	for r := 0; r < n; r++ {
		host := "gpu-a"
		if r >= gpus {
			host = "gpu-b"
		}
		fmt.Fprintf(&b, "#  Rank %2d Group  0 Pid %d on %s device  %d [0000:%02x:00] NVIDIA H100 80GB HBM3\n", r, 4000+r, host, r%gpus, 0x18+r%gpus)
	}
	b.WriteString(infoLines)
	alg := busbw / (2 * float64(n-1) / float64(n))
	t := 1073741824 / (alg * 1e3)
	fmt.Fprintf(&b, "  1073741824     268435456     float     sum      -1  %8.1f  %6.2f  %6.2f       0  %8.1f  %6.2f  %6.2f       0\n", t, alg, busbw, t, alg, busbw)
	return b.String()
}

// infoIB is the NCCL log line of one process of host listing nics HCAs.
func infoIB(host string, nics int) string {
	var list []string
	for i := 0; i < nics; i++ {
		list = append(list, fmt.Sprintf("[%d]mlx5_%d:1/IB", i, i))
	}
	return fmt.Sprintf("%s:4000:4100 [0] NCCL INFO NET/IB : Using %s ; OOB ib0:10.0.0.1<0>\n%s:4000:4100 [0] NCCL INFO Using network IB\n", host, strings.Join(list, " "), host)
}

// A multi-node run's busbw is bounded by the node's aggregate NIC
// bandwidth, not one NIC's: the expectation counts the NICs per node, and
// says where the count came from.
func TestTestsNICsPerNode(t *testing.T) {
	socket := "gpu-a:4000:4100 [0] NCCL INFO NET/IB : No device found.\ngpu-a:4000:4100 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\ngpu-a:4000:4100 [0] NCCL INFO Using network Socket\n"
	tests := []struct {
		name   string
		input  string
		opts   TestsOptions
		want   []string
		expect float64 // RunSummary.ExpectBusBW
		basis  string  // substring of the summary's basis or the first finding
	}{
		{"8 GPUs per host, 400G: 44 GB/s is one NIC's worth", twoNodes(8, 44, ""), TestsOptions{LineRateGbps: 400},
			[]string{"nccl.busbw_low/critical"}, 320, "8 × 400 Gb/s / 8 × 0.80 = 320.0 GB/s (NICs per node from the rank layout: 8 ranks per host, one NIC per GPU assumed"},
		{"the stuck-on-one-NIC hint", twoNodes(8, 44, ""), TestsOptions{LineRateGbps: 400},
			[]string{"nccl.busbw_low/critical"}, 320, "the peak is within one NIC's 50 GB/s: the run looks stuck on one NIC or on TCP"},
		{"healthy at the node's aggregate", twoNodes(8, 300, ""), TestsOptions{LineRateGbps: 400}, nil, 320, "rank layout"},
		{"4 x 200G NICs per node from the flag: 96 GB/s is healthy", twoNodes(8, 96, ""), TestsOptions{LineRateGbps: 200, NICsPerNode: 4, NICsFrom: "--nics-per-node"},
			nil, 80, "4 × 200 Gb/s / 8 × 0.80 = 80.0 GB/s (--nics-per-node)"},
		{"4 x 200G NICs per node from the NCCL log: 96 GB/s is healthy", twoNodes(8, 96, infoIB("gpu-a", 4)+infoIB("gpu-b", 4)), TestsOptions{LineRateGbps: 200},
			nil, 80, "NICs per node from the NCCL log: gpu-a uses mlx5_0:1/IB mlx5_1:1/IB mlx5_2:1/IB mlx5_3:1/IB"},
		{"one GPU per host drives one of 8 NICs", twoNodes(1, 45, ""), TestsOptions{LineRateGbps: 400, NICsPerNode: 8, NICsFrom: "--root /n: 8 IB ports"},
			nil, 40, "1 GPU(s) per host drive 1 of them"},
		{"stuck on one NIC the node has 8 of: one critical finding", twoNodes(8, 44, infoIB("gpu-a", 8)+infoIB("gpu-b", 1)), TestsOptions{LineRateGbps: 400, NICsPerNode: 8, NICsFrom: "--nics-per-node"},
			[]string{"nccl.nics_unused/critical"}, 320, "gpu-b drives its inter-node traffic through 1 NIC(s) where 8 are expected (--nics-per-node); large-message busbw 44.0 GB/s is 14% of the expected 8 × 400"},
		{"stuck on one NIC while the other host uses 8", twoNodes(8, 44, infoIB("gpu-a", 8)+infoIB("gpu-b", 1)), TestsOptions{LineRateGbps: 400},
			[]string{"nccl.nics_unused/critical"}, 320, "gpu-b drives its inter-node traffic through 1 NIC(s) where 8 are expected (gpu-a uses 8)"},
		{"one NIC listed, 8 GPUs per host, NIC count unknown: a warning", twoNodes(8, 44, infoIB("gpu-a", 1)+infoIB("gpu-b", 1)), TestsOptions{LineRateGbps: 400},
			[]string{"nccl.nics_unused/warning"}, 40, "through 1 NIC(s) where 8 are expected (8 GPUs per host, one NIC per GPU assumed); if the node has more"},
		{"multi-node on TCP", twoNodes(8, 9, socket), TestsOptions{LineRateGbps: 400},
			[]string{"nccl.socket_fallback/critical"}, 320, "multi-node run over 2 hosts: gpu-a sent its inter-node traffic over TCP sockets (NET/Socket), not IB/RoCE; large-message busbw 9.0 GB/s is 3%"},
		// H100s across nodes: judged against the data-center floor.
		{"multi-node on TCP without a bandwidth expectation", twoNodes(8, 9, socket), TestsOptions{},
			[]string{"nccl.socket_fallback/critical"}, 10, "over TCP sockets"},
		{"no rank list: 2 ranks hold one per node", "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n" +
			"  1073741824     268435456     float     sum      -1   53687.1   20.00   20.00       0   53687.1   20.00   20.00       0\n",
			TestsOptions{Collective: nccltests.AllReduce, LineRateGbps: 200, NICsPerNode: 8, NICsFrom: "--root /n: 8 IB ports"}, nil, 20, "no rank list: 2 ranks hold at most 1 per node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := nccltests.Parse(strings.NewReader(tt.input), "t.txt")
			if err != nil {
				t.Fatal(err)
			}
			opts := tt.opts
			if nccllog.Detect(tt.input) {
				lg, err := nccllog.Parse(strings.NewReader(tt.input), "t.txt")
				if err != nil {
					t.Fatal(err)
				}
				opts.Net = NetUseOf(lg)
			}
			a := CheckTests(out, opts)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%+v\nnotes: %v", diff, a.Findings, a.Notes)
			}
			if got := a.Runs[0].ExpectBusBW; math.Abs(got-tt.expect) > 0.05 {
				t.Errorf("expected busbw %.1f, want %.1f (%s)", got, tt.expect, a.Runs[0].ExpectBasis)
			}
			text := a.Runs[0].ExpectBasis
			for _, f := range a.Findings {
				text += "\n" + f.Summary
			}
			if !strings.Contains(text, tt.basis) {
				t.Errorf("%q not in\n%s", tt.basis, text)
			}
		})
	}
}

// A run without small messages says nothing about them.
func TestBusBWLowWithoutSmallMessages(t *testing.T) {
	out, err := nccltests.Parse(strings.NewReader(twoNodes(8, 44, "")), "t.txt")
	if err != nil {
		t.Fatal(err)
	}
	a := CheckTests(out, TestsOptions{LineRateGbps: 400})
	if len(a.Findings) != 1 || strings.Contains(a.Findings[0].Summary, "small messages are fine") {
		t.Errorf("findings: %+v", a.Findings)
	}
}
