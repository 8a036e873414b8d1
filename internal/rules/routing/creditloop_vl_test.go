package routing

import "testing"

// ringPaths lists every CA-to-CA path of ring4 (LIDs 1-4), with SL 0
// except the ones sl gives.
func ringPaths(sl map[[2]uint16]uint8) []PathSL {
	var ps []PathSL
	for s := uint16(1); s <= 4; s++ {
		for d := uint16(1); d <= 4; d++ {
			if s != d {
				ps = append(ps, PathSL{Src: s, Dst: d, SL: sl[[2]uint16{s, d}]})
			}
		}
	}
	return ps
}

// identity maps SL n to VL n everywhere except the overrides: node name →
// in,out → SL → VL.
func vlTable(f *Subnet, over map[string]map[[2]int]map[int]uint8) VLTable {
	return func(node, in, out int) ([16]uint8, bool) {
		var t [16]uint8
		for i := range t {
			t[i] = uint8(i)
		}
		for sl, vl := range over[f.Nodes[node].Desc][[2]int{in, out}] {
			t[sl] = vl
		}
		return t, true
	}
}

func TestCreditLoopsVL(t *testing.T) {
	// In ring4 with every two-hop route clockwise, the route host0→host2
	// holds ring0→ring1 and waits for ring1→ring2; host1→host3, host2→host0
	// and host3→host1 close the cycle.
	onSL1 := map[[2]uint16]uint8{{1, 3}: 1} // host0 (lid 1) → host2 (lid 3)
	cases := []struct {
		name  string
		sl    map[[2]uint16]uint8
		over  map[string]map[[2]int]map[int]uint8
		loops int
		vls   []int
	}{
		{"one SL: the one-VL cycle", nil, nil, 1, []int{0}},
		{"host0→host2 on its own VL: no loop", onSL1, nil, 0, []int{0, 1}},
		{"a switch maps it back to VL 0 before the shared link: loop", onSL1,
			map[string]map[[2]int]map[int]uint8{
				"ring0": {{3, 1}: {1: 0}}, // ring0 sends SL 1 from its CA on VL 0
				"ring1": {{2, 1}: {1: 0}}, // and ring1 keeps it there
			}, 1, []int{0, 1}}, // VL 1 only on the CA link
		{"VL changes mid-route but the cycle stays broken", onSL1,
			map[string]map[[2]int]map[int]uint8{
				"ring1": {{2, 1}: {1: 0}}, // VL 1 on ring0→ring1, VL 0 after
			}, 0, []int{0, 1}},
		{"every route on one other SL: loop on that VL", map[[2]uint16]uint8{{1, 3}: 2, {2, 4}: 2, {3, 1}: 2, {4, 2}: 2}, nil, 1, []int{0, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := ring4(t, [4]bool{true, true, true, true})
			g, err := New(f)
			if err != nil {
				t.Fatal(err)
			}
			res := CreditLoopsVL(g, ringPaths(tc.sl), vlTable(f, tc.over), 10)
			if len(res.Loops) != tc.loops {
				t.Fatalf("loops %+v, want %d", res.Loops, tc.loops)
			}
			if res.Routes != 12 || res.Broken != 0 || res.UnknownHops != 0 {
				t.Errorf("routes %d broken %d unknown %d", res.Routes, res.Broken, res.UnknownHops)
			}
			if !slicesEqual(res.VLs, tc.vls) {
				t.Errorf("VLs %v, want %v", res.VLs, tc.vls)
			}
			for _, l := range res.Loops {
				if len(l.Cycle) != 4 || l.Switches != 4 {
					t.Errorf("cycle %+v switches %d", l.Cycle, l.Switches)
				}
				for _, c := range l.Cycle {
					if c.VL != l.Cycle[0].VL {
						t.Errorf("cycle mixes VLs: %+v", l.Cycle)
					}
				}
			}
		})
	}
	t.Run("unknown tables keep the SL as VL", func(t *testing.T) {
		f := ring4(t, [4]bool{true, true, true, true})
		g, _ := New(f)
		res := CreditLoopsVL(g, ringPaths(onSL1), func(int, int, int) ([16]uint8, bool) { return [16]uint8{}, false }, 10)
		if len(res.Loops) != 0 || res.UnknownHops == 0 {
			t.Fatalf("loops %d unknown hops %d", len(res.Loops), res.UnknownHops)
		}
	})
	t.Run("counter-clockwise half: no loop on any VL", func(t *testing.T) {
		f := ring4(t, [4]bool{true, false, true, false})
		g, _ := New(f)
		res := CreditLoopsVL(g, ringPaths(nil), vlTable(f, nil), 10)
		if len(res.Loops) != 0 {
			t.Fatalf("loops %+v", res.Loops)
		}
	})
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
