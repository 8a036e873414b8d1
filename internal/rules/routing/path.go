package routing

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Hop is one node on a route: the port the packet arrives on (0 at the
// source) and the port it leaves by (0 at the destination).
type Hop struct {
	Node    int
	InPort  int
	OutPort int
}

// Route is a hop-by-hop path from the forwarding tables.
type Route struct {
	Src, Dst uint16
	Hops     []Hop
}

// Links is the number of links the route crosses.
func (r *Route) Links() int { return max(len(r.Hops)-1, 0) }

// ErrNoLID is returned by Path for a LID no port owns.
var ErrNoLID = errors.New("no port has this LID")

// PathError says where and why a route breaks; Partial holds the hops up
// to and including the switch where it breaks.
type PathError struct {
	Src, Dst uint16
	Kind     BreakKind
	Node     int // node where it breaks
	Port     int // the offending output port (DeadPort, Misdelivered)
	Partial  []Hop
	desc     string
}

// Error says where the route breaks and why.
func (e *PathError) Error() string {
	return fmt.Sprintf("route from lid %d to lid %d breaks at %s: %s", e.Src, e.Dst, e.desc, e.detail())
}

func (e *PathError) detail() string {
	switch e.Kind {
	case NoEntry:
		return fmt.Sprintf("no forwarding entry for lid %d", e.Dst)
	case NoTable:
		return "the switch has no forwarding table"
	case DeadPort:
		return fmt.Sprintf("entry for lid %d is port %d, which has no link", e.Dst, e.Port)
	case Misdelivered:
		if e.Port == 0 {
			return fmt.Sprintf("entry for lid %d is port 0 (this switch), but the switch does not own that lid", e.Dst)
		}
		return fmt.Sprintf("entry for lid %d is port %d, which leads to a node that does not own that lid", e.Dst, e.Port)
	case Loop:
		return "the tables lead back to a switch already on the route (forwarding loop)"
	}
	return e.Kind.String()
}

// Path follows the forwarding tables from the port owning src to the port
// owning dst, like ibtracert does on a live fabric. A source CA sends out of
// its own port; switches forward by their LFT. It returns a *PathError when
// the route breaks, with the hops walked so far.
func (g *Graph) Path(src, dst uint16) (*Route, error) {
	so, ok := g.Owner(src)
	if !ok {
		return nil, fmt.Errorf("source lid %d: %w", src, ErrNoLID)
	}
	do, ok := g.Owner(dst)
	if !ok {
		return nil, fmt.Errorf("destination lid %d: %w", dst, ErrNoLID)
	}
	r := &Route{Src: src, Dst: dst}
	fail := func(k BreakKind, node, port int) error {
		return &PathError{Src: src, Dst: dst, Kind: k, Node: node, Port: port, Partial: slices.Clone(r.Hops),
			desc: fmt.Sprintf("%s (guid 0x%016x)", g.f.Nodes[node].Name(), g.f.Nodes[node].GUID)}
	}
	if so == do {
		r.Hops = []Hop{{Node: so.Node, InPort: so.Port, OutPort: 0}}
		return r, nil
	}
	node, in := so.Node, 0
	if g.f.Nodes[node].Type == CA {
		r.Hops = append(r.Hops, Hop{Node: node, OutPort: so.Port})
		q := g.peer[g.base[node]+int32(so.Port)]
		if q < 0 {
			return r, fail(DeadPort, node, so.Port)
		}
		ref := g.ref(q)
		if ref == do {
			r.Hops = append(r.Hops, Hop{Node: ref.Node, InPort: ref.Port})
			return r, nil
		}
		if g.f.Nodes[ref.Node].Type == CA {
			return r, fail(Misdelivered, node, so.Port)
		}
		node, in = ref.Node, ref.Port
	}
	return r, g.trace(r, node, in, do, fail)
}

// trace follows the tables from switch node (arrived on port in) to the
// owner do of r.Dst, appending hops to r.
func (g *Graph) trace(r *Route, node, in int, do PortRef, fail func(BreakKind, int, int) error) error {
	dst := r.Dst
	seen := map[int]bool{}
	for {
		n := &g.f.Nodes[node]
		out := g.lft(int32(node), int(dst))
		r.Hops = append(r.Hops, Hop{Node: node, InPort: in, OutPort: int(out)})
		switch {
		case seen[node]:
			r.Hops[len(r.Hops)-1].OutPort = 0
			return fail(Loop, node, 0)
		case n.Type == Switch && g.noTable[g.sw[node]]:
			return fail(NoTable, node, 0)
		case out == 0 && node == do.Node:
			return nil
		case out == 0:
			return fail(Misdelivered, node, 0)
		case int(out) >= len(n.Ports):
			return fail(NoEntry, node, int(out))
		}
		seen[node] = true
		q := g.peer[g.base[node]+int32(out)]
		if q < 0 {
			return fail(DeadPort, node, int(out))
		}
		ref := g.ref(q)
		if g.f.Nodes[ref.Node].Type == CA {
			if ref != do {
				return fail(Misdelivered, node, int(out))
			}
			r.Hops = append(r.Hops, Hop{Node: ref.Node, InPort: ref.Port})
			return nil
		}
		node, in = ref.Node, ref.Port
	}
}

// Format renders the route as ibtracert prints it (infiniband-diags
// ibtracert.c): "From ca {guid} portnum N lid A-B "desc"", one
// "[out] -> type port {portguid}[in] lid A-B "desc"" line per hop, and
// "To ...".
func (r *Route) Format(f *Subnet) string {
	var b strings.Builder
	lids := func(h Hop) string {
		n := &f.Nodes[h.Node]
		p := n.Ports[0]
		if n.Type == CA && h.InPort+h.OutPort < len(n.Ports) {
			p = n.Ports[max(h.InPort, h.OutPort)]
		}
		return fmt.Sprintf("lid %d-%d", p.LID, int(p.LID)+1<<p.LMC-1)
	}
	typ := func(n *Node) string {
		if n.Type == Switch {
			return "switch"
		}
		return "ca"
	}
	for i, h := range r.Hops {
		n := &f.Nodes[h.Node]
		if i == 0 {
			fmt.Fprintf(&b, "From %s {0x%016x} portnum %d %s \"%s\"\n", typ(n), n.GUID, max(h.OutPort, h.InPort), lids(h), n.Desc)
			continue
		}
		prev := r.Hops[i-1]
		fmt.Fprintf(&b, "[%d] -> %s port {0x%016x}[%d] %s \"%s\"\n", prev.OutPort, typ(n), n.portGUID(h.InPort), h.InPort, lids(h), n.Desc)
	}
	if len(r.Hops) > 0 {
		h := r.Hops[len(r.Hops)-1]
		n := &f.Nodes[h.Node]
		fmt.Fprintf(&b, "To %s {0x%016x} portnum %d %s \"%s\"\n", typ(n), n.GUID, h.InPort, lids(h), n.Desc)
	}
	return b.String()
}
