package routing

import (
	"errors"
	"fmt"
	"slices"
)

// NodeType tells switches from end nodes.
type NodeType uint8

// Node types. Routers are end nodes for unicast routing and are modelled as
// CA.
const (
	CA     NodeType = 1 // channel adapter (HCA) or router: ibnetdiscover "Ca"/"Rt"
	Switch NodeType = 2 // ibnetdiscover "Switch"
)

// String returns "CA" or "switch".
func (t NodeType) String() string {
	switch t {
	case CA:
		return "CA"
	case Switch:
		return "switch"
	}
	return fmt.Sprintf("NodeType(%d)", uint8(t))
}

// NoRoute is the LFT value of an entry without a route (IBA: 0xFF, dump_fts
// prints such entries only with -a).
const NoRoute = 0xFF

// MaxUnicastLID is the highest unicast LID (IBA; 0xC000 and up are
// multicast).
const MaxUnicastLID = 0xBFFF

// Port is one port of a node. On a switch only port 0 (the management port)
// has a LID; on a CA every port has its own LID and port GUID.
type Port struct {
	// GUID is the port GUID (ibnetdiscover "(portguid)" after a CA port,
	// dump_fts "portguid"); zero when unknown.
	GUID uint64
	// LID is the base LID (ibnetdiscover "lid N"); 0 = none assigned.
	LID uint16
	// LMC: the port answers to LIDs LID … LID+2^LMC-1 (ibnetdiscover
	// "lmc N").
	LMC uint8
}

// Node is a switch or a channel adapter.
type Node struct {
	GUID uint64 // node GUID (ibnetdiscover switchguid=/caguid=)
	Desc string // node description (ibnetdiscover `# "desc"`)
	Type NodeType
	// Ports is indexed by port number: Ports[0] is a switch's management
	// port (unused on a CA), Ports[1…] are the physical ports, so
	// len(Ports) = number of ports + 1.
	Ports []Port
	// LFT is a switch's linear forwarding table: LFT[lid] is the output
	// port for destination lid (0 = this switch, NoRoute = none). LIDs at or
	// beyond len(LFT) have no route. Nil on a CA, and on a switch whose
	// table could not be read.
	LFT []uint8
}

// NumPorts is the number of physical ports.
func (n *Node) NumPorts() int { return max(len(n.Ports)-1, 0) }

// Name is the description, or the GUID when the description is empty.
func (n *Node) Name() string {
	if n.Desc != "" {
		return n.Desc
	}
	return fmt.Sprintf("0x%016x", n.GUID)
}

// PortRef names one port: an index into Subnet.Nodes and a port number.
type PortRef struct {
	Node int
	Port int
}

// Link is one cable between two ports.
type Link struct {
	A, B PortRef
}

// Subnet is the input of the analysis: the subnet's nodes, the links between
// their ports and the switches' forwarding tables.
type Subnet struct {
	Nodes []Node
	Links []Link
}

// AddSwitch appends a switch with numPorts physical ports and port 0 at lid
// (LMC 0), and returns its index.
func (f *Subnet) AddSwitch(guid uint64, desc string, numPorts int, lid uint16) int {
	ports := make([]Port, numPorts+1)
	ports[0] = Port{GUID: guid, LID: lid}
	f.Nodes = append(f.Nodes, Node{GUID: guid, Desc: desc, Type: Switch, Ports: ports})
	return len(f.Nodes) - 1
}

// AddCA appends a channel adapter with numPorts ports (no LIDs yet; set
// them in Ports) and returns its index.
func (f *Subnet) AddCA(guid uint64, desc string, numPorts int) int {
	f.Nodes = append(f.Nodes, Node{GUID: guid, Desc: desc, Type: CA, Ports: make([]Port, numPorts+1)})
	return len(f.Nodes) - 1
}

// Connect adds a link between port pa of node a and port pb of node b.
func (f *Subnet) Connect(a, pa, b, pb int) {
	f.Links = append(f.Links, Link{A: PortRef{a, pa}, B: PortRef{b, pb}})
}

// SetRoute sets switch sw's LFT entry for lid to port, growing the table
// (new entries NoRoute) as needed.
func (f *Subnet) SetRoute(sw int, lid uint16, port uint8) {
	n := &f.Nodes[sw]
	for len(n.LFT) <= int(lid) {
		n.LFT = append(n.LFT, NoRoute)
	}
	n.LFT[lid] = port
}

