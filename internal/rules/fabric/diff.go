package fabric

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Diff compares the discovered cabling with a plan: planned links that are
// absent (fabric.cable_missing), links the plan does not have
// (fabric.cable_unexpected) and cables swapped between planned ports
// (fabric.cable_miswired, one finding per group of swapped cables rather
// than missing plus unexpected links). Plan nodes are matched by GUID,
// ibnetdiscover ID or node description. It is pure.
func Diff(f *Fabric, plan *Plan) []finding.Finding {
	r := newResolver(f)
	planSrc := func(pl PlanLink) finding.Evidence {
		return finding.Evidence{Source: fmt.Sprintf("%s line %d", plan.Source, pl.Line), Value: fmt.Sprintf("%s <-> %s", pl.A, pl.B)}
	}
	// The planned peer of every resolved end.
	type pend struct {
		peer End
		pl   PlanLink
		ok   bool // peer resolved
	}
	plannedAt := map[End]pend{}
	var missing []PlanLink
	for _, pl := range plan.Links {
		a, okA := r.node(pl.A.Node)
		b, okB := r.node(pl.B.Node)
		ea, eb := End{a, pl.A.Port}, End{b, pl.B.Port}
		if okA {
			plannedAt[ea] = pend{eb, pl, okB}
		}
		if okB {
			plannedAt[eb] = pend{ea, pl, okA}
		}
		if okA && okB {
			if peer, _, ok := f.Peer(ea); ok && peer == eb {
				continue
			}
		}
		missing = append(missing, pl)
	}
	var unexpected []Link
	for _, l := range f.Links {
		if p, ok := plannedAt[l.A]; ok && p.ok && p.peer == l.B {
			continue
		}
		unexpected = append(unexpected, l)
	}
	// Miswired: an unexpected link whose both ends are planned (to other
	// ports). Such links are grouped with the planned peers of their ends
	// (union-find over ends): two swapped cables form one group.
	parent := map[End]End{}
	var find func(End) End
	find = func(e End) End {
		p, ok := parent[e]
		if !ok || p == e {
			parent[e] = e
			return e
		}
		root := find(p)
		parent[e] = root
		return root
	}
	union := func(a, b End) { parent[find(a)] = find(b) }
	var swapped, rest []Link
	for _, l := range unexpected {
		pa, okA := plannedAt[l.A]
		pb, okB := plannedAt[l.B]
		if okA && okB && pa.ok && pb.ok {
			swapped = append(swapped, l)
			union(l.A, l.B)
			union(l.A, pa.peer)
			union(l.B, pb.peer)
			continue
		}
		rest = append(rest, l)
	}
	groups := map[End][]Link{}
	var roots []End
	for _, l := range swapped {
		root := find(l.A)
		if _, ok := groups[root]; !ok {
			roots = append(roots, root)
		}
		groups[root] = append(groups[root], l)
	}
	var out []finding.Finding
	covered := map[End]bool{} // ends whose missing planned link a miswire explains
	for _, root := range roots {
		ls := groups[root]
		var now, want []string
		var ev []finding.Evidence
		seenPlan := map[int]bool{}
		for _, l := range ls {
			now = append(now, fmt.Sprintf("%s <-> %s", f.EndName(l.A), f.EndName(l.B)))
			ev = append(ev, finding.Evidence{Source: l.Source, Value: fmt.Sprintf("%s <-> %s", f.EndName(l.A), f.EndName(l.B))})
			for _, e := range []End{l.A, l.B} {
				p := plannedAt[e]
				covered[e] = true
				if !seenPlan[p.pl.Line] {
					seenPlan[p.pl.Line] = true
					want = append(want, fmt.Sprintf("%s <-> %s", p.pl.A, p.pl.B))
					ev = append(ev, planSrc(p.pl))
				}
			}
		}
		b := ls[0].B
		kind := "cables swapped"
		if len(ls) == 1 {
			kind = "cable on the wrong ports"
		}
		out = append(out, catalog.New("fabric.cable_miswired", f.subject(ls[0].A, &b),
			fmt.Sprintf("%s: found %s; the plan has %s", kind, strings.Join(now, " and "), strings.Join(want, " and ")), ev...))
	}
	for _, pl := range missing {
		a, okA := r.node(pl.A.Node)
		b, okB := r.node(pl.B.Node)
		ea, eb := End{a, pl.A.Port}, End{b, pl.B.Port}
		// Explained by a miswire when every resolved end of it is part of
		// a swap group.
		if (!okA || covered[ea]) && (!okB || covered[eb]) && (okA || okB) {
			continue
		}
		ev := []finding.Evidence{planSrc(pl)}
		var subj finding.Subject
		switch {
		case okA && okB:
			subj = f.subject(ea, &eb)
			for _, e := range []End{ea, eb} {
				if peer, _, ok := f.Peer(e); ok {
					ev = append(ev, finding.Evidence{Source: "ibnetdiscover", Value: fmt.Sprintf("%s is cabled to %s", f.EndName(e), f.EndName(peer))})
				} else if p := f.PortOf(e); p != nil && p.HaveState {
					ev = append(ev, finding.Evidence{Source: "iblinkinfo", Value: fmt.Sprintf("%s %s", f.EndName(e), stateText(p))})
				}
			}
		case okA:
			subj = f.subject(ea, nil)
			subj.Peer = &finding.Subject{NodeDesc: pl.B.Node, Port: pl.B.Port}
			ev = append(ev, finding.Evidence{Source: "ibnetdiscover", Value: fmt.Sprintf("node %q not found on the fabric", pl.B.Node)})
		case okB:
			subj = f.subject(eb, nil)
			subj.Peer = &finding.Subject{NodeDesc: pl.A.Node, Port: pl.A.Port}
			ev = append(ev, finding.Evidence{Source: "ibnetdiscover", Value: fmt.Sprintf("node %q not found on the fabric", pl.A.Node)})
		default:
			subj = finding.Subject{NodeDesc: pl.A.Node, Port: pl.A.Port, Peer: &finding.Subject{NodeDesc: pl.B.Node, Port: pl.B.Port}}
			ev = append(ev, finding.Evidence{Source: "ibnetdiscover", Value: fmt.Sprintf("nodes %q and %q not found on the fabric", pl.A.Node, pl.B.Node)})
		}
		out = append(out, catalog.New("fabric.cable_missing", subj, fmt.Sprintf("planned cable %s <-> %s is missing", pl.A, pl.B), ev...))
	}
	for _, l := range rest {
		b := l.B
		ev := []finding.Evidence{{Source: l.Source, Value: fmt.Sprintf("%s <-> %s", f.EndName(l.A), f.EndName(l.B))}}
		for _, e := range []End{l.A, l.B} {
			if p, ok := plannedAt[e]; ok {
				ev = append(ev, planSrc(p.pl))
			}
		}
		out = append(out, catalog.New("fabric.cable_unexpected", f.subject(l.A, &b),
			fmt.Sprintf("cable %s <-> %s is not in the plan", f.EndName(l.A), f.EndName(l.B)), ev...))
	}
	catalog.Sort(out)
	return out
}
