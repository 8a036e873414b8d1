package routing

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// small2L is the 2 spines × 4 leaves × 4 hosts fat-tree of the generator:
// hosts have LIDs 1-16 (leaf N holds 4N-3…4N on ports 1-4), leaves 17-20,
// spines 21-22; leaf ports 5 and 6 go to spine1 and spine2, spine port N
// to leaf N. Leaves route odd LIDs up port 6, even LIDs up port 5.
func small2L(t testing.TB) *Subnet {
	t.Helper()
	f, err := FatTree{Pods: 1, LeavesPerPod: 4, SpinesPerPod: 2, HostsPerLeaf: 4}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func small3L(t testing.TB) *Subnet {
	t.Helper()
	f, err := FatTree{Pods: 3, LeavesPerPod: 3, SpinesPerPod: 2, CoresPerGroup: 2, HostsPerLeaf: 3}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func node(t testing.TB, f *Subnet, desc string) int {
	t.Helper()
	for i := range f.Nodes {
		if f.Nodes[i].Desc == desc {
			return i
		}
	}
	t.Fatalf("no node %q", desc)
	return -1
}

func analyze(t testing.TB, f *Subnet) *Result {
	t.Helper()
	r, err := Analyze(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// removeLink deletes the cable at one port.
func removeLink(t testing.TB, f *Subnet, n, p int) {
	t.Helper()
	for i, l := range f.Links {
		if l.A == (PortRef{n, p}) || l.B == (PortRef{n, p}) {
			f.Links = slices.Delete(f.Links, i, i+1)
			return
		}
	}
	t.Fatalf("no link at node %d port %d", n, p)
}

func TestGeneratedFatTreesAreClean(t *testing.T) {
	for _, tc := range []struct {
		name string
		ft   FatTree
	}{
		{"2-level", FatTree{Pods: 1, LeavesPerPod: 4, SpinesPerPod: 2, HostsPerLeaf: 4}},
		{"2-level trunks", FatTree{Pods: 1, LeavesPerPod: 6, SpinesPerPod: 3, HostsPerLeaf: 6, LinksPerUplink: 2}},
		{"3-level", FatTree{Pods: 3, LeavesPerPod: 3, SpinesPerPod: 2, CoresPerGroup: 2, HostsPerLeaf: 4}},
		{"3-level wide", FatTree{Pods: 4, LeavesPerPod: 4, SpinesPerPod: 4, CoresPerGroup: 4, HostsPerLeaf: 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.ft.Generate()
			if err != nil {
				t.Fatal(err)
			}
			r := analyze(t, f)
			if fs := r.Findings(); len(fs) != 0 {
				t.Fatalf("findings on a min-hop fat-tree: %v\n%s", ids(fs), fs[0].Summary)
			}
			n := int64(tc.ft.HCAs())
			if r.Pairs != n*(n-1) || r.RoutedPairs != r.Pairs {
				t.Errorf("pairs %d routed %d, want %d", r.Pairs, r.RoutedPairs, n*(n-1))
			}
			if !r.Tree.FatTree {
				t.Errorf("not recognised as a fat-tree: %s", r.Tree.Reason)
			}
			wantLevels := 2
			if tc.ft.CoresPerGroup > 0 {
				wantLevels = 3
			}
			if r.Tree.Levels != wantLevels {
				t.Errorf("levels %d, want %d", r.Tree.Levels, wantLevels)
			}
			if len(r.Tree.Leaves) != tc.ft.Pods*tc.ft.LeavesPerPod {
				t.Errorf("%d leaves", len(r.Tree.Leaves))
			}
			links := max(tc.ft.LinksPerUplink, 1)
			leaves := tc.ft.Pods * tc.ft.LeavesPerPod
			up := tc.ft.SpinesPerPod * links
			tiers := fmt.Sprintf("%d, %d", leaves, tc.ft.Pods*tc.ft.SpinesPerPod)
			if wantLevels == 3 {
				tiers += fmt.Sprintf(", %d", tc.ft.SpinesPerPod*tc.ft.CoresPerGroup)
			}
			want := fmt.Sprintf("fat-tree, %d switch tiers (%s switches); leaves %d down : %d up (%.1f:1) ×%d",
				wantLevels, tiers, tc.ft.HostsPerLeaf, up, float64(tc.ft.HostsPerLeaf)/float64(up), leaves)
			if got := r.Tree.Describe(f); got != want {
				t.Errorf("Describe = %q, want %q", got, want)
			}
			for _, l := range r.Tree.Leaves {
				if l.Down != tc.ft.HostsPerLeaf || l.Up != tc.ft.SpinesPerPod*links {
					t.Errorf("leaf %s: %d down %d up", f.Nodes[l.Node].Name(), l.Down, l.Up)
				}
			}
			if !r.MinHopChecked || r.NonMinimalRoutes != 0 || r.BrokenSwitchRoutes != 0 {
				t.Errorf("minhop checked %v, nonminimal %d, broken %d", r.MinHopChecked, r.NonMinimalRoutes, r.BrokenSwitchRoutes)
			}
			// Every host sends n-1 routes and receives n-1.
			for _, l := range r.Loads {
				if f.Nodes[l.From.Node].Type == CA || f.Nodes[l.To.Node].Type == CA {
					if l.Routes != n-1 {
						t.Errorf("host link %v->%v carries %d routes, want %d", l.From, l.To, l.Routes, n-1)
					}
				}
			}
		})
	}
}

func TestRouteMissing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T, f *Subnet)
		want   []Break  // Node ignored
		sub    string   // in the first summary
		srcs   []string // the first break's source switches, when set
	}{
		{
			name:   "spine lacks an entry",
			break_: func(t *testing.T, f *Subnet) { f.Nodes[node(t, f, "spine2")].LFT[5] = NoRoute },
			// Leaves 1, 3, 4 send lid 5 up port 6 to spine2: 12 hosts, 4 switch routes
			// (the three leaves and spine2 itself).
			want: []Break{{Kind: NoEntry, Port: NoRoute, LIDs: 1, Examples: []uint16{5}, Pairs: 12, SwitchRoutes: 4}},
			sub:  "spine2 has no forwarding entry for 1 destination LID (node00005 mlx5_0 (lid 5)): node00001 mlx5_0 cannot reach node00005 mlx5_0 (lid 5), 12 CA pairs in all",
			srcs: []string{"leaf1", "leaf3", "leaf4"},
		},
		{
			name: "table shorter than the LID",
			break_: func(t *testing.T, f *Subnet) {
				s := node(t, f, "leaf1")
				f.Nodes[s].LFT = f.Nodes[s].LFT[:16]
			},
			// leaf1 loses lids 16-22: host 16 unreachable for leaf1's 4 hosts;
			// the switch LIDs from leaf1 (7), and its own LID 17 from the
			// other five switches.
			want: []Break{{Kind: NoEntry, Port: NoRoute, LIDs: 7, Examples: []uint16{16, 17, 18, 19, 20, 21, 22}, Pairs: 4, SwitchRoutes: 12}},
		},
		{
			name:   "port beyond the switch",
			break_: func(t *testing.T, f *Subnet) { f.Nodes[node(t, f, "leaf3")].LFT[2] = 9 },
			want:   []Break{{Kind: NoEntry, Port: 9, LIDs: 1, Examples: []uint16{2}, Pairs: 4, SwitchRoutes: 1}},
		},
		{
			name:   "no table",
			break_: func(t *testing.T, f *Subnet) { f.Nodes[node(t, f, "leaf4")].LFT = nil },
			// leaf4's 4 hosts reach nobody (15 CA destinations each, plus
			// 3 pairs among themselves — 16 destinations minus self): 4×15 = 60;
			// every LID (22) fails at leaf4, routes through leaf4 to its hosts
			// fail too: 12 other hosts × 4 = 48 more pairs.
			want: []Break{{Kind: NoTable, LIDs: 22, Examples: []uint16{1, 2, 3, 4, 5, 6, 7, 8}, Pairs: 60 + 48, SwitchRoutes: 22 + 5*5}},
			sub:  "leaf4 has no forwarding table",
		},
		{
			name: "table never programmed",
			break_: func(t *testing.T, f *Subnet) {
				lft := f.Nodes[node(t, f, "leaf4")].LFT
				for i := range lft {
					lft[i] = NoRoute // dump_fts: "0 valid lids dumped"
				}
			},
			// leaf4's 4 hosts reach nobody (15 CA destinations each, plus
			// 3 pairs among themselves — 16 destinations minus self): 4×15 = 60;
			// every LID (22) fails at leaf4, routes through leaf4 to its hosts
			// fail too: 12 other hosts × 4 = 48 more pairs.
			want: []Break{{Kind: NoTable, LIDs: 22, Examples: []uint16{1, 2, 3, 4, 5, 6, 7, 8}, Pairs: 60 + 48, SwitchRoutes: 22 + 5*5}},
			sub:  "leaf4 has no forwarding table",
		},
		{
			name: "cable pulled, tables not recomputed",
			break_: func(t *testing.T, f *Subnet) {
				removeLink(t, f, node(t, f, "leaf2"), 6)
			},
			// Both ends are dead. leaf2 (node 1) sends odd remote host LIDs
			// (1, 3, 9, 11, 13, 15: 6 × 4 hosts) and switch LIDs 17, 19, 22 up
			// port 6. spine2 sends leaf2's LIDs (5-8, 18) down port 2, odd
			// host LIDs 5 and 7 from 12 hosts, and spine1's LID 21 through
			// leaf2.
			want: []Break{
				{Kind: DeadPort, Port: 6, LIDs: 9, Examples: []uint16{1, 3, 9, 11, 13, 15, 17, 19}, Pairs: 24, SwitchRoutes: 9},
				{Kind: DeadPort, Port: 2, LIDs: 6, Examples: []uint16{5, 6, 7, 8, 18, 21}, Pairs: 24, SwitchRoutes: 12},
			},
			// The finding names the CA destinations; the switch LIDs
			// 17, 19, 22 go to the management routes.
			sub: "leaf2 forwards 6 destination LIDs (node00001 mlx5_0 (lid 1), node00003 mlx5_0 (lid 3), node00009 mlx5_0 (lid 9), node00011 mlx5_0 (lid 11) and 2 more) to port 6, which has no link: node00005 mlx5_0 cannot reach node00001 mlx5_0 (lid 1), 24 CA pairs in all",
		},
		{
			name:   "delivered to the wrong host",
			break_: func(t *testing.T, f *Subnet) { f.Nodes[node(t, f, "leaf2")].LFT[5] = 2 },
			want:   []Break{{Kind: Misdelivered, Port: 2, LIDs: 1, Examples: []uint16{5}, Pairs: 15, SwitchRoutes: 6}},
		},
		{
			name:   "kept by the wrong switch",
			break_: func(t *testing.T, f *Subnet) { f.Nodes[node(t, f, "spine1")].LFT[6] = 0 },
			want:   []Break{{Kind: Misdelivered, Port: 0, LIDs: 1, Examples: []uint16{6}, Pairs: 12, SwitchRoutes: 4}},
			sub:    "keeps 1 destination LID",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := small2L(t)
			tc.break_(t, f)
			r := analyze(t, f)
			var got []Break
			for _, b := range r.Breaks {
				if b.Kind != Loop {
					got = append(got, b)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("breaks %+v, want %d", r.Breaks, len(tc.want))
			}
			var lost int64
			for i, w := range tc.want {
				b := got[i]
				lost += w.Pairs
				if b.Kind != w.Kind || b.LIDs != w.LIDs || !slices.Equal(b.Examples, w.Examples) || b.Pairs != w.Pairs || b.SwitchRoutes != w.SwitchRoutes {
					t.Errorf("break %+v\nwant %+v", b, w)
				}
				if w.Port != NoRoute && b.Port != w.Port {
					t.Errorf("port %d, want %d", b.Port, w.Port)
				}
			}
			if tc.srcs != nil {
				var names []string
				for _, n := range got[0].SourceSwitches {
					names = append(names, f.Nodes[n].Desc)
				}
				if !slices.Equal(names, tc.srcs) || got[0].SourcePorts != 4*len(tc.srcs) {
					t.Errorf("source switches %v (%d ports), want %v", names, got[0].SourcePorts, tc.srcs)
				}
			}
			if r.RoutedPairs != r.Pairs-lost {
				t.Errorf("routed %d of %d, want %d lost", r.RoutedPairs, r.Pairs, lost)
			}
			fs := r.Findings()
			var missing []finding.Finding
			for _, fd := range fs {
				// The switch LIDs among the destinations are the
				// management routes' finding.
				if fd.ID == "fabric.route_missing" && fd.Subject.NodeDesc != ManagementSubject {
					missing = append(missing, fd)
				}
			}
			if len(missing) != len(tc.want) {
				t.Fatalf("findings %v", ids(fs))
			}
			if !strings.Contains(missing[0].Summary, tc.sub) {
				t.Errorf("summary %q\nwant it to contain %q", missing[0].Summary, tc.sub)
			}
			if missing[0].Subject.NodeDesc != f.Nodes[got[0].Node].Desc || len(missing[0].Evidence) == 0 {
				t.Errorf("subject %+v evidence %v", missing[0].Subject, missing[0].Evidence)
			}
		})
	}
}

func TestRouteLoop(t *testing.T) {
	f := small2L(t)
	leaf1, spine1 := node(t, f, "leaf1"), node(t, f, "spine1")
	// Even LIDs go up leaf port 5 to spine1; send lid 6 back down to leaf1.
	f.Nodes[spine1].LFT[6] = 1
	r := analyze(t, f)
	if len(r.Breaks) != 1 {
		t.Fatalf("breaks %+v", r.Breaks)
	}
	b := r.Breaks[0]
	if b.Kind != Loop || b.Node != leaf1 || !slices.Equal(b.Cycle, []int{leaf1, spine1}) || !slices.Equal(b.Examples, []uint16{6}) {
		t.Errorf("loop %+v", b)
	}
	// Every host outside leaf2 (12) loses lid 6; leaves 1, 3, 4 and spine1.
	if b.Pairs != 12 || b.SwitchRoutes != 4 {
		t.Errorf("pairs %d switch routes %d", b.Pairs, b.SwitchRoutes)
	}
	fs := r.Findings()
	if got := ids(fs); !slices.Equal(got, []string{"fabric.route_loop"}) {
		t.Fatalf("findings %v", got)
	}
	if want := "forwarding loop leaf1 -> spine1 -> leaf1 for 1 destination LID"; !strings.HasPrefix(fs[0].Summary, want) {
		t.Errorf("summary %q", fs[0].Summary)
	}
	g, _ := New(f)
	_, err := g.Path(1, 6)
	var pe *PathError
	if !errors.As(err, &pe) || pe.Kind != Loop || pe.Node != leaf1 {
		t.Errorf("Path error %v", err)
	}
}

func TestRouteNonMinimal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(f *Subnet, n func(string) int)
		want  []Detour
	}{
		{"min-hop", func(*Subnet, func(string) int) {}, nil},
		{
			// spine1 sends lid 6 (leaf2 port 2) down to leaf3, which sends it up
			// to spine2: leaf1 → spine1 → leaf3 → spine2 → leaf2 → host.
			"down-up detour",
			func(f *Subnet, n func(string) int) {
				f.Nodes[n("spine1")].LFT[6] = 3
				f.Nodes[n("leaf3")].LFT[6] = 6
			},
			// Sources through spine1: leaf1 and leaf4 hosts (8).
			[]Detour{{LIDs: 1, Examples: []DetourExample{{LID: 6, Port: 3, Hops: 4, MinHops: 2}}, Pairs: 8}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := small2L(t)
			tc.setup(f, func(s string) int { return node(t, f, s) })
			r := analyze(t, f)
			for i := range tc.want {
				tc.want[i].Node = node(t, f, "spine1")
			}
			if !reflect.DeepEqual(r.Detours, tc.want) {
				t.Errorf("detours %+v\nwant %+v", r.Detours, tc.want)
			}
			fs := r.Findings()
			if len(tc.want) == 0 && len(fs) != 0 {
				t.Errorf("findings %v", ids(fs))
			}
			if len(tc.want) > 0 {
				if got := ids(fs); !slices.Equal(got, []string{"fabric.route_nonminimal"}) {
					t.Fatalf("findings %v", got)
				}
				// leaf1, leaf4 (5 hops for 3) and spine1 (4 for 2) are longer.
				if r.NonMinimalRoutes != 3 {
					t.Errorf("non-minimal routes %d", r.NonMinimalRoutes)
				}
			}
		})
	}
}

