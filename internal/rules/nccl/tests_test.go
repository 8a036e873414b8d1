package nccl

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
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
