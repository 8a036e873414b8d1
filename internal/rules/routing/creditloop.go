package routing

import (
	"cmp"
	"math/bits"
	"slices"
)

// depSet records the channel dependencies a set of routes induces, per
// switch, as a bit matrix in-port × out-port: bit (i, o) of switch s is set
// when some route arrives at s through port i and leaves through port o.
// Duplicates collapse for free and the whole set is (ports+1)² bits per
// switch.
//
// All traffic is assumed to use one virtual lane. A dependency exists only
// within one VL (the VL of a hop is SL2VL[in][out][SL] of the route's SL),
// but the SL of each route is set by the SM in path records; without them
// engines that break dependency cycles by VL (LASH, DFSSSP) may be reported
// although their VL assignment is safe, and the fabric checks say so on the
// finding. With the paths' SLs collected, CreditLoopsVL judges per VL.
type depSet struct {
	g     *Graph
	off   []int // bit offset of each dense switch's matrix
	width []int // ports+1 of each dense switch
	bits  []uint64
}

func newDepSet(g *Graph) *depSet {
	S := len(g.swNode)
	d := &depSet{g: g, off: make([]int, S+1), width: make([]int, S)}
	total := 0
	for s := range S {
		n := g.swNode[s]
		w := int(g.base[n+1] - g.base[n])
		d.off[s], d.width[s] = total, w
		total += w * w
	}
	d.off[S] = total
	d.bits = make([]uint64, (total+63)/64)
	return d
}

func (d *depSet) set(s int32, in, out int) {
	b := d.off[s] + in*d.width[s] + out
	d.bits[b>>6] |= 1 << (b & 63)
}

// creditLoops builds the channel dependency graph (vertices: directed links,
// numbered by the flat index of the sending port) and returns its cyclic
// strongly connected components, each with an example cycle, plus the
// number of distinct dependency edges.
func (d *depSet) creditLoops(maxLoops int) ([]CreditLoop, int) {
	g := d.g
	V := len(g.peer)
	// Count, then fill, the CSR adjacency.
	start := make([]int32, V+1)
	d.each(func(s int32, in, out int) {
		from := g.peer[g.base[g.swNode[s]]+int32(in)]
		start[from+1]++
	})
	for v := range V {
		start[v+1] += start[v]
	}
	edges := start[V]
	adj := make([]int32, edges)
	fill := slices.Clone(start[:V])
	d.each(func(s int32, in, out int) {
		n := g.swNode[s]
		from := g.peer[g.base[n]+int32(in)]
		adj[fill[from]] = g.base[n] + int32(out)
		fill[from]++
	})
	for v := range V {
		slices.Sort(adj[start[v]:start[v+1]])
	}

	comp, comps := tarjan(V, start, adj)
	// A component is cyclic when it has two or more channels, or one with
	// an edge to itself.
	size := make([]int32, comps)
	for v := range V {
		size[comp[v]]++
	}
	cyclic := make([]bool, comps)
	first := make([]int32, comps) // lowest channel of each component
	for c := range first {
		first[c] = -1
	}
	for v := range int32(V) {
		c := comp[v]
		if first[c] < 0 {
			first[c] = v
		}
		if size[c] > 1 {
			cyclic[c] = true
			continue
		}
		if slices.Contains(adj[start[v]:start[v+1]], v) {
			cyclic[c] = true
		}
	}
	var loops []CreditLoop
	var order []int32
	for c := range comps {
		if cyclic[c] {
			order = append(order, int32(c))
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(first[a], first[b]) })
	parent := make([]int32, V)
	for i := range parent {
		parent[i] = -1
	}
	for _, c := range order {
		if len(loops) >= maxLoops {
			break
		}
		cyc := shortestCycle(first[c], c, comp, start, adj, parent)
		l := CreditLoop{Channels: int(size[c])}
		for _, v := range cyc {
			l.Cycle = append(l.Cycle, Channel{From: g.ref(v), To: g.ref(g.peer[v])})
		}
		sw := map[int32]bool{}
		for v := range int32(V) {
			if comp[v] == c {
				sw[g.portNode[g.peer[v]]] = true
			}
		}
		l.Switches = len(sw)
		loops = append(loops, l)
	}
	return loops, int(edges)
}

// each calls fn for every set dependency bit, in switch, in-port, out-port
// order.
func (d *depSet) each(fn func(s int32, in, out int)) {
	for s := range int32(len(d.width)) {
		w := d.width[s]
		lo, hi := d.off[s], d.off[s+1]
		for b := lo; b < hi; {
			word := d.bits[b>>6] >> (b & 63)
			if word == 0 {
				b = (b | 63) + 1
				continue
			}
			b += bits.TrailingZeros64(word)
			if b >= hi {
				break
			}
			i := b - lo
			fn(s, i/w, i%w)
			b++
		}
	}
}

// tarjan numbers the strongly connected components of the graph in CSR form
// (iteratively: the graph can have hundreds of thousands of vertices).
func tarjan(V int, start, adj []int32) (comp []int32, comps int) {
	index := make([]int32, V)
	low := make([]int32, V)
	comp = make([]int32, V)
	onStack := make([]bool, V)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	type frame struct {
		v    int32
		edge int32
	}
	var call []frame
	next := int32(0)
	for root := range int32(V) {
		if index[root] >= 0 {
			continue
		}
		call = append(call[:0], frame{root, start[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.edge < start[v+1] {
				u := adj[f.edge]
				f.edge++
				if index[u] < 0 {
					index[u], low[u] = next, next
					next++
					stack = append(stack, u)
					onStack[u] = true
					call = append(call, frame{u, start[u]})
				} else if onStack[u] {
					low[v] = min(low[v], index[u])
				}
				continue
			}
			if low[v] == index[v] {
				for {
					u := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[u] = false
					comp[u] = int32(comps)
					if u == v {
						break
					}
				}
				comps++
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
		}
	}
	return comp, comps
}

// shortestCycle finds a shortest cycle through v inside its component c by
// BFS, and returns its vertices starting at v. parent is scratch (all -1 on
// entry and on return).
func shortestCycle(v, c int32, comp, start, adj, parent []int32) []int32 {
	queue := []int32{v}
	var touched []int32
	found := int32(-1)
	for h := 0; h < len(queue) && found < 0; h++ {
		u := queue[h]
		for _, x := range adj[start[u]:start[u+1]] {
			if comp[x] != c {
				continue
			}
			if x == v {
				found = u
				break
			}
			if parent[x] < 0 {
				parent[x] = u
				touched = append(touched, x)
				queue = append(queue, x)
			}
		}
	}
	var cyc []int32
	for u := found; u >= 0 && u != v; u = parent[u] {
		cyc = append(cyc, u)
	}
	cyc = append(cyc, v)
	slices.Reverse(cyc)
	for _, x := range touched {
		parent[x] = -1
	}
	return cyc
}
