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
	// The uplinks a leaf may use towards each leaf, computed once (a 16k-HCA
	// tree has 128 leaves).
	ups := make([][]int, leaves)
	for l := range leaves {
		ups[l] = up(l)
	}
	reaches := func(s, l int) bool { return slices.Contains(ups[l], s) }
	cands := make([][][]int, leaves)
	for l := range leaves {
		cands[l] = make([][]int, leaves)
		for dl := range leaves {
			for _, s := range ups[l] {
				if reaches(s, dl) {
					cands[l][dl] = append(cands[l][dl], s)
				}
			}
		}
	}
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
				if cand := cands[l][dl]; len(cand) > 0 {
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
			r, err := Predict(g, hosts, Ring, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Fraction != tt.want {
				t.Errorf("fraction %.3f, want %.3f (%s; hot %+v)", r.Fraction, tt.want, r.Slowest, r.Hot)
			}
			if r.Flows != len(hosts) {
				t.Errorf("%d flows, want one per host", r.Flows)
			}
			p, err := Predict(g, Reorder(hosts, Propose(g, hosts, Ring, nil)), Ring, nil)
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
	r, err := Predict(g2, place(t, g2, names), Ring, nil)
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
		if _, err := Predict(g, hosts, Ring, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// 4,096 hosts of a 16,384-HCA two-level tree (128 leaves of 128 hosts, 64
// spines): the job's ring, interleaved across 32 leaves, through the full
// tables, with per-link rates.
func BenchmarkPredictRing4096On16k(b *testing.B) {
	g, names := twoTier(b, 128, 128, 64, all(64))
	var job []string
	for i, n := range interleave(names, 128, 128) {
		if i%4 == 0 {
			job = append(job, n)
		}
	}
	hosts := place(b, g, job)
	links := rates(g, 400, nil)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Predict(g, hosts, Ring, links); err != nil {
			b.Fatal(err)
		}
	}
}

// Random bisections of all 16,384 CA ports.
func BenchmarkBisection16k(b *testing.B) {
	g, _ := twoTier(b, 128, 128, 64, all(64))
	b.ResetTimer()
	for b.Loop() {
		if _, err := EffectiveBisection(g, 10, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// The order proposal: 256 interleaved hosts (grouping by leaf and the
// search over each leaf's rotations, one Predict per try) and 4,096
// (grouping only) on the 4,096-HCA tree.
func BenchmarkPropose(b *testing.B) {
	g, names := twoTier(b, 64, 64, 32, all(32))
	for _, n := range []int{256, 4096} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			hosts := place(b, g, interleave(names, 64, 64)[:n])
			for b.Loop() {
				if o := Propose(g, hosts, Ring, nil); len(o) != n {
					b.Fatal(len(o))
				}
			}
		})
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

// rates gives every cable of g the rate def, except the cables with an end
// named in odd ("leaf0[6]"), which get that info (both directions).
func rates(g *routing.Graph, def float64, odd map[string]LinkInfo) Links {
	f := g.Subnet()
	out := Links{}
	for _, l := range f.Links {
		li := LinkInfo{Gbps: def}
		for _, e := range []routing.PortRef{l.A, l.B} {
			if o, ok := odd[portName(f, e)]; ok {
				li = o
			}
		}
		out[l.A], out[l.B] = li, li
	}
	return out
}

// On twoTier(2, 4, 2, all(2)) leaf0's uplink to spine1 is leaf0[6]; the
// leaf-grouped ring's flow h03 → h04 climbs it (LID 9 goes by spine1),
// h07 → h00 comes down spine0 into leaf0[5]; h02's own link is leaf0[3].
func TestPerLinkRates(t *testing.T) {
	oneX := LinkInfo{Gbps: 10, Degraded: "runs at 1X QDR (10 Gb/s), expected 4X QDR (40 Gb/s)"}
	tests := []struct {
		name      string
		interleav bool
		odd       map[string]LinkInfo
		want      float64
		hot       string // the first hot link, "" none
	}{
		{"every link at the fabric's rate", false, nil, 1, ""},
		{"a 1X uplink carries one flow at a quarter", false, map[string]LinkInfo{"leaf0[6]": oneX}, 0.25, "leaf0[6] → spine1[1]"},
		{"a 2X uplink, said nothing of, is below the fabric's rate", false, map[string]LinkInfo{"leaf0[6]": {Gbps: 20}}, 0.5, "leaf0[6] → spine1[1]"},
		{"an SDR host link bounds both of its flows", false, map[string]LinkInfo{"leaf0[3]": {Gbps: 10}}, 0.25, "h02 mlx5_0[1] → leaf0[3]"},
		{"a faster host link gives no more than the fabric", false, map[string]LinkInfo{"leaf0[3]": {Gbps: 100}}, 1, ""},
		{"contention at the fabric's rate, as without rates", true, nil, 0.5, ""},
		{"contention on a 2X link: two flows at a quarter each", true, map[string]LinkInfo{"leaf0[5]": {Gbps: 20}, "leaf0[6]": {Gbps: 20}}, 0.25, "leaf0[5] → spine0[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, names := twoTier(t, 2, 4, 2, all(2))
			if tt.interleav {
				names = interleave(names, 2, 4)
			}
			r, err := Predict(g, place(t, g, names), Ring, rates(g, 40, tt.odd))
			if err != nil {
				t.Fatal(err)
			}
			if r.Fraction != tt.want {
				t.Errorf("fraction %.3f, want %.3f (%s; hot %+v)", r.Fraction, tt.want, r.Slowest, r.Hot)
			}
			if tt.hot != "" && (len(r.Hot) == 0 || r.Hot[0].From+" → "+r.Hot[0].To != tt.hot) {
				t.Errorf("hot %+v, want %s first", r.Hot, tt.hot)
			}
			if tt.want < 1 && !tt.interleav && !strings.Contains(r.Slowest, "below the fabric's 40 Gb/s") && !strings.Contains(r.Slowest, "1X QDR") {
				t.Errorf("slowest flow does not say why: %s", r.Slowest)
			}
		})
	}
	// Without rates, the same fabric predicts as before: the rates are
	// what makes the 1X link a bottleneck.
	g, names := twoTier(t, 2, 4, 2, all(2))
	r, _ := Predict(g, place(t, g, names), Ring, nil)
	if r.Fraction != 1 {
		t.Errorf("without rates: %.2f", r.Fraction)
	}
	// A degraded link off the job's routes (h04's, the job on leaf0's
	// hosts) changes nothing and is not listed.
	leaf0 := place(t, g, names[:4])
	links := rates(g, 40, map[string]LinkInfo{"leaf1[1]": {Gbps: 10, Degraded: "1X"}})
	if r, _ := Predict(g, leaf0, Ring, links); r.Fraction != 1 || len(r.Hot) != 0 {
		t.Errorf("a degraded link off the routes: %.2f, hot %+v", r.Fraction, r.Hot)
	}
	if rel := Relieve(g, leaf0, Ring, links); rel != nil {
		t.Errorf("relief for a link off the routes: %+v", rel)
	}
}

func TestRelieve(t *testing.T) {
	oneX := LinkInfo{Gbps: 10, Degraded: "1X"}
	errs := LinkInfo{Gbps: 40, Degraded: "symbol errors 500"}
	half := func(l int) []int {
		if l == 0 {
			return []int{0}
		}
		return []int{0, 1}
	}
	tests := []struct {
		name        string
		up          func(int) []int
		interleaved bool
		odd         map[string]LinkInfo
		want        []string // nil: no relief
		wantLink    string
		wantFrac    float64 // the rest's prediction
	}{
		// Leaving out h03 would not do: h02 → h04 climbs the same uplink
		// (routes follow the destination); without h04, h03 sends to h05,
		// whose LID goes by spine0.
		{"one degraded uplink: the destination routed over it", all(2), false, map[string]LinkInfo{"leaf0[6]": oneX}, []string{"h04"}, "leaf0[6] → spine1[1]: 1X", 1},
		{"a degraded host link: its host", all(2), false, map[string]LinkInfo{"leaf0[3]": {Gbps: 10}}, []string{"h02"}, "h02 mlx5_0[1] → leaf0[3]: runs at 10 Gb/s, below the fabric's 40 Gb/s", 1},
		// Interleaved, four flows use leaf0[5]'s cable: h01 → h05 and
		// h03 → h07 up, h05 → h02 and h07 → h00 down. Each host removed
		// takes two flows with it: h05 and h07. The congestion on the other
		// uplinks stays (0.5); the errors are what the relief clears.
		{"a link with errors that is a bottleneck", all(2), true, map[string]LinkInfo{"leaf0[5]": errs}, []string{"h05", "h07"}, "leaf0[5] → spine0[1]: symbol errors 500", 0.5},
		{"a link with errors the slowest flows do not need", all(2), false, map[string]LinkInfo{"leaf1[5]": errs}, nil, "", 0},
		{"a leaf with half its uplinks: congestion, nothing degraded", half, true, nil, nil, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, names := twoTier(t, 2, 4, 2, tt.up)
			if tt.interleaved {
				names = interleave(names, 2, 4)
			}
			links := rates(g, 40, tt.odd)
			hosts := place(t, g, names)
			rel := Relieve(g, hosts, Ring, links)
			if tt.want == nil {
				if rel != nil {
					t.Errorf("relief %+v, want none", rel)
				}
				return
			}
			if rel == nil {
				t.Fatalf("no relief, want %v", tt.want)
			}
			if !slices.Equal(rel.Hosts, tt.want) || !slices.Contains(rel.Links, tt.wantLink) {
				t.Errorf("relief %+v, want hosts %v over %q", rel, tt.want, tt.wantLink)
			}
			// The claim holds: the prediction for the rest.
			rest := slices.DeleteFunc(slices.Clone(hosts), func(h Host) bool { return slices.Contains(rel.Hosts, h.Name) })
			r, err := Predict(g, rest, Ring, links)
			if err != nil || r.Fraction != tt.wantFrac || rel.Fraction != tt.wantFrac {
				t.Errorf("without %v: %.2f (relief says %.2f), %v", rel.Hosts, r.Fraction, rel.Fraction, err)
			}
			given, _ := Predict(g, hosts, Ring, links)
			given.Relief = rel
			fs := Check(given, nil, 0)
			if len(fs) == 0 || !strings.Contains(strings.Join(fs[0].Remedy, " "), "leave out "+strings.Join(tt.want, " ")) {
				t.Errorf("the finding does not name the hosts: %+v", fs)
			}
		})
	}
}
