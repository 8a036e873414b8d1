package routing

import (
	"cmp"
	"fmt"
	"slices"
)

// Tree is the tier structure of the fabric: CAs at tier 0, leaves (switches
// with CAs) at tier 1, and every other switch ranked by its hop distance
// from the nearest CA.
type Tree struct {
	// Tiers[n] is node n's tier, -1 for a switch no CA can reach.
	Tiers []int
	// Levels is the highest switch tier (1: a single layer of switches).
	Levels int
	// FatTree is true when the fabric has the shape of a fat-tree: two or
	// more switch tiers, no links between switches of one tier, every
	// switch reachable from a CA. Reason says why not, otherwise.
	FatTree bool
	Reason  string
	// Leaves lists every tier-1 switch with its down (CA) and up ports.
	Leaves []LeafShape
	// Asymmetric lists the switches that break the tree's symmetry
	// (fabric.tree_asymmetric); empty unless FatTree.
	Asymmetric []Asymmetry
}

// LeafShape is one leaf's port split.
type LeafShape struct {
	Node int
	Down int // ports cabled to CAs
	Up   int // ports cabled to tier-2 switches
}

// Oversubscription is Down/Up (0 when the leaf has no uplinks).
func (l LeafShape) Oversubscription() float64 {
	if l.Up == 0 {
		return 0
	}
	return float64(l.Down) / float64(l.Up)
}

// Asymmetry is one switch whose uplinks differ from its peers'.
type Asymmetry struct {
	Node int
	Tier int
	// Up is its number of uplinks; Expected the most common number among
	// the switches of its tier.
	Up, Expected int
	// Missing are the upper switches its group (the switches sharing upper
	// neighbours with it) reaches but it does not, by node index.
	Missing []int
	// Uneven is set when it has more links to some upper switches than to
	// others: Counts maps upper switch node → links, for those.
	Uneven bool
	Counts []UplinkCount
}

// UplinkCount is the number of links from a switch to one upper switch.
type UplinkCount struct {
	Node  int
	Links int
}

// Reasons renders the asymmetry for people, naming nodes through f.
func (a Asymmetry) Reasons(f *Subnet) []string {
	var out []string
	if a.Up != a.Expected {
		out = append(out, fmt.Sprintf("%d uplink%s where most tier-%d switches have %d", a.Up, plural(a.Up), a.Tier, a.Expected))
	}
	if len(a.Missing) > 0 {
		names := make([]string, 0, len(a.Missing))
		for _, n := range a.Missing {
			names = append(names, f.Nodes[n].Name())
		}
		out = append(out, fmt.Sprintf("no link to %s", joinLimit(names, 6)))
	}
	if a.Uneven {
		parts := make([]string, 0, len(a.Counts))
		for _, c := range a.Counts {
			parts = append(parts, fmt.Sprintf("%d to %s", c.Links, f.Nodes[c.Node].Name()))
		}
		out = append(out, "uneven uplinks: "+joinLimit(parts, 6))
	}
	return out
}