func TestRouteImbalance(t *testing.T) {
	t.Run("balanced", func(t *testing.T) {
		r := analyze(t, small2L(t))
		if len(r.Imbalances) != 0 {
			t.Errorf("imbalances %+v", r.Imbalances)
		}
	})
	t.Run("everything over spine1", func(t *testing.T) {
		f := small2L(t)
		for l := 1; l <= 4; l++ {
			leaf := node(t, f, "leaf"+string(rune('0'+l)))
			for lid := range 17 { // host LIDs only: spine2's own LID stays on port 6
				if f.Nodes[leaf].LFT[lid] == 6 {
					f.Nodes[leaf].LFT[lid] = 5
				}
			}
		}
		r := analyze(t, f)
		if len(r.Imbalances) != 4 {
			t.Fatalf("imbalances %+v", r.Imbalances)
		}
		for _, im := range r.Imbalances {
			// 12 remote hosts × 4 local sources = 48 routes on port 5, none on 6.
			if f.Nodes[im.Node].Desc[:4] != "leaf" || im.ToTier != 2 || im.MaxRoutes != 48 || im.MinRoutes != 0 || im.HotPort != 5 || im.ColdPort != 6 || im.Ratio() != 2 {
				t.Errorf("imbalance %+v", im)
			}
		}
		// One cause on four leaves: one finding.
		fs := r.Findings()
		if got := ids(fs); !slices.Equal(got, []string{"fabric.route_imbalance"}) {
			t.Fatalf("findings %v", got)
		}
		if want := "4 tier-1 switches (leaf1, leaf2, leaf3, leaf4) load their 2 links to tier-2 switches alike and unevenly: 0 to 48 routes per link (busiest up to 2.0× the fair share), port 5 hot and port 6 coldest on each"; fs[0].Summary != want {
			t.Errorf("summary %q", fs[0].Summary)
		}
		// On one leaf only: its own finding, as before.
		g := small2L(t)
		leaf := node(t, g, "leaf1")
		for lid := range 17 {
			if g.Nodes[leaf].LFT[lid] == 6 {
				g.Nodes[leaf].LFT[lid] = 5
			}
		}
		fs = analyze(t, g).Findings()
		if len(fs) != 1 || fs[0].Summary != "leaf1: its 2 links to tier-2 switches carry 0 to 48 routes (fair share 24, busiest 2.0× that): port 5 hot, port 6 coldest" {
			t.Errorf("one leaf: %v", fs)
		}
	})
	t.Run("below the minimum routes", func(t *testing.T) {
		f := small2L(t)
		leaf := node(t, f, "leaf1")
		for lid := range f.Nodes[leaf].LFT {
			if f.Nodes[leaf].LFT[lid] == 6 {
				f.Nodes[leaf].LFT[lid] = 5
			}
		}
		r, err := Analyze(f, Options{ImbalanceMinRoutes: 49})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Imbalances) != 0 {
			t.Errorf("imbalances %+v", r.Imbalances)
		}
	})
}

