package fabric

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// RoutingInput builds internal/routing's model from the discovered
// topology and the dump_fts tables: node i of f is node i of the result.
// Switches whose table was not dumped keep a nil LFT (routing reports them
// as having no table). It fails when the fabric has no forwarding tables.
func RoutingInput(f *Fabric) (*routing.Subnet, error) {
	if len(f.LFTs) == 0 {
		return nil, fmt.Errorf("no forwarding tables (dump_fts) in the collection")
	}
	rf := &routing.Subnet{}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		np := n.NumPorts
		for _, p := range n.Ports {
			np = max(np, p.Num)
		}
		if n.Type == ibdiags.Switch {
			lid := uint16(0)
			if n.LID > 0 {
				lid = uint16(n.LID)
			}
			rf.AddSwitch(n.GUID, n.Name(), np, lid)
			continue
		}
		j := rf.AddCA(n.GUID, n.Name(), np)
		for _, p := range n.Ports {
			rp := &rf.Nodes[j].Ports[p.Num]
			rp.GUID = p.GUID
			if p.LID > 0 {
				rp.LID = uint16(p.LID)
			}
		}
	}
	for _, l := range f.Links {
		rf.Connect(l.A.Node, l.A.Port, l.B.Node, l.B.Port)
	}
	bySwitch := map[uint64]int{}
	for i := range f.Nodes {
		if f.Nodes[i].Type == ibdiags.Switch && f.Nodes[i].GUID != 0 {
			bySwitch[f.Nodes[i].GUID] = i
		}
	}
	for _, t := range f.LFTs {
		i, ok := bySwitch[t.SwitchGUID]
		if !ok {
			continue
		}
		lft := make([]uint8, t.MaxLID+1)
		for k := range lft {
			lft[k] = routing.NoRoute
		}
		for _, e := range t.Entries {
			lft[e.LID] = uint8(e.Port)
		}
		rf.Nodes[i].LFT = lft
	}
	return rf, nil
}

// CheckRouting runs internal/routing's analysis on the collection's
// forwarding tables: fabric.route_missing, route_loop, route_nonminimal,
// route_imbalance, credit_loop, tree_asymmetric. Without tables it returns
// no findings and the reason, which the caller reports as a gap.
//
// It also explains the counter gaps: a port whose counters could not be
// read, on a LID the tables give no route to from the collecting node,
// gets that as its Gap.Cause (f.Gaps is updated in place), and the
// management-routes finding, which then cost counters, is raised to a
// warning and says how many.
func CheckRouting(f *Fabric, opts routing.Options) ([]finding.Finding, *routing.Result, error) {
	rf, err := RoutingInput(f)
	if err != nil {
		return nil, nil, err
	}
	res, err := routing.Analyze(rf, opts)
	if err != nil {
		return nil, nil, err
	}
	// The routing package grades each break itself: info when only
	// switch-to-switch routes end there (up/down engines leave those out
	// by design), warning when only hosts-to-switch (management) routes
	// do, critical when hosts lose hosts.
	fs := res.Findings()
	if vfs, ok := judgeVLs(f, res.Graph(), fs, opts.MaxCreditLoops); ok {
		fs = vfs
	} else {
		noteVLs(f, fs)
	}
	nodes, ports := explainGaps(f, res.Graph())
	if ports > 0 {
		for i := range fs {
			x := &fs[i]
			if x.ID == "fabric.route_missing" && x.Subject.NodeDesc == routing.ManagementSubject {
				if x.Severity == finding.Info {
					x.Severity = finding.Warning
				}
				sw := "switches"
				if nodes == 1 {
					sw = "switch"
				}
				x.Summary += fmt.Sprintf("; this collection could not read the counters of %d port%s on %d %s for lack of these routes (see the gaps)", ports, plural(ports), nodes, sw)
			}
		}
	}
	return fs, res, nil
}

// NoRouteCause is the Gap.Cause of switch counters that could not be read
// because the tables have no route from the collecting node to the
// switch's LID; NoCARouteCause the same for a CA port's LID.
const (
	NoRouteCause   = "no route from this node to their LIDs — see fabric.route_missing (" + routing.ManagementSubject + ")"
	NoCARouteCause = "no route from this node to their LIDs — see fabric.route_missing"
)

