// Package job predicts where one job's collectives collide on an InfiniBand
// fabric's static routes: it builds the flows of a communication pattern in
// the order NCCL would over the job's hosts (a ring per rail in host order,
// a binary tree, all-to-all, or disjoint pairs), follows each flow hop by
// hop through the switches' linear forwarding tables, counts the flows on
// every link and direction, and from the most loaded link of each flow
// predicts the share of the line rate it gets. The slowest flow bounds a
// synchronous collective, so the predicted busbw fraction against a
// contention-free fabric is the smallest flow's share divided by what its
// own host links alone would allow.
//
// It also proposes a host order for the same hosts that keeps ring
// neighbours under one leaf switch, and measures the effective bisection
// bandwidth of the whole fabric (random pairings of the CA ports).
//
// Everything here is a pure function of the routing model
// (internal/rules/routing): no I/O.
package job

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// Pattern is a communication pattern.
type Pattern string

// The patterns.
const (
	// Ring: host i sends to host i+1 (mod n), one ring per rail, as an
	// NCCL ring channel does between nodes.
	Ring Pattern = "ring"
	// Tree: a binary tree over the hosts in order, both directions
	// (reduce up, broadcast down).
	Tree Pattern = "tree"
	// AllToAll: every host sends to every other host on every rail.
	AllToAll Pattern = "alltoall"
	// Pairs: hosts 0↔1, 2↔3, …, both directions (pairwise bandwidth tests).
	Pairs Pattern = "pairs"
)

// ParsePattern accepts the pattern names.
func ParsePattern(s string) (Pattern, error) {
	switch p := Pattern(strings.ToLower(s)); p {
	case Ring, Tree, AllToAll, Pairs:
		return p, nil
	}
	return "", fmt.Errorf("pattern %q: want ring, tree, alltoall or pairs", s)
}

// Rail is one HCA port of a host: the CA's node index in the routing
// fabric, the port and its LID.
type Rail struct {
	Node int    `json:"-"`
	Port int    `json:"port"`
	LID  uint16 `json:"lid"`
	Name string `json:"ca"`
}

// Host is one host of the job with its rails in rail order (rail r of every
// host forms ring r, as NCCL pairs the NIC nearest each GPU).
type Host struct {
	Name  string `json:"host"`
	Rails []Rail `json:"rails"`
}

// Flow is one sender→receiver stream on one rail.
type Flow struct {
	Src, Dst int // host indexes
	Rail     int
}

// LinkLoad is a link with the flows that cross it in its direction.
type LinkLoad struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Flows int    `json:"flows"`
	// Share is what each of its flows gets of the fabric's rate: the
	// link's rate over its flows, over the fabric's rate.
	Share float64 `json:"share"`
	// Gbps is the link's rate, when the rates are known.
	Gbps float64 `json:"gbps,omitempty"`
	// Degraded says why the link is suspect, when it is.
	Degraded string `json:"degraded,omitempty"`
	// Hosts are the hosts whose flows cross it, sorted (at most 16).
	Hosts []string `json:"hosts,omitempty"`
}

// Result is the prediction for one pattern over one host order.
type Result struct {
	Pattern Pattern  `json:"pattern"`
	Hosts   []string `json:"hosts"`
	Rails   int      `json:"rails"`
	Flows   int      `json:"flows"`
	// Fraction is the predicted busbw fraction against a contention-free
	// fabric: the smallest flow's share over what its host links allow.
	Fraction float64 `json:"fraction"`
	// MeanFraction is the mean over flows of the same ratio.
	MeanFraction float64 `json:"mean_fraction"`
	// MaxLoad is the most flows on one fabric link (host links excluded).
	MaxLoad int `json:"max_load"`
	// Slowest names the slowest flow and its bottleneck link.
	Slowest string `json:"slowest,omitempty"`
	// Hot are the links whose flows get less than the fabric's rate (more
	// than one flow, or a link below the fabric's rate) and the degraded
	// links the flows cross, the smallest share first (at most 20).
	Hot []LinkLoad `json:"hot"`
	// Broken are flows whose route breaks in the tables.
	Broken []string `json:"broken,omitempty"`
	// Relief names the hosts whose removal takes every flow off the
	// degraded links, when flows cross one (see Relieve).
	Relief *Relief `json:"relief,omitempty"`
}

// ErrNoFlows is returned when the pattern has nothing to send (fewer than
// two hosts with a rail).
var ErrNoFlows = errors.New("no flows: the pattern needs at least two hosts with an HCA port")