// ring4 is four switches in a ring, one host each: switch i port 1 to
// switch i+1 port 2, port 3 to host i (LID i+1), switch LIDs 5-8. Hosts at
// distance 2 are routed clockwise (via i+1) when cw[i] is set for the
// destination host i, counter-clockwise otherwise.
func ring4(t testing.TB, cw [4]bool) *Subnet {
	t.Helper()
	f := &Subnet{}
	var sw, ca [4]int
	for i := range 4 {
		sw[i] = f.AddSwitch(uint64(0x100+i), "ring"+string(rune('0'+i)), 3, uint16(5+i))
	}
	for i := range 4 {
		ca[i] = f.AddCA(uint64(0x200+2*i), "host"+string(rune('0'+i)), 1)
		f.Nodes[ca[i]].Ports[1].LID = uint16(i + 1)
		f.Connect(sw[i], 3, ca[i], 1)
		f.Connect(sw[i], 1, sw[(i+1)%4], 2)
	}
	for s := range 4 {
		for d := range 4 {
			for _, lid := range []uint16{uint16(d + 1), uint16(d + 5)} {
				var port uint8
				switch (d - s + 4) % 4 {
				case 0:
					port = 3
					if lid > 4 {
						port = 0
					}
				case 1:
					port = 1
				case 3:
					port = 2
				case 2:
					port = 2
					if cw[d] {
						port = 1
					}
				}
				f.SetRoute(sw[s], lid, port)
			}
		}
	}
	return f
}