// explainGaps sets Gap.Cause of the counter gaps whose LID the collecting
// node has no route to, and counts the switches and their ports explained
// (the management routes' share).
func explainGaps(f *Fabric, g *routing.Graph) (nodes, ports int) {
	if f.OriginLID <= 0 || g == nil {
		return 0, 0
	}
	routed := map[int]bool{}
	seen := map[int]bool{}
	for i := range f.Gaps {
		gp := &f.Gaps[i]
		if gp.Kind != string(ibdiags.DiagPMAFailed) || gp.LID <= 0 || gp.LID > routing.MaxUnicastLID {
			continue
		}
		ok, done := routed[gp.LID]
		if !done {
			_, err := g.Path(uint16(f.OriginLID), uint16(gp.LID))
			var pe *routing.PathError
			ok = !errors.As(err, &pe)
			routed[gp.LID] = ok
		}
		if ok {
			continue
		}
		if gp.NodeType != ibdiags.Switch {
			gp.Cause = NoCARouteCause
			continue
		}
		gp.Cause = NoRouteCause
		ports++
		if !seen[gp.LID] {
			seen[gp.LID] = true
			nodes++
		}
	}
	return nodes, ports
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// dataVLs are the VLs the collected SL-to-VL tables map SLs 0-14 to on
// data ports (VL 15, drop, left out), sorted; nil without tables.
func (f *Fabric) dataVLs() []int {
	byLID := f.lidNode()
	seen := map[int]bool{}
	for _, r := range f.SL2VL {
		i, ok := byLID[r.LID]
		if !ok || f.Nodes[i].Type == ibdiags.Switch && (r.In == 0 || r.Out == 0) {
			continue
		}
		for _, vl := range r.VL[:15] {
			if vl != 15 {
				seen[vl] = true
			}
		}
	}
	var out []int
	for vl := range 15 {
		if seen[vl] {
			out = append(out, vl)
		}
	}
	return out
}

// noteVLs qualifies the credit loops when the SL-to-VL tables spread SLs
// over several VLs. A dependency between two links exists only within one
// VL (a packet keeps its SL; the VL of each hop is SL2VL[in][out][SL]), so
// a cycle whose routes use different VLs is no deadlock. Which SL a route
// uses is set per source and destination by the SM in path records (LASH
// and DFSSSP assign them to break cycles); when it was not collected
// (judgeVLs did not run) the analysis stays one-VL, and the finding says so
// rather than guess.
func noteVLs(f *Fabric, fs []finding.Finding) {
	vls := f.dataVLs()
	if len(vls) < 2 {
		return
	}
	for i := range fs {
		x := &fs[i]
		if x.ID != "fabric.credit_loop" {
			continue
		}
		x.Summary += fmt.Sprintf("; judged as if every route used one VL, but the SL-to-VL tables map SLs to %d VLs and the SL of each route (LASH and DFSSSP set it per path) is not collected: the cycle is no deadlock if its routes use different VLs", len(vls))
		x.Evidence = append(x.Evidence, finding.Evidence{Source: "smpquery-sl2vl.txt", Value: fmt.Sprintf("data VLs in use: %v", vls)})
	}
}

// judgeVLs redoes the credit-loop check with virtual lanes when the
// collection has both the SL the SA gives each CA-to-CA path (saquery
// PathRecords) and the SL-to-VL tables: the channel dependency graph then
// has one vertex per link direction and VL, a route's hop uses the VL its
// sender's table gives its SL, and only a cycle within that graph is a
// credit loop. The one-VL fabric.credit_loop findings are replaced by its
// own; ok is false (and fs untouched) without the inputs.
func judgeVLs(f *Fabric, g *routing.Graph, fs []finding.Finding, maxLoops int) ([]finding.Finding, bool) {
	if len(f.PathSLs) == 0 || len(f.SL2VL) == 0 || g == nil {
		return fs, false
	}
	if maxLoops <= 0 {
		maxLoops = 16
	}
	type key struct{ lid, in, out int }
	tab := map[key][16]uint8{}
	for _, r := range f.SL2VL {
		var t [16]uint8
		for i, v := range r.VL {
			t[i] = uint8(v)
		}
		tab[key{r.LID, r.In, r.Out}] = t
	}
	vls := func(node, in, out int) ([16]uint8, bool) {
		n := &f.Nodes[node]
		k := key{n.LID, in, out}
		if n.Type != ibdiags.Switch {
			k = key{-1, 0, 0}
			for _, p := range n.Ports {
				if p.Num == out {
					k.lid = p.LID
				}
			}
		}
		t, ok := tab[k]
		return t, ok
	}
	paths := make([]routing.PathSL, 0, len(f.PathSLs))
	for _, p := range f.PathSLs {
		paths = append(paths, routing.PathSL{Src: uint16(p.SLID), Dst: uint16(p.DLID), SL: uint8(p.SL)})
	}
	res := routing.CreditLoopsVL(g, paths, vls, maxLoops)
	out := slices.DeleteFunc(slices.Clone(fs), func(x finding.Finding) bool { return x.ID == "fabric.credit_loop" })
	basis := fmt.Sprintf("judged per VL: %d CA-to-CA paths with the SL the SA gives them, over VLs %v", res.Routes, res.VLs)
	if res.UnknownHops > 0 {
		basis += fmt.Sprintf("; %d hops had no SL-to-VL table and were taken to keep their VL", res.UnknownHops)
	}
	for _, l := range res.Loops {
		hops := make([]string, 0, len(l.Cycle)+1)
		ev := []finding.Evidence{{Source: "saquery-path-sl.txt", Value: basis}}
		for _, c := range l.Cycle {
			hops = append(hops, f.Nodes[c.From.Node].Name())
			ev = append(ev, finding.Evidence{Source: "channel dependency",
				Value: fmt.Sprintf("%s port %d -> %s port %d on VL %d", f.Nodes[c.From.Node].Name(), c.From.Port, f.Nodes[c.To.Node].Name(), c.To.Port, c.VL)})
		}
		hops = append(hops, hops[0])
		vl := l.Cycle[0].VL
		summary := fmt.Sprintf("credit loop on VL %d: routes make the links %s wait on each other in a cycle (%d link-VL buffers, %d switches in the dependency cycle's component; %s): deadlock risk under load",
			vl, joinNames(hops, 12), l.Channels, l.Switches, basis)
		out = append(out, catalog.New("fabric.credit_loop", f.nodeSubject(l.Cycle[0].From.Node), summary, ev...))
	}
	catalog.Sort(out)
	return out, true
}

// joinNames joins names with " -> ", the first limit and the last.
func joinNames(names []string, limit int) string {
	if len(names) > limit {
		names = append(append(slices.Clone(names[:limit-1]), "…"), names[len(names)-1])
	}
	return strings.Join(names, " -> ")
}
