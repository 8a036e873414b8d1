package routing

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Evidence sources named in routing findings.
const (
	sourceLFT  = "dump_fts"
	sourceTopo = "ibnetdiscover"
)

// Findings turns the analysis into catalogue findings, sorted: one
// fabric.route_missing per switch and kind of break (critical when CA pairs
// are lost, warning when only CA-to-switch management pairs are, info when
// only switch-to-switch routes break), one fabric.route_loop
// per loop, one fabric.route_nonminimal per detouring switch, one
// fabric.route_imbalance per unbalanced link group, one fabric.credit_loop
// per cyclic component of the channel dependency graph and one
// fabric.tree_asymmetric per asymmetric switch.
func (r *Result) Findings() []finding.Finding {
	g, f := r.g, r.g.f
	var out []finding.Finding
	for _, b := range r.Breaks {
		out = append(out, r.breakFinding(b))
	}
	for _, d := range r.Detours {
		n := &f.Nodes[d.Node]
		ex := d.Examples[0]
		summary := fmt.Sprintf("%s routes %d destination LID%s off every shortest path, e.g. %s via port %d: %d hops where %d suffice",
			n.Name(), d.LIDs, plural(d.LIDs), g.lidName(ex.LID), ex.Port, ex.Hops, ex.MinHops)
		if d.Pairs > 0 {
			summary += fmt.Sprintf("; %d CA pairs take the longer route", d.Pairs)
		}
		var ev []finding.Evidence
		for _, e := range d.Examples {
			ev = append(ev, finding.Evidence{Source: lftSource(n),
				Value: fmt.Sprintf("lid 0x%04x (%s) -> port %d: %d hops, minimum %d", e.LID, g.lidName(e.LID), e.Port, e.Hops, e.MinHops)})
		}
		out = append(out, catalog.New("fabric.route_nonminimal", nodeSubject(n), summary, ev...))
	}
	for _, im := range r.Imbalances {
		n := &f.Nodes[im.Node]
		summary := fmt.Sprintf("%s: its %d links to tier-%d switches carry %d to %d routes (fair share %.0f, busiest %.1f× that): port %d hot, port %d coldest",
			n.Name(), im.Links, im.ToTier, im.MinRoutes, im.MaxRoutes, im.Mean, im.Ratio(), im.HotPort, im.ColdPort)
		var ev []finding.Evidence
		for _, l := range r.Loads {
			if l.From.Node == im.Node && f.Nodes[l.To.Node].Type == Switch && r.Tree.Tiers[l.To.Node] == im.ToTier {
				ev = append(ev, finding.Evidence{Source: "routes over link",
					Value: fmt.Sprintf("%s port %d -> %s port %d: %d routes", n.Name(), l.From.Port, f.Nodes[l.To.Node].Name(), l.To.Port, l.Routes)})
			}
		}
		out = append(out, catalog.New("fabric.route_imbalance", nodeSubject(n), summary, ev...))
	}
	for _, cl := range r.CreditLoops {
		first := &f.Nodes[cl.Cycle[0].From.Node]
		hops := make([]string, 0, len(cl.Cycle))
		var ev []finding.Evidence
		for _, c := range cl.Cycle {
			hops = append(hops, f.Nodes[c.From.Node].Name())
			ev = append(ev, finding.Evidence{Source: "channel dependency",
				Value: fmt.Sprintf("%s port %d -> %s port %d", f.Nodes[c.From.Node].Name(), c.From.Port, f.Nodes[c.To.Node].Name(), c.To.Port)})
		}
		hops = append(hops, f.Nodes[cl.Cycle[0].From.Node].Name())
		summary := fmt.Sprintf("credit loop: routes make the links %s wait on each other in a cycle (%d links, %d switches in the dependency cycle's component): deadlock risk under load",
			joinLimit(hops, 12), cl.Channels, cl.Switches)
		out = append(out, catalog.New("fabric.credit_loop", nodeSubject(first), summary, ev...))
	}
	for _, a := range r.Tree.Asymmetric {
		n := &f.Nodes[a.Node]
		reasons := a.Reasons(f)
		summary := fmt.Sprintf("%s (tier %d): %s", n.Name(), a.Tier, strings.Join(reasons, "; "))
		ev := []finding.Evidence{{Source: sourceTopo, Value: fmt.Sprintf("%s has %d uplink%s to tier %d; expected %d", n.Name(), a.Up, plural(a.Up), a.Tier+1, a.Expected)}}
		for _, l := range r.Tree.Leaves {
			if l.Node == a.Node && l.Up > 0 {
				ev = append(ev, finding.Evidence{Source: sourceTopo, Value: fmt.Sprintf("%s oversubscription %d down : %d up (%.1f:1)", n.Name(), l.Down, l.Up, l.Oversubscription())})
			}
		}
		for _, m := range a.Missing {
			ev = append(ev, finding.Evidence{Source: sourceTopo, Value: fmt.Sprintf("no link from %s to %s (0x%016x)", n.Name(), f.Nodes[m].Name(), f.Nodes[m].GUID)})
		}
		out = append(out, catalog.New("fabric.tree_asymmetric", nodeSubject(n), summary, ev...))
	}
	catalog.Sort(out)
	return out
}

