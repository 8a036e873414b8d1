package fabric

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// CollectionOptions say how a generated collection looks.
type CollectionOptions struct {
	// Taken stamps the collection.
	Taken time.Time
	// Speed is the lane speed of a healthy link (default QDR, what ibsim
	// runs); a slow fault runs one generation lower.
	Speed ib.Speed
	// Counters are port counters by port, by their PMA names as
	// ibqueryerrors prints them (SymbolErrorCounter, LinkDownedCounter,
	// PortXmitWait…); a port with any of them above zero is reported.
	Counters map[PortName]map[string]uint64
}

// laneGbps is iblinkinfo's per-lane signalling rate of each speed.
var laneGbps = map[ib.Speed]string{
	ib.SpeedSDR: "2.5", ib.SpeedDDR: "5.0", ib.SpeedQDR: "10.0", ib.SpeedFDR10: "10.3125", ib.SpeedFDR: "14.0625",
	ib.SpeedEDR: "25.78125", ib.SpeedHDR: "53.125", ib.SpeedNDR: "106.25", ib.SpeedXDR: "212.5",
}

// slower is the generation below each speed.
var slower = map[ib.Speed]ib.Speed{
	ib.SpeedDDR: ib.SpeedSDR, ib.SpeedQDR: ib.SpeedDDR, ib.SpeedFDR10: ib.SpeedQDR, ib.SpeedFDR: ib.SpeedQDR,
	ib.SpeedEDR: ib.SpeedFDR, ib.SpeedHDR: ib.SpeedEDR, ib.SpeedNDR: ib.SpeedHDR, ib.SpeedXDR: ib.SpeedNDR,
}

// end is one end of an active link as seen from a port.
type end struct {
	peer  PortName
	width int
	speed ib.Speed
	// couldWidth/couldSpeed are what both ends support when the link
	// runs below it (0: it does not).
	couldWidth int
	couldSpeed ib.Speed
}

// coll is the state of one collection being rendered.
type coll struct {
	f     *Fabric
	o     CollectionOptions
	nodes map[string]*node
	guid  map[string]uint64
	lid   map[string]int
	ends  map[PortName]end
	// seen are the nodes a discovery from the first switch reaches.
	seen map[string]bool
	sw   []*node // discovered switches, in fabric order
	cas  []*node // discovered HCAs, in fabric order
	max  int     // highest LID
}

// Collection renders what `ibdoctor fabric collect` saves for this fabric
// after a subnet manager on the first spine brought it up: ibnetdiscover,
// iblinkinfo, ibqueryerrors (--data), dump_fts (up/down routes) and
// sminfo, in the formats of infiniband-diags. Missing cables leave switch
// ports Down/Polling and an HCA without a cable undiscovered; narrow and
// slow links run at their width and speed with iblinkinfo's "Could be";
// routes avoid missing cables, and a spine without a cable to a leaf has
// no route to that leaf's LIDs. Only two-level fabrics are supported.
func (f *Fabric) Collection(o CollectionOptions) (*fabricmodel.Raw, error) {
	if f.Spec.Levels != 2 {
		return nil, fmt.Errorf("collection: only 2-level fabrics")
	}
	if o.Speed == 0 {
		o.Speed = ib.SpeedQDR
	}
	if _, ok := laneGbps[o.Speed]; !ok || slower[o.Speed] == 0 {
		return nil, fmt.Errorf("collection: speed %v not supported", o.Speed)
	}
	c := &coll{f: f, o: o, nodes: map[string]*node{}, guid: map[string]uint64{}, lid: map[string]int{}, ends: map[PortName]end{}, seen: map[string]bool{}}
	if err := c.address(); err != nil {
		return nil, err
	}
	for _, l := range f.links {
		if l.suppress {
			continue
		}
		sp := o.Speed
		if l.speed < l.planSpeed {
			sp = slower[o.Speed]
		}
		e := end{width: l.width, speed: sp}
		if l.width < 4 {
			e.couldWidth = 4
		}
		if sp != o.Speed {
			e.couldSpeed = o.Speed
		}
		ea, eb := e, e
		ea.peer, eb.peer = l.b, l.a
		c.ends[l.a], c.ends[l.b] = ea, eb
	}
	c.discover()
	raw := &fabricmodel.Raw{Taken: o.Taken}
	add := func(name string, args []string, out []byte) {
		raw.Outputs = append(raw.Outputs, &fabricmodel.Output{Name: name, Args: args, Stdout: out})
	}
	add("ibnetdiscover", []string{"ibnetdiscover"}, c.netDiscover())
	add("iblinkinfo", []string{"iblinkinfo"}, c.linkInfo())
	add("ibqueryerrors", []string{"ibqueryerrors", "--skip-sl", "--data"}, c.queryErrors())
	add("dump_fts", []string{"dump_fts", "-a", "-n"}, c.dumpFTs())
	sm := c.sw[0]
	add("sminfo", []string{"sminfo"}, fmt.Appendf(nil, "sminfo: sm lid %d sm guid %#x, activity count 130 priority 0 state 3 SMINFO_MASTER\n", c.lid[sm.name], c.guid[sm.name]))
	return raw, nil
}