func TestCreditLoop(t *testing.T) {
	t.Run("all clockwise", func(t *testing.T) {
		f := ring4(t, [4]bool{true, true, true, true})
		r := analyze(t, f)
		if len(r.CreditLoops) != 1 {
			t.Fatalf("credit loops %+v", r.CreditLoops)
		}
		cl := r.CreditLoops[0]
		// The clockwise channels ring0→ring1→ring2→ring3→ring0 (port 1 to port 2).
		var want []Channel
		for i := range 4 {
			want = append(want, Channel{From: PortRef{i, 1}, To: PortRef{(i + 1) % 4, 2}})
		}
		if !reflect.DeepEqual(cl.Cycle, want) || cl.Channels != 4 || cl.Switches != 4 {
			t.Errorf("credit loop %+v", cl)
		}
		fs := r.Findings()
		if got := ids(fs); !slices.Equal(got, []string{"fabric.credit_loop"}) {
			t.Fatalf("findings %v", got)
		}
		if !strings.Contains(fs[0].Summary, "ring0, ring1, ring2, ring3, ring0") || len(fs[0].Evidence) != 4 {
			t.Errorf("finding %+v", fs[0])
		}
		if r.Tree.FatTree {
			t.Error("a ring recognised as a fat-tree")
		}
	})
	t.Run("two turn each way", func(t *testing.T) {
		// Destinations 0 and 1 counter-clockwise, 2 and 3 clockwise: the
		// dependencies form two chains that never close.
		r := analyze(t, ring4(t, [4]bool{false, false, true, true}))
		// 8 routes to a neighbour (one dependency each, into the host's
		// link) and 4 to the far side (one more each).
		if len(r.CreditLoops) != 0 || r.DependencyEdges != 12 {
			t.Errorf("credit loops %+v, %d dependency edges", r.CreditLoops, r.DependencyEdges)
		}
		if fs := r.Findings(); len(fs) != 0 {
			t.Errorf("findings %v", ids(fs))
		}
	})
}