// Tree ranks the fabric's nodes into tiers and checks fat-tree symmetry.
func (g *Graph) Tree() Tree {
	f := g.f
	nn := len(f.Nodes)
	t := Tree{Tiers: make([]int, nn)}
	queue := make([]int32, 0, nn)
	for i := range f.Nodes {
		t.Tiers[i] = -1
		if f.Nodes[i].Type == CA {
			t.Tiers[i] = 0
			queue = append(queue, int32(i))
		}
	}
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for p := g.base[u] + 1; p < g.base[u+1]; p++ {
			q := g.peer[p]
			if q < 0 {
				continue
			}
			v := g.portNode[q]
			if t.Tiers[v] < 0 {
				t.Tiers[v] = t.Tiers[u] + 1
				queue = append(queue, v)
			}
		}
	}
	unreached := -1
	for _, n := range g.swNode {
		t.Levels = max(t.Levels, t.Tiers[n])
		if t.Tiers[n] < 0 && unreached < 0 {
			unreached = int(n)
		}
	}
	// Per switch: uplinks by upper neighbour, CA ports, lateral links.
	lateral := [2]int{-1, -1}
	up := make([][]UplinkCount, nn)
	for _, n := range g.swNode {
		tier := t.Tiers[n]
		down := 0
		for p := g.base[n] + 1; p < g.base[n+1]; p++ {
			q := g.peer[p]
			if q < 0 {
				continue
			}
			v := int(g.portNode[q])
			switch tv := t.Tiers[v]; {
			case f.Nodes[v].Type == CA:
				down++
			case tv == tier+1:
				up[n] = addUplink(up[n], v)
			case tv == tier && lateral[0] < 0 && tier >= 0:
				lateral = [2]int{int(n), v}
			}
		}
		if tier == 1 {
			nup := 0
			for _, c := range up[n] {
				nup += c.Links
			}
			t.Leaves = append(t.Leaves, LeafShape{Node: int(n), Down: down, Up: nup})
		}
	}
	switch {
	case len(g.swNode) == 0:
		t.Reason = "no switches"
	case unreached >= 0:
		t.Reason = fmt.Sprintf("switch %s is not connected to any CA", f.Nodes[unreached].Name())
	case t.Levels < 2:
		t.Reason = "a single tier of switches"
	case lateral[0] >= 0:
		t.Reason = fmt.Sprintf("link between switches of the same tier: %s and %s", f.Nodes[lateral[0]].Name(), f.Nodes[lateral[1]].Name())
	default:
		t.FatTree = true
	}
	if !t.FatTree {
		return t
	}
	for tier := 1; tier < t.Levels; tier++ {
		t.Asymmetric = append(t.Asymmetric, g.tierAsymmetry(t.Tiers, tier, up)...)
	}
	slices.SortFunc(t.Asymmetric, func(a, b Asymmetry) int { return cmp.Compare(a.Node, b.Node) })
	return t
}

func addUplink(list []UplinkCount, v int) []UplinkCount {
	for i := range list {
		if list[i].Node == v {
			list[i].Links++
			return list
		}
	}
	return append(list, UplinkCount{Node: v, Links: 1})
}

// tierAsymmetry checks the switches of one tier below the top: same number
// of uplinks as most of the tier, every upper switch of their group reached,
// equal link counts to each.
func (g *Graph) tierAsymmetry(tiers []int, tier int, up [][]UplinkCount) []Asymmetry {
	var members []int
	for _, n := range g.swNode {
		if tiers[n] == tier {
			members = append(members, int(n))
		}
	}
	total := func(n int) int {
		s := 0
		for _, c := range up[n] {
			s += c.Links
		}
		return s
	}
	freq := map[int]int{}
	for _, n := range members {
		freq[total(n)]++
	}
	mode, best := 0, -1
	for v, c := range freq {
		if c > best || (c == best && v > mode) {
			mode, best = v, c
		}
	}
	// Groups: switches of this tier joined when they share an upper
	// neighbour (a pod of leaves, or the aggregation switches of one core
	// group).
	parent := map[int]int{}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, n := range members {
		parent[n] = n
	}
	owner := map[int]int{} // upper switch → first member linked to it
	for _, n := range members {
		for _, c := range up[n] {
			if m, ok := owner[c.Node]; ok {
				a, b := find(m), find(n)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
			} else {
				owner[c.Node] = n
			}
		}
	}
	groupUppers := map[int]map[int]bool{}
	for _, n := range members {
		r := find(n)
		if groupUppers[r] == nil {
			groupUppers[r] = map[int]bool{}
		}
		for _, c := range up[n] {
			groupUppers[r][c.Node] = true
		}
	}
	var out []Asymmetry
	for _, n := range members {
		a := Asymmetry{Node: n, Tier: tier, Up: total(n), Expected: mode}
		have := map[int]bool{}
		lo, hi := -1, -1
		for _, c := range up[n] {
			have[c.Node] = true
			if lo < 0 || c.Links < lo {
				lo = c.Links
			}
			hi = max(hi, c.Links)
		}
		for u := range groupUppers[find(n)] {
			if !have[u] {
				a.Missing = append(a.Missing, u)
			}
		}
		slices.Sort(a.Missing)
		if lo != hi {
			a.Uneven = true
			a.Counts = slices.Clone(up[n])
			slices.SortFunc(a.Counts, func(x, y UplinkCount) int { return cmp.Compare(x.Node, y.Node) })
		}
		if a.Up != a.Expected || len(a.Missing) > 0 || a.Uneven {
			out = append(out, a)
		}
	}
	return out
}