// address gives every node a GUID and every port a LID: the given ones
// first, then switches (the first spine gets the lowest free LID) and
// HCAs in order.
func (c *coll) address() error {
	used := map[int]string{}
	usedGUID := map[uint64]string{}
	var order []*node
	for i := range c.f.nodes {
		n := &c.f.nodes[i]
		c.nodes[n.name] = n
		if n.typ == "Switch" && strings.HasPrefix(n.name, "spine") {
			order = append(order, n)
		}
	}
	for i := range c.f.nodes {
		if n := &c.f.nodes[i]; !slices.Contains(order, n) {
			order = append(order, n)
		}
	}
	for i, n := range order {
		g := n.guid
		if g == 0 {
			g = 0x0002c90300000000 | uint64(i+1)<<4
			if n.typ == "Switch" {
				g |= 0x200000000
			}
		}
		c.guid[n.name] = g
		usedGUID[g] = n.name
		if n.lid != 0 {
			if prev, dup := used[n.lid]; dup {
				return fmt.Errorf("collection: LID %d given to %s and %s", n.lid, prev, n.name)
			}
			used[n.lid] = n.name
			c.lid[n.name] = n.lid
		}
	}
	next := 1
	for _, n := range order {
		if c.lid[n.name] != 0 {
			continue
		}
		for used[next] != "" {
			next++
		}
		used[next] = n.name
		c.lid[n.name] = next
	}
	for l := range used {
		c.max = max(c.max, l)
	}
	return nil
}

// discover walks the active links from the first spine, as ibnetdiscover
// does, and lists what it reached.
func (c *coll) discover() {
	first := ""
	for _, n := range c.f.nodes {
		if n.typ == "Switch" && (first == "" || strings.HasPrefix(n.name, "spine") && !strings.HasPrefix(first, "spine")) {
			first = n.name
		}
	}
	queue := []string{first}
	c.seen[first] = true
	for len(queue) > 0 {
		n := c.nodes[queue[0]]
		queue = queue[1:]
		for p := 1; p <= n.ports; p++ {
			if e, ok := c.ends[PortName{n.name, p}]; ok && !c.seen[e.peer.Node] {
				c.seen[e.peer.Node] = true
				queue = append(queue, e.peer.Node)
			}
		}
	}
	c.sw = append(c.sw, c.nodes[first])
	for i := range c.f.nodes {
		n := &c.f.nodes[i]
		switch {
		case !c.seen[n.name] || n.name == first:
		case n.typ == "Switch":
			c.sw = append(c.sw, n)
		default:
			c.cas = append(c.cas, n)
		}
	}
}

func (c *coll) isSwitch(name string) bool { return c.nodes[name].typ == "Switch" }

