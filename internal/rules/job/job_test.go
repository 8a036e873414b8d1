package job

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// twoTier builds a leaf-spine fabric: leaves × hosts CAs named "hNN mlx5_0",
// spines, and up(leaf) the spines a leaf is cabled to (one cable each).
// Forwarding tables are routed like OpenSM's fat-tree engines: a leaf
// spreads destinations over its uplinks by destination LID (d-mod-k) among
// the uplinks whose spine reaches the destination's leaf; a spine sends
// straight down.
func twoTier(t testing.TB, leaves, hosts, spines int, up func(leaf int) []int) (*routing.Graph, []string) {
	t.Helper()
	f := &routing.Subnet{}
	lid := uint16(1)
	spine := make([]int, spines)
	for s := range spines {
		spine[s] = f.AddSwitch(uint64(0x200000+s), fmt.Sprintf("spine%d", s), leaves, lid)
		lid++
	}
	leaf := make([]int, leaves)
	hostLeaf := map[uint16]int{}
	hostPort := map[uint16]int{}
	var names []string
	for l := range leaves {
		leaf[l] = f.AddSwitch(uint64(0x100000+l), fmt.Sprintf("leaf%d", l), hosts+spines, lid)
		lid++
		for h := range hosts {
			name := fmt.Sprintf("h%02d", l*hosts+h)
			names = append(names, name)
			ca := f.AddCA(uint64(0x10000+l*hosts+h), name+" mlx5_0", 1)
			f.Nodes[ca].Ports[1].LID = lid
			f.Connect(leaf[l], h+1, ca, 1)
			hostLeaf[lid], hostPort[lid] = l, h+1
			lid++
		}
		for _, s := range up(l) {
			f.Connect(leaf[l], hosts+1+s, spine[s], l+1)
		}
	}
	reaches := func(s, l int) bool { return slices.Contains(up(l), s) }
	for dst := uint16(1); dst < lid; dst++ {
		dl, isHost := hostLeaf[dst]
		for s := range spines {
			switch {
			case dst == uint16(s+1):
				f.SetRoute(spine[s], dst, 0)
			case isHost && reaches(s, dl):
				f.SetRoute(spine[s], dst, uint8(dl+1))
			}
		}
		for l := range leaves {
			switch {
			case dst == f.Nodes[leaf[l]].Ports[0].LID:
				f.SetRoute(leaf[l], dst, 0)
			case isHost && dl == l:
				f.SetRoute(leaf[l], dst, uint8(hostPort[dst]))
			case isHost:
				var cand []int
				for _, s := range up(l) {
					if reaches(s, dl) {
						cand = append(cand, s)
					}
				}
				if len(cand) > 0 {
					f.SetRoute(leaf[l], dst, uint8(hosts+1+cand[int(dst)%len(cand)]))
				}
			}
		}
	}
	g, err := routing.New(f)
	if err != nil {
		t.Fatal(err)
	}
	return g, names
}

func all(spines int) func(int) []int {
	return func(int) []int {
		out := make([]int, spines)
		for i := range out {
			out[i] = i
		}
		return out
	}
}

func place(t testing.TB, g *routing.Graph, names []string) []Host {
	t.Helper()
	hosts, missing := Place(g, names, nil)
	if len(missing) > 0 {
		t.Fatalf("hosts not found: %v", missing)
	}
	return hosts
}

// interleave orders hosts leaf0, leaf1, …, leaf0, leaf1, …: every ring
// neighbour is under another leaf.
func interleave(names []string, leaves, hosts int) []string {
	var out []string
	for h := range hosts {
		for l := range leaves {
			out = append(out, names[l*hosts+h])
		}
	}
	return out
}

func TestRingPredictions(t *testing.T) {
	// A leaf with half its uplinks: leaf0 reaches only spine0.
	half := func(l int) []int {
		if l == 0 {
			return []int{0}
		}
		return []int{0, 1}
	}
	tests := []struct {
		name           string
		leaves, hosts  int
		spines         int
		up             func(int) []int
		order          func([]string) []string
		want, wantProp float64 // predicted fraction of the order and of the proposal
	}{
		{"leaf-grouped ring on a full fat-tree is contention-free", 4, 4, 2, all(2),
			func(n []string) []string { return n }, 1, 1},
		{"interleaved ring on a full fat-tree collides on uplinks", 2, 4, 2, all(2),
			func(n []string) []string { return interleave(n, 2, 4) }, 0.5, 1},
		{"interleaved ring through a leaf with half its uplinks", 2, 4, 2, half,
			func(n []string) []string { return interleave(n, 2, 4) }, 0.25, 1},
		{"leaf-grouped ring through a leaf with half its uplinks", 2, 4, 2, half,
			func(n []string) []string { return n }, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, names := twoTier(t, tt.leaves, tt.hosts, tt.spines, tt.up)
			hosts := place(t, g, tt.order(names))
			r, err := Predict(g, hosts, Ring)
			if err != nil {
				t.Fatal(err)
			}
			if r.Fraction != tt.want {
				t.Errorf("fraction %.3f, want %.3f (%s; hot %+v)", r.Fraction, tt.want, r.Slowest, r.Hot)
			}
			if r.Flows != len(hosts) {
				t.Errorf("%d flows, want one per host", r.Flows)
			}
			p, err := Predict(g, Reorder(hosts, Propose(g, hosts, Ring)), Ring)
			if err != nil {
				t.Fatal(err)
			}
			if p.Fraction != tt.wantProp {
				t.Errorf("proposal: fraction %.3f, want %.3f (order %v)", p.Fraction, tt.wantProp, p.Hosts)
			}
			fs := Check(r, p, 0)
			congested := slices.ContainsFunc(fs, func(f finding.Finding) bool { return f.ID == "fabric.job_congested" })
			if congested != (tt.want < DefaultCongested) {
				t.Errorf("fabric.job_congested = %v at %.2f: %+v", congested, tt.want, fs)
			}
			if congested && (len(fs[0].Remedy) == 0 || !strings.Contains(fs[0].Remedy[0], "100%")) {
				t.Errorf("remedy does not give the proposal's figure: %+v", fs[0].Remedy)
			}
		})
	}
}

