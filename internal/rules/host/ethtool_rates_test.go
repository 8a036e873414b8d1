package host

import (
	"strings"
	"testing"
)

// TestCheckEthtoolRates: a watch loop of `ethtool -S eth2 | grep rx` on an
// sfc NIC (pastebin.com/eJkNtzkR, realworld-fresh17) shows
// rx_nodesc_drop_cnt at 451.3k/s while one queue receives 355.2k/s.
func TestCheckEthtoolRates(t *testing.T) {
	r := func(name string, v float64, line int) EthtoolRate {
		return EthtoolRate{Name: name, PerSec: v, Line: line, Text: name + ": x/s"}
	}
	for _, tt := range []struct {
		name  string
		in    []EthtoolRate
		want  int
		says  string
		first string
	}{
		{"sfc: descriptor drops at 451.3k/s", []EthtoolRate{r("rx_nodesc_drop_cnt", 451300, 14), r("rx-0.rx_packets", 8, 15), r("rx-4.rx_packets", 355200, 19), r("rx-7.rx_packets", 0.5, 22)}, 1,
			"451.3k received frames a second", "rx_nodesc_drop_cnt"},
		{"drops without the received frames shown", []EthtoolRate{r("rx_missed_errors", 120, 3)}, 1, "120.0 received frames a second", "rx_missed_errors"},
		{"a drop now and then is not judged", []EthtoolRate{r("rx_nodesc_drop_cnt", 0.5, 2), r("rx_packets", 1000, 3)}, 0, "", ""},
		{"drops a tiny share of a busy port", []EthtoolRate{r("rx_out_of_buffer", 5, 2), r("rx_packets", 10e6, 3)}, 0, "", ""},
		{"no drop counter", []EthtoolRate{r("rx_packets", 355200, 3)}, 0, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckEthtoolRates("eth2", "p.txt", tt.in)
			if len(fs) != tt.want {
				t.Fatalf("%d findings: %+v", len(fs), fs)
			}
			if tt.want == 0 {
				return
			}
			f := fs[0]
			if f.ID != "host.nic_rx_drops" || f.Severity != "warning" || !strings.Contains(f.Summary, tt.says) || !strings.HasPrefix(f.Evidence[0].Value, tt.first) {
				t.Errorf("%s %s %q %+v", f.ID, f.Severity, f.Summary, f.Evidence)
			}
			if len(f.Evidence) > 1 && !strings.HasPrefix(f.Evidence[1].Value, "rx-4.") {
				t.Errorf("the busiest queue is not cited second: %+v", f.Evidence)
			}
		})
	}
}
