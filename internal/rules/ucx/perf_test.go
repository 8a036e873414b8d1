package ucx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/ucxperf"
)

// TestCheckPerf: a bandwidth test's Final row against the line rate
// (perf.bw_low under 90%, critical under 80%); without a rate, or for a
// latency test, no finding; a table without its Final row is a note.
func TestCheckPerf(t *testing.T) {
	bw := func(name string, mbs float64) *ucxperf.Test {
		return &ucxperf.Test{Name: name, Line: 3, Final: &ucxperf.Row{Line: 9, Iterations: 1000, BWOverall: mbs}}
	}
	tests := []struct {
		name  string
		in    []*ucxperf.Test
		rate  float64
		want  []string
		notes int
		in0   string
	}{
		{"46.7 GB/s on 400G", []*ucxperf.Test{bw("tag_bw", 46743.62)}, 400, nil, 0, ""},
		{"no rate", []*ucxperf.Test{bw("tag_bw", 1000)}, 0, nil, 1, ""},
		{"85% of 200G", []*ucxperf.Test{bw("put_bw", 21250)}, 200, []string{"perf.bw_low/warning"}, 0, "ucx_perftest put_bw reached 170.0 of 200 Gb/s (85%)"},
		{"half of 200G", []*ucxperf.Test{bw("ucp_am_bw", 12500)}, 200, []string{"perf.bw_low/critical"}, 0, "(50%)"},
		{"latency test not judged on bandwidth", []*ucxperf.Test{bw("tag_lat", 10)}, 200, nil, 0, ""},
		{"cut run", []*ucxperf.Test{{Name: "tag_sync_bw", Line: 15}}, 200, nil, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, notes := CheckPerf(tc.in, tc.rate, "u.txt")
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s/%s", f.ID, f.Severity))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || len(notes) != tc.notes {
				t.Fatalf("findings %v notes %q, want %v and %d notes", got, notes, tc.want, tc.notes)
			}
			if tc.in0 != "" && !strings.Contains(fs[0].Summary, tc.in0) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tc.in0)
			}
		})
	}
}

// TestCheckNetDevices: UCX_NET_DEVICES naming only IPoIB interfaces
// leaves UCX its tcp transport (mpi.rdma_not_used, a warning); an HCA
// port or an Ethernet interface is not judged. The ib0 run is
// openucx/ucx#5252 (analyze testdata/realworld-fresh43,
// ucx-perftest-ucx5252-tag-bw-tcp-over-ipoib-ib0-600mbs.txt): tag_bw
// progress rows at ~550 MB/s, no Final row.
func TestCheckNetDevices(t *testing.T) {
	cut := []*ucxperf.Test{{Line: 7, Rows: []ucxperf.Row{
		{Line: 12, Iterations: 9996, BWOverall: 622.80},
		{Line: 15, Iterations: 35281, BWOverall: 549.48},
	}}}
	for _, tc := range []struct {
		devs  string
		tests []*ucxperf.Test
		want  string // "" for no finding
	}{
		{"ib0", cut, "UCX_NET_DEVICES=ib0 names only IPoIB interfaces: UCX's InfiniBand transports (rc, ud, dc) take an HCA port (mlx5_0:1), so UCX runs its tcp transport over IPoIB and RDMA is not used; ucx_perftest reached 549 MB/s (4.4 Gb/s)"},
		{"ib0,ib1", nil, "UCX_NET_DEVICES=ib0,ib1 names only IPoIB interfaces"},
		{"ibp12s0", []*ucxperf.Test{{Name: "tag_bw", Final: &ucxperf.Row{BWOverall: 1200}}}, "ucx_perftest tag_bw reached 1200 MB/s"},
		{"mlx5_0:1", cut, ""},
		{"ib0,mlx5_0:1", cut, ""},
		{"eth0", cut, ""},
	} {
		fs := CheckNetDevices(tc.devs, 4, tc.tests, "u.txt")
		switch {
		case tc.want == "" && len(fs) != 0:
			t.Errorf("%s: %+v, want none", tc.devs, fs)
		case tc.want != "" && (len(fs) != 1 || fs[0].ID != "mpi.rdma_not_used" || fs[0].Severity != "warning" || !strings.Contains(fs[0].Summary, tc.want) || fs[0].Evidence[0].Source != "u.txt:4"):
			t.Errorf("%s: %+v, want one mpi.rdma_not_used warning saying %q", tc.devs, fs, tc.want)
		}
	}
}
