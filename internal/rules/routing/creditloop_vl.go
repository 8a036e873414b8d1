package routing

import (
	"cmp"
	"slices"
)

// PathSL is the service level the subnet manager gives the path from
// source LID Src to destination LID Dst (the SL of its SA PathRecord).
type PathSL struct {
	Src, Dst uint16
	SL       uint8
}

// VLTable returns the SL-to-VL mapping of packets that enter node through
// port in and leave through port out (IBA 7.6.6; a channel adapter has one
// table per port, asked for with in = 0 and out = the sending port), and
// false when it is not known.
type VLTable func(node, in, out int) (vl [16]uint8, ok bool)

// VLChannel is one virtual lane of one directed link.
type VLChannel struct {
	Channel
	VL int
}

// VLCreditLoop is a cyclic strongly connected component of the channel
// dependency graph whose vertices are (link direction, VL).
type VLCreditLoop struct {
	// Cycle lists (channel, VL) vertices in dependency order: a route
	// holds Cycle[i] and waits for Cycle[i+1], the last for the first.
	Cycle    []VLChannel
	Channels int // (channel, VL) vertices in the component
	Switches int
}

// VLCheck is the outcome of CreditLoopsVL.
type VLCheck struct {
	Loops []VLCreditLoop
	// Routes is the number of paths followed; Broken those whose route
	// breaks (they add the dependencies up to the break).
	Routes, Broken int
	// UnknownHops counts hops whose SL-to-VL table was not known; they are
	// taken to keep the VL of the hop before (VL = SL at the source).
	UnknownHops int
	// Edges is the number of distinct dependencies.
	Edges int
	// VLs lists the VLs some route uses, sorted.
	VLs []int
}

// CreditLoopsVL checks the routes of the given paths for credit loops
// with virtual lanes modelled: a packet keeps its SL end to end, the VL of
// each link it crosses is the SL-to-VL table of the node that sends it
// there (the source CA's table, then SL2VL[in][out][SL] of each switch),
// and a route that holds (link a, VL x) and then needs (link b, VL y) adds
// the dependency (a, x) → (b, y). A cycle in that graph is a credit loop;
// routes on different VLs never wait for each other, which is how LASH and
// DFSSSP break the cycles a one-VL check reports.
func CreditLoopsVL(g *Graph, paths []PathSL, vls VLTable, maxLoops int) *VLCheck {
	res := &VLCheck{}
	type edge struct{ from, to int32 }
	seen := map[edge]bool{}
	var edges []edge
	used := map[int]bool{}
	for _, p := range paths {
		r, err := g.Path(p.Src, p.Dst)
		if r == nil {
			continue
		}
		res.Routes++
		hops := r.Hops
		if err != nil {
			res.Broken++
			if pe, ok := err.(*PathError); ok {
				hops = pe.Partial
			}
		}
		sl := int(p.SL & 15)
		vl := sl
		prev := int32(-1)
		for _, h := range hops {
			if h.OutPort == 0 {
				break
			}
			in, out := h.InPort, h.OutPort
			if g.f.Nodes[h.Node].Type == CA {
				in = 0
			}
			if t, ok := vls(h.Node, in, out); ok {
				vl = int(t[sl])
			} else {
				res.UnknownHops++
			}
			if vl == 15 {
				break // dropped: the packet goes no further
			}
			used[vl] = true
			cur := (g.base[h.Node]+int32(h.OutPort))*16 + int32(vl)
			if prev >= 0 {
				e := edge{prev, cur}
				if !seen[e] {
					seen[e] = true
					edges = append(edges, e)
				}
			}
			prev = cur
		}
	}
	for vl := range 16 {
		if used[vl] {
			res.VLs = append(res.VLs, vl)
		}
	}
	V := len(g.peer) * 16
	start := make([]int32, V+1)
	for _, e := range edges {
		start[e.from+1]++
	}
	for v := range V {
		start[v+1] += start[v]
	}
	adj := make([]int32, len(edges))
	fill := slices.Clone(start[:V])
	for _, e := range edges {
		adj[fill[e.from]] = e.to
		fill[e.from]++
	}
	for v := range V {
		slices.Sort(adj[start[v]:start[v+1]])
	}
	res.Edges = len(edges)
	comp, comps := tarjan(V, start, adj)
	size := make([]int32, comps)
	first := make([]int32, comps)
	for c := range first {
		first[c] = -1
	}
	for v := range int32(V) {
		size[comp[v]]++
		if first[comp[v]] < 0 {
			first[comp[v]] = v
		}
	}
	var order []int32
	for c := range int32(comps) {
		v := first[c]
		if size[c] > 1 || slices.Contains(adj[start[v]:start[v+1]], v) {
			order = append(order, c)
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(first[a], first[b]) })
	parent := make([]int32, V)
	for i := range parent {
		parent[i] = -1
	}
	for _, c := range order {
		if len(res.Loops) >= maxLoops {
			break
		}
		l := VLCreditLoop{Channels: int(size[c])}
		for _, v := range shortestCycle(first[c], c, comp, start, adj, parent) {
			ch := v / 16
			l.Cycle = append(l.Cycle, VLChannel{Channel{From: g.ref(ch), To: g.ref(g.peer[ch])}, int(v % 16)})
		}
		sw := map[int32]bool{}
		for v := range int32(V) {
			if comp[v] == c {
				sw[g.portNode[g.peer[v/16]]] = true
			}
		}
		l.Switches = len(sw)
		res.Loops = append(res.Loops, l)
	}
	return res
}
