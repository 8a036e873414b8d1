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

// TestErrorDetails: perfquery -E and -D break PortRcvErrors and
// PortXmitDiscards down by cause; all zero is nothing to report (the
// treydock/infiniband_exporter fixture perfquery-rcv-error/…-1.out:
// "# PortRcvErrorDetails counters: Lid 134 port 1", every counter 0).
func TestErrorDetails(t *testing.T) {
	d := func(name string, v uint64) Detail {
		return Detail{Name: name, Value: v, Evidence: finding.Evidence{Source: "p.txt:4", Value: fmt.Sprintf("%s:.........%d", name, v)}}
	}
	zero := []Detail{d("PortSelect", 1), d("CounterSelect", 0), d("PortLocalPhysicalErrors", 0), d("PortMalformedPktErrors", 0),
		d("PortBufferOverrunErrors", 0), d("PortDLIDMappingErrors", 0), d("PortVLMappingErrors", 0), d("PortLoopingErrors", 0)}
	tests := []struct {
		name, set string
		ds        []Detail
		id        string
		says      []string
		evidence  int
	}{
		{"receive details all zero", "PortRcvErrorDetails", zero, "", nil, 0},
		{"local physical errors", "PortRcvErrorDetails", append(slices.Clone(zero), d("PortLocalPhysicalErrors", 412)), "port.rcv_errors",
			[]string{"PortLocalPhysicalErrors 412", "the cable"}, 1},
		{"DLID mapping and looping", "PortRcvErrorDetails", []Detail{d("PortSelect", 1), d("PortDLIDMappingErrors", 7), d("PortLoopingErrors", 2)}, "port.rcv_errors",
			[]string{"forwarding table", "routing loop"}, 2},
		{"neighbour MTU discards", "PortXmitDiscardDetails", []Detail{d("PortInactiveDiscards", 0), d("PortNeighborMTUDiscards", 96)}, "port.xmit_discards",
			[]string{"PortNeighborMTUDiscards 96", "MTUs of the two ends differ"}, 1},
		{"another attribute", "PortVLXmitWaitCounters", []Detail{d("PortVLXmitWait0", 5)}, "", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := ErrorDetails(finding.Subject{LID: 134, Port: 1}, "LID 134 port 1", tt.set, tt.ds)
			if ok != (tt.id != "") || ok && f.ID != tt.id {
				t.Fatalf("finding %v %+v, want %q", ok, f, tt.id)
			}
			for _, s := range tt.says {
				if !strings.Contains(f.Summary, s) {
					t.Errorf("summary %q lacks %q", f.Summary, s)
				}
			}
			if len(f.Evidence) != tt.evidence {
				t.Errorf("evidence %+v, want %d", f.Evidence, tt.evidence)
			}
		})
	}
}
