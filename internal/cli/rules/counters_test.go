package rules

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
)

// printedCounters parses the counter table `ibdoctor rules` prints:
// counter → [pma, total, per-minute, findings].
func printedCounters(t *testing.T) map[string][]string {
	t.Helper()
	out, err := runRules(t)
	if err != nil {
		t.Fatal(err)
	}
	_, tail, ok := strings.Cut(out, "\nCOUNTER ")
	if !ok {
		t.Fatalf("no counter table in:\n%s", out)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(tail), "\n")[1:] {
		f := strings.Fields(l)
		rows[f[0]] = f[1:]
	}
	return rows
}

// nodeWith is one ACTIVE NDR port whose counter name reads v.
func nodeWith(name string, v uint64) *snapshot.Snapshot {
	st, ph, r := ib.StateActive, ib.PhysLinkUp, ib.NewRate(4, ib.SpeedNDR)
	s := &snapshot.Snapshot{Host: "n", Devices: []snapshot.Device{{Name: "mlx5_0", Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1,
		LinkLayer: ib.LinkLayerInfiniBand, State: &st, PhysState: &ph, Rate: &r, HasCounters: true,
		Counters: []snapshot.Counter{{Name: name, Value: v, Spec: ib.PortCounterSpec(name, true)}}}}}}}
	s.Sort()
	return s
}

// The defaults `ibdoctor rules` prints for the IBTA counters are the ones
// the code judges with: the node rules fire at the printed total and not
// one below, fabric check's thresholds and the agent's rates are the
// printed numbers.
func TestPrintedCounterLimitsAreInForce(t *testing.T) {
	rows := printedCounters(t)
	fab := fabric.DefaultThresholds()
	fabByPMA := map[string]uint64{"SymbolErrorCounter": fab.SymbolErrors, "LinkErrorRecoveryCounter": fab.LinkErrorRecovery,
		"LinkDownedCounter": fab.LinkDowned, "PortRcvErrors": fab.RcvErrors, "PortXmitDiscards": fab.XmitDiscards, "PortXmitWait": fab.XmitWait}
	agent := trend.Defaults()
	agentPerMin := map[string]float64{"symbol_error": agent.SymbolErrorsPerMin, "link_error_recovery": agent.LinkRecoveryPerMin,
		"port_rcv_errors": agent.RcvErrorsPerMin, "port_xmit_discards": agent.XmitDiscardsPerMin}
	if len(rows) != len(fabByPMA) {
		t.Errorf("%d printed rows, want %d: %v", len(rows), len(fabByPMA), rows)
	}
	for counter, r := range rows {
		pma, total, perMin, findingID := r[0], r[1], r[2], strings.TrimSuffix(r[3], ",")
		n, err := strconv.ParseUint(total, 10, 64)
		if err != nil {
			t.Fatalf("%s: total %q", counter, total)
		}
		if got, ok := fabByPMA[pma]; !ok || got != n {
			t.Errorf("%s: printed %d, fabric check uses %d", pma, n, got)
		}
		if want, ok := agentPerMin[counter]; ok {
			if got, err := strconv.ParseFloat(perMin, 64); err != nil || got != want {
				t.Errorf("%s: printed %s per minute, the agent defaults to %v", counter, perMin, want)
			}
		} else if perMin != "-" {
			t.Errorf("%s: printed %s per minute for a counter the agent does not rate", counter, perMin)
		}
		if counter == "port_xmit_wait" {
			continue // a fabric-only total
		}
		at := noderules.Check(nodeWith(counter, n), nil)
		if len(at) != 1 || at[0].ID != findingID {
			t.Errorf("%s = %d (the printed total): node findings %v, want one %s", counter, n, at, findingID)
		}
		if below := noderules.Check(nodeWith(counter, n-1), nil); len(below) != 0 {
			t.Errorf("%s = %d: node findings %v, want none", counter, n-1, below)
		}
	}
}
