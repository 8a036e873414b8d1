package fabric

import (
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
	return fs, res, nil
}
