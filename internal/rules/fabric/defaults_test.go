package fabric

import (
	"fmt"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// The counter limits the catalogue documents for fabric check are the ones
// in force. "fabric.link_degraded", "expectation" is a description, not a
// number.
func TestDocumentedDefaultsInForce(t *testing.T) {
	d := DefaultThresholds()
	for _, tt := range []struct{ id, name, inForce string }{
		{"fabric.link_errors", "symbol_errors", fmt.Sprint(d.SymbolErrors)},
		{"fabric.link_errors", "link_error_recovery", fmt.Sprint(d.LinkErrorRecovery)},
		{"fabric.link_errors", "link_downed", fmt.Sprint(d.LinkDowned)},
		{"fabric.link_errors", "rcv_errors", fmt.Sprint(d.RcvErrors)},
		{"fabric.link_errors", "xmit_discards", fmt.Sprint(d.XmitDiscards)},
		{"fabric.link_errors", "xmit_wait", fmt.Sprint(d.XmitWait)},
		{"fabric.congestion", "xmit_wait", fmt.Sprint(d.XmitWait)},
	} {
		doc, err := catalog.Documented(tt.id, tt.name)
		if err != nil || doc != tt.inForce {
			t.Errorf("%s %s: documented %q (%v), in force %q", tt.id, tt.name, doc, err, tt.inForce)
		}
	}
}
