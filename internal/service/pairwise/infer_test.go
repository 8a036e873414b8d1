package pairwise

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// fullMatrix measures every pair of hosts with bw(a, b) in Gb/s; a
// negative value is a failed test.
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

// slowIf returns a bw function: 100 Gb/s, or the given value for pairs
// matching the predicate.
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

func TestInfer(t *testing.T) {
	four := []string{"n1", "n2", "n3", "n4"}
	six := []string{"n1", "n2", "n3", "n4", "n5", "n6"}
	// Leaves A, B, C with two hosts each; spines: A and B under s1, C
	// under s2.
	leafHosts := []string{"a1", "a2", "b1", "b2", "c1", "c2"}
	topo := &Topology{Hosts: map[string]Placement{
		"a1": {Leaf: "A", Spine: "s1"}, "a2": {Leaf: "A", Spine: "s1"},
		"b1": {Leaf: "B", Spine: "s1"}, "b2": {Leaf: "B", Spine: "s1"},
		"c1": {Leaf: "C", Spine: "s2"}, "c2": {Leaf: "C", Spine: "s2"},
	}}
	leafOf := func(h string) string { return strings.ToUpper(h[:1]) }
	tests := []struct {
		name string
		m    *Matrix
		opts InferOptions
		want []got
	}{
		{"healthy", fullMatrix(four, KindBW, slowIf(func(a, b string) bool { return false }, 0)), InferOptions{}, nil},
		{"node slow", fullMatrix(four, KindBW, slowIf(has("n3"), 10)), InferOptions{}, []got{{"perf.node_slow", "n3"}}},
		// One bad node of three: a median of all pairs would be the bad
		// value; the median of each node's best pair is not.
		{"node slow of three", fullMatrix(four[:3], KindBW, slowIf(has("n2"), 10)), InferOptions{}, []got{{"perf.node_slow", "n2"}}},
		{"two nodes slow", fullMatrix(six, KindBW, slowIf(func(a, b string) bool { return has("n2")(a, b) || has("n5")(a, b) }, 20)), InferOptions{},
			[]got{{"perf.node_slow", "n2"}, {"perf.node_slow", "n5"}}},
		{"pair slow", fullMatrix(four, KindBW, slowIf(func(a, b string) bool { return has("n1")(a, b) && has("n4")(a, b) }, 40)), InferOptions{},
			[]got{{"perf.pair_slow", "n1/n4"}}},
		{"just above the fraction", fullMatrix(four, KindBW, slowIf(has("n3"), 85)), InferOptions{}, nil},
		{"fraction configurable", fullMatrix(four, KindBW, slowIf(has("n3"), 85)), InferOptions{SlowFraction: 0.9}, []got{{"perf.node_slow", "n3"}}},
		{"two nodes: only a pair", fullMatrix(four[:2], KindBW, slowIf(func(a, b string) bool { return true }, 10)), InferOptions{Reference: 100e9},
			[]got{{"perf.pair_slow", "n1/n2"}}},
		{"everything slow against a reference", fullMatrix(four, KindBW, slowIf(func(a, b string) bool { return true }, 10)), InferOptions{Reference: 100e9},
			[]got{{"perf.pair_slow", "n1/n4"}, {"perf.pair_slow", "n1/n2"}, {"perf.pair_slow", "n2/n3"}, {"perf.pair_slow", "n3/n1"}, {"perf.pair_slow", "n3/n4"}, {"perf.pair_slow", "n4/n2"}}},
		{"latency node", fullMatrix(four, KindLat, func(a, b string) float64 {
			if has("n2")(a, b) {
				return 9
			}
			return 2
		}), InferOptions{}, []got{{"perf.node_slow", "n2"}}},
		{"node failed", fullMatrix(four, KindBW, func(a, b string) float64 {
			if has("n4")(a, b) {
				return -1
			}
			return 100
		}), InferOptions{}, []got{{"perf.node_failed", "n4"}}},
		{"pair failed", fullMatrix(four, KindBW, func(a, b string) float64 {
			if has("n4")(a, b) && has("n2")(a, b) {
				return -1
			}
			return 100
		}), InferOptions{}, []got{{"perf.pair_failed", "n4/n2"}}},
		{"leaf uplinks", fullMatrix(leafHosts, KindBW, slowIf(func(a, b string) bool {
			return (leafOf(a) == "A") != (leafOf(b) == "A")
		}, 30)), InferOptions{Topology: topo}, []got{{"perf.link_slow", "A/s1"}}},
		{"leaf switch", fullMatrix(leafHosts, KindBW, slowIf(func(a, b string) bool {
			return leafOf(a) == "C" || leafOf(b) == "C"
		}, 30)), InferOptions{Topology: topo}, []got{{"perf.switch_slow", "C"}}},
		{"spine", fullMatrix(leafHosts, KindBW, slowIf(func(a, b string) bool {
			return leafOf(a) != leafOf(b) && (leafOf(a) != "C" || leafOf(b) != "C")
		}, 30)), InferOptions{Topology: &Topology{Hosts: map[string]Placement{
			"a1": {Leaf: "A", Spine: "s1"}, "a2": {Leaf: "A", Spine: "s1"},
			"b1": {Leaf: "B", Spine: "s1"}, "b2": {Leaf: "B", Spine: "s1"},
			"c1": {Leaf: "C", Spine: "s2"}, "c2": {Leaf: "D", Spine: "s2"},
		}}}, []got{{"perf.switch_slow", "s1"}}},
		{"node without topology help", fullMatrix(leafHosts, KindBW, slowIf(has("b2"), 30)), InferOptions{Topology: topo}, []got{{"perf.node_slow", "b2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Infer(tt.m, tt.opts)
			if d := cmp.Diff(tt.want, summarize(fs)); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
			for _, f := range fs {
				if len(f.Evidence) == 0 || f.Summary == "" || len(f.Remedy) == 0 {
					t.Errorf("%s: incomplete finding %+v", f.ID, f)
				}
			}
		})
	}
}

func TestInferEvidence(t *testing.T) {
	fs := Infer(fullMatrix([]string{"n1", "n2", "n3", "n4"}, KindBW, slowIf(has("n3"), 10)), InferOptions{})
	if len(fs) != 1 {
		t.Fatalf("got %d findings", len(fs))
	}
	f := fs[0]
	if f.Severity != finding.Critical || !strings.Contains(f.Summary, "n3 is slow with all 3 partners (median 10.00 Gb/s)") {
		t.Errorf("summary %q severity %s", f.Summary, f.Severity)
	}
	if len(f.Evidence) != 4 || !strings.Contains(f.Evidence[0].Value, "99.00 Gb/s; slow below 80% of it: 79.20 Gb/s") {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// BenchmarkInfer200 infers over a full 200-node matrix (19,900 pairs)
// with a leaf topology and one slow node.
func BenchmarkInfer200(b *testing.B) {
	hosts := make([]string, 200)
	topo := &Topology{Hosts: map[string]Placement{}}
	for i := range hosts {
		hosts[i] = fmt.Sprintf("gpu%03d", i)
		topo.Hosts[hosts[i]] = Placement{Leaf: fmt.Sprintf("leaf%02d", i/16), Spine: fmt.Sprintf("s%d", i/64)}
	}
	m := fullMatrix(hosts, KindBW, slowIf(has("gpu042"), 10))
	b.ReportAllocs()
	for b.Loop() {
		if fs := Infer(m, InferOptions{Topology: topo}); len(fs) != 1 {
			b.Fatalf("%d findings", len(fs))
		}
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

func TestPairSlowWording(t *testing.T) {
	tests := []struct {
		m    *Matrix
		opts InferOptions
		want string
	}{
		{fullMatrix([]string{"n1", "n2", "n3", "n4"}, KindBW, slowIf(func(a, b string) bool { return has("n1")(a, b) && has("n4")(a, b) }, 40)), InferOptions{},
			"n1 → n4 is slow (40.00 Gb/s) while both nodes do well with other partners"},
		{fullMatrix([]string{"n1", "n2"}, KindBW, slowIf(func(a, b string) bool { return true }, 10)), InferOptions{Reference: 100e9},
			"n1 → n2 is slow (10.00 Gb/s) and neither node did better with another partner"},
	}
	for _, tt := range tests {
		fs := Infer(tt.m, tt.opts)
		if len(fs) != 1 || fs[0].Summary != tt.want {
			t.Errorf("got %+v, want one finding %q", summarize(fs), tt.want)
			for _, f := range fs {
				t.Log(f.Summary)
			}
		}
	}
}
