package nccltests

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseFile(t *testing.T, name string) *Output {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := Parse(f, name)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return out
}

func TestParseValues(t *testing.T) {
	out := parseFile(t, "alltoall-single-rank.txt")
	run := out.Runs[0]
	want := Row{Line: 9, Size: 33554432, Count: 8388608, Type: "float", Redop: "none", Root: -1,
		OutOfPlace: &Measure{TimeUS: 19.56, AlgBW: 1715.44, BusBW: 0},
		InPlace:    &Measure{TimeUS: 0.78, AlgBW: 43046.10, BusBW: 0, WrongNA: true}}
	if diff := cmp.Diff(want, run.Rows[0]); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
	if run.OutOfBounds == nil || *run.OutOfBounds != 0 || run.AvgBusBW == nil || *run.AvgBusBW != 0 {
		t.Errorf("footer = %v %v", run.OutOfBounds, run.AvgBusBW)
	}
	wantRank := RankInfo{Rank: 0, Pid: 2181762, Host: "GENOA-01", Device: 0, BusID: "0x01", GPU: "NVIDIA GeForce RTX 5090", Line: 4}
	if diff := cmp.Diff(wantRank, run.Ranks[0]); diff != "" {
		t.Errorf("rank (-want +got):\n%s", diff)
	}

	sp := parseFile(t, "spark-2node-allreduce.txt").Runs[0]
	if sp.Program != "all_reduce_perf" || sp.Version != "2.20.0" || sp.NCCLLibrary != 23102 || sp.MaxBytes != 8589934592 {
		t.Errorf("header = %q %q %d %d", sp.Program, sp.Version, sp.NCCLLibrary, sp.MaxBytes)
	}
	if got := sp.Hosts(); !slices.Equal(got, []string{"spark-d708", "spark-dbf4"}) {
		t.Errorf("hosts = %v", got)
	}
	old := parseFile(t, "nccl340-old-format-2gpu.txt").Runs[0]
	if r := old.Rows[11]; r.Redop != "" || r.Root != -1 || r.InPlace.BusBW != 21.86 || r.OutOfPlace.TimeUS != 3298.6 {
		t.Errorf("old-format row = %+v %+v", r, r.InPlace)
	}
	if *old.AvgBusBW != 6.6972 {
		t.Errorf("avg busbw = %v", *old.AvgBusBW)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "hello\nworld\n", "# just a comment\n"} {
		_, err := Parse(strings.NewReader(in), "x.txt")
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrNoData) || pe.Source != "x.txt" {
			t.Errorf("Parse(%q) = %v, want ParseError wrapping ErrNoData", in, err)
		}
	}
	out, err := Parse(strings.NewReader("   1024  256  float  sum  -1  5.45  NaN  0.33  0  5.35  0.19  0.33  0\r\n"+
		"   2048  512  float  sum  -1  5.57  0.37  0.64  0  5.53  0.37  0.65  0\r\n"), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Runs[0].Rows) != 1 || len(out.Skipped) != 1 || out.Skipped[0].Line != 1 {
		t.Errorf("NaN row: rows %v skipped %v", out.Runs[0].Rows, out.Skipped)
	}
}

// An NCCL debug log is not nccl-tests output: neither detected nor parsed
// as one.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"testdata/not-mpi-two-headers.txt", true},
		{"testdata/util-cu-writer-2rank.json", true},
		{"../nccllog/testdata/nccl1814-retry-then-flush.log", false},
		// Rows alone, the header cut off (kvcache-ai/Mooncake#3484).
		{"testdata/mooncake-8gpu-rows.txt", true},
	} {
		b, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(string(b)); got != tc.want {
			t.Errorf("Detect(%s) = %v, want %v", tc.path, got, tc.want)
		}
		if tc.want {
			continue
		}
		if _, err := Parse(strings.NewReader(string(b)), "a.log"); !errors.Is(err, ErrNoData) {
			t.Errorf("Parse(%s) err = %v, want ErrNoData", tc.path, err)
		}
	}
}

