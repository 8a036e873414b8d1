// Package fabric generates simulated InfiniBand fabrics for ibsim: a
// fat-tree (leaf-spine, or three levels) as an ibsim net file, the matching
// cabling plan, and injected faults (a missing cable, a swapped pair, a
// narrow link, a host at a lower speed, a duplicate GUID) that the net file
// carries and the plan does not.
package fabric

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Spec describes the fabric to generate.
type Spec struct {
	Spines       int
	Leaves       int
	HostsPerLeaf int
	// Levels is 2 (leaf-spine) or 3 (leaves in pods of PodLeaves, each pod
	// with Spines aggregation switches, every aggregation switch cabled to
	// every one of Spines core switches).
	Levels    int
	PodLeaves int
	Faults    []Fault
	// Hosts, when set, are the hosts, HostsPerLeaf to a leaf in order
	// (Leaves×HostsPerLeaf of them), each with its HCAs cabled to the
	// leaf on consecutive ports; nil means single-HCA hosts h1, h2, ….
	Hosts []Host
	// Uplinks is the number of cables between each leaf and each spine
	// (2 levels only; default 1).
	Uplinks int
}

// Host is a host of the fabric with its HCAs.
type Host struct {
	Name string
	HCAs []HCA
}

// HCA is one single-port HCA of a host.
type HCA struct {
	// Desc is its node description ("gpu01 mlx5_0"), the fabric's name
	// for it.
	Desc string
	// GUID is its node and port GUID, LID its port's LID (0: assigned by
	// Collection).
	GUID uint64
	LID  int
}

// FaultKind is a kind of injected fault.
type FaultKind string

// Fault kinds, with their --fault syntax.
const (
	Missing FaultKind = "missing" // missing:leaf1[3]    the cable at that port is not installed
	Swap    FaultKind = "swap"    // swap:leaf1[1],leaf1[2]  the two cables swapped
	Narrow  FaultKind = "narrow"  // narrow:leaf2[5]     the link trains at 1X
	Slow    FaultKind = "slow"    // slow:h4             the host's link runs at DDR instead of QDR
	DupGUID FaultKind = "dupguid" // dupguid:h3,h4       both hosts carry the same GUID
)

// Fault is one injected fault.
type Fault struct {
	Kind  FaultKind
	Ports []PortName
	Nodes []string
	// Width is the width a narrow link trains at (0: 1X).
	Width int
}

// PortName is node[port].
type PortName struct {
	Node string
	Port int
}

// String renders node[port].
func (p PortName) String() string { return fmt.Sprintf("%s[%d]", p.Node, p.Port) }

// ParseFault parses the --fault syntax.
func ParseFault(s string) (Fault, error) {
	k, arg, ok := strings.Cut(s, ":")
	if !ok || arg == "" {
		return Fault{}, fmt.Errorf("fault %q: want KIND:ARGS (missing:leaf1[3], swap:leaf1[1],leaf1[2], narrow:leaf2[5], slow:h4, dupguid:h3,h4)", s)
	}
	f := Fault{Kind: FaultKind(k)}
	parts := strings.Split(arg, ",")
	switch f.Kind {
	case Missing, Narrow, Swap:
		want := 1
		if f.Kind == Swap {
			want = 2
		}
		if len(parts) != want {
			return Fault{}, fmt.Errorf("fault %q: %s takes %d port(s) like leaf1[3]", s, k, want)
		}
		for _, p := range parts {
			pn, err := parsePortName(p)
			if err != nil {
				return Fault{}, fmt.Errorf("fault %q: %w", s, err)
			}
			f.Ports = append(f.Ports, pn)
		}
	case Slow:
		if len(parts) != 1 {
			return Fault{}, fmt.Errorf("fault %q: slow takes one host", s)
		}
		f.Nodes = parts
	case DupGUID:
		if len(parts) != 2 || parts[0] == parts[1] {
			return Fault{}, fmt.Errorf("fault %q: dupguid takes two different hosts", s)
		}
		f.Nodes = parts
	default:
		return Fault{}, fmt.Errorf("fault %q: unknown kind %q (missing, swap, narrow, slow, dupguid)", s, k)
	}
	return f, nil
}

