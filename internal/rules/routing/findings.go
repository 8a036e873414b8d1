package routing

import (
	"cmp"
	"fmt"
	"slices"
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

// Findings turns the analysis into catalogue findings, sorted, one per
// cause rather than per symptom: breaks of the same kind on several
// switches of one tier for the same set of destinations are one
// fabric.route_missing ("no tier-2 switch routes to the 64 hosts behind
// leaf127"), a break on one switch is its own; every break that loses no
// CA-to-CA pair is gathered into one fabric.route_missing about management
// routes (subject ManagementSubject: warning when hosts lose switch LIDs,
// info when only switch-to-switch routes are missing, which up/down
// engines leave out by design). Then one fabric.route_loop per loop, one
// fabric.route_nonminimal per detouring switch, one fabric.route_imbalance
// per unbalanced link group or per tier whose switches are unbalanced
// alike, one fabric.credit_loop per cyclic component of
// the channel dependency graph and one fabric.tree_asymmetric per
// asymmetric switch. With Options.Confirm set, every critical break's sample
// pair is checked against the fabric and the finding says so.
func (r *Result) Findings() []finding.Finding {
	g, f := r.g, r.g.f
	var out []finding.Finding
	out = append(out, r.breakFindings()...)
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
	out = append(out, r.imbalanceFindings()...)
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

// imbalanceFindings gives one fabric.route_imbalance per cause: switches of
// one tier whose link groups to the same tier are loaded the same way (same
// number of links, same hot and cold port) are one finding, as when a
// routing engine leaves the same uplinks of every leaf idle.
func (r *Result) imbalanceFindings() []finding.Finding {
	f := r.g.f
	type key struct{ tier, toTier, links, hot, cold int }
	groups := map[key][]int{}
	var order []key
	for i, im := range r.Imbalances {
		k := key{r.tier(im.Node), im.ToTier, im.Links, im.HotPort, im.ColdPort}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var out []finding.Finding
	for _, k := range order {
		idx := groups[k]
		slices.SortStableFunc(idx, func(a, b int) int {
			return naturalCompare(f.Nodes[r.Imbalances[a].Node].Name(), f.Nodes[r.Imbalances[b].Node].Name())
		})
		first := r.Imbalances[idx[0]]
		n := &f.Nodes[first.Node]
		var ev []finding.Evidence
		for _, l := range r.Loads {
			if l.From.Node == first.Node && f.Nodes[l.To.Node].Type == Switch && r.Tree.Tiers[l.To.Node] == first.ToTier {
				ev = append(ev, finding.Evidence{Source: "routes over link",
					Value: fmt.Sprintf("%s port %d -> %s port %d: %d routes", n.Name(), l.From.Port, f.Nodes[l.To.Node].Name(), l.To.Port, l.Routes)})
			}
		}
		if len(idx) == 1 {
			summary := fmt.Sprintf("%s: its %d links to tier-%d switches carry %d to %d routes (fair share %.0f, busiest %.1f× that): port %d hot, port %d coldest",
				n.Name(), first.Links, first.ToTier, first.MinRoutes, first.MaxRoutes, first.Mean, first.Ratio(), first.HotPort, first.ColdPort)
			out = append(out, catalog.New("fabric.route_imbalance", nodeSubject(n), summary, ev...))
			continue
		}
		lo, hi, ratio := first.MinRoutes, first.MaxRoutes, first.Ratio()
		names := make([]string, 0, len(idx))
		for _, i := range idx {
			im := r.Imbalances[i]
			lo, hi, ratio = min(lo, im.MinRoutes), max(hi, im.MaxRoutes), max(ratio, im.Ratio())
			names = append(names, f.Nodes[im.Node].Name())
		}
		summary := fmt.Sprintf("%d tier-%d switches (%s) load their %d links to tier-%d switches alike and unevenly: %d to %d routes per link (busiest up to %.1f× the fair share), port %d hot and port %d coldest on each",
			len(idx), k.tier, joinLimit(names, 4), k.links, k.toTier, lo, hi, ratio, k.hot, k.cold)
		ev = append(ev, finding.Evidence{Source: "switches", Value: fmt.Sprintf("%d: %s", len(names), joinLimit(names, 64))})
		out = append(out, catalog.New("fabric.route_imbalance", finding.Subject{NodeDesc: fmt.Sprintf("%d tier-%d switches", len(idx), k.tier)}, summary, ev...))
	}
	return out
}

// ManagementSubject is the subject (NodeDesc) of the one
// fabric.route_missing that gathers the breaks losing no CA-to-CA pair:
// routes to switch LIDs only.
const ManagementSubject = "management routes"

func (r *Result) tier(node int) int {
	if node < len(r.Tree.Tiers) {
		return r.Tree.Tiers[node]
	}
	return -1
}

// breakFindings groups the breaks by cause (see Findings).
func (r *Result) breakFindings() []finding.Finding {
	type key struct {
		kind BreakKind
		tier int
		lids int
		hash uint64
	}
	var out []finding.Finding
	var mgmt []int
	groups := map[key][]int{}
	var order []key
	for i := range r.Breaks {
		b := &r.Breaks[i]
		switch {
		case b.Kind == Loop:
			out = append(out, r.confirm(r.breakFinding(*b), b))
		case b.Pairs == 0:
			mgmt = append(mgmt, i)
		default:
			k := key{b.Kind, r.tier(b.Node), b.CADests, b.caHash}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], i)
		}
	}
	for _, k := range order {
		idx := groups[k]
		// Name order, numbers by value (spine2 before spine10).
		slices.SortStableFunc(idx, func(a, b int) int {
			return naturalCompare(r.g.f.Nodes[r.Breaks[a].Node].Name(), r.g.f.Nodes[r.Breaks[b].Node].Name())
		})
		if len(idx) == 1 {
			b := &r.Breaks[idx[0]]
			out = append(out, r.confirm(r.breakFinding(*b), b))
			continue
		}
		out = append(out, r.groupFinding(idx))
	}
	// Breaks that lose CA pairs may also cut routes to switch LIDs: those
	// go with the management routes.
	for i := range r.Breaks {
		if b := &r.Breaks[i]; b.Kind != Loop && b.Pairs > 0 && b.mgmtRoutes > 0 {
			mgmt = append(mgmt, i)
		}
	}
	if len(mgmt) > 0 {
		slices.SortStableFunc(mgmt, func(a, b int) int {
			return naturalCompare(r.g.f.Nodes[r.Breaks[a].Node].Name(), r.g.f.Nodes[r.Breaks[b].Node].Name())
		})
		out = append(out, r.managementFinding(mgmt))
	}
	return out
}

// caOnly reports whether a break is judged on its CA destinations alone
// (it loses CA pairs; its switch LIDs go to the management routes).
func caOnly(b *Break) bool { return b.Kind != Loop && b.Pairs > 0 }

// dests returns the count and lowest examples of the destinations a
// finding about b names.
func destsOf(b *Break) (int, []uint16) {
	if caOnly(b) {
		return b.CADests, b.caExamples
	}
	return b.LIDs, b.Examples
}

// destText names a break's destinations: "the 64 hosts behind leaf127
// (h8129 (lid 8130), … and 60 more)" when they are the CA ports of one
// switch, else "64 destination LIDs (…)".
func (r *Result) destText(b *Break) string {
	g, f := r.g, r.g.f
	n, ex := destsOf(b)
	lids := make([]string, 0, 4)
	for _, l := range ex[:min(4, len(ex))] {
		lids = append(lids, g.lidName(l))
	}
	list := strings.Join(lids, ", ")
	if n > len(lids) {
		list += fmt.Sprintf(" and %d more", n-len(lids))
	}
	if caOnly(b) && b.DestSwitch >= 0 && n > 1 {
		all := ""
		if s := g.sw[b.DestSwitch]; s >= 0 && len(g.caAt[s]) == n {
			all = "the "
		}
		return fmt.Sprintf("%s%d CA port%s behind %s (%s)", all, n, plural(n), f.Nodes[b.DestSwitch].Name(), list)
	}
	return fmt.Sprintf("%d destination LID%s (%s)", n, plural(n), list)
}

// groupFinding is one fabric.route_missing for breaks of one kind on
// several switches of one tier, for the same destinations.
func (r *Result) groupFinding(idx []int) finding.Finding {
	g, f := r.g, r.g.f
	first := &r.Breaks[idx[0]]
	tier := r.tier(first.Node)
	names := make([]string, 0, len(idx))
	var pairs, mgmtPairs int64
	example := first
	srcSw := map[int]bool{}
	srcPorts := 0
	for _, i := range idx {
		b := &r.Breaks[i]
		names = append(names, f.Nodes[b.Node].Name())
		pairs += b.Pairs
		mgmtPairs += b.ManagementPairs
		if example.ExampleSource < 0 && b.ExampleSource >= 0 {
			example = b
		}
		for _, s := range b.SourceSwitches {
			if !srcSw[s] {
				srcSw[s] = true
				srcPorts += len(g.caAt[g.sw[s]])
			}
		}
	}
	inTier := 0
	for n, t := range r.Tree.Tiers {
		if t == tier && f.Nodes[n].Type == Switch {
			inTier++
		}
	}
	var did string
	switch first.Kind {
	case NoTable:
		did = "have no forwarding table"
	case DeadPort:
		did = "forward them to ports without a link"
	case Misdelivered:
		did = "deliver them to the wrong node"
	default:
		did = "have no forwarding entry for them"
	}
	dests := r.destText(first)
	var summary string
	switch {
	case tier > 0 && len(idx) == inTier:
		summary = fmt.Sprintf("no tier-%d switch routes to %s: all %d (%s) %s", tier, dests, len(idx), joinLimit(names, 4), did)
	case tier > 0:
		summary = fmt.Sprintf("%d of the %d tier-%d switches do not route to %s: %s %s", len(idx), inTier, tier, dests, joinLimit(names, 4), did)
	default:
		summary = fmt.Sprintf("%d switches do not route to %s: %s %s", len(idx), dests, joinLimit(names, 4), did)
	}
	if example.ExampleSource >= 0 {
		summary += fmt.Sprintf("; %s cannot reach %s", f.Nodes[example.ExampleSource].Name(), g.lidName(example.ExampleLID))
		if pairs > 1 {
			summary += fmt.Sprintf(", %d CA pairs in all", pairs)
		}
	}
	var ev []finding.Evidence
	for _, i := range idx[:min(4, len(idx))] {
		b := &r.Breaks[i]
		n := &f.Nodes[b.Node]
		_, ex := destsOf(b)
		l := ex[0]
		ev = append(ev, finding.Evidence{Source: lftSource(n), Value: fmt.Sprintf("lid 0x%04x (%s) -> %s", l, g.lidName(l), portText(g.lft(int32(b.Node), int(l))))})
	}
	ev = append(ev, finding.Evidence{Source: "switches", Value: fmt.Sprintf("%d: %s", len(names), joinLimit(names, 64))})
	if len(srcSw) > 0 {
		ev = append(ev, finding.Evidence{Source: "sources", Value: fmt.Sprintf("%d of %d CA ports, behind %d switch%s, lose these destinations", srcPorts, r.CAPorts, len(srcSw), pluralES(len(srcSw)))})
	}
	subj := finding.Subject{NodeDesc: fmt.Sprintf("%d tier-%d switches", len(idx), tier)}
	if tier <= 0 {
		subj.NodeDesc = fmt.Sprintf("%d switches", len(idx))
	}
	fd := catalog.New("fabric.route_missing", subj, summary, ev...)
	return r.confirm(fd, example)
}

// managementFinding gathers the breaks that lose no CA-to-CA pair: routes
// to switch LIDs.
func (r *Result) managementFinding(idx []int) finding.Finding {
	g, f := r.g, r.g.f
	var routes, mgmtPairs int64
	sws := map[int]bool{}
	var names []string
	var ev []finding.Evidence
	for _, i := range idx {
		b := &r.Breaks[i]
		routes += b.mgmtRoutes
		mgmtPairs += b.ManagementPairs
		if !sws[b.Node] {
			sws[b.Node] = true
			names = append(names, f.Nodes[b.Node].Name())
		}
		if len(ev) < 4 {
			n := &f.Nodes[b.Node]
			l := b.mgmtLID
			ev = append(ev, finding.Evidence{Source: lftSource(n), Value: fmt.Sprintf("lid 0x%04x (%s) -> %s", l, g.lidName(l), portText(g.lft(int32(b.Node), int(l))))})
		}
	}
	b0 := &r.Breaks[idx[0]]
	summary := fmt.Sprintf("%d routes to switch LIDs are missing on %d switch%s (e.g. %s has none to %s)",
		routes, len(sws), pluralES(len(sws)), f.Nodes[b0.Node].Name(), g.lidName(b0.mgmtLID))
	if mgmtPairs > 0 {
		summary += fmt.Sprintf("; %d CA-to-switch pairs are lost: LID-routed management from those hosts to the switches (perfquery, ibqueryerrors) fails", mgmtPairs)
	} else {
		summary += "; every CA reaches every switch LID, only switch-to-switch routes are missing, which up/down engines (ftree, updn) leave out by design: LID-routed management sent from a switch port (perfquery, ibqueryerrors run there) cannot reach those switches"
	}
	ev = append(ev, finding.Evidence{Source: "switches", Value: fmt.Sprintf("%d: %s", len(names), joinLimit(names, 64))})
	fd := catalog.New("fabric.route_missing", finding.Subject{NodeDesc: ManagementSubject}, "management routes: "+summary, ev...)
	fd.Severity = finding.Info
	if mgmtPairs > 0 {
		fd.Severity = finding.Warning
		return fd
	}
	// Switch-to-switch routes only: not a fault of the tables.
	fd.Causes = []string{"up/down routing engines (ftree, updn) route what CAs need and leave switch-to-switch LIDs out by design",
		"the collection ran from a switch port (ibsim attaches its client to a switch), which needs switch-to-switch routes for LID-routed queries"}
	fd.Remedy = []string{"collect from a host port, e.g. ibdoctor fabric collect --ca mlx5_0 --port 1 on a compute node: hosts have routes to every switch LID",
		"if switches must reach each other by LID, choose a routing engine that routes switch LIDs (minhop, dfsssp) and compare with ibdoctor fabric check again"}
	return fd
}

// confirm checks the sample pair of a critical finding with
// Options.Confirm and records what it said.
func (r *Result) confirm(fd finding.Finding, b *Break) finding.Finding {
	c := r.opts.Confirm
	if c == nil || fd.Severity != finding.Critical || b.ExampleSource < 0 || !b.exampleCA {
		return fd
	}
	f := r.g.f
	src := &f.Nodes[b.ExampleSource]
	if b.ExampleSourcePort >= len(src.Ports) {
		return fd
	}
	s := Sample{Src: PortRef{b.ExampleSource, b.ExampleSourcePort}, SrcLID: src.Ports[b.ExampleSourcePort].LID, DstLID: b.ExampleLID,
		SrcName: src.Name(), DstName: r.g.lidName(b.ExampleLID)}
	res := c(s)
	if res.Note != "" {
		fd.Summary += " — " + res.Note
	}
	if res.Evidence != "" {
		fd.Evidence = append(fd.Evidence, finding.Evidence{Source: fmt.Sprintf("ibtracert %d %d", s.SrcLID, s.DstLID), Value: res.Evidence})
	}
	return fd
}

// naturalCompare orders names with their digit runs by value: "spine2"
// before "spine10".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			x, y := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(x), len(y)), strings.Compare(x, y)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

func (r *Result) breakFinding(b Break) finding.Finding {
	g, f := r.g, r.g.f
	n := &f.Nodes[b.Node]
	dests := r.destText(&b)
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
		_, ex := destsOf(&b)
		for _, l := range ex {
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
