package pairwise

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// DefaultSlowFraction is the share of the reference below which a pair
// counts as slow.
const DefaultSlowFraction = limits.PairSlowFraction

// Input is a pairwise test matrix as the rules read it.
type Input struct {
	// Hosts are the tested nodes, in the order reports list them.
	Hosts []string
	// Latency says the tests measured latency (lower is better), not
	// bandwidth.
	Latency bool
	Pairs   []Pair
	// Placement maps hosts to their leaf and spine switches; nil without a
	// topology, and a host it lacks has no placement.
	Placement map[string]Placement
}

// Pair is one test between two hosts: A sent (client side), B received
// (server side).
type Pair struct {
	A, B  string
	Round int
	// Result is nil when the test failed; Error then says why.
	Result *Result
	Error  string
}

// Result is what one test measured.
type Result struct {
	// BitsPerSecond is the bandwidth of a bandwidth test.
	BitsPerSecond float64
	// LatencyMedianUS is the median latency of a latency test.
	LatencyMedianUS float64
}

// Placement is where one host sits in the fabric.
type Placement struct {
	// Leaf is the leaf (top-of-rack) switch of the host's tested port.
	Leaf string
	// Spine is the spine switch or spine group the leaf's uplinks go to.
	Spine string
}

// Options tune culprit inference.
type Options struct {
	// SlowFraction: a pair is slow below this fraction of the reference
	// bandwidth, or above reference/fraction latency (0: 0.8).
	SlowFraction float64
	// Reference overrides the measured reference: bits per second for
	// bandwidth tests, microseconds for latency tests (0: measured).
	Reference float64
}

// place returns the placement of a host; none without a topology.
func (in *Input) place(host string) Placement { return in.Placement[host] }

// leaves says whether any host has a leaf.
func (in *Input) leaves() bool {
	for _, p := range in.Placement {
		if p.Leaf != "" {
			return true
		}
	}
	return false
}

// pairScore is one measured pair with a score where higher is better.
type pairScore struct {
	idx    int // into Input.Pairs
	a, b   string
	pa, pb Placement
	score  float64
	slow   bool
}

// Check turns a matrix into findings, pure function of its input:
//
//   - the reference is the median over nodes of each node's best pair (so a
//     few bad nodes do not drag it down, as a median of all pairs would
//     when one node of three is bad), unless Options.Reference is set;
//   - with a topology: a spine or leaf through which every pair is slow is
//     perf.switch_slow; a leaf whose cross-leaf pairs are all slow while its
//     own are fine is perf.link_slow (its uplinks);
//   - a node slow with every partner (at least two) is perf.node_slow;
//   - any slow pair left unexplained is perf.pair_slow;
//   - failed tests are perf.pair_failed, or perf.node_failed when every
//     test of a node (at least two) failed.
func Check(m *Input, opts Options) []finding.Finding {
	frac := opts.SlowFraction
	if frac <= 0 || frac >= 1 {
		frac = DefaultSlowFraction
	}
	lat := m.Latency
	var out []finding.Finding
	out = append(out, failures(m)...)

	ps := make([]pairScore, 0, len(m.Pairs))
	for i, p := range m.Pairs {
		if p.Result != nil {
			ps = append(ps, pairScore{idx: i, a: p.A, b: p.B, pa: m.place(p.A), pb: m.place(p.B), score: score(m, p.Result)})
		}
	}
	ref := refScore(m, opts.Reference)
	refSource := "pairwise reference (median over nodes of each node's best pair)"
	if opts.Reference > 0 {
		refSource = "pairwise reference (given)"
	}
	if ref <= 0 {
		catalog.Sort(out)
		return out
	}
	for i := range ps {
		ps[i].slow = ps[i].score < frac*ref
	}
	f := &inferrer{m: m, ps: ps, explained: make([]bool, len(m.Pairs)), lat: lat,
		refEv: finding.Evidence{Source: refSource, Value: slowLine(ref, frac, lat)}}
	out = append(out, f.switches()...)
	out = append(out, f.nodes()...)
	out = append(out, f.pairs()...)
	catalog.Sort(out)
	return out
}

// score rates a result, higher is better: bits per second, or the inverse
// of the median latency.
func score(m *Input, r *Result) float64 {
	if m.Latency {
		if r.LatencyMedianUS <= 0 {
			return 0
		}
		return 1 / r.LatencyMedianUS
	}
	return r.BitsPerSecond
}

// refScore is the reference score: the given reference (bits per second,
// or µs for latency tests) or the median over nodes of each node's best
// pair; 0 when there are fewer than two measured nodes.
func refScore(m *Input, given float64) float64 {
	if given > 0 {
		if m.Latency {
			return 1 / given
		}
		return given
	}
	best := map[string]float64{}
	for _, p := range m.Pairs {
		if p.Result == nil {
			continue
		}
		s := score(m, p.Result)
		best[p.A], best[p.B] = max(best[p.A], s), max(best[p.B], s)
	}
	if len(best) < 2 {
		return 0
	}
	v := make([]float64, 0, len(best))
	for _, b := range best {
		v = append(v, b)
	}
	return median(v)
}

