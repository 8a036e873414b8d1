package pairwise

import (
	"fmt"
	"slices"
)

// Pair is one test between two hosts, by index into the host list: A runs
// the client side (it sends), B the server side (it receives).
type Pair struct {
	A int `json:"a"`
	B int `json:"b"`
}

// Schedule is a list of rounds; the pairs of one round are disjoint (no host
// appears twice) and run at the same time.
type Schedule struct {
	// Pattern names how the schedule was built (full, same-leaf,
	// cross-leaf, rail).
	Pattern string   `json:"pattern"`
	Rounds  [][]Pair `json:"rounds"`
}

// Pairs returns how many pairs the schedule tests in all.
func (s Schedule) Pairs() int {
	n := 0
	for _, r := range s.Rounds {
		n += len(r)
	}
	return n
}

// Validate checks that every index is below n, that no pair tests a host
// against itself and that no host appears twice in one round.
func (s Schedule) Validate(n int) error {
	seen := make([]int, n) // round+1 in which a host was last seen
	for ri, r := range s.Rounds {
		for _, p := range r {
			if p.A < 0 || p.A >= n || p.B < 0 || p.B >= n {
				return fmt.Errorf("round %d: pair %d-%d out of range (%d hosts)", ri+1, p.A, p.B, n)
			}
			if p.A == p.B {
				return fmt.Errorf("round %d: host %d paired with itself", ri+1, p.A)
			}
			for _, h := range [2]int{p.A, p.B} {
				if seen[h] == ri+1 {
					return fmt.Errorf("round %d: host %d appears twice", ri+1, h)
				}
				seen[h] = ri + 1
			}
		}
	}
	return nil
}

// RoundRobin covers every pair of n hosts exactly once with the circle
// method: host 0 stays put while the others rotate one place per round.
// An even n takes n−1 rounds of n/2 pairs; an odd n gets a phantom host, so
// it takes n rounds of (n−1)/2 pairs and each host sits out (a bye) once.
// Directions are balanced so that each host is client and server about as
// often (see sends).
func RoundRobin(n int) Schedule {
	s := Schedule{Pattern: "full"}
	if n < 2 {
		return s
	}
	m := n
	if m%2 == 1 {
		m++ // phantom host m-1 == n: pairing with it is a bye
	}
	// ring[i] is the host at position i; position 0 is fixed.
	ring := make([]int, m)
	for i := range ring {
		ring[i] = i
	}
	s.Rounds = make([][]Pair, 0, m-1)
	for r := 0; r < m-1; r++ {
		round := make([]Pair, 0, m/2)
		for i := 0; i < m/2; i++ {
			a, b := ring[i], ring[m-1-i]
			if a >= n || b >= n {
				continue // bye
			}
			if !sends(a, b, n) {
				a, b = b, a
			}
			round = append(round, Pair{A: a, B: b})
		}
		s.Rounds = append(s.Rounds, round)
		// Rotate positions 1..m-1 by one.
		last := ring[m-1]
		copy(ring[2:], ring[1:m-1])
		ring[1] = last
	}
	return s
}

// sends orients the pair a-b of n hosts so that every host sends in about
// half of its pairs: on an odd number k of hosts, a sends to b when b is 1
// to (k−1)/2 places after a (mod k), which gives each host exactly (k−1)/2
// sends; with an even n the last host is left out of that and receives from
// even-numbered hosts and sends to odd-numbered ones.
func sends(a, b, n int) bool {
	k := n
	if n%2 == 0 {
		k = n - 1
		if b == k {
			return a%2 == 0
		}
		if a == k {
			return b%2 == 1
		}
	}
	d := ((b-a)%k + k) % k
	return d >= 1 && d <= (k-1)/2
}

// SameLeaf tests every pair of hosts behind the same leaf switch: a round
// robin inside each leaf, the leaves' rounds run side by side. Hosts the
// topology does not place are left out.
func SameLeaf(hosts []string, t *Topology) Schedule {
	s := Schedule{Pattern: "same-leaf"}
	for _, group := range t.groups(hosts, func(p Placement) string { return p.Leaf }) {
		rr := RoundRobin(len(group))
		for ri, round := range rr.Rounds {
			if ri >= len(s.Rounds) {
				s.Rounds = append(s.Rounds, nil)
			}
			for _, p := range round {
				s.Rounds[ri] = append(s.Rounds[ri], Pair{A: group[p.A], B: group[p.B]})
			}
		}
	}
	return s
}

// CrossLeaf tests every pair of leaves (so the paths through the spines)
// without a full matrix: a round robin over the leaves, and in each round
// leaf X's i-th host is paired with leaf Y's i-th host, so a leaf pair is
// covered by as many host pairs as the smaller leaf has hosts.
func CrossLeaf(hosts []string, t *Topology) Schedule {
	s := Schedule{Pattern: "cross-leaf"}
	groups := t.groups(hosts, func(p Placement) string { return p.Leaf })
	for _, round := range RoundRobin(len(groups)).Rounds {
		var out []Pair
		for _, lp := range round {
			ga, gb := groups[lp.A], groups[lp.B]
			for i := 0; i < min(len(ga), len(gb)); i++ {
				out = append(out, Pair{A: ga[i], B: gb[i]})
			}
		}
		s.Rounds = append(s.Rounds, out)
	}
	return s
}

// PerRail tests one pair per rail in a single round: on each rail the first
// two hosts (in hosts-file order) that sit behind different leaves, or the
// first two hosts when the rail has one leaf.
func PerRail(hosts []string, t *Topology) Schedule {
	s := Schedule{Pattern: "rail"}
	var round []Pair
	for _, group := range t.groups(hosts, func(p Placement) string { return p.Rail }) {
		if len(group) < 2 {
			continue
		}
		a, b := group[0], group[1]
		leafA := t.place(hosts[a]).Leaf
		for _, h := range group[1:] {
			if t.place(hosts[h]).Leaf != leafA {
				b = h
				break
			}
		}
		round = append(round, Pair{A: a, B: b})
	}
	if len(round) > 0 {
		s.Rounds = [][]Pair{round}
	}
	return s
}

// groups returns host indices grouped by key (non-empty keys only), groups
// ordered by key, hosts in hosts-file order.
func (t *Topology) groups(hosts []string, key func(Placement) string) [][]int {
	byKey := map[string][]int{}
	var keys []string
	for i, h := range hosts {
		k := key(t.place(h))
		if k == "" {
			continue
		}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	slices.Sort(keys)
	out := make([][]int, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}