func TestTreeAsymmetric(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     func(t *testing.T) *Subnet
		want  []Asymmetry // Node filled from desc
		descs []string
		sub   string
	}{
		{
			name: "uplink missing",
			f: func(t *testing.T) *Subnet {
				f := small2L(t)
				removeLink(t, f, node(t, f, "leaf3"), 5)
				return f
			},
			descs: []string{"leaf3"},
			want:  []Asymmetry{{Tier: 1, Up: 1, Expected: 2, Missing: []int{-1}}},
			sub:   "leaf3 (tier 1): 1 uplink where most tier-1 switches have 2; no link to spine1",
		},
		{
			name: "two cables to one spine",
			f: func(t *testing.T) *Subnet {
				f, err := FatTree{Pods: 1, LeavesPerPod: 4, SpinesPerPod: 2, HostsPerLeaf: 4, LinksPerUplink: 2}.Generate()
				if err != nil {
					t.Fatal(err)
				}
				// leaf2 port 8 (second cable to spine2) moved to spine1's free port 9.
				leaf2, spine1 := node(t, f, "leaf2"), node(t, f, "spine1")
				removeLink(t, f, leaf2, 8)
				f.Nodes[spine1].Ports = append(f.Nodes[spine1].Ports, Port{})
				f.Connect(leaf2, 8, spine1, 9)
				return f
			},
			descs: []string{"leaf2"},
			want:  []Asymmetry{{Tier: 1, Up: 4, Expected: 4, Uneven: true}},
			sub:   "uneven uplinks: 3 to spine1, 1 to spine2",
		},
		{
			name: "core link missing",
			f: func(t *testing.T) *Subnet {
				f := small3L(t)
				removeLink(t, f, node(t, f, "core2"), 3)
				return f
			},
			// spine5 = pod 3's first spine: its uplinks go to core1 and core2.
			descs: []string{"spine5"},
			want:  []Asymmetry{{Tier: 2, Up: 1, Expected: 2, Missing: []int{-1}}},
			sub:   "no link to core2",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f(t)
			r := analyze(t, f)
			got := r.Tree.Asymmetric
			if len(got) != len(tc.want) {
				t.Fatalf("asymmetric %+v", got)
			}
			for i, w := range tc.want {
				a := got[i]
				if a.Node != node(t, f, tc.descs[i]) || a.Tier != w.Tier || a.Up != w.Up || a.Expected != w.Expected || len(a.Missing) != len(w.Missing) || a.Uneven != w.Uneven {
					t.Errorf("asymmetry %+v, want %+v at %s", a, w, tc.descs[i])
				}
			}
			var summaries []string
			for _, fd := range r.Findings() {
				if fd.ID == "fabric.tree_asymmetric" {
					summaries = append(summaries, fd.Summary)
				}
			}
			if tc.name == "uplink missing" {
				want := "fat-tree, 2 switch tiers (4, 2 switches); leaves 4 down : 2 up (2.0:1) ×3, 4 down : 1 up (4.0:1) ×1"
				if got := r.Tree.Describe(f); got != want {
					t.Errorf("Describe = %q, want %q", got, want)
				}
			}
			if len(summaries) != len(tc.want) || !strings.Contains(summaries[0], tc.sub) {
				t.Errorf("summaries %q, want one containing %q", summaries, tc.sub)
			}
		})
	}
}