// Reference is the reference Check judges against, in the test's unit:
// bits per second, or microseconds for latency tests. given overrides the
// measured one as Options.Reference does; 0 when there are fewer than two
// measured nodes.
func Reference(m *Input, given float64) float64 {
	ref := refScore(m, given)
	switch {
	case ref <= 0:
		return 0
	case m.Latency:
		return 1 / ref
	}
	return ref
}

type inferrer struct {
	m         *Input
	ps        []pairScore // all measured pairs; selections point into it
	explained []bool      // by index into Input.Pairs
	lat       bool
	refEv     finding.Evidence
}

func (f *inferrer) evidence(sel []*pairScore) []finding.Evidence {
	ev := []finding.Evidence{f.refEv}
	for _, p := range sel {
		ev = append(ev, finding.Evidence{
			Source: fmt.Sprintf("pairwise round %d: %s → %s", f.m.Pairs[p.idx].Round, p.a, p.b),
			Value:  formatScore(p.score, f.lat),
		})
	}
	return ev
}

func allSlow(sel []*pairScore) bool {
	for _, p := range sel {
		if !p.slow {
			return false
		}
	}
	return len(sel) > 0
}

func anyFast(ps []pairScore) bool {
	for _, p := range ps {
		if !p.slow {
			return true
		}
	}
	return false
}

// switches finds spines and leaves every pair through which is slow.
func (f *inferrer) switches() []finding.Finding {
	if !f.m.leaves() || !anyFast(f.ps) {
		return nil
	}
	place := f.m.place
	var out []finding.Finding
	// Spines: the cross-leaf pairs with an end under the spine, spanning at
	// least two of its leaves (one leaf alone is that leaf's uplinks).
	spines := map[string]bool{}
	for _, p := range f.m.Placement {
		if p.Spine != "" {
			spines[p.Spine] = true
		}
	}
	for _, s := range sortedKeys(spines) {
		var sel []*pairScore
		leaves := map[string]bool{}
		for i := range f.ps {
			p := &f.ps[i]
			pa, pb := p.pa, p.pb
			if pa.Leaf == "" || pb.Leaf == "" || pa.Leaf == pb.Leaf || (pa.Spine != s && pb.Spine != s) {
				continue
			}
			sel = append(sel, p)
			for _, q := range []Placement{pa, pb} {
				if q.Spine == s {
					leaves[q.Leaf] = true
				}
			}
		}
		if len(sel) >= 2 && len(leaves) >= 2 && allSlow(sel) {
			f.explain(sel)
			out = append(out, catalog.New("perf.switch_slow", finding.Subject{NodeDesc: s},
				fmt.Sprintf("every one of the %d cross-leaf pairs through spine %s (leaves %s) is slow", len(sel), s, strings.Join(sortedKeys(leaves), ", ")),
				f.evidence(sel)...))
		}
	}
	leaves := map[string]bool{}
	for _, p := range f.m.Placement {
		if p.Leaf != "" {
			leaves[p.Leaf] = true
		}
	}
	for _, l := range sortedKeys(leaves) {
		var inside, cross []*pairScore
		hosts := map[string]bool{}
		for i := range f.ps {
			p := &f.ps[i]
			la, lb := p.pa.Leaf, p.pb.Leaf
			switch {
			case la == l && lb == l:
				inside = append(inside, p)
			case la == l && lb != "" || lb == l && la != "":
				cross = append(cross, p)
			default:
				continue
			}
			if la == l {
				hosts[p.a] = true
			}
			if lb == l {
				hosts[p.b] = true
			}
		}
		if len(hosts) < 2 || len(cross) < 2 || !allSlow(cross) || f.allExplained(cross) {
			continue
		}
		spine := ""
		for _, h := range sortedKeys(hosts) {
			spine = cmp.Or(spine, place(h).Spine)
		}
		switch {
		case len(inside) > 0 && allSlow(inside):
			sel := append(slices.Clone(inside), cross...)
			f.explain(sel)
			out = append(out, catalog.New("perf.switch_slow", finding.Subject{NodeDesc: l},
				fmt.Sprintf("every pair through leaf %s is slow, inside the leaf (%d) and across leaves (%d)", l, len(inside), len(cross)),
				f.evidence(sel)...))
		case len(inside) == 0 || !anySlow(inside):
			f.explain(cross)
			subj := finding.Subject{NodeDesc: l}
			if spine != "" {
				subj.Peer = &finding.Subject{NodeDesc: spine}
			}
			what := "pairs inside the leaf are fine"
			if len(inside) == 0 {
				what = "no pair inside the leaf was tested, so the leaf switch itself is not ruled out"
			}
			out = append(out, catalog.New("perf.link_slow", subj,
				fmt.Sprintf("all %d cross-leaf pairs from leaf %s are slow while %s: its uplinks are the suspect", len(cross), l, what),
				f.evidence(cross)...))
		}
	}
	return out
}

func anySlow(ps []*pairScore) bool {
	for _, p := range ps {
		if p.slow {
			return true
		}
	}
	return false
}

