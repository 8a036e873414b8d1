package node

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// setCounters gives mlx5_1 port 1 these counter values.
func setCounters(s *snapshot.Snapshot, vals map[string]uint64) {
	pt := s.Port("mlx5_1", 1)
	for name, v := range vals {
		pt.Counters = slices.DeleteFunc(pt.Counters, func(c snapshot.Counter) bool { return c.Name == name })
		pt.Counters = append(pt.Counters, snapshot.Counter{Name: name, Value: v, Spec: ib.PortCounterSpec(name, true)})
	}
	snapshot.SortCounters(pt.Counters)
}

// The node judges the error-counter totals with the same table as fabric
// check: symbol_error=1234 and link_downed=3 are not "ok" on the node
// while the fabric warns on LinkDownedCounter == 3.
func TestCounterTotals(t *testing.T) {
	type tc struct {
		name string
		vals map[string]uint64
		want []string
	}
	tests := []tc{
		{"symbol errors and link downs", map[string]uint64{"symbol_error": 1234, "link_downed": 3},
			[]string{"port.link_flapping/warning mlx5_1 port 1: went down 3 time(s) since the counters were last cleared (limit 1)",
				"port.symbol_errors/warning mlx5_1 port 1: 1234 symbol errors since the counters were last cleared (limit 10)"}},
		{"a saturated counter is port.counter_saturated's alone", map[string]uint64{"symbol_error": 65535},
			[]string{"port.counter_saturated/warning mlx5_1 port 1 symbol_error is stuck at its 16-bit maximum 65535: its true value and rate are unknown"}},
	}
	// Each row of the table: silent one below its total, a warning at it.
	for _, c := range limits.Counters {
		tests = append(tests,
			tc{c.Sysfs + " below its limit", map[string]uint64{c.Sysfs: c.Total - 1}, nil},
			tc{c.Sysfs + " at its limit", map[string]uint64{c.Sysfs: c.Total}, []string{c.NodeID + "/warning"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := healthyNode()
			setCounters(s, tt.vals)
			got := Check(s, nil)
			var gotS []string
			for _, f := range got {
				gotS = append(gotS, f.ID+"/"+string(f.Severity)+" "+f.Summary)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(gotS, "\n"), strings.Join(tt.want, "\n"))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(gotS[i], w) {
					t.Errorf("finding %d: %s\nwant %s", i, gotS[i], w)
				}
			}
			// The agent judges rates instead of totals.
			agent := CheckInput(&Input{Snap: s, Thresholds: DefaultThresholds, NoCounterTotals: true})
			for _, f := range agent {
				if f.Severity != finding.Info && f.ID != "port.counter_saturated" {
					t.Errorf("agent (NoCounterTotals) reports %s: %s", f.ID, f.Summary)
				}
			}
		})
	}
}

// Every default the catalogue documents for the node rules is the value in
// force: the rate shortfall and each IBTA counter total.
func TestDocumentedDefaultsInForce(t *testing.T) {
	rows := []struct{ id, name, inForce string }{
		{"port.rate_below_expected", "rate_shortfall_critical", fmt.Sprintf("%.0f%%", DefaultThresholds.RateShortfallCritical*100)},
		{"port.symbol_errors", "symbol_error_total", fmt.Sprint(limits.SymbolError.Total)},
		{"port.link_recovery", "link_error_recovery_total", fmt.Sprint(limits.LinkErrorRecovery.Total)},
		{"port.link_flapping", "link_downed_total", fmt.Sprint(limits.LinkDowned.Total)},
		{"port.rcv_errors", "port_rcv_errors_total", fmt.Sprint(limits.RcvErrors.Total)},
		{"port.xmit_discards", "port_xmit_discards_total", fmt.Sprint(limits.XmitDiscards.Total)},
	}
	for _, tt := range rows {
		doc, err := catalog.Documented(tt.id, tt.name)
		if err != nil || doc != tt.inForce {
			t.Errorf("%s %s: documented %q (%v), in force %q", tt.id, tt.name, doc, err, tt.inForce)
		}
	}
}
