package nccl

import (
	"fmt"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Every default the catalogue documents for the nccl-tests rules is the
// value the rules use.
func TestDocumentedDefaultsInForce(t *testing.T) {
	pct := func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }
	for _, tt := range []struct{ id, name, inForce string }{
		{"nccl.busbw_low", "busbw_warning", pct(busbwWarn)},
		{"nccl.busbw_low", "busbw_critical", pct(busbwCrit)},
		{"nccl.busbw_low", "line_rate_efficiency", fmt.Sprint(TestsOptions{}.withDefaults().Efficiency)},
		{"nccl.small_msg_latency", "small_latency", fmt.Sprintf("%gus", TestsOptions{}.withDefaults().SmallLatencyUS)},
		{"nccl.inplace_asymmetry", "inplace_gap", pct(inplaceGap)},
		{"nccl.no_plateau", "plateau_growth", pct(plateauGrowth)},
	} {
		doc, err := catalog.Documented(tt.id, tt.name)
		if err != nil || doc != tt.inForce {
			t.Errorf("%s %s: documented %q (%v), in force %q", tt.id, tt.name, doc, err, tt.inForce)
		}
	}
}