// nodeID is ibnetdiscover's "S-…"/"H-…" node name.
func (c *coll) nodeID(name string) string {
	if c.isSwitch(name) {
		return fmt.Sprintf("S-%016x", c.guid[name])
	}
	return fmt.Sprintf("H-%016x", c.guid[name])
}

func (e end) rate() string { return fmt.Sprintf("%dx%s", e.width, e.speed) }

func (c *coll) netDiscover() []byte {
	var b bytes.Buffer
	first := c.sw[0].name
	fmt.Fprintf(&b, "#\n# Topology file: generated on %s\n#\n# Initiated from node %016x port %016x\n", c.o.Taken.UTC().Format("Mon Jan 2 15:04:05 2006"), c.guid[first], c.guid[first])
	for _, n := range c.sw {
		g := c.guid[n.name]
		fmt.Fprintf(&b, "\nvendid=0x2c9\ndevid=0xd2f2\nsysimgguid=%#x\nswitchguid=%#x(%x)\n", g, g, g)
		fmt.Fprintf(&b, "Switch\t%d %q\t\t# %q base port 0 lid %d lmc 0\n", n.ports, c.nodeID(n.name), n.name, c.lid[n.name])
		for p := 1; p <= n.ports; p++ {
			e, ok := c.ends[PortName{n.name, p}]
			if !ok {
				continue
			}
			if c.isSwitch(e.peer.Node) {
				fmt.Fprintf(&b, "[%d]\t%q[%d]\t\t# %q lid %d %s\n", p, c.nodeID(e.peer.Node), e.peer.Port, e.peer.Node, c.lid[e.peer.Node], e.rate())
			} else {
				fmt.Fprintf(&b, "[%d]\t%q[%d](%x) \t\t# %q lid %d %s\n", p, c.nodeID(e.peer.Node), e.peer.Port, c.guid[e.peer.Node], e.peer.Node, c.lid[e.peer.Node], e.rate())
			}
		}
	}
	for _, n := range c.cas {
		g := c.guid[n.name]
		e := c.ends[PortName{n.name, 1}]
		fmt.Fprintf(&b, "\nvendid=0x2c9\ndevid=0x1021\nsysimgguid=%#x\ncaguid=%#x\n", g, g)
		fmt.Fprintf(&b, "Ca\t%d %q\t\t# %q\n", n.ports, c.nodeID(n.name), n.name)
		fmt.Fprintf(&b, "[1](%x) \t%q[%d]\t\t# lid %d lmc 0 %q lid %d %s\n", g, c.nodeID(e.peer.Node), e.peer.Port, c.lid[n.name], e.peer.Node, c.lid[e.peer.Node], e.rate())
	}
	return b.Bytes()
}

// linkLine is one iblinkinfo port line after the local GUID/LID columns.
func (c *coll) linkLine(name string, p int) string {
	e, ok := c.ends[PortName{name, p}]
	if !ok {
		return fmt.Sprintf("%6d %4d[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )", c.lid[name], p)
	}
	could := func(w int, s ib.Speed) string {
		var parts [2]string
		if w != 0 {
			parts[0] = fmt.Sprintf("Could be %dX", w)
		}
		if s != 0 {
			parts[1] = "Could be " + laneGbps[s] + " Gbps"
		}
		return parts[0] + " " + parts[1]
	}
	return fmt.Sprintf("%6d %4d[  ] ==(%3s %13s Gbps %6s/%8s)==>  %6d %4d[  ] %q (%s)", c.lid[name], p,
		fmt.Sprintf("%dX", e.width), laneGbps[e.speed], "Active", "LinkUp", c.lid[e.peer.Node], e.peer.Port, e.peer.Node, could(e.couldWidth, e.couldSpeed))
}