// Flows builds the flows of p over the hosts in order.
func Flows(hosts []Host, p Pattern) []Flow {
	rails := 0
	for _, h := range hosts {
		rails = max(rails, len(h.Rails))
	}
	var out []Flow
	for r := 0; r < rails; r++ {
		var on []int // hosts that have rail r, in order
		for i, h := range hosts {
			if r < len(h.Rails) {
				on = append(on, i)
			}
		}
		n := len(on)
		if n < 2 {
			continue
		}
		add := func(a, b int) { out = append(out, Flow{Src: on[a], Dst: on[b], Rail: r}) }
		switch p {
		case Ring:
			for i := range n {
				if n == 2 && i == 1 {
					add(1, 0)
					break
				}
				add(i, (i+1)%n)
			}
		case Tree:
			for i := 1; i < n; i++ {
				parent := (i - 1) / 2
				add(i, parent)
				add(parent, i)
			}
		case AllToAll:
			for i := range n {
				for j := range n {
					if i != j {
						add(i, j)
					}
				}
			}
		case Pairs:
			for i := 0; i+1 < n; i += 2 {
				add(i, i+1)
				add(i+1, i)
			}
		}
	}
	return out
}

// LinkInfo is what a prediction knows of one cable besides its ends.
type LinkInfo struct {
	// Gbps is the link's data rate (width × lane speed); 0 when unknown,
	// taken to run at the fabric's rate.
	Gbps float64
	// Degraded says why the link is suspect (narrower or slower than
	// expected, error counters); empty for a sound link.
	Degraded string
}

// Links holds the cables' rates and states by the port at either end. Nil
// takes every link to run at one rate, none degraded.
type Links map[routing.PortRef]LinkInfo

// Predict follows every flow of p through the forwarding tables and
// predicts the collective's share of a contention-free fabric. Each link
// runs at its own rate from links (the fabric's rate, the most common one,
// where unknown), so a 1X or SDR link is a bottleneck even for one flow; a
// flow gets the least, over the links of its route, of the link's rate
// over the flows on it. Its ideal is what its host links would give it at
// the fabric's rate (or their own, when faster).
func Predict(g *routing.Graph, hosts []Host, p Pattern, links Links) (*Result, error) {
	flows := Flows(hosts, p)
	if len(flows) == 0 {
		return nil, ErrNoFlows
	}
	res := &Result{Pattern: p, Flows: len(flows), Hot: []LinkLoad{}}
	for _, h := range hosts {
		res.Hosts = append(res.Hosts, h.Name)
		res.Rails = max(res.Rails, len(h.Rails))
	}
	f := g.Subnet()
	idx := newLinkIndex(f)
	lr := idx.rates(links)
	routes := make([][]int32, len(flows))
	load := make([]int32, idx.size)
	users := map[int32][]int{}
	for i, fl := range flows {
		src, dst := hosts[fl.Src].Rails[fl.Rail], hosts[fl.Dst].Rails[fl.Rail]
		r, err := g.Path(src.LID, dst.LID)
		if err != nil {
			res.Broken = append(res.Broken, fmt.Sprintf("%s → %s (rail %d): %v", hosts[fl.Src].Name, hosts[fl.Dst].Name, fl.Rail, err))
			continue
		}
		routes[i] = idx.route(r)
		for _, l := range routes[i] {
			load[l]++
			if len(users[l]) < 64 {
				users[l] = append(users[l], fl.Src)
			}
		}
	}
	// ends names a link by the port it leaves and the port it arrives at.
	ends := func(l int32) (from, to routing.PortRef) {
		from = idx.ref(l)
		to, _ = g.Peer(from)
		return from, to
	}
	isCA := func(r routing.PortRef) bool { return f.Nodes[r.Node].Type == routing.CA }
	counted := 0
	for i, ls := range routes {
		if len(ls) == 0 {
			continue
		}
		share, bottleneck := lr.share(ls[0], load), ls[0]
		for _, l := range ls[1:] {
			if s := lr.share(l, load); s < share {
				share, bottleneck = s, l
			}
		}
		// What the flow's own host links allow: a contention-free fabric
		// still shares them among the flows a host sends or receives.
		first, last := ls[0], ls[len(ls)-1]
		ideal := min(max(lr.rate[first], lr.nominal)/float64(load[first]), max(lr.rate[last], lr.nominal)/float64(load[last]))
		frac := min(share/ideal, 1)
		res.MeanFraction += frac
		counted++
		if counted == 1 || frac < res.Fraction {
			fl := flows[i]
			from, to := ends(bottleneck)
			res.Fraction = frac
			res.Slowest = fmt.Sprintf("%s → %s (rail %d): %d flow(s) on %s → %s", hosts[fl.Src].Name, hosts[fl.Dst].Name, fl.Rail,
				load[bottleneck], portName(f, from), portName(f, to))
			if why := lr.degraded[bottleneck]; why != "" {
				res.Slowest += " (" + why + ")"
			}
		}
	}
	if counted == 0 {
		return nil, fmt.Errorf("every route breaks: %s", res.Broken[0])
	}
	res.MeanFraction /= float64(counted)
	for l, n := range load {
		if n == 0 {
			continue
		}
		from, to := ends(int32(l))
		host := isCA(from) || isCA(to)
		if !host {
			res.MaxLoad = max(res.MaxLoad, int(n))
		}
		why := lr.degraded[int32(l)]
		// Host links are what the ideal is measured against: listed only
		// when they are degraded (below the fabric's rate, or suspect).
		if why == "" && (host || n < 2) {
			continue
		}
		ll := LinkLoad{From: portName(f, from), To: portName(f, to), Flows: int(n), Share: lr.share(int32(l), load) / lr.nominal, Degraded: why}
		if links != nil {
			ll.Gbps = lr.rate[l]
		}
		for _, h := range users[int32(l)] {
			ll.Hosts = append(ll.Hosts, hosts[h].Name)
		}
		slices.Sort(ll.Hosts)
		ll.Hosts = slices.Compact(ll.Hosts)
		if len(ll.Hosts) > 16 {
			ll.Hosts = ll.Hosts[:16]
		}
		res.Hot = append(res.Hot, ll)
	}
	slices.SortFunc(res.Hot, func(a, b LinkLoad) int {
		return cmp.Or(cmp.Compare(a.Share, b.Share), cmp.Compare(b.Flows, a.Flows), cmp.Compare(a.From, b.From))
	})
	if len(res.Hot) > 20 {
		res.Hot = res.Hot[:20]
	}
	return res, nil
}