func (f *inferrer) explain(sel []*pairScore) {
	for _, p := range sel {
		f.explained[p.idx] = true
	}
}

func (f *inferrer) allExplained(sel []*pairScore) bool {
	for _, p := range sel {
		if !f.explained[p.idx] {
			return false
		}
	}
	return true
}

// nodes finds nodes slow with every partner.
func (f *inferrer) nodes() []finding.Finding {
	if !anyFast(f.ps) {
		// Everything slow against a given reference: no node stands out.
		return nil
	}
	byNode := map[string][]*pairScore{}
	for i := range f.ps {
		p := &f.ps[i]
		byNode[p.a] = append(byNode[p.a], p)
		byNode[p.b] = append(byNode[p.b], p)
	}
	var out []finding.Finding
	var sel [][]*pairScore
	for _, n := range f.m.Hosts {
		ps := byNode[n]
		partners := map[string]bool{}
		for _, p := range ps {
			partners[p.a], partners[p.b] = true, true
		}
		delete(partners, n)
		if len(partners) < 2 || !allSlow(ps) || f.allExplained(ps) {
			continue // fewer than two partners: cannot tell node from pair
		}
		var vals []float64
		for _, p := range ps {
			vals = append(vals, p.score)
		}
		out = append(out, catalog.New("perf.node_slow", finding.Subject{Host: n},
			fmt.Sprintf("%s is slow with all %d partners (median %s)", n, len(ps), formatScore(median(vals), f.lat)),
			f.evidence(ps)...))
		sel = append(sel, ps)
	}
	for _, s := range sel {
		f.explain(s)
	}
	return out
}

// pairs reports slow pairs nothing else explains.
func (f *inferrer) pairs() []finding.Finding {
	fast := map[string]bool{}
	for _, p := range f.ps {
		if !p.slow {
			fast[p.a], fast[p.b] = true, true
		}
	}
	var out []finding.Finding
	for i := range f.ps {
		p := &f.ps[i]
		if !p.slow || f.explained[p.idx] {
			continue
		}
		why := "while both nodes do well with other partners"
		switch {
		case !fast[p.a] && !fast[p.b]:
			why = "and neither node did better with another partner"
		case !fast[p.a] || !fast[p.b]:
			why = "while one of the nodes does well with other partners"
		}
		out = append(out, catalog.New("perf.pair_slow", finding.Subject{Host: p.a, Peer: &finding.Subject{Host: p.b}},
			fmt.Sprintf("%s → %s is slow (%s) %s", p.a, p.b, formatScore(p.score, f.lat), why),
			f.evidence([]*pairScore{p})...))
	}
	return out
}

// failures reports failed tests: per node when all of a node's tests (two
// partners or more) failed, else per pair.
func failures(m *Input) []finding.Finding {
	type stat struct{ ok, failed int }
	st := map[string]*stat{}
	for _, p := range m.Pairs {
		for _, n := range []string{p.A, p.B} {
			if st[n] == nil {
				st[n] = &stat{}
			}
			if p.Result == nil {
				st[n].failed++
			} else {
				st[n].ok++
			}
		}
	}
	dead := map[string]bool{}
	var out []finding.Finding
	for _, n := range m.Hosts {
		if s := st[n]; s != nil && s.ok == 0 && s.failed >= 2 {
			dead[n] = true
			var ev []finding.Evidence
			for _, p := range m.Pairs {
				if p.Result == nil && (p.A == n || p.B == n) {
					ev = append(ev, finding.Evidence{Source: fmt.Sprintf("pairwise round %d: %s → %s", p.Round, p.A, p.B), Value: p.Error})
				}
			}
			out = append(out, catalog.New("perf.node_failed", finding.Subject{Host: n},
				fmt.Sprintf("all %d tests with %s failed", s.failed, n), ev...))
		}
	}
	for _, p := range m.Pairs {
		if p.Result != nil || dead[p.A] || dead[p.B] {
			continue
		}
		out = append(out, catalog.New("perf.pair_failed", finding.Subject{Host: p.A, Peer: &finding.Subject{Host: p.B}},
			fmt.Sprintf("the test %s → %s failed", p.A, p.B),
			finding.Evidence{Source: fmt.Sprintf("pairwise round %d: %s → %s", p.Round, p.A, p.B), Value: p.Error}))
	}
	return out
}

// slowLine states the reference and the line below (above, for latency)
// which a pair is slow.
func slowLine(ref, frac float64, lat bool) string {
	if lat {
		return fmt.Sprintf("%s; slow above %s (reference / %.2f)", formatScore(ref, lat), formatScore(frac*ref, lat), frac)
	}
	return fmt.Sprintf("%s; slow below %.0f%% of it: %s", formatScore(ref, lat), frac*100, formatScore(frac*ref, lat))
}

// formatScore prints a score in the test's unit.
func formatScore(s float64, lat bool) string {
	if lat {
		if s <= 0 {
			return "no latency"
		}
		return fmt.Sprintf("%.1f µs", 1/s)
	}
	return fmt.Sprintf("%.2f Gb/s", s/1e9)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