func parsePortName(s string) (PortName, error) {
	n, rest, ok := strings.Cut(strings.TrimSpace(s), "[")
	p, ok2 := strings.CutSuffix(rest, "]")
	v, err := strconv.Atoi(p)
	if !ok || !ok2 || err != nil || n == "" || v < 1 || v > 254 {
		return PortName{}, fmt.Errorf("bad port %q (want node[port])", s)
	}
	return PortName{n, v}, nil
}

type link struct {
	a, b      PortName
	width     int // 0 = default 4X
	speed     int // ibsim s= value
	suppress  bool
	planWidth int
	planSpeed int
}

type node struct {
	typ   string // Switch or Hca
	name  string
	ports int
	guid  uint64
	// lid is the port LID a host gave (0: none); host is the host an
	// HCA belongs to.
	lid  int
	host string
}

// Fabric is a generated fabric.
type Fabric struct {
	Spec  Spec
	nodes []node
	links []*link
}

// Generated files.
type Generated struct {
	// Net is the ibsim net file (with the faults).
	Net []byte
	// Plan is the cabling plan in the same grammar, without the faults:
	// ibdoctor fabric diff --plan and check --plan read it.
	Plan []byte
	// IgnoreDuplicates says the net file needs `ibsim -I` (dupguid).
	IgnoreDuplicates bool
}

// QDR is the default lane speed (ibsim speaks SDR, DDR, QDR: s=1, 2, 4).
const (
	speedQDR = 4
	speedDDR = 2
)