// TestDetectBareRows: two result rows without a header are nccl-tests;
// one row, or rows of another numeric table, are not.
func TestDetectBareRows(t *testing.T) {
	row := "    33554432       8388608     float     sum      -1    195.40  171.72  300.51       0   195.40  171.73  300.52       0\n"
	for _, tc := range []struct {
		name, text string
		want       bool
	}{
		{"two rows", row + row, true},
		{"one row", row, false},
		{"bfloat16, no root", strings.Repeat("     1048576        524288  bfloat16     sum    85.58   12.25   22.97      0    84.50   12.41   23.27      0\n", 2), true},
		{"other table", strings.Repeat("     1048576        524288   mytype     sum    85.58   12.25   22.97      0    84.50   12.41   23.27      0\n", 2), false},
	} {
		if got := Detect(tc.text); got != tc.want {
			t.Errorf("%s: Detect = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBusFactor(t *testing.T) {
	tests := []struct {
		c    Collective
		n    int
		want float64
	}{{AllReduce, 8, 1.75}, {AllReduce, 2, 1}, {AllGather, 4, 0.75}, {AllToAll, 16, 0.9375}, {Broadcast, 8, 1}, {SendRecv, 2, 1}, {ReduceScatter, 1, 0}}
	for _, tt := range tests {
		if got, ok := tt.c.BusFactor(tt.n); !ok || got != tt.want {
			t.Errorf("%s.BusFactor(%d) = %v, %v; want %v", tt.c, tt.n, got, ok, tt.want)
		}
	}
	if _, ok := Collective("x").BusFactor(2); ok {
		t.Error("unknown collective has a factor")
	}
	for in, want := range map[string]Collective{"all_reduce_perf": AllReduce, "./build/alltoall_perf_mpi": AllToAll, "allgather": AllGather} {
		if got, err := ParseCollective(in); err != nil || got != want {
			t.Errorf("ParseCollective(%q) = %v, %v", in, got, err)
		}
	}
	if got := CollectiveInName("out/reduce_scatter_perf.2n.log"); got != ReduceScatter {
		t.Errorf("CollectiveInName = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, p := range files {
		if filepath.Ext(p) == ".md" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, run := range out.Runs {
			for _, r := range run.Rows {
				if r.Size < 0 || r.InPlace == nil {
					t.Fatalf("bad row %+v", r)
				}
				for _, m := range []*Measure{r.OutOfPlace, r.InPlace} {
					if m != nil && (m.TimeUS < 0 || m.AlgBW < 0 || m.BusBW < 0 || m.Wrong < 0) {
						t.Fatalf("negative measure %+v", m)
					}
				}
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "mooncake-8gpu-rows.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(strings.NewReader(string(data)), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// The JSON report of newer nccl-tests (-J): built with src/util.cu's
// writer layout (devices inside config, root as a padded string, "%lf"
// numbers, null #wrong when unchecked) and the spark sample's values.
func TestParseJSON(t *testing.T) {
	out := parseFile(t, "util-cu-writer-2rank.json")
	run := out.Runs[0]
	if len(run.Ranks) != 2 || run.Ranks[1].Host != "spark-dbf4" || run.NCCLLibrary != 23102 || run.MaxBytes != 65536 {
		t.Fatalf("run = %+v", run)
	}
	if len(run.Rows) != 2 || run.Rows[1].Root != -1 || run.Rows[1].OutOfPlace.Wrong != 3 || !run.Rows[1].InPlace.WrongNA || run.Rows[0].InPlace.TimeUS != 30.33 {
		t.Errorf("rows = %+v", run.Rows)
	}
	if run.OutOfBounds == nil || *run.OutOfBounds != 3 {
		t.Errorf("out of bounds = %v", run.OutOfBounds)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"version":2,"results":[{"size":8,"out_of_place":{"time":-1}}]}`, ""},
		{`{"foo":1}`, "not an nccl-tests JSON report"},
		{"{\"version\":2,\n\"results\":[{\"size\":\"x\"}]}", "line 2"},
	} {
		o, err := Parse(strings.NewReader(tc.in), "j.json")
		if tc.want == "" {
			if err != nil || len(o.Skipped) != 1 {
				t.Errorf("Parse(%q) = %+v, %v; want one skipped result", tc.in, o, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestLauncherTags: mpirun --tag-output prefixes after indentation (the
// aws-samples EKS README), and tags another rank's output spliced into the
// middle of a row.
func TestLauncherTags(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		size     int64
		busbw    float64
	}{
		{"indented tag", "   [1,0]<stdout>:  2147483648     536870912     float     sum      -1   9197.5  233.49  437.79      0   9195.2  233.54  437.89      0\n", 2147483648, 437.89},
		{"tag spliced mid-row", "  2147483648     536870912     float     sum [1,3]<stdout>:     -1   9197.5  233.49  437.79      0   9195.2  233.54  437.89      0\n", 2147483648, 437.89},
		{"bare rank tag spliced", "  1073741824     268435456     float     sum      -1   6426.3  167.09  313.29 [0]      0   6426.1  167.09  313.29      0\n", 1073741824, 313.29},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Parse(strings.NewReader(tc.in), "t.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Runs) != 1 || len(out.Runs[0].Rows) != 1 || len(out.Skipped) != 0 {
				t.Fatalf("runs %+v skipped %+v", out.Runs, out.Skipped)
			}
			r := out.Runs[0].Rows[0]
			if r.Size != tc.size || r.InPlace.BusBW != tc.busbw {
				t.Errorf("row = %+v %+v", r, r.InPlace)
			}
		})
	}
}

// TestRankListWithHoles: a device list shortened by hand (ranks 0, 7, 8,
// 15 of 16, oracle-quickstart/oci-hpc-oke's "representative output") does
// not give the rank count; a complete one does.
func TestRankListWithHoles(t *testing.T) {
	rank := func(r int, host string) string {
		return fmt.Sprintf("#  Rank %2d Group  0 Pid    490 on %s device  %d [0000:0f:00] NVIDIA A100-SXM4-40GB\n", r, host, r%8)
	}
	row := "  1073741824     268435456     float     sum      -1  10908.0   98.44  184.57       0  11220.1   95.70  179.43       0\n"
	for _, tc := range []struct {
		name      string
		ranks     []int
		truncated bool
		n         int
	}{
		{"holes", []int{0, 7, 8, 15}, true, 0},
		{"complete", []int{0, 1, 2, 3}, false, 4},
	} {
		in := "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 4294967296 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
		for _, r := range tc.ranks {
			in += rank(r, fmt.Sprintf("node%d", r/8))
		}
		out, err := Parse(strings.NewReader(in+row), "t.txt")
		if err != nil {
			t.Fatal(err)
		}
		if r := out.Runs[0]; r.RanksTruncated != tc.truncated || r.NRanks() != tc.n {
			t.Errorf("%s: truncated %v, %d ranks; want %v, %d", tc.name, r.RanksTruncated, r.NRanks(), tc.truncated, tc.n)
		}
	}
}

// TestLaunch reads the NCCL_* variables and the program of the command
// line pasted above a run, in each launcher's spelling; the first case is
// the launch line of gist.github.com/cswinter/3bc2cbcc7c947e4a2736188dd6e74240.
func TestLaunch(t *testing.T) {
	const head = "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
	for _, tc := range []struct {
		name, in string
		want     *Launch
	}{
		{"Open MPI -x after a root prompt", "root@managed-worker-3jq5:/# mpirun --allow-run-as-root -H 10.73.0.209:1,10.73.0.244:1 -np 2 -mca btl_tcp_if_include ens12 -x NCCL_IB_DISABLE=1 -x LD_LIBRARY_PATH -x NCCL_SOCKET_IFNAME=ens12 -x NCCL_DEBUG=VERSION /nccl-tests/build/all_reduce_perf -b 1M -e 1G -f 2 -g 1 -c 0\n",
			&Launch{Line: 1, Program: "all_reduce_perf", Env: map[string]string{"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "ens12", "NCCL_DEBUG": "VERSION"}}},
		{"MPICH -genv", "$ mpiexec -n 16 -genv NCCL_IB_HCA mlx5_0,mlx5_1 -genv NCCL_DEBUG=INFO ./all_gather_perf_mpi -b 8\n",
			&Launch{Line: 1, Program: "all_gather_perf_mpi", Env: map[string]string{"NCCL_IB_HCA": "mlx5_0,mlx5_1", "NCCL_DEBUG": "INFO"}}},
		{"srun --export", "srun -N 2 --export=ALL,NCCL_IB_DISABLE=1,NCCL_NET_GDR_LEVEL=5 all_reduce_perf -b 8\n",
			&Launch{Line: 1, Program: "all_reduce_perf", Env: map[string]string{"NCCL_IB_DISABLE": "1", "NCCL_NET_GDR_LEVEL": "5"}}},
		{"words before the binary", "NCCL_ALGO=Tree NCCL_PROTO=\"Simple\" ./build/broadcast_perf -g 8\n",
			&Launch{Line: 1, Program: "broadcast_perf", Env: map[string]string{"NCCL_ALGO": "Tree", "NCCL_PROTO": "Simple"}}},
		{"continued lines", "$ mpirun -np 2 \\\n    -x NCCL_IB_DISABLE=1 \\\n    ./build/all_reduce_perf -b 8\n",
			&Launch{Line: 1, Program: "all_reduce_perf", Env: map[string]string{"NCCL_IB_DISABLE": "1"}}},
		{"prose is no launch", "I ran it with NCCL_IB_DISABLE=1 and all_reduce_perf\n", nil},
		{"an env listing is no launch", "NCCL_IB_DISABLE=1\nNCCL_DEBUG=INFO\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Parse(strings.NewReader(tc.in+head+"        1024           256     float     sum      -1    27.76    0.04    0.04       0    27.49    0.04    0.04       0\n"), "t.txt")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.Runs[0].Launch); diff != "" {
				t.Errorf("launch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOldRankLines: the first nccl-tests releases print "#   Rank %2d on
// %10s device %2d [0x%02x] %s" without a Pid (src/common.cu of 2018–19).
func TestOldRankLines(t *testing.T) {
	run := parseFile(t, "gistcswinter-2node-ib-disabled.txt").Runs[0]
	want := []RankInfo{
		{Rank: 0, Host: "managed-worker-3jq5", BusID: "0x00", GPU: "Tesla V100-SXM2-16GB", Line: 6},
		{Rank: 1, Host: "managed-worker-0khr", BusID: "0x00", GPU: "Tesla V100-SXM2-16GB", Line: 9},
	}
	if diff := cmp.Diff(want, run.Ranks); diff != "" {
		t.Errorf("ranks (-want +got):\n%s", diff)
	}
	if run.NRanks() != 2 || len(run.Rows) != 5 || run.Program != "all_reduce_perf" || run.Launch.Env["NCCL_IB_DISABLE"] != "1" {
		t.Errorf("run = %d ranks, %d rows, program %q, launch %+v", run.NRanks(), len(run.Rows), run.Program, run.Launch)
	}
}

// TestHandMadeTable: a summary table with a column of its own in front
// (NVIDIA/nccl#527: a node-count column "p4dn", one row per run) is not
// read as rows of one run; the error names the first line refused.
func TestHandMadeTable(t *testing.T) {
	in := " p4dn        size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n" +
		"   1   1073741824     268435456     float     sum   8142.6  131.87  230.77  2e-07   8141.2  131.89  230.81  2e-07\n" +
		"   2   1073741824     268435456     float     sum    35215   30.49   57.17  4e-07    35198   30.51   57.20  4e-07\n"
	_, err := Parse(strings.NewReader(in), "t.txt")
	var pe *ParseError
	if !errors.Is(err, ErrNoData) || !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(err.Error(), `type "268435456"`) || !strings.Contains(err.Error(), "(and 1 more)") {
		t.Errorf("err = %v", err)
	}
}

// TestOldErrorColumn: nccl-tests before the #wrong count printed an
// "error" column, the largest deviation from the expected result as
// "%5.0le", with "*" after it in the releases that flagged one over
// tolerance. The rows of an 8-node p3dn all_reduce_perf gist
// (gist.github.com/jacobkahn, "NCCL Tests on 8 node p3dn.24xlarge + EFA")
// are read; a count printed with %g from 1e+06 up is still a count.
func TestOldErrorColumn(t *testing.T) {
	tests := []struct {
		name, row string
		want      [2]Measure // out-of-place, in-place
	}{
		{"gist row", "8 2 float sum 631.3 0.00 0.00 2e-07 632.3 0.00 0.00 0e+00",
			[2]Measure{{TimeUS: 631.3, Delta: true, MaxDelta: 2e-07}, {TimeUS: 632.3, Delta: true}}},
		{"busbw row", "32768 8192 float sum 663.2 0.05 0.10 2e-06 660.3 0.05 0.10 2e-06",
			[2]Measure{{TimeUS: 663.2, AlgBW: 0.05, BusBW: 0.10, Delta: true, MaxDelta: 2e-06}, {TimeUS: 660.3, AlgBW: 0.05, BusBW: 0.10, Delta: true, MaxDelta: 2e-06}}},
		{"over tolerance", "1024 256 float sum 634.2 0.00 0.00 3e-01* 632.8 0.00 0.00 1e-06",
			[2]Measure{{TimeUS: 634.2, Delta: true, MaxDelta: 0.3, DeltaOver: true}, {TimeUS: 632.8, Delta: true, MaxDelta: 1e-06}}},
		{"a count of a million", "1024 256 float sum -1 634.2 0.00 0.00 1e+06 632.8 0.00 0.00 0",
			[2]Measure{{TimeUS: 634.2, Wrong: 1000000}, {TimeUS: 632.8}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, err := parseRow(tt.row, false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, [2]Measure{*row.OutOfPlace, *row.InPlace}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
