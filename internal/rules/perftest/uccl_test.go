package perftest

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/uccl"
)

// TestCheckUCCL: UCCL P2P client sweeps (uccl-project/uccl issues 113
// and 972) against a line rate, without one, and when the rate falls.
func TestCheckUCCL(t *testing.T) {
	const gh200 = "[Client]   1.0 KB :   1.27 Gbps |   0.16 GB/s\n" +
		"[Client] 256.0 KB : 123.79 Gbps |  15.47 GB/s\n" +
		"[Client]   1.0 MB : 170.65 Gbps |  21.33 GB/s\n" +
		"[Client] 100.0 MB : 196.11 Gbps |  24.51 GB/s\n"
	for _, tt := range []struct {
		name, text string
		rate       float64
		want       string // the summary's fragment; "" for no finding
	}{
		{"200G near line rate", gh200, 200, ""},
		{"400G line rate", gh200, 400, "196.1 of 400 Gb/s (49%) at 100.0 MB"},
		{"no line rate", gh200, 0, ""},
		{"rate falls", gh200 + "[Client]   1.0 GB :  20.00 Gbps |   2.50 GB/s\n", 0, "under half of the 196.11 Gb/s at 100.0 MB"},
		{"tiny messages only", "[Client]      8 B :   0.32 Gbps |   0.04 GB/s |    25.50 us\n", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := uccl.Parse(strings.NewReader(tt.text), "p")
			if err != nil {
				t.Fatal(err)
			}
			fs, notes := CheckUCCL(rows, tt.rate, "p")
			if tt.want == "" {
				if len(fs) != 0 {
					t.Errorf("findings %v", fs)
				}
				if tt.rate == 0 && len(notes) == 0 {
					t.Error("no note")
				}
				return
			}
			if len(fs) != 1 || fs[0].ID != "perf.bw_low" || fs[0].Severity != "warning" || !strings.Contains(fs[0].Summary, tt.want) {
				t.Errorf("findings %+v, want one perf.bw_low warning with %q", fs, tt.want)
			}
		})
	}
}