// ErrInvalid marks a Subnet that cannot be analysed (a link to a port that
// does not exist, a port cabled twice).
var ErrInvalid = errors.New("invalid fabric model")

// LIDConflict is a LID claimed by more than one port. Routes to it are not
// analysed (fabric.duplicate_lid reports the conflict itself).
type LIDConflict struct {
	LID   uint16
	Ports []PortRef
}

// endpoint is what owns one destination LID.
type endpoint struct {
	node int32 // node index
	port int32 // port number on that node (0 on a switch)
}

// Graph is a Subnet indexed for analysis: flat port numbering, peers, LID
// owners, dense switch numbering. It keeps a pointer to the Subnet, which
// must not change while the Graph is used.
type Graph struct {
	f *Subnet
	// base[n] is the flat index of node n's port 0; flat ports are also
	// the directed channels (channel p = the link leaving through port p).
	base []int32
	// peer[p] is the flat index of the port cabled to flat port p, -1 none.
	peer []int32
	// portNode[p] is the node of flat port p.
	portNode []int32
	// sw[n] is the dense switch index of node n, -1 for CAs; swNode is
	// the inverse.
	sw     []int32
	swNode []int32
	// owner[lid] is the port that owns lid, node -1 when none or a conflict.
	owner     []endpoint
	maxLID    int
	conflicts []LIDConflict
	// caAt[s] lists the flat ports of CA ports cabled to switch s (the
	// sources behind it).
	caAt [][]int32
	// noTable[s] is set when switch s has no LFT entry other than NoRoute.
	noTable []bool
}

// New indexes a fabric. It fails (ErrInvalid) only when links name ports
// that do not exist or cable one port twice; LIDs claimed twice are
// recorded as conflicts (Graph.LIDConflicts) and left out of the analysis.
func New(f *Subnet) (*Graph, error) {
	g := &Graph{f: f}
	nn := len(f.Nodes)
	g.base = make([]int32, nn+1)
	g.sw = make([]int32, nn)
	total := 0
	for i := range f.Nodes {
		n := &f.Nodes[i]
		g.base[i] = int32(total)
		if len(n.Ports) == 0 {
			return nil, fmt.Errorf("%w: node %d (%s) has no ports", ErrInvalid, i, n.Name())
		}
		if len(n.Ports) > 256 {
			return nil, fmt.Errorf("%w: node %d (%s) has %d ports (at most 255)", ErrInvalid, i, n.Name(), len(n.Ports)-1)
		}
		total += len(n.Ports)
		switch n.Type {
		case Switch:
			g.sw[i] = int32(len(g.swNode))
			g.swNode = append(g.swNode, int32(i))
		case CA:
			g.sw[i] = -1
		default:
			return nil, fmt.Errorf("%w: node %d (%s) has unknown type %d", ErrInvalid, i, n.Name(), n.Type)
		}
	}
	g.base[nn] = int32(total)
	g.noTable = make([]bool, len(g.swNode))
	for s, n := range g.swNode {
		g.noTable[s] = !slices.ContainsFunc(f.Nodes[n].LFT, func(p uint8) bool { return p != NoRoute })
	}
	g.peer = make([]int32, total)
	g.portNode = make([]int32, total)
	for i := range f.Nodes {
		for p := g.base[i]; p < g.base[i+1]; p++ {
			g.portNode[p] = int32(i)
			g.peer[p] = -1
		}
	}
	for i, l := range f.Links {
		a, err := g.flat(l.A)
		if err != nil {
			return nil, fmt.Errorf("link %d: %w", i, err)
		}
		b, err := g.flat(l.B)
		if err != nil {
			return nil, fmt.Errorf("link %d: %w", i, err)
		}
		if a == b {
			return nil, fmt.Errorf("%w: link %d connects %s to itself", ErrInvalid, i, g.portName(a))
		}
		if g.peer[a] >= 0 || g.peer[b] >= 0 {
			dup := a
			if g.peer[a] < 0 {
				dup = b
			}
			return nil, fmt.Errorf("%w: link %d: %s is cabled twice", ErrInvalid, i, g.portName(dup))
		}
		g.peer[a], g.peer[b] = b, a
	}
	g.indexLIDs()
	g.caAt = make([][]int32, len(g.swNode))
	for i := range f.Nodes {
		if f.Nodes[i].Type != CA {
			continue
		}
		for p := g.base[i] + 1; p < g.base[i+1]; p++ {
			q := g.peer[p]
			if q < 0 {
				continue
			}
			if s := g.sw[g.portNode[q]]; s >= 0 {
				g.caAt[s] = append(g.caAt[s], p)
			}
		}
	}
	return g, nil
}

