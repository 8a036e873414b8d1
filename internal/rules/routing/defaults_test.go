package routing

import (
	"fmt"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// The imbalance limits the catalogue documents are the ones in force.
func TestDocumentedDefaultsInForce(t *testing.T) {
	d := Options{}.withDefaults()
	for _, tt := range []struct{ id, name, inForce string }{
		{"fabric.route_imbalance", "imbalance_ratio", fmt.Sprint(d.ImbalanceRatio)},
		{"fabric.route_imbalance", "imbalance_min_routes", fmt.Sprint(d.ImbalanceMinRoutes)},
	} {
		doc, err := catalog.Documented(tt.id, tt.name)
		if err != nil || doc != tt.inForce {
			t.Errorf("%s %s: documented %q (%v), in force %q", tt.id, tt.name, doc, err, tt.inForce)
		}
	}
}
