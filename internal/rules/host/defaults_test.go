package host

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Every default the catalogue documents for the host rules is the value
// the rules use.
func TestDocumentedDefaultsInForce(t *testing.T) {
	d := (&Input{}).th()
	pct := func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }
	for _, tt := range []struct{ id, name, inForce string }{
		{"pcie.aer_errors", "aer_correctable_warning", fmt.Sprint(d.AERCorrectable)},
		{"kmsg.link_flap", "link_flap_warning", fmt.Sprint(d.FlapWarning)},
		{"kmsg.link_flap", "link_flap_critical", fmt.Sprint(d.FlapCritical)},
		{"host.memlock_limited", "memlock_critical", fmt.Sprintf("%d MiB", d.MemlockCritical>>20)},
		{"roce.mtu_mismatch", "roce_mtu_min", fmt.Sprint(4096 + roceOverhead)},
		{"roce.pause_heavy", "pause_ratio", pct(d.PauseRatio)},
		{"roce.pause_heavy", "pause_min", fmt.Sprint(d.PauseMin)},
		{"roce.pause_heavy", "pause_time_share", pct(d.PauseTimeShare)},
		{"host.nic_rx_drops", "rx_drop_ratio", strconv.FormatFloat(d.DiscardRatio*100, 'g', -1, 64) + "%"},
		{"host.nic_rx_drops", "rx_drop_min", fmt.Sprint(d.DiscardMin)},
	} {
		doc, err := catalog.Documented(tt.id, tt.name)
		if err != nil || doc != tt.inForce {
			t.Errorf("%s %s: documented %q (%v), in force %q", tt.id, tt.name, doc, err, tt.inForce)
		}
	}
	// "pcie.aer_errors", "aer_uncorrectable_critical": no variable holds
	// it; the documented count of non-fatal errors is critical.
	doc, err := catalog.Documented("pcie.aer_errors", "aer_uncorrectable_critical")
	n, perr := strconv.ParseUint(doc, 10, 64)
	if err != nil || perr != nil {
		t.Fatalf("aer_uncorrectable_critical %q: %v %v", doc, err, perr)
	}
	in := healthyInput()
	in.Snap.PCIDevice("0000:04:00.0").AER = &snapshot.AER{NonFatal: n}
	crit := false
	for _, f := range Check(in) {
		crit = crit || f.ID == "pcie.aer_errors" && f.Severity == finding.Critical
	}
	if !crit {
		t.Errorf("%d non-fatal AER errors (the documented aer_uncorrectable_critical) are not critical", n)
	}
}
