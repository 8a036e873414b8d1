package ethtool

import "testing"

// TestRateLine: a watch loop's rate view of ethtool -S on an sfc NIC
// (pastebin.com/eJkNtzkR, realworld-fresh17).
func TestRateLine(t *testing.T) {
	for _, tt := range []struct {
		in   string
		name string
		rate float64
		ok   bool
	}{
		{"rx_nodesc_drop_cnt: 451.3k/s", "rx_nodesc_drop_cnt", 451300, true},
		{"  rx-3.rx_packets: 355.2k/s", "rx-3.rx_packets", 355200, true},
		{"rx-0.rx_packets: 8.0/s", "rx-0.rx_packets", 8, true},
		{"rx-7.rx_packets: 0.5/s", "rx-7.rx_packets", 0.5, true},
		{"rx_bytes: 1.2M/s", "rx_bytes", 1.2e6, true},
		{"rx_packets: 12345", "", 0, false},
		{"rx_packets: k/s", "", 0, false},
		{"rx_packets: -1/s", "", 0, false},
		{"rx_packets: NaN/s", "", 0, false},
		{"the rate: is 5/s", "", 0, false},
		{": 5/s", "", 0, false},
	} {
		name, r, ok := RateLine(tt.in)
		if ok != tt.ok || name != tt.name || r < tt.rate-1e-6 || r > tt.rate+1e-6 {
			t.Errorf("RateLine(%q) = %q %g %v, want %q %g %v", tt.in, name, r, ok, tt.name, tt.rate, tt.ok)
		}
	}
}

func FuzzRateLine(f *testing.F) {
	for _, s := range []string{"rx_nodesc_drop_cnt: 451.3k/s", "rx-0.rx_packets: 8.0/s", "x: 1e9G/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if name, r, ok := RateLine(in); ok && (name == "" || r < 0 || r != r) {
			t.Fatalf("RateLine(%q) = %q %g", in, name, r)
		}
	})
}
