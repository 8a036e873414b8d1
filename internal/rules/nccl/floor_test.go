package nccl

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccltests"
)

// TestDataCenterFloor: a multi-node run of data-center GPUs with no
// bandwidth expectation is judged against one 100 Gb/s NIC per node
// (100/8 × 0.8 = 10 GB/s), a warning below it; one host, other GPUs and
// runs with an expectation keep their judgement. The slow run's rank
// lines are the CSCS Alps docs' two nodes of 4 GH200 (realworld-fresh24
// nccl-tests-cscsdocs-alps-gh200-8rank-cxi-hook-off-slow.txt).
func TestDataCenterFloor(t *testing.T) {
	run := func(hosts []string, gpu string, busbw float64) string {
		var b strings.Builder
		b.WriteString("# nThread 1 nGpus 1 minBytes 33554432 maxBytes 134217728 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n")
		n := 4 * len(hosts)
		for r := 0; r < n; r++ {
			fmt.Fprintf(&b, "#  Rank %2d Group  0 Pid %d on  %s device  %d [00%d9:01:00] %s\n", r, 202829+r, hosts[r/4], r%4, r%4, gpu)
		}
		b.WriteString("#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n")
		factor := 2 * float64(n-1) / float64(n)
		for _, size := range []int64{33554432, 67108864, 134217728} {
			alg := busbw / factor
			us := float64(size) / (alg * 1e3)
			fmt.Fprintf(&b, "%12d %13d     float     sum      -1  %8.1f  %6.2f  %6.2f      0  %8.1f  %6.2f  %6.2f      0\n", size, size/4, us, alg, busbw, us, alg, busbw)
		}
		return b.String()
	}
	two := []string{"nid005471", "nid005487"}
	tests := []struct {
		name   string
		input  string
		opts   TestsOptions
		want   []string
		expect float64
	}{
		{"GH200 across nodes at 5.4 GB/s", run(two, "NVIDIA GH200 120GB", 5.4), TestsOptions{}, []string{"nccl.busbw_low/warning"}, 10},
		{"GH200 across nodes at 22.9 GB/s", run(two, "NVIDIA GH200 120GB", 22.9), TestsOptions{}, nil, 10},
		{"A100 across nodes at 9.5 GB/s", run(two, "NVIDIA A100-SXM4-80GB", 9.5), TestsOptions{}, []string{"nccl.busbw_low/warning"}, 10},
		{"MI300X across nodes at 4 GB/s", run(two, "AMD Instinct MI300X", 4), TestsOptions{}, []string{"nccl.busbw_low/warning"}, 10},
		// Under a third of the floor (3.3 GB/s) is critical: two DGX Spark
		// (GB10, 200 Gb/s ConnectX-7) after a cable swap at 2.82 GB/s
		// (analyze testdata/realworld-fresh67), and at 21 GB/s before it.
		{"GB10 across nodes at 2.82 GB/s", run(two, "NVIDIA GB10", 2.82), TestsOptions{}, []string{"nccl.busbw_low/critical"}, 10},
		{"GB10 across nodes at 21.4 GB/s", run(two, "NVIDIA GB10", 21.4), TestsOptions{}, nil, 10},
		{"H100 across nodes at 3.4 GB/s: a warning", run(two, "NVIDIA H100 80GB HBM3", 3.4), TestsOptions{}, []string{"nccl.busbw_low/warning"}, 10},
		// Small messages keep their judgement: slow at an unknown
		// transport is a note (realworld-fresh8 a3megaztan, H100 2 nodes).
		{"slow small messages above the floor", strings.Replace(run(two, "NVIDIA H100 80GB HBM3", 22.9), "#wrong\n",
			"#wrong\n           8             2     float     sum      -1    160.0    0.00    0.00      0    160.0    0.00    0.00      0\n", 1), TestsOptions{}, nil, 10},
		{"GH200 on one host: the one-host floor, above it", run([]string{"nid005471"}, "NVIDIA GH200 120GB", 5.4), TestsOptions{}, nil, 1},
		// Other GPUs across nodes are held to the 10 GbE TCP floor only:
		// 1 GB/s. The 0.99 GB/s run is two V100-PCIE nodes over TCP
		// (analyze testdata/realworld-fresh45,
		// nccl-tests-stored36927849710-v100-2node-tcp-0p99gbs.txt).
		{"consumer GPUs across nodes: above the TCP floor", run(two, "NVIDIA GeForce RTX 4090", 5.4), TestsOptions{}, nil, 1},
		{"V100 across nodes: above the TCP floor", run(two, "Tesla V100-SXM2-32GB", 5.4), TestsOptions{}, nil, 1},
		{"V100 across nodes at 0.99 GB/s: under the TCP floor", run(two, "Tesla V100-PCIE-32GB", 0.99), TestsOptions{}, []string{"nccl.busbw_low/warning"}, 1},
		{"consumer GPUs across nodes at 1.1 GB/s: a 10 GbE path, not judged low", run(two, "NVIDIA GeForce RTX 4090", 1.1), TestsOptions{}, nil, 1},
		{"an explicit expectation wins", run(two, "NVIDIA GH200 120GB", 5.4), TestsOptions{ExpectBusBW: 6}, nil, 6},
		{"a line rate wins, critical below it", run(two, "NVIDIA GH200 120GB", 5.4), TestsOptions{LineRateGbps: 200, NICsPerNode: 4}, []string{"nccl.busbw_low/critical"}, 80},
	}
	for _, tc := range tests {
		out, err := nccltests.Parse(strings.NewReader(tc.input), "t.txt")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a := CheckTests(out, tc.opts)
		if got := ids(a.Findings); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: findings %v, want %v (%+v; notes %q)", tc.name, got, tc.want, a.Findings, a.Notes)
		}
		if got := a.Runs[0].ExpectBusBW; got < tc.expect-0.05 || got > tc.expect+0.05 {
			t.Errorf("%s: expected busbw %.1f, want %.1f", tc.name, got, tc.expect)
		}
		if tc.expect == 10 && !strings.Contains(a.Runs[0].ExpectBasis, "floor for data-center GPUs across nodes") {
			t.Errorf("%s: basis %q", tc.name, a.Runs[0].ExpectBasis)
		}
		for _, f := range a.Findings {
			if f.ID == "nccl.busbw_low" && tc.expect == 10 && !strings.Contains(f.Summary, "--line-rate and --nics-per-node judge it exactly") {
				t.Errorf("%s: summary %q", tc.name, f.Summary)
			}
		}
	}
	for name, want := range map[string]string{"NVIDIA H100 80GB HBM3": "H100", "NVIDIA H20": "H20", "NVIDIA GB200": "GB200", "AMD Instinct MI250X": "MI250",
		"NVIDIA A10": "", "NVIDIA H100 NVL": "H100", "NVIDIA RTX A6000": "", "Tesla T4": "", "NVIDIA A100-PCIE-40GB": "A100", "NVIDIA GB10": "GB10"} {
		if got := dataCenterGPU(name); got != want {
			t.Errorf("dataCenterGPU(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestOneHostFloor: a run whose ranks all sit on one host is held to 1
// GB/s at messages of 32 MiB and more, whatever the GPU: any two GPUs of
// one host move data over NVLink or PCIe (peer-to-peer or through host
// memory), and PCIe Gen2 x4 alone gives about 1.6 GB/s. The slow run is
// a committed nccl-tests output of two GeForce GTX 1080 on host Orlando
// (realworld-fresh30 nccl-tests-stored45605341884-gtx1080-2gpu-allgather-0p76gbs.txt).
func TestOneHostFloor(t *testing.T) {
	const orlando = "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n" +
		"#\n# Using devices\n" +
		"#   Rank  0 Pid  12979 on    Orlando device  0 [0x45] GeForce GTX 1080\n" +
		"#   Rank  1 Pid  12979 on    Orlando device  1 [0xc4] GeForce GTX 1080\n" +
		"#\n" +
		"#                                             out-of-place                       in-place          \n" +
		"#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n" +
		"#        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n" +
		"           8             1   float    21.03    0.00    0.00  0e+00    20.68    0.00    0.00  0e+00\n" +
		"     8388608       1048576   float   5874.5    0.71    0.71  0e+00   5672.3    0.74    0.74  0e+00\n" +
		"    16777216       2097152   float    11495    0.73    0.73  0e+00    11334    0.74    0.74  0e+00\n" +
		"    33554432       4194304   float    22517    0.75    0.75  0e+00    22296    0.75    0.75  0e+00\n" +
		"    67108864       8388608   float    44479    0.75    0.75  0e+00    44221    0.76    0.76  0e+00\n" +
		"   134217728      16777216   float    87825    0.76    0.76  0e+00    85704    0.78    0.78  0e+00\n" +
		"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.347488 \n#\n"
	// upTo keeps the rows up to size bytes.
	upTo := func(size string) string {
		i := strings.Index(orlando, size+" ")
		j := strings.Index(orlando[i:], "\n")
		k := strings.Index(orlando, "# Out of bounds")
		return orlando[:i+j+1] + orlando[k:]
	}
	twoHosts := strings.Replace(orlando, "Rank  1 Pid  12979 on    Orlando", "Rank  1 Pid  12979 on    Tampa", 1)
	tests := []struct {
		name   string
		input  string
		opts   TestsOptions
		want   []string
		expect float64
	}{
		{"two GTX 1080 in one host at 0.78 GB/s", orlando, TestsOptions{}, []string{"nccl.busbw_low/warning"}, 1},
		{"the same at 1.5 GB/s", strings.ReplaceAll(orlando, "0.7", "1.5"), TestsOptions{}, nil, 1},
		{"largest message 16 MiB: not judged", upTo("16777216"), TestsOptions{}, nil, 0},
		{"a line rate does not apply in one host: the floor does", orlando, TestsOptions{LineRateGbps: 100}, []string{"nccl.busbw_low/warning"}, 1},
		{"an explicit expectation wins", orlando, TestsOptions{ExpectBusBW: 0.5}, nil, 0.5},
		// Across hosts the floor is 10 GbE over TCP sockets, also 1 GB/s.
		{"consumer GPUs on two hosts: the floor across nodes", twoHosts, TestsOptions{}, []string{"nccl.busbw_low/warning"}, 1},
	}
	for _, tc := range tests {
		out, err := nccltests.Parse(strings.NewReader(tc.input), "t.txt")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a := CheckTests(out, tc.opts)
		if got := ids(a.Findings); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: findings %v, want %v (%+v; notes %q)", tc.name, got, tc.want, a.Findings, a.Notes)
		}
		if got := a.Runs[0].ExpectBusBW; got < tc.expect-0.005 || got > tc.expect+0.005 {
			t.Errorf("%s: expected busbw %.2f, want %.2f", tc.name, got, tc.expect)
		}
		for _, f := range a.Findings {
			if f.ID != "nccl.busbw_low" {
				continue
			}
			if strings.Contains(tc.name, "two hosts") {
				if !strings.Contains(f.Summary, "0.78 GB/s stays under 1 GB/s, the floor for GPUs across nodes (2 ranks on 2 hosts") || !strings.Contains(f.Summary, "10 GbE TCP path") {
					t.Errorf("%s: finding %q", tc.name, f.Summary)
				}
				continue
			}
			if !strings.Contains(f.Summary, "0.78 GB/s stays under 1 GB/s, the floor for GPUs in one host (2 ranks on Orlando") ||
				!strings.Contains(f.Summary, "x1 riser") || !slices.ContainsFunc(f.Remedy, func(r string) bool { return strings.HasPrefix(r, "nvidia-smi topo -m") }) {
				t.Errorf("%s: finding %q remedies %q", tc.name, f.Summary, f.Remedy)
			}
		}
	}
}
