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
	d := &planDiff{f: f, plan: plan, r: newResolver(f), plannedAt: map[End]plannedEnd{}, covered: map[End]bool{}}
	missing := d.matchPlan()
	groups, rest := d.splitSwapped(d.unexpected())
	var out []finding.Finding
	for _, ls := range groups {
		out = append(out, d.miswired(ls))
	}
	for _, pl := range missing {
		if fd, ok := d.missing(pl); ok {
			out = append(out, fd)
		}
	}
	for _, l := range rest {
		out = append(out, d.unexpectedCable(l))
	}
	catalog.Sort(out)
	return out
}

// plannedEnd is the planned peer of a resolved end.
type plannedEnd struct {
	peer End
	pl   PlanLink
	ok   bool // peer resolved
}

// planDiff holds what the steps of Diff share.
type planDiff struct {
	f    *Fabric
	plan *Plan
	r    *resolver
	// plannedAt is the planned peer of every resolved end.
	plannedAt map[End]plannedEnd
	// covered are the ends whose missing planned link a miswire explains.
	covered map[End]bool
}

// planSrc is the evidence of a planned link: the plan's file and line.
func (d *planDiff) planSrc(pl PlanLink) finding.Evidence {
	return finding.Evidence{Source: fmt.Sprintf("%s line %d", d.plan.Source, pl.Line), Value: fmt.Sprintf("%s <-> %s", pl.A, pl.B)}
}

// ends resolves the two ends of a planned link; ok* say which nodes were
// found on the fabric.
func (d *planDiff) ends(pl PlanLink) (ea, eb End, okA, okB bool) {
	a, okA := d.r.node(pl.A.Node)
	b, okB := d.r.node(pl.B.Node)
	return End{a, pl.A.Port}, End{b, pl.B.Port}, okA, okB
}

// matchPlan fills plannedAt and returns the planned links the fabric does
// not have.
func (d *planDiff) matchPlan() []PlanLink {
	var missing []PlanLink
	for _, pl := range d.plan.Links {
		ea, eb, okA, okB := d.ends(pl)
		if okA {
			d.plannedAt[ea] = plannedEnd{eb, pl, okB}
		}
		if okB {
			d.plannedAt[eb] = plannedEnd{ea, pl, okA}
		}
		if okA && okB {
			if peer, _, ok := d.f.Peer(ea); ok && peer == eb {
				continue
			}
		}
		missing = append(missing, pl)
	}
	return missing
}

// unexpected returns the fabric's links the plan does not have.
func (d *planDiff) unexpected() []Link {
	var unexpected []Link
	for _, l := range d.f.Links {
		if p, ok := d.plannedAt[l.A]; ok && p.ok && p.peer == l.B {
			continue
		}
		unexpected = append(unexpected, l)
	}
	return unexpected
}

// splitSwapped separates the miswired links, unexpected links whose both
// ends are planned (to other ports), from the rest. Miswired links are
// grouped with the planned peers of their ends (union-find over ends): two
// swapped cables form one group. Groups come in the order of their first
// link.
func (d *planDiff) splitSwapped(unexpected []Link) (groups [][]Link, rest []Link) {
	sets := endSets{}
	var swapped []Link
	for _, l := range unexpected {
		pa, okA := d.plannedAt[l.A]
		pb, okB := d.plannedAt[l.B]
		if okA && okB && pa.ok && pb.ok {
			swapped = append(swapped, l)
			sets.union(l.A, l.B)
			sets.union(l.A, pa.peer)
			sets.union(l.B, pb.peer)
			continue
		}
		rest = append(rest, l)
	}
	index := map[End]int{}
	for _, l := range swapped {
		root := sets.find(l.A)
		i, ok := index[root]
		if !ok {
			i = len(groups)
			index[root] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], l)
	}
	return groups, rest
}

// endSets is a union-find over ends.
type endSets map[End]End

// find returns the representative of e's set.
func (s endSets) find(e End) End {
	p, ok := s[e]
	if !ok || p == e {
		s[e] = e
		return e
	}
	root := s.find(p)
	s[e] = root
	return root
}

// union merges the sets of a and b.
func (s endSets) union(a, b End) { s[s.find(a)] = s.find(b) }

// miswired reports one group of swapped cables as fabric.cable_miswired,
// and marks its ends covered.
func (d *planDiff) miswired(ls []Link) finding.Finding {
	f := d.f
	var now, want []string
	var ev []finding.Evidence
	seenPlan := map[int]bool{}
	for _, l := range ls {
		now = append(now, fmt.Sprintf("%s <-> %s", f.EndName(l.A), f.EndName(l.B)))
		ev = append(ev, finding.Evidence{Source: l.Source, Value: fmt.Sprintf("%s <-> %s", f.EndName(l.A), f.EndName(l.B))})
		for _, e := range []End{l.A, l.B} {
			p := d.plannedAt[e]
			d.covered[e] = true
			if !seenPlan[p.pl.Line] {
				seenPlan[p.pl.Line] = true
				want = append(want, fmt.Sprintf("%s <-> %s", p.pl.A, p.pl.B))
				ev = append(ev, d.planSrc(p.pl))
			}
		}
	}
	b := ls[0].B
	kind := "cables swapped"
	if len(ls) == 1 {
		kind = "cable on the wrong ports"
	}
	return catalog.New("fabric.cable_miswired", f.subject(ls[0].A, &b),
		fmt.Sprintf("%s: found %s; the plan has %s", kind, strings.Join(now, " and "), strings.Join(want, " and ")), ev...)
}

// missing reports a planned link the fabric does not have as
// fabric.cable_missing, with what its ends are cabled to instead; false
// when a miswire already explains it (every resolved end of it is part of
// a swap group).
func (d *planDiff) missing(pl PlanLink) (finding.Finding, bool) {
	f := d.f
	ea, eb, okA, okB := d.ends(pl)
	if (!okA || d.covered[ea]) && (!okB || d.covered[eb]) && (okA || okB) {
		return finding.Finding{}, false
	}
	ev := []finding.Evidence{d.planSrc(pl)}
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
	return catalog.New("fabric.cable_missing", subj, fmt.Sprintf("planned cable %s <-> %s is missing", pl.A, pl.B), ev...), true
}

// unexpectedCable reports a link the plan does not have (and that is no
// swap) as fabric.cable_unexpected, with what the plan has at its ends.
func (d *planDiff) unexpectedCable(l Link) finding.Finding {
	f := d.f
	b := l.B
	ev := []finding.Evidence{{Source: l.Source, Value: fmt.Sprintf("%s <-> %s", f.EndName(l.A), f.EndName(l.B))}}
	for _, e := range []End{l.A, l.B} {
		if p, ok := d.plannedAt[e]; ok {
			ev = append(ev, d.planSrc(p.pl))
		}
	}
	return catalog.New("fabric.cable_unexpected", f.subject(l.A, &b),
		fmt.Sprintf("cable %s <-> %s is not in the plan", f.EndName(l.A), f.EndName(l.B)), ev...)
}