func (c *coll) linkInfo() []byte {
	var b bytes.Buffer
	for _, n := range c.cas {
		fmt.Fprintf(&b, "CA: %s:\n      0x%016x %s\n", n.name, c.guid[n.name], c.linkLine(n.name, 1))
	}
	for _, n := range c.sw {
		fmt.Fprintf(&b, "Switch: 0x%016x %s:\n", c.guid[n.name], n.name)
		for p := 1; p <= n.ports; p++ {
			fmt.Fprintf(&b, "      %s\n", c.linkLine(n.name, p))
		}
	}
	return b.Bytes()
}

// errorCounters are the counters ibqueryerrors judges, in its order; the
// data counters follow them with --data.
var (
	errorCounters = []string{"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
		"PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards", "PortXmitConstraintErrors",
		"PortRcvConstraintErrors", "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped", "PortXmitWait"}
	dataCounters = []string{"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts"}
)

// counterList renders "[Name == v] …" for the counters of m, data
// counters as ibqueryerrors --data does (octets/4 with KB, MB or GB of
// octets; packets with three decimals).
func counterList(m map[string]uint64) (string, bool) {
	var parts []string
	bad := false
	for _, k := range errorCounters {
		if v := m[k]; v > 0 {
			parts = append(parts, fmt.Sprintf("[%s == %d]", k, v))
			bad = true
		}
	}
	for _, k := range dataCounters {
		v, ok := m[k]
		if !ok {
			continue
		}
		if strings.HasSuffix(k, "Data") {
			x, unit := float64(v)*4/1024, "KB"
			for _, u := range []string{"MB", "GB", "TB"} {
				if x < 1024 {
					break
				}
				x, unit = x/1024, u
			}
			parts = append(parts, fmt.Sprintf("[%s == %d (%.3f%s)]", k, v, x, unit))
		} else {
			parts = append(parts, fmt.Sprintf("[%s == %d (%.3f)]", k, v, float64(v)))
		}
	}
	return strings.Join(parts, " "), bad
}