func TestPath(t *testing.T) {
	f := small2L(t)
	g, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	leaf1, spine1, leaf2 := node(t, f, "leaf1"), node(t, f, "spine1"), node(t, f, "leaf2")
	h1, h6 := node(t, f, "node00001 mlx5_0"), node(t, f, "node00006 mlx5_0")
	r, err := g.Path(1, 6)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hop{{h1, 0, 1}, {leaf1, 1, 5}, {spine1, 1, 2}, {leaf2, 5, 2}, {h6, 1, 0}}
	if !reflect.DeepEqual(r.Hops, want) || r.Links() != 4 {
		t.Errorf("hops %+v", r.Hops)
	}
	wantText := `From ca {0x0c42a10300b00000} portnum 1 lid 1-1 "node00001 mlx5_0"
[1] -> switch port {0x7cfe900300a00000}[1] lid 17-17 "leaf1"
[5] -> switch port {0x7cfe900300a00004}[1] lid 21-21 "spine1"
[2] -> switch port {0x7cfe900300a00001}[5] lid 18-18 "leaf2"
[2] -> ca port {0x0c42a10300b0000b}[1] lid 6-6 "node00006 mlx5_0"
To ca {0x0c42a10300b0000a} portnum 1 lid 6-6 "node00006 mlx5_0"
`
	if got := r.Format(f); got != wantText {
		t.Errorf("Format:\n%s\nwant\n%s", got, wantText)
	}
	// To a switch LID, and from a switch.
	if r, err := g.Path(1, 22); err != nil || r.Links() != 2 || r.Hops[2].Node != node(t, f, "spine2") {
		t.Errorf("to spine2: %+v %v", r, err)
	}
	if r, err := g.Path(21, 2); err != nil || r.Links() != 2 {
		t.Errorf("from spine1: %+v %v", r, err)
	}
	if r, err := g.Path(3, 3); err != nil || len(r.Hops) != 1 {
		t.Errorf("to itself: %+v %v", r, err)
	}
	for _, tc := range []struct {
		name     string
		src, dst uint16
		mutate   func()
		kind     BreakKind
		at       int
		msg      string
	}{
		{"no entry", 1, 6, func() { f.Nodes[spine1].LFT[6] = NoRoute }, NoEntry, spine1,
			"route from lid 1 to lid 6 breaks at spine1 (guid 0x7cfe900300a00004): no forwarding entry for lid 6"},
		{"dead port", 1, 6, func() { removeLink(t, f, leaf2, 5) }, DeadPort, spine1, "entry for lid 6 is port 2, which has no link"},
		{"no table", 1, 6, func() { f.Nodes[leaf2].LFT = nil }, NoTable, leaf2, "the switch has no forwarding table"},
		{"wrong host", 1, 7, func() { f.Nodes[leaf2].LFT[7] = 1 }, Misdelivered, leaf2,
			"entry for lid 7 is port 1, which leads to a node that does not own that lid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f = small2L(t)
			tc.mutate()
			g, err := New(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = g.Path(tc.src, tc.dst)
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v", err)
			}
			if pe.Kind != tc.kind || pe.Node != tc.at || len(pe.Partial) == 0 || pe.Partial[len(pe.Partial)-1].Node != tc.at {
				t.Errorf("error %+v", pe)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q, want %q", err, tc.msg)
			}
		})
	}
	if _, err := g.Path(1, 999); !errors.Is(err, ErrNoLID) {
		t.Errorf("unknown LID: %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	f := small3L(t)
	f.Nodes[node(t, f, "spine3")].LFT[4] = NoRoute
	f.Nodes[node(t, f, "leaf2")].LFT = nil
	removeLink(t, f, node(t, f, "leaf5"), 4)
	first := analyze(t, f).Findings()
	if len(first) < 3 {
		t.Fatalf("findings %v", ids(first))
	}
	for range 3 {
		if again := analyze(t, f).Findings(); !reflect.DeepEqual(first, again) {
			t.Fatalf("findings differ between runs:\n%v\n%v", ids(first), ids(again))
		}
	}
}

func TestInvalidFabric(t *testing.T) {
	for _, tc := range []struct {
		name string
		mut  func(f *Subnet)
		msg  string
	}{
		{"port out of range", func(f *Subnet) { f.Connect(0, 7, 1, 1) }, "leaf1 has no port 7 (ports 1-6)"},
		{"port cabled twice", func(f *Subnet) { f.Connect(0, 1, 1, 1) }, "leaf1 port 1 is cabled twice"},
		{"node out of range", func(f *Subnet) { f.Connect(0, 1, 99, 1) }, "node index 99 out of range"},
		{"no ports", func(f *Subnet) { f.Nodes[0].Ports = nil }, "has no ports"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := small2L(t)
			tc.mut(f)
			_, err := New(f)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want %q", err, tc.msg)
			}
		})
	}
}

