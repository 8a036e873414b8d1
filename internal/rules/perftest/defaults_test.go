package perftest

import (
	"fmt"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Every default the catalogue documents for the perftest rules is the
// value the rules use.
func TestDocumentedDefaultsInForce(t *testing.T) {
	pct := func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }
	for _, tt := range []struct{ id, name, inForce string }{
		{"perf.bw_low", "bw_warning", pct(bwWarn)},
		{"perf.bw_low", "bw_critical", pct(bwCrit)},
		{"perf.lat_high", "lat_factor", fmt.Sprint(latFactor)},
		{"perf.test_invalid", "min_bw_bytes", fmt.Sprint(MinBWBytes)},
	} {
		doc, err := catalog.Documented(tt.id, tt.name)
		if err != nil || doc != tt.inForce {
			t.Errorf("%s %s: documented %q (%v), in force %q", tt.id, tt.name, doc, err, tt.inForce)
		}
	}
}
