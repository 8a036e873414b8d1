package analyze

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/hcatext"
)

// The line rate a perftest is judged against is the data rate: an
// InfiniBand port's 8b/10b speeds (SDR, DDR, QDR) carry 8 bits in 10, so
// ibstat's "Rate: 40" of 4X QDR is 32 Gb/s of data (the ConnectX-3 of
// realworld-fresh38 perftest-dockerib-mlx4-qdr-ibstat-devinfo-write-bw-mbs.txt,
// whose ib_write_bw reached 29.3 Gb/s: line rate). Ethernet's 40 is 40
// GbE; FDR's 56 and later are as printed.
func TestLineRateDataRate(t *testing.T) {
	block := func(rate, layer string) string {
		return "CA 'mlx4_0'\n\tCA type: MT4099\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: " + rate + "\n\t\tBase lid: 10\n\t\tLink layer: " + layer + "\n"
	}
	for _, tt := range []struct {
		name, text string
		want       float64
		note       string // a fragment of from, "" for none
	}{
		{"4X QDR from ibstat", block("40", "InfiniBand"), 32, "whose 40 Gb/s is the signalling rate: 8b/10b encoding leaves 32 Gb/s of data"},
		{"4X DDR", block("20", "InfiniBand"), 16, "8b/10b"},
		{"4X SDR", block("10", "InfiniBand"), 8, "8b/10b"},
		{"4X FDR", block("56", "InfiniBand"), 56, ""},
		{"4X EDR", block("100", "InfiniBand"), 100, ""},
		{"40 GbE RoCE", block("40", "Ethernet"), 40, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := hcatext.ParseIBStat(strings.NewReader(tt.text), "ibstat")
			if err != nil {
				t.Fatal(err)
			}
			c := &context{}
			c.addRates(res.Snap, "ibstat")
			rate, n, from := c.lineRate()
			if rate != tt.want || n != 1 {
				t.Errorf("rate %g on %d ports, want %g on 1", rate, n, tt.want)
			}
			if (tt.note == "") != !strings.Contains(from, "8b/10b") || !strings.Contains(from, tt.note) {
				t.Errorf("from %q, want %q", from, tt.note)
			}
		})
	}
}
