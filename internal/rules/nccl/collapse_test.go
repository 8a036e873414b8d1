package nccl

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccltests"
)

// TestCollapse: busbw that falls under half the best of the smaller sizes,
// at 1 MiB and more and at two sizes or more, is nccl.busbw_collapse. The
// rows are an alltoall_perf of 16 RTX 6000D over two nodes whose busbw
// collapses from 29.86 GB/s at 8 MiB to 1.4-5.5 GB/s (analyze
// testdata/realworld-fresh46,
// nccl-tests-stored52913594292-rtx6000d-alltoall-16m-512m-collapse.txt).
func TestCollapse(t *testing.T) {
	const head = "# Collective test starting: alltoall_perf\n" +
		"# nThread 1 nGpus 1 minBytes 1024 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n" +
		"#\n# Using devices\n" +
		"#  Rank  0 Group  0 Pid   2948 on R6KD-CX8aaS-GPU-11 device  0 [0000:06:00] NVIDIA RTX 6000D\n" +
		"#  Rank  1 Group  0 Pid   3383 on R6KD-CX8aaS-GPU-12 device  0 [0000:06:00] NVIDIA RTX 6000D\n" +
		"#\n#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n"
	const (
		r4m   = "     4194304         65536     float    none      -1   163.62   25.63   24.03       0   157.00   26.71   25.04    N/A\n"
		r8m   = "     8388608        131072     float    none      -1   263.35   31.85   29.86       0   268.41   31.25   29.30    N/A\n"
		r16m  = "    16777216        262144     float    none      -1  10642.5    1.58    1.48       0  29073.1    0.58    0.54    N/A\n"
		r32m  = "    33554432        524288     float    none      -1  9845.58    3.41    3.20       0  12376.0    2.71    2.54    N/A\n"
		r64m  = "    67108864       1048576     float    none      -1  44747.1    1.50    1.41       0  69049.0    0.97    0.91    N/A\n"
		r64ok = "    67108864       1048576     float    none      -1   2100.0   31.95   29.95       0   2100.0   31.95   29.95    N/A\n"
		r32ok = "    33554432        524288     float    none      -1   1100.0   30.50   28.60       0   1100.0   30.50   28.60    N/A\n"
		r16ok = "    16777216        262144     float    none      -1    600.0   27.96   26.21       0    600.0   27.96   26.21    N/A\n"
		foot  = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 9.04853 \n#\n"
	)
	for _, tc := range []struct {
		name, rows string
		want       bool
		summary    string
	}{
		{"real collapse at 16-64 MiB", r4m + r8m + r16m + r32m + r64m, true,
			"busbw collapses from 29.86 GB/s at 8 MiB to as low as 1.41 GB/s at 3 sizes from 16 MiB to 64 MiB"},
		{"one slow size is a hiccup", r4m + r8m + r16m + r32ok + r64ok, false, ""},
		{"a 10% dip is not a collapse", r4m + r8m + r16ok + r32ok + r64ok, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := nccltests.Parse(strings.NewReader(head+tc.rows+foot), "t.txt")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckTests(out, TestsOptions{})
			got := false
			for _, f := range a.Findings {
				if f.ID == "nccl.busbw_collapse" {
					got = true
					if f.Severity != "warning" || !strings.Contains(f.Summary, tc.summary) {
						t.Errorf("%s: %q", f.Severity, f.Summary)
					}
				}
			}
			if got != tc.want {
				t.Errorf("collapse %v, want %v: %v", got, tc.want, ids(a.Findings))
			}
		})
	}
}