func (g *Graph) flat(r PortRef) (int32, error) {
	if r.Node < 0 || r.Node >= len(g.f.Nodes) {
		return 0, fmt.Errorf("%w: node index %d out of range (%d nodes)", ErrInvalid, r.Node, len(g.f.Nodes))
	}
	n := &g.f.Nodes[r.Node]
	if r.Port < 1 || r.Port > n.NumPorts() {
		return 0, fmt.Errorf("%w: %s has no port %d (ports 1-%d)", ErrInvalid, n.Name(), r.Port, n.NumPorts())
	}
	return g.base[r.Node] + int32(r.Port), nil
}

// indexLIDs fills owner from every port's LID range: switch port 0, CA
// ports 1…
func (g *Graph) indexLIDs() {
	f := g.f
	claims := map[uint16][]PortRef{}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		first, last := 1, len(n.Ports)-1
		if n.Type == Switch {
			first, last = 0, 0
		}
		for p := first; p <= last; p++ {
			pt := n.Ports[p]
			if pt.LID == 0 || pt.LID > MaxUnicastLID {
				continue
			}
			top := int(pt.LID) + 1<<min(pt.LMC, 7) - 1
			top = min(top, MaxUnicastLID)
			g.maxLID = max(g.maxLID, top)
			for l := int(pt.LID); l <= top; l++ {
				claims[uint16(l)] = append(claims[uint16(l)], PortRef{i, p})
			}
		}
	}
	g.owner = make([]endpoint, g.maxLID+1)
	for l := range g.owner {
		g.owner[l] = endpoint{node: -1}
	}
	for lid, refs := range claims {
		if len(refs) > 1 {
			g.conflicts = append(g.conflicts, LIDConflict{LID: lid, Ports: refs})
			continue
		}
		g.owner[lid] = endpoint{node: int32(refs[0].Node), port: int32(refs[0].Port)}
	}
	sortConflicts(g.conflicts)
}

// LIDConflicts returns the LIDs claimed by more than one port, by LID.
func (g *Graph) LIDConflicts() []LIDConflict { return g.conflicts }

// Subnet returns the indexed fabric.
func (g *Graph) Subnet() *Subnet { return g.f }

// Owner returns the port that owns lid.
func (g *Graph) Owner(lid uint16) (PortRef, bool) {
	if int(lid) >= len(g.owner) || g.owner[lid].node < 0 {
		return PortRef{}, false
	}
	o := g.owner[lid]
	return PortRef{int(o.node), int(o.port)}, true
}

// Peer returns the port cabled to r.
func (g *Graph) Peer(r PortRef) (PortRef, bool) {
	p, err := g.flat(r)
	if err != nil || g.peer[p] < 0 {
		return PortRef{}, false
	}
	return g.ref(g.peer[p]), true
}

func (g *Graph) ref(p int32) PortRef {
	n := g.portNode[p]
	return PortRef{int(n), int(p - g.base[n])}
}

func (g *Graph) portName(p int32) string {
	r := g.ref(p)
	return fmt.Sprintf("%s port %d", g.f.Nodes[r.Node].Name(), r.Port)
}

// lft returns switch node n's entry for lid.
func (g *Graph) lft(n int32, lid int) uint8 {
	t := g.f.Nodes[n].LFT
	if lid < len(t) {
		return t[lid]
	}
	return NoRoute
}

// portGUID is port p's GUID, falling back to the node GUID (switches) or
// node GUID + port (CAs) when unknown.
func (n *Node) portGUID(p int) uint64 {
	if p < len(n.Ports) && n.Ports[p].GUID != 0 {
		return n.Ports[p].GUID
	}
	if n.Type == Switch {
		return n.GUID
	}
	return n.GUID + uint64(p)
}
