package pairwise

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

const (
	bw  = false
	lat = true
)

// fullMatrix measures every pair of hosts, each host sending to the ones
// listed after it, one pair a round, with val(a, b) in Gb/s (µs for
// latency); a negative value is a failed test.
func fullMatrix(hosts []string, latency bool, val func(a, b string) float64) *Input {
	m := &Input{Hosts: hosts, Latency: latency}
	for i, a := range hosts {
		for _, b := range hosts[i+1:] {
			pr := Pair{A: a, B: b, Round: len(m.Pairs) + 1}
			switch v := val(a, b); {
			case v < 0:
				pr.Error = "connection refused"
			case latency:
				pr.Result = &Result{LatencyMedianUS: v}
			default:
				pr.Result = &Result{BitsPerSecond: v * 1e9}
			}
			m.Pairs = append(m.Pairs, pr)
		}
	}
	return m
}

// placed returns m with the hosts' leaves and spines.
func placed(m *Input, p map[string]Placement) *Input {
	m.Placement = p
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

func TestCheck(t *testing.T) {
	four := []string{"n1", "n2", "n3", "n4"}
	six := []string{"n1", "n2", "n3", "n4", "n5", "n6"}
	// Leaves A, B, C with two hosts each; spines: A and B under s1, C
	// under s2.
	leafHosts := []string{"a1", "a2", "b1", "b2", "c1", "c2"}
	topo := map[string]Placement{
		"a1": {Leaf: "A", Spine: "s1"}, "a2": {Leaf: "A", Spine: "s1"},
		"b1": {Leaf: "B", Spine: "s1"}, "b2": {Leaf: "B", Spine: "s1"},
		"c1": {Leaf: "C", Spine: "s2"}, "c2": {Leaf: "C", Spine: "s2"},
	}
	leafOf := func(h string) string { return strings.ToUpper(h[:1]) }
	tests := []struct {
		name string
		m    *Input
		opts Options
		want []got
	}{
		{"healthy", fullMatrix(four, bw, slowIf(func(a, b string) bool { return false }, 0)), Options{}, nil},
		{"node slow", fullMatrix(four, bw, slowIf(has("n3"), 10)), Options{}, []got{{"perf.node_slow", "n3"}}},
		// One bad node of three: a median of all pairs would be the bad
		// value; the median of each node's best pair is not.
		{"node slow of three", fullMatrix(four[:3], bw, slowIf(has("n2"), 10)), Options{}, []got{{"perf.node_slow", "n2"}}},
		{"two nodes slow", fullMatrix(six, bw, slowIf(func(a, b string) bool { return has("n2")(a, b) || has("n5")(a, b) }, 20)), Options{},
			[]got{{"perf.node_slow", "n2"}, {"perf.node_slow", "n5"}}},
		{"pair slow", fullMatrix(four, bw, slowIf(func(a, b string) bool { return has("n1")(a, b) && has("n4")(a, b) }, 40)), Options{},
			[]got{{"perf.pair_slow", "n1/n4"}}},
		{"just above the fraction", fullMatrix(four, bw, slowIf(has("n3"), 85)), Options{}, nil},
		{"fraction configurable", fullMatrix(four, bw, slowIf(has("n3"), 85)), Options{SlowFraction: 0.9}, []got{{"perf.node_slow", "n3"}}},
		{"two nodes: only a pair", fullMatrix(four[:2], bw, slowIf(func(a, b string) bool { return true }, 10)), Options{Reference: 100e9},
			[]got{{"perf.pair_slow", "n1/n2"}}},
		{"everything slow against a reference", fullMatrix(four, bw, slowIf(func(a, b string) bool { return true }, 10)), Options{Reference: 100e9},
			[]got{{"perf.pair_slow", "n1/n2"}, {"perf.pair_slow", "n1/n3"}, {"perf.pair_slow", "n1/n4"}, {"perf.pair_slow", "n2/n3"}, {"perf.pair_slow", "n2/n4"}, {"perf.pair_slow", "n3/n4"}}},
		{"latency node", fullMatrix(four, lat, func(a, b string) float64 {
			if has("n2")(a, b) {
				return 9
			}
			return 2
		}), Options{}, []got{{"perf.node_slow", "n2"}}},
		{"node failed", fullMatrix(four, bw, func(a, b string) float64 {
			if has("n4")(a, b) {
				return -1
			}
			return 100
		}), Options{}, []got{{"perf.node_failed", "n4"}}},
		{"pair failed", fullMatrix(four, bw, func(a, b string) float64 {
			if has("n4")(a, b) && has("n2")(a, b) {
				return -1
			}
			return 100
		}), Options{}, []got{{"perf.pair_failed", "n2/n4"}}},
		{"leaf uplinks", placed(fullMatrix(leafHosts, bw, slowIf(func(a, b string) bool {
			return (leafOf(a) == "A") != (leafOf(b) == "A")
		}, 30)), topo), Options{}, []got{{"perf.link_slow", "A/s1"}}},
		{"leaf switch", placed(fullMatrix(leafHosts, bw, slowIf(func(a, b string) bool {
			return leafOf(a) == "C" || leafOf(b) == "C"
		}, 30)), topo), Options{}, []got{{"perf.switch_slow", "C"}}},
		{"spine", placed(fullMatrix(leafHosts, bw, slowIf(func(a, b string) bool {
			return leafOf(a) != leafOf(b) && (leafOf(a) != "C" || leafOf(b) != "C")
		}, 30)), map[string]Placement{
			"a1": {Leaf: "A", Spine: "s1"}, "a2": {Leaf: "A", Spine: "s1"},
			"b1": {Leaf: "B", Spine: "s1"}, "b2": {Leaf: "B", Spine: "s1"},
			"c1": {Leaf: "C", Spine: "s2"}, "c2": {Leaf: "D", Spine: "s2"},
		}), Options{}, []got{{"perf.switch_slow", "s1"}}},
		{"node without topology help", placed(fullMatrix(leafHosts, bw, slowIf(has("b2"), 30)), topo), Options{}, []got{{"perf.node_slow", "b2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Check(tt.m, tt.opts)
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

func TestCheckEvidence(t *testing.T) {
	fs := Check(fullMatrix([]string{"n1", "n2", "n3", "n4"}, bw, slowIf(has("n3"), 10)), Options{})
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

// BenchmarkCheck200 judges a full 200-node matrix (19,900 pairs)
// with a leaf topology and one slow node.
func BenchmarkCheck200(b *testing.B) {
	hosts := make([]string, 200)
	topo := map[string]Placement{}
	for i := range hosts {
		hosts[i] = fmt.Sprintf("gpu%03d", i)
		topo[hosts[i]] = Placement{Leaf: fmt.Sprintf("leaf%02d", i/16), Spine: fmt.Sprintf("s%d", i/64)}
	}
	m := placed(fullMatrix(hosts, bw, slowIf(has("gpu042"), 10)), topo)
	b.ReportAllocs()
	for b.Loop() {
		if fs := Check(m, Options{}); len(fs) != 1 {
			b.Fatalf("%d findings", len(fs))
		}
	}
}

func TestPairSlowWording(t *testing.T) {
	tests := []struct {
		m    *Input
		opts Options
		want string
	}{
		{fullMatrix([]string{"n1", "n2", "n3", "n4"}, bw, slowIf(func(a, b string) bool { return has("n1")(a, b) && has("n4")(a, b) }, 40)), Options{},
			"n1 → n4 is slow (40.00 Gb/s) while both nodes do well with other partners"},
		{fullMatrix([]string{"n1", "n2"}, bw, slowIf(func(a, b string) bool { return true }, 10)), Options{Reference: 100e9},
			"n1 → n2 is slow (10.00 Gb/s) and neither node did better with another partner"},
	}
	for _, tt := range tests {
		fs := Check(tt.m, tt.opts)
		if len(fs) != 1 || fs[0].Summary != tt.want {
			t.Errorf("got %+v, want one finding %q", summarize(fs), tt.want)
			for _, f := range fs {
				t.Log(f.Summary)
			}
		}
	}
}

// Reference is what reports mark slow cells against: the same reference
// Check uses, in the test's unit.
func TestReference(t *testing.T) {
	four := []string{"n1", "n2", "n3", "n4"}
	latency := fullMatrix(four, lat, func(a, b string) float64 {
		if has("n2")(a, b) {
			return 9
		}
		return 2
	})
	failed := fullMatrix(four[:2], bw, func(a, b string) float64 { return -1 })
	tests := []struct {
		name  string
		m     *Input
		given float64
		want  float64
	}{
		{"bandwidth: median of each node's best pair", fullMatrix(four, bw, slowIf(has("n3"), 10)), 0, 99e9},
		{"bandwidth given", fullMatrix(four, bw, slowIf(has("n3"), 10)), 100e9, 100e9},
		{"latency in µs", latency, 0, 2},
		{"latency given in µs", latency, 5, 5},
		{"nothing measured", failed, 0, 0},
	}
	for _, tt := range tests {
		if got := Reference(tt.m, tt.given); got != tt.want {
			t.Errorf("%s: Reference = %v, want %v", tt.name, got, tt.want)
		}
	}
}