func (c *coll) queryErrors() []byte {
	var b bytes.Buffer
	nodes, badNodes, ports, badPorts := 0, 0, 0, 0
	for _, n := range append(slices.Clone(c.cas), c.sw...) {
		nodes++
		var lines []string
		all := map[string]uint64{}
		for p := 1; p <= n.ports; p++ {
			if _, ok := c.ends[PortName{n.name, p}]; !ok {
				continue
			}
			ports++
			m := c.o.Counters[PortName{n.name, p}]
			s, bad := counterList(m)
			if !bad {
				continue
			}
			badPorts++
			for k, v := range m {
				all[k] += v
			}
			lines = append(lines, fmt.Sprintf("   GUID %#x port %d: %s", c.guid[n.name], p, s))
		}
		if len(lines) == 0 {
			continue
		}
		badNodes++
		if c.isSwitch(n.name) {
			fmt.Fprintf(&b, "Errors for %#x %q\n", c.guid[n.name], n.name)
			s, _ := counterList(all)
			fmt.Fprintf(&b, "   GUID %#x port ALL: %s\n", c.guid[n.name], s)
		} else {
			fmt.Fprintf(&b, "Errors for %q\n", n.name)
		}
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	fmt.Fprintf(&b, "\n## Summary: %d nodes checked, %d bad nodes found\n##          %d ports checked, %d ports have errors beyond threshold\n## Thresholds: \n## Suppressed:\n",
		nodes, badNodes, ports, badPorts)
	return b.Bytes()
}

// livePorts are the ports of switch sw whose active links go to node to
// (any node when to is "").
func (c *coll) livePorts(sw, to string, toSwitch bool) []int {
	var out []int
	for p := 1; p <= c.nodes[sw].ports; p++ {
		e, ok := c.ends[PortName{sw, p}]
		if ok && (e.peer.Node == to || to == "" && c.isSwitch(e.peer.Node) == toSwitch) {
			out = append(out, p)
		}
	}
	return out
}

// leafOf is the leaf an HCA is cabled to ("" when not cabled).
func (c *coll) leafOf(ca string) string {
	if e, ok := c.ends[PortName{ca, 1}]; ok {
		return e.peer.Node
	}
	return ""
}

// route is switch sw's output port for the LID of node dst (0: itself;
// -1: no route). Up/down: a leaf sends its own HCAs down and the rest up,
// preferring a direct cable to a destination spine; a spine sends
// everything down towards the destination's leaf, and another spine's
// LID through any leaf. Among equal ports the destinations are dealt
// round robin in LID order (next counts per switch and port group), as
// OpenSM balances them.
func (c *coll) route(sw, dst string, next map[string]int) int {
	if sw == dst {
		return 0
	}
	pick := func(group string, ps []int) int {
		if len(ps) == 0 {
			return -1
		}
		p := ps[next[group]%len(ps)]
		next[group]++
		return p
	}
	leaf := dst
	if !c.isSwitch(dst) {
		leaf = c.leafOf(dst)
	}
	if strings.HasPrefix(sw, "leaf") {
		if ps := c.livePorts(sw, dst, false); len(ps) > 0 {
			return pick(dst, ps) // an HCA of this leaf, or a spine cabled to it
		}
		return pick("up", c.livePorts(sw, "", true))
	}
	if strings.HasPrefix(leaf, "leaf") {
		return pick(leaf, c.livePorts(sw, leaf, true))
	}
	return pick("down", c.livePorts(sw, "", true)) // another spine: via any leaf
}

// drPath is the directed route from the first switch to sw.
func (c *coll) drPath(sw string) string {
	first := c.sw[0].name
	if sw == first {
		return "0"
	}
	if ps := c.livePorts(first, sw, true); len(ps) > 0 {
		return fmt.Sprintf("0,%d", ps[0])
	}
	for _, p := range c.livePorts(first, "", true) {
		mid := c.ends[PortName{first, p}].peer.Node
		if ps := c.livePorts(mid, sw, true); len(ps) > 0 {
			return fmt.Sprintf("0,%d,%d", p, ps[0])
		}
	}
	return "0"
}

func (c *coll) dumpFTs() []byte {
	var b bytes.Buffer
	var dsts []*node
	dsts = append(append(dsts, c.sw...), c.cas...)
	slices.SortFunc(dsts, func(x, y *node) int { return c.lid[x.name] - c.lid[y.name] })
	for _, sw := range c.sw {
		fmt.Fprintf(&b, "Unicast lids [0x0-%#x] of switch DR path slid 0; dlid 0; %s guid 0x%016x (%s):\n  Lid  Out   Destination\n       Port     Info \n",
			c.max, c.drPath(sw.name), c.guid[sw.name], sw.name)
		n := 0
		next := map[string]int{}
		for _, d := range dsts {
			p := c.route(sw.name, d.name, next)
			if p < 0 {
				continue
			}
			kind := "Channel Adapter"
			if c.isSwitch(d.name) {
				kind = "Switch"
			}
			fmt.Fprintf(&b, "0x%04x %03d : (%s portguid 0x%016x: '%s')\n", c.lid[d.name], p, kind, c.guid[d.name], d.name)
			n++
		}
		fmt.Fprintf(&b, "%d valid lids dumped \n", n)
	}
	return b.Bytes()
}

// HostLeaves maps each host (Spec.Hosts, or h1, h2…) to its leaf.
func (f *Fabric) HostLeaves() map[string]string {
	out := map[string]string{}
	for _, l := range f.links {
		for _, e := range [][2]PortName{{l.a, l.b}, {l.b, l.a}} {
			i := f.nodeIndex(e[0].Node)
			if i < 0 || f.nodes[i].typ != "Hca" || !strings.HasPrefix(e[1].Node, "leaf") {
				continue
			}
			h := f.nodes[i].host
			if h == "" {
				h = f.nodes[i].name
			}
			out[h] = e[1].Node
		}
	}
	return out
}
