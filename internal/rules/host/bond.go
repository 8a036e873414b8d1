package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// checkBonds reads the bonding driver's lines per bond: a bond left
// without any active slave, and no later line giving it one back, is
// critical (nothing passes over it, nor over a RoCE LAG device on it); a
// slave whose link went definitely down (a failover: the bond runs
// without redundancy) or no LACP partner is a warning. Slaves coming up
// and a first active slave at enslave time are no finding.
func checkBonds(in *Input) []finding.Finding {
	type tally struct {
		downs     int
		slaves    []string // the slaves that went down
		newActive string   // the last slave made active after a down
		noneAt    int      // line of the last "without any active interface"
		upAt      int      // line of the last active slave or slave link up
		noLACP    bool
		ev        []finding.Evidence
	}
	ts := map[string]*tally{}
	var names []string
	for _, e := range in.events() {
		if e.Kind != kmsg.KindBond {
			continue
		}
		t, ok := ts[e.Interface]
		if !ok {
			t = &tally{}
			ts[e.Interface] = t
			names = append(names, e.Interface)
		}
		line := e.Record.Line
		keep := false
		switch e.Bond {
		case kmsg.BondSlave:
			if e.Up {
				t.upAt = max(t.upAt, line)
				break
			}
			t.downs += e.Weight()
			if e.Detail != "" && !slices.Contains(t.slaves, e.Detail) {
				t.slaves = append(t.slaves, e.Detail)
			}
			keep = true
		case kmsg.BondNewActive:
			if t.downs > 0 {
				t.newActive = e.Detail
				keep = true
			}
		case kmsg.BondNoneActive:
			t.noneAt = max(t.noneAt, line)
			keep = true
		case kmsg.BondActiveUp:
			t.upAt = max(t.upAt, line)
		case kmsg.BondNoLACP:
			t.noLACP = true
			keep = true
		}
		if keep && len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	slices.Sort(names)
	var out []finding.Finding
	for _, b := range names {
		t := ts[b]
		dead := t.noneAt > 0 && t.noneAt > t.upAt
		if !dead && t.downs == 0 && !t.noLACP {
			continue // enslaving and links coming up
		}
		var parts []string
		if dead {
			parts = append(parts, "running without any active interface: every slave is down, nothing passes over the bond (nor over a RoCE LAG device on it)")
		}
		if t.downs > 0 {
			p := fmt.Sprintf("slave link definitely down %s", plural(t.downs, "time", "times"))
			if len(t.slaves) > 0 {
				p += " (" + strings.Join(t.slaves, ", ") + ")"
			}
			if t.newActive != "" && !dead {
				p += "; " + t.newActive + " took over, so the bond runs without redundancy"
			}
			parts = append(parts, p)
		}
		if t.noLACP {
			parts = append(parts, "no 802.3ad (LACP) partner answered on any slave: the switch ports are not one LAG")
		}
		f := catalog.New("kmsg.bond_degraded", finding.Subject{Host: in.Snap.Host, NetDev: b},
			fmt.Sprintf("%s: %s %s", b, strings.Join(parts, "; "), in.window()), t.ev...)
		if dead {
			f.Severity = finding.Critical
		}
		out = append(out, f)
	}
	return out
}
