package pairwise

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkCovers asserts every pair of n hosts appears exactly once.
func checkCovers(t *testing.T, s Schedule, n int) {
	t.Helper()
	seen := map[[2]int]int{}
	for _, r := range s.Rounds {
		for _, p := range r {
			k := [2]int{min(p.A, p.B), max(p.A, p.B)}
			seen[k]++
		}
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if c := seen[[2]int{a, b}]; c != 1 {
				t.Errorf("n=%d: pair %d-%d tested %d times, want 1", n, a, b, c)
			}
		}
	}
	if len(seen) != n*(n-1)/2 {
		t.Errorf("n=%d: %d distinct pairs, want %d", n, len(seen), n*(n-1)/2)
	}
}

func TestRoundRobin(t *testing.T) {
	for n := 0; n <= 33; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := RoundRobin(n)
			if err := s.Validate(n); err != nil {
				t.Fatal(err)
			}
			checkCovers(t, s, n)
			wantRounds, wantPerRound := n-1, n/2
			if n%2 == 1 {
				wantRounds = n // one bye per host
			}
			if n < 2 {
				wantRounds = 0
			}
			if len(s.Rounds) != wantRounds {
				t.Fatalf("rounds = %d, want %d", len(s.Rounds), wantRounds)
			}
			clients := make([]int, n)
			for ri, r := range s.Rounds {
				if len(r) != wantPerRound {
					t.Errorf("round %d has %d pairs, want %d", ri, len(r), wantPerRound)
				}
				for _, p := range r {
					clients[p.A]++
				}
			}
			// Directions alternate: nobody is always client or always server.
			for h, c := range clients {
				if n >= 4 && (c == 0 || c == n-1) {
					t.Errorf("host %d is client in %d of %d pairs", h, c, n-1)
				}
			}
		})
	}
}

func TestRoundRobinFour(t *testing.T) {
	want := [][]Pair{
		{{0, 3}, {1, 2}},
		{{2, 0}, {3, 1}},
		{{0, 1}, {2, 3}},
	}
	if d := cmp.Diff(want, RoundRobin(4).Rounds); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		s    Schedule
		want string
	}{
		{Schedule{Rounds: [][]Pair{{{0, 1}, {1, 2}}}}, "host 1 appears twice"},
		{Schedule{Rounds: [][]Pair{{{0, 0}}}}, "paired with itself"},
		{Schedule{Rounds: [][]Pair{{{0, 5}}}}, "out of range"},
		{Schedule{Rounds: [][]Pair{{{0, 1}}, {{1, 0}}}}, ""},
	}
	for _, tt := range tests {
		err := tt.s.Validate(3)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Validate(%v) = %v, want %q", tt.s.Rounds, err, tt.want)
		}
	}
}

func testTopology() ([]string, *Topology) {
	hosts := []string{"a1", "a2", "a3", "b1", "b2", "c1", "c2", "x"}
	topo := &Topology{Hosts: map[string]Placement{
		"a1": {Leaf: "A", Rail: "0", Spine: "S1"}, "a2": {Leaf: "A", Rail: "1", Spine: "S1"}, "a3": {Leaf: "A", Rail: "0", Spine: "S1"},
		"b1": {Leaf: "B", Rail: "0", Spine: "S1"}, "b2": {Leaf: "B", Rail: "1", Spine: "S1"},
		"c1": {Leaf: "C", Rail: "1", Spine: "S2"}, "c2": {Leaf: "C", Spine: "S2"},
	}}
	return hosts, topo
}

func names(hosts []string, s Schedule) [][]string {
	var out [][]string
	for _, r := range s.Rounds {
		var rn []string
		for _, p := range r {
			rn = append(rn, hosts[p.A]+"-"+hosts[p.B])
		}
		out = append(out, rn)
	}
	return out
}

func TestTopologyPatterns(t *testing.T) {
	hosts, topo := testTopology()
	tests := []struct {
		name string
		s    Schedule
		want [][]string
	}{
		{"same-leaf", SameLeaf(hosts, topo), [][]string{
			{"a2-a3", "b1-b2", "c1-c2"}, // A: 3 hosts, so 3 rounds with byes
			{"a3-a1"},
			{"a1-a2"},
		}},
		{"cross-leaf", CrossLeaf(hosts, topo), [][]string{
			// leaves A,B,C: round robin of 3 leaves, paired index-wise
			{"b1-c1", "b2-c2"},
			{"c1-a1", "c2-a2"},
			{"a1-b1", "a2-b2"},
		}},
		{"rail", PerRail(hosts, topo), [][]string{
			{"a1-b1", "a2-b2"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.s.Validate(len(hosts)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, names(hosts, tt.s)); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
	// The unplaced host x is in no pattern, and a nil topology gives none.
	if s := SameLeaf(hosts, nil); s.Pairs() != 0 {
		t.Errorf("SameLeaf without topology: %d pairs", s.Pairs())
	}
}

func BenchmarkRoundRobin1k(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s := RoundRobin(1000)
		if len(s.Rounds) != 999 {
			b.Fatal(len(s.Rounds))
		}
	}
}
