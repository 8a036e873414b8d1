package job

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// Relief names the hosts whose removal clears a hot spot a degraded link
// causes: the slowest flows' bottleneck is a link below the fabric's rate
// or with errors, which no host order plans around while the hosts whose
// traffic the tables route over it are in the job.
type Relief struct {
	// Links are the degraded links (either direction of the cable) the
	// slowest flows are bottlenecked on, with why.
	Links []string `json:"links"`
	// Hosts are the hosts to leave out, in the job's order.
	Hosts []string `json:"hosts"`
	// Fraction is the prediction for the remaining hosts in the same
	// order.
	Fraction float64 `json:"fraction"`
}

// reliefBudget bounds the work of Relieve: candidate hosts × flows per
// step (each candidate costs one route walk of every flow and one
// Predict).
const reliefBudget = 4_000_000

// Relieve names the hosts whose removal clears the hot spot when a
// degraded link causes it. The cause: the links the slowest flows (those
// below a contention-free fabric) are bottlenecked on, where such a link is
// degraded (below the fabric's rate, or suspect in links); the cable
// counts in both directions. While flows still cross it, Relieve leaves
// out the host, among the ends of those flows, whose removal leaves the
// fewest flows on it (then the best predicted fraction, then the earliest
// in the order), re-predicting the remaining hosts in the same order each
// time, since removing a host hands its ring neighbours new partners with
// other routes. It returns nil when no degraded link is the cause, when
// clearing it takes more than half of the hosts or, for slow links, does
// not raise the prediction, or when the job is too large to search.
func Relieve(g *routing.Graph, hosts []Host, p Pattern, links Links) *Relief {
	if len(links) == 0 || len(hosts) < 3 {
		return nil
	}
	f := g.Subnet()
	idx := newLinkIndex(f)
	lr := idx.rates(links)
	if len(lr.degraded) == 0 {
		return nil // nothing degraded: no need to walk the routes again
	}
	cause := causes(g, idx, lr, hosts, p)
	if len(cause) == 0 {
		return nil
	}
	// crossing counts the flows over the cause links and their ends.
	crossing := func(hs []Host) (int, map[string]bool) {
		n, ends := 0, map[string]bool{}
		for _, fl := range Flows(hs, p) {
			r, err := g.Path(hs[fl.Src].Rails[fl.Rail].LID, hs[fl.Dst].Rails[fl.Rail].LID)
			if err != nil {
				continue
			}
			if slices.ContainsFunc(idx.route(r), func(l int32) bool { return cause[l] }) {
				n++
				ends[hs[fl.Src].Name], ends[hs[fl.Dst].Name] = true, true
			}
		}
		return n, ends
	}
	n, ends := crossing(hosts)
	rest := slices.Clone(hosts)
	var removed []string
	for n > 0 {
		if len(removed)+1 > len(hosts)/2 || len(rest) <= 2 {
			return nil
		}
		var cands []int
		for i, h := range rest {
			if ends[h.Name] {
				cands = append(cands, i)
			}
		}
		if len(cands)*len(Flows(rest, p)) > reliefBudget {
			return nil
		}
		best, bestN, bestF := -1, 0, 0.0
		var bestEnds map[string]bool
		for _, c := range cands {
			try := slices.Delete(slices.Clone(rest), c, c+1)
			cn, ce := crossing(try)
			fr := 0.0
			if r, err := Predict(g, try, p, links); err == nil {
				fr = r.Fraction
			}
			if best < 0 || cn < bestN || cn == bestN && fr > bestF+1e-9 {
				best, bestN, bestF, bestEnds = c, cn, fr, ce
			}
		}
		removed = append(removed, rest[best].Name)
		rest = slices.Delete(rest, best, best+1)
		n, ends = bestN, bestEnds
	}
	rel := &Relief{}
	for l := range cause {
		from := idx.ref(l)
		to, _ := g.Peer(from)
		rel.Links = append(rel.Links, fmt.Sprintf("%s → %s: %s", portName(f, from), portName(f, to), lr.degraded[l]))
	}
	slices.Sort(rel.Links)
	for _, h := range hosts {
		if slices.Contains(removed, h.Name) {
			rel.Hosts = append(rel.Hosts, h.Name)
		}
	}
	if r, err := Predict(g, rest, p, links); err == nil {
		rel.Fraction = r.Fraction
	}
	// A slow link's cost is in the prediction: leaving hosts out must pay
	// for itself. A link with errors runs at its rate in the model, so
	// clearing it is the gain.
	errs := false
	for l := range cause {
		errs = errs || lr.rate[l] >= lr.nominal
	}
	if given, err := Predict(g, hosts, p, links); !errs && (err != nil || rel.Fraction <= given.Fraction+1e-9) {
		return nil
	}
	return rel
}

// causes returns the degraded links (both directions of each cable) that
// bottleneck the slowest flows, when those flows get less than a
// contention-free fabric would give them. Among a flow's links of equal
// least share, a degraded one is the bottleneck.
func causes(g *routing.Graph, idx linkIndex, lr linkRates, hosts []Host, p Pattern) map[int32]bool {
	flows := Flows(hosts, p)
	routes := make([][]int32, len(flows))
	load := make([]int32, idx.size)
	for i, fl := range flows {
		r, err := g.Path(hosts[fl.Src].Rails[fl.Rail].LID, hosts[fl.Dst].Rails[fl.Rail].LID)
		if err != nil {
			continue
		}
		routes[i] = idx.route(r)
		for _, l := range routes[i] {
			load[l]++
		}
	}
	type slow struct {
		frac       float64
		bottleneck int32
	}
	var all []slow
	least := 1.0
	for _, ls := range routes {
		if len(ls) == 0 {
			continue
		}
		share, b := lr.share(ls[0], load), ls[0]
		for _, l := range ls[1:] {
			s := lr.share(l, load)
			_, bad := lr.degraded[l]
			_, badB := lr.degraded[b]
			if s < share-1e-12 || s <= share+1e-12 && bad && !badB {
				share, b = s, l
			}
		}
		first, last := ls[0], ls[len(ls)-1]
		ideal := min(max(lr.rate[first], lr.nominal)/float64(load[first]), max(lr.rate[last], lr.nominal)/float64(load[last]))
		frac := min(share/ideal, 1)
		all = append(all, slow{frac, b})
		least = min(least, frac)
	}
	if least >= 1-1e-9 {
		return nil
	}
	out := map[int32]bool{}
	for _, s := range all {
		if s.frac > least+1e-9 {
			continue
		}
		if _, bad := lr.degraded[s.bottleneck]; !bad {
			continue
		}
		out[s.bottleneck] = true
		from := idx.ref(s.bottleneck)
		if to, ok := g.Peer(from); ok {
			out[idx.base[to.Node]+int32(to.Port)] = true
		}
	}
	return out
}

// String is the relief in one line, for reports.
func (r *Relief) String() string {
	return fmt.Sprintf("leave out %s: then no flow crosses %s; the remaining hosts are predicted at %.0f%%",
		strings.Join(r.Hosts, " "), strings.Join(r.Links, "; "), 100*r.Fraction)
}
