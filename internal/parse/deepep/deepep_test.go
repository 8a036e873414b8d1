package deepep

import "testing"

func TestParseTuning(t *testing.T) {
	tests := []struct {
		in        string
		ok, best  bool
		op        string
		rdma, nvl float64
	}{
		{"[tuning] Best combine: SMs 24, NVL chunk 2, RDMA chunk 20: 44.37 GB/s (RDMA), 145.16 GB/s (NVL)", true, true, "combine", 44.37, 145.16},
		{"[tuning] Best dispatch (FP8): SMs 24, NVL chunk 4, RDMA chunk 4: 13.15 GB/s (RDMA), 26.27 GB/s (NVL)", true, true, "dispatch (FP8)", 13.15, 26.27},
		{"[tuning] Best combine: SMs 24, NVL chunk 4, RDMA chunk 32: **62.15 GB/s** (RDMA), **205.04 GB/s** (NVL)", true, true, "combine", 62.15, 205.04},
		{"[tuning] SMs 24, NVL chunk 4, RDMA chunk 32: 62.15 GB/s (RDMA), 205.04 GB/s (NVL)", true, false, "", 62.15, 205.04},
		{"[tuning] Best combine: nothing", false, false, "", 0, 0},
		{"the tuning was 40 GB/s", false, false, "", 0, 0},
	}
	for _, tc := range tests {
		r, ok := ParseTuning(tc.in)
		if ok != tc.ok || r.Best != tc.best || r.Op != tc.op || r.RDMAGBs != tc.rdma || r.NVLGBs != tc.nvl {
			t.Errorf("ParseTuning(%q) = %+v %v", tc.in, r, ok)
		}
	}
}

func TestParseLowLatency(t *testing.T) {
	rs, ok := ParseLowLatency("[rank 3] Dispatch + combine bandwidth: 0.26 GB/s, avg_t=86244.62 us, min_t=665.34 us, max_t=454342.25 us")
	if !ok || len(rs) != 1 || rs[0].Rank != 3 || rs[0].Op != "dispatch+combine" || rs[0].GBs != 0.26 || rs[0].MinUS != 665.34 || rs[0].MaxUS != 454342.25 {
		t.Errorf("%+v %v", rs, ok)
	}
	rs, ok = ParseLowLatency("Dispatch bandwidth: 0.10 GB/s, avg_t=73857.00 us | Combine bandwidth: **1.24 GB/s,** avg_t=11727.00 us")
	if !ok || len(rs) != 2 || rs[0].Rank != -1 || rs[1].Op != "combine" || rs[1].GBs != 1.24 || rs[1].AvgUS != 11727 {
		t.Errorf("%+v %v", rs, ok)
	}
	for _, in := range []string{"[rank x] Dispatch bandwidth: 1 GB/s", "Dispatch bandwidth: fast", "bandwidth: 3 GB/s"} {
		if _, ok := ParseLowLatency(in); ok {
			t.Errorf("%q read", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("[tuning] Best combine: SMs 24, NVL chunk 2, RDMA chunk 20: 44.37 GB/s (RDMA), 145.16 GB/s (NVL)")
	f.Add("[rank 4] Dispatch bandwidth: 0.10 GB/s, avg_t=73857.00 us | Combine bandwidth: 1.24 GB/s, avg_t=11727.00 us")
	f.Fuzz(func(t *testing.T, s string) {
		if r, ok := ParseTuning(s); ok && r.RDMAGBs < 0 {
			t.Fatal(r)
		}
		if rs, ok := ParseLowLatency(s); ok && len(rs) == 0 {
			t.Fatal("empty")
		}
	})
}