// Build lays out the fabric and applies the faults.
func Build(s Spec) (*Fabric, error) {
	if s.Levels == 0 {
		s.Levels = 2
	}
	if s.PodLeaves == 0 {
		s.PodLeaves = 2
	}
	switch {
	case s.Spines < 1 || s.Leaves < 1 || s.HostsPerLeaf < 1:
		return nil, fmt.Errorf("spines, leaves and hosts per leaf must be at least 1")
	case s.Levels != 2 && s.Levels != 3:
		return nil, fmt.Errorf("levels must be 2 or 3")
	case s.Levels == 3 && s.Leaves%s.PodLeaves != 0:
		return nil, fmt.Errorf("3 levels: leaves (%d) must be a multiple of the pod size (%d)", s.Leaves, s.PodLeaves)
	case s.Leaves*s.HostsPerLeaf > 20000 || s.Spines > 254:
		return nil, fmt.Errorf("fabric too large for ibsim (at most 20000 hosts, 254 spines)")
	}
	f := &Fabric{}
	add := func(typ, name string, ports int) {
		f.nodes = append(f.nodes, node{typ: typ, name: name, ports: ports})
	}
	connect := func(a string, pa int, b string, pb int) {
		f.links = append(f.links, &link{a: PortName{a, pa}, b: PortName{b, pb}, speed: speedQDR, planSpeed: speedQDR, width: 4, planWidth: 4})
	}
	if s.Uplinks == 0 {
		s.Uplinks = 1
	}
	if s.Uplinks < 1 || s.Uplinks > 1 && s.Levels != 2 {
		return nil, fmt.Errorf("uplinks: at least 1, and more than 1 only with 2 levels")
	}
	if s.Hosts != nil && len(s.Hosts) != s.Leaves*s.HostsPerLeaf {
		return nil, fmt.Errorf("%d hosts given for %d leaves of %d hosts", len(s.Hosts), s.Leaves, s.HostsPerLeaf)
	}
	f.Spec = s
	// down is the number of host ports of a leaf: the most HCAs the
	// hosts of any leaf have together.
	down := s.HostsPerLeaf
	if s.Hosts != nil {
		down = 0
		for l := range s.Leaves {
			n := 0
			for _, h := range s.Hosts[l*s.HostsPerLeaf : (l+1)*s.HostsPerLeaf] {
				n += len(h.HCAs)
			}
			down = max(down, n)
		}
	}
	leafUp := s.Spines * s.Uplinks
	if down+leafUp > 254 {
		return nil, fmt.Errorf("a leaf needs %d ports (at most 254)", down+leafUp)
	}
	host := 0
	for l := 1; l <= s.Leaves; l++ {
		add("Switch", fmt.Sprintf("leaf%d", l), down+leafUp)
	}
	if s.Levels == 2 {
		if s.Leaves*s.Uplinks > 254 {
			return nil, fmt.Errorf("a spine needs %d ports (at most 254)", s.Leaves*s.Uplinks)
		}
		for sp := 1; sp <= s.Spines; sp++ {
			add("Switch", fmt.Sprintf("spine%d", sp), s.Leaves*s.Uplinks)
			for l := 1; l <= s.Leaves; l++ {
				for u := 1; u <= s.Uplinks; u++ {
					connect(fmt.Sprintf("spine%d", sp), (l-1)*s.Uplinks+u, fmt.Sprintf("leaf%d", l), down+(sp-1)*s.Uplinks+u)
				}
			}
		}
	} else {
		pods := s.Leaves / s.PodLeaves
		if pods > 254 || s.PodLeaves+s.Spines > 254 {
			return nil, fmt.Errorf("3 levels: too many pods or leaves per pod for 254-port switches")
		}
		for c := 1; c <= s.Spines; c++ {
			add("Switch", fmt.Sprintf("core%d", c), pods*s.Spines)
		}
		for p := 1; p <= pods; p++ {
			for a := 1; a <= s.Spines; a++ {
				agg := fmt.Sprintf("agg%d-%d", p, a)
				add("Switch", agg, s.PodLeaves+s.Spines)
				for i := 1; i <= s.PodLeaves; i++ {
					l := (p-1)*s.PodLeaves + i
					connect(agg, i, fmt.Sprintf("leaf%d", l), down+a)
				}
				for c := 1; c <= s.Spines; c++ {
					connect(agg, s.PodLeaves+c, fmt.Sprintf("core%d", c), (p-1)*s.Spines+a)
				}
			}
		}
	}
	seen := map[string]bool{}
	for l := 1; l <= s.Leaves; l++ {
		if s.Hosts == nil {
			for h := 1; h <= s.HostsPerLeaf; h++ {
				host++
				name := fmt.Sprintf("h%d", host)
				add("Hca", name, 1)
				connect(fmt.Sprintf("leaf%d", l), h, name, 1)
			}
			continue
		}
		port := 0
		for _, h := range s.Hosts[(l-1)*s.HostsPerLeaf : l*s.HostsPerLeaf] {
			for _, c := range h.HCAs {
				if c.Desc == "" || strings.ContainsAny(c.Desc, "\"\n") || seen[c.Desc] {
					return nil, fmt.Errorf("host %s: HCA description %q empty, repeated or with a quote", h.Name, c.Desc)
				}
				seen[c.Desc] = true
				port++
				f.nodes = append(f.nodes, node{typ: "Hca", name: c.Desc, ports: 1, guid: c.GUID, lid: c.LID, host: h.Name})
				connect(fmt.Sprintf("leaf%d", l), port, c.Desc, 1)
			}
		}
	}
	for _, ft := range s.Faults {
		if err := f.apply(ft); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (f *Fabric) linkAt(p PortName) *link {
	for _, l := range f.links {
		if l.a == p || l.b == p {
			return l
		}
	}
	return nil
}

func (f *Fabric) nodeIndex(name string) int {
	return slices.IndexFunc(f.nodes, func(n node) bool { return n.name == name })
}

func (f *Fabric) apply(ft Fault) error {
	switch ft.Kind {
	case Missing, Narrow:
		l := f.linkAt(ft.Ports[0])
		if l == nil {
			return fmt.Errorf("fault %s: no cable at %s", ft.Kind, ft.Ports[0])
		}
		switch {
		case ft.Kind == Missing:
			l.suppress = true
		case ft.Width > 0 && ft.Width < 4:
			l.width = ft.Width
		default:
			l.width = 1
		}
	case Swap:
		x, y := f.linkAt(ft.Ports[0]), f.linkAt(ft.Ports[1])
		if x == nil || y == nil || x == y {
			return fmt.Errorf("fault swap: %s and %s must be cabled, by different cables", ft.Ports[0], ft.Ports[1])
		}
		// Swap the far ends: the cable at port 0 now goes where the cable
		// at port 1 went, and vice versa. The plan keeps the originals.
		far := func(l *link, near PortName) *PortName {
			if l.a == near {
				return &l.b
			}
			return &l.a
		}
		fx, fy := far(x, ft.Ports[0]), far(y, ft.Ports[1])
		nx := &link{a: ft.Ports[0], b: *fy, width: x.width, speed: x.speed, planWidth: x.planWidth, planSpeed: x.planSpeed}
		ny := &link{a: ft.Ports[1], b: *fx, width: y.width, speed: y.speed, planWidth: y.planWidth, planSpeed: y.planSpeed}
		x.suppress, y.suppress = true, true
		nx.planWidth, ny.planWidth = -1, -1 // not in the plan
		f.links = append(f.links, nx, ny)
	case Slow:
		i := f.nodeIndex(ft.Nodes[0])
		if i < 0 || f.nodes[i].typ != "Hca" {
			return fmt.Errorf("fault slow: no host %q", ft.Nodes[0])
		}
		l := f.linkAt(PortName{ft.Nodes[0], 1})
		if l == nil {
			return fmt.Errorf("fault slow: host %q is not cabled", ft.Nodes[0])
		}
		l.speed = speedDDR
	case DupGUID:
		i, j := f.nodeIndex(ft.Nodes[0]), f.nodeIndex(ft.Nodes[1])
		if i < 0 || j < 0 || f.nodes[i].typ != "Hca" || f.nodes[j].typ != "Hca" {
			return fmt.Errorf("fault dupguid: %q and %q must be hosts", ft.Nodes[0], ft.Nodes[1])
		}
		g := uint64(0x0002c90300a00000) + uint64(i)*2
		f.nodes[i].guid, f.nodes[j].guid = g, g
	}
	return nil
}

// Generate renders the net file (faults applied) and the plan (as
// designed).
func (f *Fabric) Generate() Generated {
	var g Generated
	g.Net = f.render(true)
	g.Plan = f.render(false)
	seen := map[uint64]bool{}
	for _, n := range f.nodes {
		if n.guid != 0 && seen[n.guid] {
			g.IgnoreDuplicates = true
		}
		seen[n.guid] = true
	}
	return g
}

func (f *Fabric) render(net bool) []byte {
	var b bytes.Buffer
	if net {
		fmt.Fprintf(&b, "# ibsim net file from 'ibdoctor sim fabric' (%d spines, %d leaves, %d hosts per leaf, %d levels)\n", f.Spec.Spines, f.Spec.Leaves, f.Spec.HostsPerLeaf, f.Spec.Levels)
		for _, ft := range f.Spec.Faults {
			fmt.Fprintf(&b, "# fault: %s %v %v\n", ft.Kind, ft.Ports, ft.Nodes)
		}
	} else {
		fmt.Fprintf(&b, "# cabling plan from 'ibdoctor sim fabric': the fabric as designed (ibnetdiscover grammar; w= width, s= speed 1 SDR 2 DDR 4 QDR)\n")
	}
	b.WriteString("\n")
	for _, n := range f.nodes {
		if net && n.guid != 0 {
			fmt.Fprintf(&b, "caguid=%#x\n", n.guid)
		}
		fmt.Fprintf(&b, "%s\t%d \"%s\"\n", n.typ, n.ports, n.name)
		type pl struct {
			port int
			line string
		}
		var lines []pl
		for _, l := range f.links {
			if net && l.suppress || !net && l.planWidth < 0 {
				continue
			}
			w, s := l.width, l.speed
			if !net {
				w, s = l.planWidth, l.planSpeed
			}
			for _, e := range [][2]PortName{{l.a, l.b}, {l.b, l.a}} {
				if e[0].Node != n.name {
					continue
				}
				line := fmt.Sprintf("[%d]\t\"%s\"[%d]", e[0].Port, e[1].Node, e[1].Port)
				if w != 4 {
					line += fmt.Sprintf("\tw=%d", w)
				}
				line += fmt.Sprintf("\ts=%d", s)
				lines = append(lines, pl{e[0].Port, line})
			}
		}
		slices.SortFunc(lines, func(x, y pl) int { return x.port - y.port })
		for _, l := range lines {
			b.WriteString(l.line + "\n")
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}
