package fabric

import "testing"

// The ibsim-faults capture has a 1X link (leaf3[4]), a DDR host link
// (h8), symbol errors on leaf4[3] and a downed counter on leaf1[3].
func TestLinkRates(t *testing.T) {
	f := load(t, "ibsim-faults")
	got := map[string]LinkRate{}
	for _, lr := range LinkRates(f, nil, DefaultThresholds()) {
		got[f.EndName(lr.A)] = lr
		got[f.EndName(lr.B)] = lr
	}
	tests := []struct {
		end      string
		gbps     float64
		degraded string
	}{
		{"leaf3[4]", 10, "runs at 1X QDR (10 Gb/s), expected 4X QDR (40 Gb/s)"},
		{"h8[1]", 20, ""}, // DDR HCA: slower than the fabric, but not judged below what it can do
		{"leaf4[3]", 40, "leaf4[3] symbol errors 500"},
		{"leaf1[3]", 40, "leaf1[3] link downed 2"},
		{"leaf2[3]", 40, ""},
	}
	for _, tt := range tests {
		lr, ok := got[tt.end]
		if !ok {
			t.Errorf("%s: no link", tt.end)
			continue
		}
		if lr.Gbps != tt.gbps || lr.Degraded != tt.degraded {
			t.Errorf("%s: %v Gb/s %q, want %v Gb/s %q", tt.end, lr.Gbps, lr.Degraded, tt.gbps, tt.degraded)
		}
	}
}
