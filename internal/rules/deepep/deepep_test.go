package deepep

import (
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/deepep"
)

func TestCheck(t *testing.T) {
	two := []deepep.Tuning{{Line: 1, Best: true, Op: "combine", RDMAGBs: 44.37}, {Line: 2, Best: true, Op: "dispatch (BF16)", RDMAGBs: 40.89}}
	four := append(two, deepep.Tuning{Line: 5, Best: true, Op: "combine", RDMAGBs: 12.53}, deepep.Tuning{Line: 6, Best: false, RDMAGBs: 3})
	slow := []deepep.LowLatency{{Line: 9, Rank: 2, Op: "dispatch+combine", GBs: 0.26, AvgUS: 83610, MinUS: 924, MaxUS: 377962}}
	fine := []deepep.LowLatency{{Line: 9, Rank: 2, Op: "dispatch+combine", GBs: 38.5, AvgUS: 240, MinUS: 230, MaxUS: 260}}
	tests := []struct {
		name string
		tun  []deepep.Tuning
		ll   []deepep.LowLatency
		want int
	}{
		{"one run, healthy", two, fine, 0},
		{"scaling drop", four, nil, 1},
		{"low latency stalls", two, slow, 1},
		{"trials are not compared", append(two, deepep.Tuning{Line: 7, RDMAGBs: 1}), nil, 0},
	}
	for _, tc := range tests {
		fs, _ := Check(tc.tun, tc.ll, "p")
		if len(fs) != tc.want {
			t.Errorf("%s: %d findings, want %d: %v", tc.name, len(fs), tc.want, fs)
		}
		for _, f := range fs {
			if f.ID != "perf.deepep_bw_low" || f.Severity != "warning" {
				t.Errorf("%s: %s %s", tc.name, f.ID, f.Severity)
			}
		}
	}
}
