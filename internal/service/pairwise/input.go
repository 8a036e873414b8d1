package pairwise

import pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"

// Input is what the culprit rules (internal/rules/pairwise) read of m: the
// hosts, whether the test measured latency, every pair's result or error,
// and each host's leaf and spine from t (nil: no topology).
func (m *Matrix) Input(t *Topology) *pairwiserules.Input {
	in := &pairwiserules.Input{Hosts: m.Hosts, Latency: m.Test.Kind == KindLat, Pairs: make([]pairwiserules.Pair, len(m.Pairs))}
	for i, p := range m.Pairs {
		in.Pairs[i] = pairwiserules.Pair{A: p.A, B: p.B, Round: p.Round, Error: p.Error}
		if p.Result != nil {
			in.Pairs[i].Result = &pairwiserules.Result{BitsPerSecond: p.Result.BitsPerSecond, LatencyMedianUS: p.Result.LatencyMedianUS}
		}
	}
	if t != nil {
		in.Placement = make(map[string]pairwiserules.Placement, len(t.Hosts))
		for h, p := range t.Hosts {
			in.Placement[h] = pairwiserules.Placement{Leaf: p.Leaf, Spine: p.Spine}
		}
	}
	return in
}