func TestLIDConflictsAndUnlinkedAreSkipped(t *testing.T) {
	f := small2L(t)
	f.Nodes[node(t, f, "node00002 mlx5_0")].Ports[1].LID = 1 // duplicate of host 1
	removeLink(t, f, node(t, f, "node00016 mlx5_0"), 1)
	g, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	if c := g.LIDConflicts(); len(c) != 1 || c[0].LID != 1 || len(c[0].Ports) != 2 {
		t.Errorf("conflicts %+v", c)
	}
	r := g.Analyze(Options{})
	want := []SkippedLID{{1, "LID claimed by more than one port"}, {16, "owner port has no link"}}
	if !reflect.DeepEqual(r.Skipped, want) {
		t.Errorf("skipped %+v", r.Skipped)
	}
	// LID 2 is now unowned and LID 16 unreachable by cabling: neither is a
	// routing finding (duplicate_lid and link_down report them).
	if fs := r.Findings(); len(fs) != 0 {
		t.Errorf("findings %v", ids(fs))
	}
}

// TestRouteMissingSeverity: a break that loses CA pairs is critical, one
// that loses only host-to-switch (management) pairs a warning, one that
// only cuts switch-to-switch routes (as updn and ftree do by design) info.
func TestRouteMissingSeverity(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sw     string
		lid    int
		sev    finding.Severity
		mgmt   int64
		suffix string
	}{
		// Leaves send even LIDs, leaf2's LID 18 among them, up to spine1.
		{"CA pairs", "spine1", 6, finding.Critical, 0, "12 CA pairs in all"},
		{"management only", "spine1", 18, finding.Warning, 12, "12 CA-to-switch pairs are lost: LID-routed management from those hosts to the switches (perfquery, ibqueryerrors) fails"},
		// Only spine2 itself uses its entry for lid 18.
		{"switch to switch only", "spine2", 18, finding.Info, 0, "cannot reach those switches"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := small2L(t)
			f.Nodes[node(t, f, tc.sw)].LFT[tc.lid] = NoRoute
			r := analyze(t, f)
			fs := r.Findings()
			if len(fs) != 1 || fs[0].ID != "fabric.route_missing" || fs[0].Severity != tc.sev || !strings.HasSuffix(fs[0].Summary, tc.suffix) {
				t.Fatalf("findings %+v", fs)
			}
			if r.Breaks[0].ManagementPairs != tc.mgmt {
				t.Errorf("management pairs %d, want %d", r.Breaks[0].ManagementPairs, tc.mgmt)
			}
		})
	}
}

