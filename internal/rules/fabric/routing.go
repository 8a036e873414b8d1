package fabric

import (
	"errors"
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// RoutingInput builds internal/routing's model from the discovered
// topology and the dump_fts tables: node i of f is node i of the result.
// Switches whose table was not dumped keep a nil LFT (routing reports them
// as having no table). It fails when the fabric has no forwarding tables.
func RoutingInput(f *Fabric) (*routing.Fabric, error) {
	if len(f.LFTs) == 0 {
		return nil, fmt.Errorf("no forwarding tables (dump_fts) in the collection")
	}
	rf := &routing.Fabric{}
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
