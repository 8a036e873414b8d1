package pairwise

import (
	"fmt"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// The slow fraction the catalogue documents is the one in force.
func TestDocumentedDefaultsInForce(t *testing.T) {
	for _, tt := range []struct{ id, name, inForce string }{
		{"perf.pair_slow", "slow_fraction", fmt.Sprint(DefaultSlowFraction)},
		{"perf.node_slow", "slow_fraction", fmt.Sprint(DefaultSlowFraction)},
	} {
		doc, err := catalog.Documented(tt.id, tt.name)
		if err != nil || doc != tt.inForce {
			t.Errorf("%s %s: documented %q (%v), in force %q", tt.id, tt.name, doc, err, tt.inForce)
		}
	}
}