func TestPatterns(t *testing.T) {
	hosts := make([]Host, 5)
	for i := range hosts {
		hosts[i] = Host{Name: fmt.Sprint(i), Rails: []Rail{{LID: uint16(i + 1)}, {LID: uint16(i + 11)}}}
	}
	hosts[4].Rails = hosts[4].Rails[:1] // one host has a single rail
	count := map[Pattern]int{Ring: 5 + 4, Tree: 2*4 + 2*3, AllToAll: 5*4 + 4*3, Pairs: 4 + 4}
	for p, want := range count {
		if got := len(Flows(hosts, p)); got != want {
			t.Errorf("%s: %d flows, want %d", p, got, want)
		}
	}
	if got := Flows(hosts[:2], Ring); len(got) != 4 || got[0].Src != 0 || got[1].Src != 1 {
		t.Errorf("two-host ring: %+v", got)
	}
	if _, err := ParsePattern("bogus"); err == nil {
		t.Error("bogus pattern accepted")
	}
}

func TestBrokenRoute(t *testing.T) {
	g, names := twoTier(t, 2, 2, 1, all(1))
	// Drop leaf1's entries for leaf0's hosts (LIDs 3 and 4).
	f := g.Subnet()
	for i := range f.Nodes {
		if f.Nodes[i].Desc == "leaf1" {
			f.Nodes[i].LFT[3], f.Nodes[i].LFT[4] = routing.NoRoute, routing.NoRoute
		}
	}
	g2, err := routing.New(f)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Predict(g2, place(t, g2, names), Ring)
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(r, nil, 0)
	if len(r.Broken) != 1 || len(fs) == 0 || fs[0].ID != "fabric.route_missing" {
		t.Errorf("broken %v, findings %+v", r.Broken, fs)
	}
}

func TestBisection(t *testing.T) {
	full, _ := twoTier(t, 4, 4, 4, all(4))
	thin, _ := twoTier(t, 4, 4, 1, all(1))
	bf, err := EffectiveBisection(full, 40, 1)
	if err != nil {
		t.Fatal(err)
	}
	bt, err := EffectiveBisection(thin, 40, 1)
	if err != nil {
		t.Fatal(err)
	}
	if bf.Ports != 16 || bf.Samples != 40 || bf.Min > bf.Median || bf.Median > 1 {
		t.Errorf("full: %+v", bf)
	}
	if !(bt.Mean < bf.Mean) || bt.Worst == "" {
		t.Errorf("a 4:1 oversubscribed tree (%.2f) should score below a full one (%.2f); worst %q", bt.Mean, bf.Mean, bt.Worst)
	}
	again, _ := EffectiveBisection(full, 40, 1)
	if *again != *bf {
		t.Errorf("same seed, different result: %+v vs %+v", again, bf)
	}
}

func TestPlaceAndMap(t *testing.T) {
	g, _ := twoTier(t, 1, 2, 1, all(1))
	m, err := ParseHCAMap("# map\nnodeA \"h00 mlx5_0\"\nnodeB 0x10001\n", "map")
	if err != nil {
		t.Fatal(err)
	}
	hosts, missing := Place(g, []string{"nodeA", "nodeB", "nodeC"}, m)
	if len(hosts) != 2 || hosts[0].Rails[0].Name != "h00 mlx5_0" || hosts[1].Rails[0].Name != "h01 mlx5_0" || !slices.Equal(missing, []string{"nodeC"}) {
		t.Errorf("hosts %+v missing %v", hosts, missing)
	}
	if _, err := ParseHCAMap("nodeA\n", "map"); err == nil || !strings.Contains(err.Error(), "map line 1") {
		t.Errorf("host without HCA: %v", err)
	}
	if _, err := ParseHCAMap("a \"b\n", "map"); err == nil {
		t.Error("unterminated quote accepted")
	}
}

func BenchmarkPredictRing4096(b *testing.B) {
	g, names := twoTier(b, 64, 64, 32, all(32))
	hosts := place(b, g, interleave(names, 64, 64))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Predict(g, hosts, Ring); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBisection4096(b *testing.B) {
	g, _ := twoTier(b, 64, 64, 32, all(32))
	for b.Loop() {
		if _, err := EffectiveBisection(g, 10, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// The threshold the catalogue documents is the one in force.
func TestDocumentedDefaultsInForce(t *testing.T) {
	doc, err := catalog.Documented("fabric.job_congested", "congested")
	if err != nil || doc != fmt.Sprint(DefaultCongested) {
		t.Errorf("documented %q (%v), in force %v", doc, err, DefaultCongested)
	}
}