// TestBreaksGroupedByCause: the same destination missing on every spine is
// one finding naming the tier, the destinations and the switches, not one
// per spine; the same break on one spine only stays a finding of its own;
// management breaks on several switches are one finding; and the sample
// pair of a critical finding goes to Options.Confirm.
func TestBreaksGroupedByCause(t *testing.T) {
	for _, tc := range []struct {
		name     string
		breaks   map[string][]int
		want     []string // "severity subject"
		contains string
	}{
		// Leaves send even LIDs up to spine1, odd ones to spine2.
		{"every spine", map[string][]int{"spine1": {6, 7}, "spine2": {6, 7}},
			[]string{"critical 2 tier-2 switches"}, "no tier-2 switch routes to 2 CA ports behind leaf2 (node00006 mlx5_0 (lid 6), node00007 mlx5_0 (lid 7)): all 2 (spine1, spine2) have no forwarding entry for them"},
		{"one spine", map[string][]int{"spine1": {6}},
			[]string{"critical spine1"}, "spine1 has no forwarding entry"},
		{"different destinations", map[string][]int{"spine1": {6, 7}, "spine2": {7}},
			[]string{"critical spine1", "critical spine2"}, "spine1 has no forwarding entry"},
		// One switch loses a host and a switch LID: the host is the
		// critical finding, the switch LID goes to the management routes.
		{"host and switch LID", map[string][]int{"spine1": {6, 18}},
			[]string{"critical spine1", "warning " + ManagementSubject}, "spine1 has no forwarding entry for 1 destination LID (node00006 mlx5_0 (lid 6))"},
		{"management on two switches", map[string][]int{"spine1": {18}, "spine2": {18}},
			[]string{"warning " + ManagementSubject}, "management routes: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := small2L(t)
			for sw, lids := range tc.breaks {
				for _, l := range lids {
					f.Nodes[node(t, f, sw)].LFT[l] = NoRoute
				}
			}
			g, err := New(f)
			if err != nil {
				t.Fatal(err)
			}
			var samples []Sample
			r := g.Analyze(Options{Confirm: func(s Sample) Confirmation {
				samples = append(samples, s)
				return Confirmation{Confirmed: true, Note: "confirmed by ibtracert", Evidence: "lid entry is 255"}
			}})
			fs := r.Findings()
			var got []string
			crit := 0
			for _, x := range fs {
				got = append(got, string(x.Severity)+" "+x.Subject.NodeDesc)
				if x.Severity == finding.Critical {
					crit++
					if !strings.HasSuffix(x.Summary, " — confirmed by ibtracert") {
						t.Errorf("critical finding without the confirmation: %s", x.Summary)
					}
				}
			}
			slices.Sort(got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("findings %q, want %q", got, tc.want)
			}
			if !strings.Contains(fs[0].Summary, tc.contains) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tc.contains)
			}
			if len(samples) != crit {
				t.Errorf("%d samples confirmed for %d critical findings", len(samples), crit)
			}
			for _, s := range samples {
				if _, ok := g.Owner(s.SrcLID); !ok || s.DstLID == 0 {
					t.Errorf("sample %+v: source LID not owned", s)
				}
				if _, err := g.Path(s.SrcLID, s.DstLID); err == nil {
					t.Errorf("sample %+v routes fine", s)
				}
			}
		})
	}
}

func TestNaturalCompare(t *testing.T) {
	names := []string{"spine10", "leaf2", "spine2", "spine1", "leaf10", "leaf02x", "leaf", "spine"}
	slices.SortFunc(names, naturalCompare)
	want := []string{"leaf", "leaf2", "leaf02x", "leaf10", "spine", "spine1", "spine2", "spine10"}
	if !slices.Equal(names, want) {
		t.Errorf("%q, want %q", names, want)
	}
}

// TestDeadPortsAreSeparateBreaks: one switch with two dead ports gives one
// break per port, each naming its port.
func TestDeadPortsAreSeparateBreaks(t *testing.T) {
	f := small2L(t)
	spine2 := node(t, f, "spine2")
	removeLink(t, f, spine2, 2)
	removeLink(t, f, spine2, 3)
	r := analyze(t, f)
	var ports []int
	for _, b := range r.Breaks {
		if b.Node == spine2 {
			if b.Kind != DeadPort {
				t.Errorf("break %+v", b)
			}
			ports = append(ports, b.Port)
		}
	}
	if !slices.Equal(ports, []int{2, 3}) {
		t.Errorf("spine2 dead ports %v, want [2 3]", ports)
	}
}

// TestOptionLimits: the all-pairs distance matrix is skipped above
// MaxMinHopSwitches (and says so), and credit loops are capped.
func TestOptionLimits(t *testing.T) {
	f := small2L(t)
	f.Nodes[node(t, f, "spine1")].LFT[6] = 3
	f.Nodes[node(t, f, "leaf3")].LFT[6] = 6
	r, err := Analyze(f, Options{MaxMinHopSwitches: 5}) // 6 switches
	if err != nil {
		t.Fatal(err)
	}
	if r.MinHopChecked || r.NonMinimalRoutes != 0 || len(r.Detours) != 0 {
		t.Errorf("min-hop checked %v with %d switches over the limit", r.MinHopChecked, r.Switches)
	}
	// A ring of five routed min-hop has two credit loops, one per
	// direction (every two-hop route is unique).
	ring := &Subnet{}
	for i := range 5 {
		ring.AddSwitch(uint64(0x100+i), fmt.Sprintf("ring%d", i), 3, uint16(10+i))
	}
	for i := range 5 {
		c := ring.AddCA(uint64(0x200+2*i), fmt.Sprintf("host%d", i), 1)
		ring.Nodes[c].Ports[1].LID = uint16(1 + i)
		ring.Connect(i, 3, c, 1)
		ring.Connect(i, 1, (i+1)%5, 2)
	}
	if err := ring.routeMinHop(nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ max, want int }{{0, 2}, {1, 1}} {
		r, err := Analyze(ring, Options{MaxCreditLoops: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.CreditLoops) != tc.want || r.CreditLoops[0].Channels != 5 {
			t.Errorf("MaxCreditLoops %d: %+v, want %d loops of 5 channels", tc.max, r.CreditLoops, tc.want)
		}
	}
}
