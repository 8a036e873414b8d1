package analyze

import (
	"slices"
	"testing"
)

// TestEthtoolRateView: `watch 'sudo ethtool -S eth2 |grep rx'` behind a
// bare host prompt, values per second (pastebin.com/eJkNtzkR,
// realworld-fresh17): read as a rate view and judged by rate.
func TestEthtoolRateView(t *testing.T) {
	in := "receiver$ watch 'sudo ethtool -S eth2 |grep rx'\n" +
		"rx_nodesc_drop_cnt: 451.3k/s\nrx-0.rx_packets: 8.0/s\nrx-3.rx_packets: 0.5/s\nrx-4.rx_packets: 355.2k/s\n"
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"descriptor drops", in, []string{"host.nic_rx_drops/warning"}},
		{"no drops", "receiver$ watch 'sudo ethtool -S eth2 |grep rx'\nrx_nodesc_drop_cnt: 0.0/s\nrx-4.rx_packets: 355.2k/s\nrx-5.rx_packets: 297.0k/s\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p.txt", Text: tt.in}}, Options{})
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if !slices.Equal(got, tt.want) || r.ExitCode == 3 {
				t.Errorf("exit %d findings %q, want %q", r.ExitCode, got, tt.want)
			}
		})
	}
}
