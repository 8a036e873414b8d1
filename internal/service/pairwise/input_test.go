package pairwise

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"
)

// fullMatrix measures every pair of a round robin of hosts with val(a, b)
// in Gb/s (µs for latency); a negative value is a failed test.
func fullMatrix(hosts []string, kind string, val func(a, b string) float64) *Matrix {
	m := &Matrix{Hosts: hosts, Test: Test{Backend: BackendTCP, Kind: kind}}
	for ri, r := range RoundRobin(len(hosts)).Rounds {
		for _, p := range r {
			a, b := hosts[p.A], hosts[p.B]
			pr := PairResult{A: a, B: b, Round: ri + 1}
			switch v := val(a, b); {
			case v < 0:
				pr.Error = "connection refused"
			case kind == KindLat:
				pr.Result = &Result{LatencyMedianUS: v}
			default:
				pr.Result = &Result{BitsPerSecond: v * 1e9}
			}
			m.Pairs = append(m.Pairs, pr)
		}
	}
	return m
}

// slowIf returns a bw function: about 100 Gb/s, or the given value for
// pairs matching the predicate.
func slowIf(pred func(a, b string) bool, slow float64) func(a, b string) float64 {
	return func(a, b string) float64 {
		if pred(a, b) {
			return slow
		}
		// Small spread so medians are not degenerate.
		return 95 + float64(len(a)+len(b))
	}
}

func has(n string) func(a, b string) bool {
	return func(a, b string) bool { return a == n || b == n }
}

type got struct {
	ID      string
	Subject string
}

func summarize(fs []finding.Finding) []got {
	var out []got
	for _, f := range fs {
		s := f.Subject.Host + f.Subject.NodeDesc
		if f.Subject.Peer != nil {
			s += "/" + f.Subject.Peer.Host + f.Subject.Peer.NodeDesc
		}
		out = append(out, got{f.ID, s})
	}
	return out
}

// Input hands the rules every pair in order, failed ones with their error,
// the kind of test, and the leaf and spine of placed hosts (not the rail,
// which the rules do not use).
func TestInput(t *testing.T) {
	m := &Matrix{Hosts: []string{"a", "b", "c"}, Test: Test{Backend: BackendTCP, Kind: KindLat}, Pairs: []PairResult{
		{A: "a", B: "b", Round: 1, Result: &Result{LatencyMedianUS: 2.5, LatencyP99US: 9, Samples: 100}, Runs: 3},
		{A: "c", B: "a", Round: 2, Error: "connection refused"},
	}}
	topo := &Topology{Hosts: map[string]Placement{"a": {Leaf: "L1", Rail: "0", Spine: "S"}, "b": {Leaf: "L2"}}}
	want := &pairwiserules.Input{Hosts: []string{"a", "b", "c"}, Latency: true, Pairs: []pairwiserules.Pair{
		{A: "a", B: "b", Round: 1, Result: &pairwiserules.Result{LatencyMedianUS: 2.5}},
		{A: "c", B: "a", Round: 2, Error: "connection refused"},
	}, Placement: map[string]pairwiserules.Placement{"a": {Leaf: "L1", Spine: "S"}, "b": {Leaf: "L2"}}}
	if d := cmp.Diff(want, m.Input(topo)); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	m.Test.Kind = KindBW
	m.Pairs[0].Result = &Result{BitsPerSecond: 4e10, Bytes: 5}
	in := m.Input(nil)
	if in.Latency || in.Placement != nil || in.Pairs[0].Result.BitsPerSecond != 4e10 {
		t.Errorf("bandwidth matrix without topology: %+v", in)
	}
}

// A round-robin matrix through Input and the rules: the findings name the
// pairs in the direction the schedule ran them.
func TestCulprits(t *testing.T) {
	four := []string{"n1", "n2", "n3", "n4"}
	tests := []struct {
		name string
		m    *Matrix
		opts pairwiserules.Options
		want []got
	}{
		{"node slow", fullMatrix(four, KindBW, slowIf(has("n3"), 10)), pairwiserules.Options{}, []got{{"perf.node_slow", "n3"}}},
		{"everything slow against a reference", fullMatrix(four, KindBW, slowIf(func(a, b string) bool { return true }, 10)), pairwiserules.Options{Reference: 100e9},
			[]got{{"perf.pair_slow", "n1/n4"}, {"perf.pair_slow", "n1/n2"}, {"perf.pair_slow", "n2/n3"}, {"perf.pair_slow", "n3/n1"}, {"perf.pair_slow", "n3/n4"}, {"perf.pair_slow", "n4/n2"}}},
		{"pair failed", fullMatrix(four, KindBW, func(a, b string) float64 {
			if has("n4")(a, b) && has("n2")(a, b) {
				return -1
			}
			return 100
		}), pairwiserules.Options{}, []got{{"perf.pair_failed", "n4/n2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, summarize(pairwiserules.Check(tt.m.Input(nil), tt.opts))); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestMedianResult(t *testing.T) {
	bw := []Result{{BitsPerSecond: 3}, {BitsPerSecond: 1}, {BitsPerSecond: 2}}
	if got := medianResult(bw, KindBW); got.BitsPerSecond != 2 {
		t.Errorf("bw median %v", got)
	}
	lat := []Result{{LatencyMedianUS: 9, LatencyP99US: 20}, {LatencyMedianUS: 1, LatencyP99US: 2}}
	if got := medianResult(lat, KindLat); got.LatencyMedianUS != 1 || got.LatencyP99US != 2 {
		t.Errorf("lat median %v: want the lower middle run, whole", got)
	}
}