// imbalances groups each switch's loaded links by the tier at their far end
// and reports groups whose busiest link exceeds the threshold.
func (g *Graph) imbalances(load []int64, tiers []int, o Options) []Imbalance {
	var out []Imbalance
	type grp struct {
		tier        int
		links       int
		sum         int64
		maxv, minv  int64
		hotp, coldp int
		seen        bool
	}
	var groups []grp
	for _, n := range g.swNode {
		groups = groups[:0]
		for p := g.base[n] + 1; p < g.base[n+1]; p++ {
			q := g.peer[p]
			if q < 0 {
				continue
			}
			v := g.portNode[q]
			if g.sw[v] < 0 {
				continue
			}
			tier := tiers[v]
			i := slices.IndexFunc(groups, func(x grp) bool { return x.tier == tier })
			if i < 0 {
				groups = append(groups, grp{tier: tier})
				i = len(groups) - 1
			}
			gr := &groups[i]
			l := load[p]
			port := int(p - g.base[n])
			gr.links++
			gr.sum += l
			if !gr.seen || l > gr.maxv {
				gr.maxv, gr.hotp = l, port
			}
			if !gr.seen || l < gr.minv {
				gr.minv, gr.coldp = l, port
			}
			gr.seen = true
		}
		for _, gr := range groups {
			if gr.links < 2 || gr.maxv < o.ImbalanceMinRoutes {
				continue
			}
			mean := float64(gr.sum) / float64(gr.links)
			if float64(gr.maxv) < o.ImbalanceRatio*mean {
				continue
			}
			out = append(out, Imbalance{
				Node: int(n), ToTier: gr.tier, Links: gr.links, Mean: mean,
				MaxRoutes: gr.maxv, MinRoutes: gr.minv, HotPort: gr.hotp, ColdPort: gr.coldp, TotalGroup: gr.sum,
			})
		}
	}
	slices.SortFunc(out, func(a, b Imbalance) int { return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.ToTier, b.ToTier)) })
	return out
}

func joinLimit(items []string, n int) string {
	s := ""
	for i, it := range items {
		if i == n {
			return s + fmt.Sprintf(" and %d more", len(items)-n)
		}
		if i > 0 {
			s += ", "
		}
		s += it
	}
	return s
}

// Describe summarises the shape for people: the kind, the switches per
// tier and the leaves' down:up port split (oversubscription), most common
// first, e.g. "fat-tree, 3 switch tiers (512, 256, 256 switches); leaves
// 32 down : 16 up (2.0:1) ×512".
func (t Tree) Describe(f *Subnet) string {
	perTier := map[int]int{}
	for i, tier := range t.Tiers {
		if f.Nodes[i].Type == Switch {
			perTier[tier]++
		}
	}
	kind := "not a fat-tree (" + t.Reason + ")"
	if t.FatTree {
		kind = "fat-tree"
	}
	counts := make([]string, 0, t.Levels)
	for tier := 1; tier <= t.Levels; tier++ {
		counts = append(counts, fmt.Sprint(perTier[tier]))
	}
	if len(counts) == 0 {
		return kind
	}
	s := fmt.Sprintf("%s, %d switch tier%s (%s switches)", kind, t.Levels, plural(t.Levels), joinLimit(counts, 8))
	type split struct{ down, up int }
	n := map[split]int{}
	var order []split
	for _, l := range t.Leaves {
		k := split{l.Down, l.Up}
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	slices.SortStableFunc(order, func(a, b split) int { return cmp.Compare(n[b], n[a]) })
	parts := make([]string, 0, len(order))
	for _, k := range order {
		ratio := "no uplinks"
		if k.up > 0 {
			ratio = fmt.Sprintf("%.1f:1", float64(k.down)/float64(k.up))
		}
		parts = append(parts, fmt.Sprintf("%d down : %d up (%s) ×%d", k.down, k.up, ratio, n[k]))
	}
	if len(parts) > 0 {
		s += "; leaves " + joinLimit(parts, 4)
	}
	return s
}