func (r *Result) breakFinding(b Break) finding.Finding {
	g, f := r.g, r.g.f
	n := &f.Nodes[b.Node]
	lids := make([]string, 0, 4)
	for _, l := range b.Examples[:min(4, len(b.Examples))] {
		lids = append(lids, g.lidName(l))
	}
	list := strings.Join(lids, ", ")
	if b.LIDs > len(lids) {
		list += fmt.Sprintf(" and %d more", b.LIDs-len(lids))
	}
	dests := fmt.Sprintf("%d destination LID%s (%s)", b.LIDs, plural(b.LIDs), list)
	lost := ""
	if b.ExampleSource >= 0 {
		lost = fmt.Sprintf(": %s cannot reach %s", f.Nodes[b.ExampleSource].Name(), g.lidName(b.ExampleLID))
		if b.Pairs > 1 {
			lost += fmt.Sprintf(", %d CA pairs in all", b.Pairs)
		}
		if b.ManagementPairs > 0 {
			lost += fmt.Sprintf(", %d CA-to-switch (management) pairs", b.ManagementPairs)
		}
	} else {
		lost = fmt.Sprintf(": %d switch-to-switch routes end there", b.SwitchRoutes)
	}
	var ev []finding.Evidence
	id := "fabric.route_missing"
	var summary string
	switch b.Kind {
	case Loop:
		id = "fabric.route_loop"
		names := make([]string, 0, len(b.Cycle)+1)
		for _, c := range b.Cycle {
			names = append(names, f.Nodes[c].Name())
		}
		names = append(names, n.Name())
		summary = fmt.Sprintf("forwarding loop %s for %s%s", strings.Join(names, " -> "), dests, lost)
		for i, c := range b.Cycle {
			next := b.Cycle[(i+1)%len(b.Cycle)]
			out := g.lft(int32(c), int(b.Examples[0]))
			ev = append(ev, finding.Evidence{Source: lftSource(&f.Nodes[c]),
				Value: fmt.Sprintf("lid 0x%04x -> port %d (to %s)", b.Examples[0], out, f.Nodes[next].Name())})
		}
	case NoTable:
		summary = fmt.Sprintf("%s has no forwarding table: %s unreachable through it%s", n.Name(), dests, lost)
		ev = append(ev, finding.Evidence{Source: lftSource(n), Value: "no unicast forwarding table"})
	case DeadPort:
		summary = fmt.Sprintf("%s forwards %s to port %d, which has no link%s", n.Name(), dests, b.Port, lost)
	case Misdelivered:
		if b.Port == 0 {
			summary = fmt.Sprintf("%s keeps %s for itself (port 0) although it does not own them%s", n.Name(), dests, lost)
		} else {
			summary = fmt.Sprintf("%s forwards %s to port %d, where the owner is not%s", n.Name(), dests, b.Port, lost)
		}
	default:
		summary = fmt.Sprintf("%s has no forwarding entry for %s%s", n.Name(), dests, lost)
	}
	if b.Kind != Loop && b.Kind != NoTable {
		for _, l := range b.Examples {
			ev = append(ev, finding.Evidence{Source: lftSource(n), Value: fmt.Sprintf("lid 0x%04x (%s) -> %s", l, g.lidName(l), portText(g.lft(int32(b.Node), int(l))))})
		}
	}
	if len(b.SourceSwitches) > 0 {
		names := make([]string, 0, len(b.SourceSwitches))
		for _, sw := range b.SourceSwitches {
			names = append(names, f.Nodes[sw].Name())
		}
		ev = append(ev, finding.Evidence{Source: "sources",
			Value: fmt.Sprintf("%d of %d CA ports, behind %s, lose these destinations here", b.SourcePorts, r.CAPorts, joinLimit(names, 8))})
	}
	fd := catalog.New(id, nodeSubject(n), summary, ev...)
	switch {
	case b.Pairs == 0 && b.ManagementPairs == 0:
		// Only routes from switches to switches: up/down engines (updn,
		// ftree) leave these out by design (spine to spine would turn
		// down then up), and in-band management reaches switches by
		// directed route.
		fd.Severity = finding.Info
	case b.Pairs == 0:
		// Only switch LIDs: data traffic flows, LID-routed management
		// (perfquery, ibqueryerrors) from hosts to those switches fails.
		fd.Severity = finding.Warning
	}
	return fd
}

func portText(p uint8) string {
	if p == NoRoute {
		return "no entry (0xff)"
	}
	return fmt.Sprintf("port %d", p)
}

func lftSource(n *Node) string {
	return fmt.Sprintf("%s switch 0x%016x (%s)", sourceLFT, n.GUID, n.Name())
}

func nodeSubject(n *Node) finding.Subject {
	s := finding.Subject{NodeGUID: ib.GUIDString(n.GUID), NodeDesc: n.Desc, LinkLayer: string(ib.LinkLayerInfiniBand)}
	if len(n.Ports) > 0 && n.Ports[0].LID > 0 {
		s.LID = uint32(n.Ports[0].LID)
	}
	return s
}

// lidName renders a LID with its owner: `h5 (lid 11)`.
func (g *Graph) lidName(lid uint16) string {
	ref, ok := g.Owner(lid)
	if !ok {
		return fmt.Sprintf("lid %d", lid)
	}
	n := &g.f.Nodes[ref.Node]
	if n.Type == CA && n.NumPorts() > 1 {
		return fmt.Sprintf("%s port %d (lid %d)", n.Name(), ref.Port, lid)
	}
	return fmt.Sprintf("%s (lid %d)", n.Name(), lid)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