// gbps formats a rate without trailing zeros.
func gbps(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func portName(f *routing.Subnet, r routing.PortRef) string {
	return fmt.Sprintf("%s[%d]", f.Nodes[r.Node].Name(), r.Port)
}

// Leaf returns the switch a host's first rail is cabled to, -1 when it is
// not cabled.
func Leaf(g *routing.Graph, h Host) int {
	if len(h.Rails) == 0 {
		return -1
	}
	p, ok := g.Peer(routing.PortRef{Node: h.Rails[0].Node, Port: h.Rails[0].Port})
	if !ok {
		return -1
	}
	return p.Node
}

// Propose returns a host order for the same hosts that keeps ring
// neighbours under one leaf: the hosts grouped by the leaf switch of their
// first rail, the leaves in the order their first host appears, the hosts
// of a leaf in their given order. Only the flows at leaf boundaries then
// cross the spines. Where the hosts are few enough (at most maxSearch) it
// also tries rotating each leaf's hosts, which moves the boundary flows to
// other destination LIDs and so, under static routing, to other uplinks,
// and keeps the rotation that predicts best.
func Propose(g *routing.Graph, hosts []Host, p Pattern, links Links) []int {
	var leaves []int
	groups := map[int][]int{}
	for i, h := range hosts {
		l := Leaf(g, h)
		if _, ok := groups[l]; !ok {
			leaves = append(leaves, l)
		}
		groups[l] = append(groups[l], i)
	}
	order := func() []int {
		var out []int
		for _, l := range leaves {
			out = append(out, groups[l]...)
		}
		return out
	}
	if len(hosts) > maxSearch || p == AllToAll {
		return order()
	}
	score := func(o []int) float64 {
		r, err := Predict(g, Reorder(hosts, o), p, links)
		if err != nil {
			return 0
		}
		return r.Fraction + r.MeanFraction/1e3
	}
	bestScore := score(order())
	for _, l := range leaves {
		gr := groups[l]
		bestK := 0
		for k := 1; k < len(gr); k++ {
			groups[l] = append(slices.Clone(gr[k:]), gr[:k]...)
			if s := score(order()); s > bestScore+1e-9 {
				bestScore, bestK = s, k
			}
		}
		groups[l] = append(slices.Clone(gr[bestK:]), gr[:bestK]...)
	}
	return order()
}

// maxSearch bounds the hosts for which Propose tries rotations (each try
// is one Predict).
const maxSearch = 256

// Reorder returns hosts in the order of idx.
func Reorder(hosts []Host, idx []int) []Host {
	out := make([]Host, len(idx))
	for i, j := range idx {
		out[i] = hosts[j]
	}
	return out
}
