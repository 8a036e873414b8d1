package routing

import (
	"errors"
	"testing"
)

// fabricFromBytes decodes a small arbitrary fabric: 1-6 switches of 4
// ports, 0-7 single-port CAs, links between free ports, LIDs (some with LMC
// 1, some duplicated) and LFT entries that may be missing, out of range,
// loop or point anywhere.
func fabricFromBytes(data []byte) *Subnet {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	f := &Subnet{}
	nS, nC := 1+int(next())%6, int(next())%8
	lid := uint16(1)
	for i := range nS {
		f.AddSwitch(uint64(0x100+i), "", 4, lid)
		lid++
	}
	for i := range nC {
		c := f.AddCA(uint64(0x200+2*i), "", 1)
		b := next()
		p := &f.Nodes[c].Ports[1]
		switch {
		case b%11 == 0 && lid > 1:
			p.LID = lid - 1 // duplicate
		case b%7 == 0:
			p.LID, p.LMC = lid, 1
			lid += 2
		default:
			p.LID = lid
			lid++
		}
	}
	used := map[PortRef]bool{}
	nodes := len(f.Nodes)
	for range int(next()) % 16 {
		a := PortRef{int(next()) % nodes, 1 + int(next())%4}
		b := PortRef{int(next()) % nodes, 1 + int(next())%4}
		if a.Port > f.Nodes[a.Node].NumPorts() || b.Port > f.Nodes[b.Node].NumPorts() || a == b || used[a] || used[b] {
			continue
		}
		used[a], used[b] = true, true
		f.Connect(a.Node, a.Port, b.Node, b.Port)
	}
	for s := range nS {
		if next()%13 == 0 {
			continue // no table
		}
		for l := range lid {
			f.SetRoute(s, l, []uint8{0, 1, 2, 3, 4, NoRoute, 9}[next()%7])
		}
	}
	return f
}

// FuzzAnalyze checks the analysis on arbitrary small fabrics against a
// plain per-pair walk with Path: no panic, the routed pair count and the
// per-link loads equal what tracing every pair finds, lost pairs add up to
// the breaks, and every traced path follows real links.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte{2, 4, 1, 2, 3, 8, 0, 1, 2, 1, 0, 2, 1, 1, 1, 3, 3, 1, 4, 4, 1, 1, 2, 2})
	f.Add([]byte{4, 7, 0, 7, 11, 5, 6, 7, 15, 0, 1, 1, 2, 1, 2, 2, 3, 2, 3, 3, 0, 4, 1, 5, 1, 6, 1, 7, 2, 8, 2, 9, 3, 10, 3})
	f.Add([]byte{0, 0})
	f.Add([]byte{5, 3, 1, 1, 1, 15, 0, 1, 1, 2, 1, 2, 2, 3, 2, 3, 3, 4, 3, 4, 4, 0, 4, 1, 5, 1, 6, 1, 7, 1, 13, 26})
	f.Fuzz(func(t *testing.T, data []byte) {
		fab := fabricFromBytes(data)
		g, err := New(fab)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error not ErrInvalid: %v", err)
			}
			return
		}
		r := g.Analyze(Options{})
		_ = r.Findings()

		// Trace every CA-port → CA-LID pair the analysis counts.
		var pairs, routed, linkSum int64
		want := map[[2]int32]int64{} // directed link (flat ports) → routes
		for s := range g.caAt {
			for _, src := range g.caAt[s] {
				for lid := 1; lid <= g.maxLID; lid++ {
					o := g.owner[lid]
					if o.node < 0 || fab.Nodes[o.node].Type != CA {
						continue
					}
					dp := g.base[o.node] + o.port
					if dp == src || g.peer[dp] < 0 || g.sw[g.portNode[g.peer[dp]]] < 0 {
						continue
					}
					pairs++
					route, err := g.pathFromSwitch(src, uint16(lid))
					if err != nil {
						continue
					}
					routed++
					for i := 0; i+1 < len(route.Hops); i++ {
						a, b := route.Hops[i], route.Hops[i+1]
						pa := g.base[a.Node] + int32(a.OutPort)
						if g.peer[pa] != g.base[b.Node]+int32(b.InPort) {
							t.Fatalf("path %v: hop %d→%d does not follow a link", route.Hops, i, i+1)
						}
						want[[2]int32{pa, g.peer[pa]}]++
						linkSum++
					}
				}
			}
		}
		if pairs != r.Pairs || routed != r.RoutedPairs {
			t.Fatalf("pairs %d routed %d, analysis %d/%d", pairs, routed, r.Pairs, r.RoutedPairs)
		}
		var lost, loadSum int64
		for _, b := range r.Breaks {
			lost += b.Pairs
			if b.LIDs > r.LIDs || len(b.Examples) == 0 {
				t.Fatalf("break %+v of %d LIDs", b, r.LIDs)
			}
		}
		if lost != r.Pairs-r.RoutedPairs {
			t.Fatalf("breaks lose %d pairs, analysis %d", lost, r.Pairs-r.RoutedPairs)
		}
		for _, l := range r.Loads {
			from := g.base[l.From.Node] + int32(l.From.Port)
			to := g.base[l.To.Node] + int32(l.To.Port)
			if l.Routes != want[[2]int32{from, to}] {
				t.Fatalf("load %v→%v = %d, traced %d", l.From, l.To, l.Routes, want[[2]int32{from, to}])
			}
			loadSum += l.Routes
		}
		if loadSum != linkSum {
			t.Fatalf("loads sum %d, traced links %d", loadSum, linkSum)
		}
		for _, cl := range r.CreditLoops {
			for i, c := range cl.Cycle {
				if p, ok := g.Peer(c.From); !ok || p != c.To {
					t.Fatalf("credit loop channel %v is not a link", c)
				}
				next := cl.Cycle[(i+1)%len(cl.Cycle)]
				if next.From.Node != c.To.Node {
					t.Fatalf("credit loop %v: channel %d does not lead into channel %d", cl.Cycle, i, i+1)
				}
			}
		}
	})
}

// pathFromSwitch traces from CA port src to lid as Path does, without
// needing src to own a LID of its own.
func (g *Graph) pathFromSwitch(src int32, lid uint16) (*Route, error) {
	ref, sw := g.ref(src), g.ref(g.peer[src])
	do, _ := g.Owner(lid)
	r := &Route{Dst: lid, Hops: []Hop{{Node: ref.Node, OutPort: ref.Port}}}
	return r, g.trace(r, sw.Node, sw.Port, do, func(k BreakKind, node, port int) error {
		return &PathError{Kind: k, Node: node, Port: port}
	})
}
