package hub

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
	"github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

func hostTargets(names ...string) []Target {
	var ts []Target
	for i, n := range names {
		addr := "127.0.0.1:" + string(rune('1'+i)) + "9315"
		ts = append(ts, Target{Name: n, Base: "http://" + addr, Addr: addr})
	}
	return ts
}

// TestFabricFromCollection loads a saved spine-leaf collection (two
// spines, two leaves, h1-h4; spine1-leaf2 trained at 1X) and checks the
// page's tiers, hosts per leaf, links and the fleet's groups.
func TestFabricFromCollection(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	st, err := hubstore.Open(filepath.Join(t.TempDir(), "hub.db"), hubstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := newHub(t, c, Options{Store: st, Targets: hostTargets("h1", "h2", "h3", "h4", "gpu9")})
	if _, err := h.Data().Fabric(ctx); !errors.Is(err, web.ErrNotFound) {
		t.Fatalf("fabric before any: %v", err)
	}
	if err := h.LoadFabric(ctx, "../../rules/fabric/testdata/spineleaf"); err != nil {
		t.Fatal(err)
	}
	f, err := h.Data().Fabric(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tiers) != 2 || len(f.Tiers[0]) != 2 || len(f.Tiers[1]) != 2 || f.Tiers[0][0].Name != "leaf1" || f.Tiers[1][0].Name != "spine1" {
		t.Fatalf("tiers %+v", f.Tiers)
	}
	var leafHosts []string
	for _, hl := range f.Tiers[0][0].Hosts {
		leafHosts = append(leafHosts, hl.Host)
	}
	if strings.Join(leafHosts, ",") != "h1,h2" {
		t.Errorf("leaf1 hosts %v", leafHosts)
	}
	if len(f.Links) != 4 {
		t.Fatalf("%d switch links, want 4", len(f.Links))
	}
	narrow := 0
	for _, l := range f.Links {
		if l.Width == "" || l.Speed == "" || !strings.HasPrefix(l.A.ID, "0x") {
			t.Errorf("link %s lacks width, speed or IDs: %+v", l.ID, l)
		}
		if l.Degraded {
			narrow++
			if l.Width != "1X" || l.Health == web.OK {
				t.Errorf("degraded link %s: width %s, health %s", l.ID, l.Width, l.Health)
			}
		}
	}
	if narrow != 1 {
		t.Errorf("%d degraded links, want the 1X one", narrow)
	}
	if len(f.Findings) == 0 {
		t.Error("no fabric findings")
	}
	fl, _ := h.Data().Fleet(ctx)
	if strings.Join(fl.Groups, ",") != "leaf1,leaf2" {
		t.Errorf("groups %v", fl.Groups)
	}
	for _, n := range fl.Nodes {
		want := map[string]string{"h1": "leaf1", "h2": "leaf1", "h3": "leaf2", "h4": "leaf2"}[n.Host]
		if n.Group != want {
			t.Errorf("%s in group %q, want %q", n.Host, n.Group, want)
		}
	}
	// A new hub on the same store shows the stored fabric.
	h2 := newHub(t, c, Options{Store: st, Targets: hostTargets("h1")})
	if err := h2.RestoreFabric(ctx); err != nil {
		t.Fatal(err)
	}
	f2, err := h2.Data().Fabric(ctx)
	if err != nil || len(f2.Links) != 4 {
		t.Fatalf("restored fabric: %d links, %v", len(f2.Links), err)
	}
	if n, _ := h2.Data().Fleet(ctx); n.Nodes[0].Group != "leaf1" {
		t.Errorf("restored groups: %+v", n.Nodes[0])
	}
}

// TestFabricRouteLoadAndErrors loads a 24-switch collection with
// forwarding tables and symbol errors on leaf3[1]: links carry route
// loads, and a later collection gives error rates.
func TestFabricRouteLoadAndErrors(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	h := newHub(t, c, Options{})
	if err := h.LoadFabric(ctx, "../../cli/fabric/testdata/manyswitches.tar.gz"); err != nil {
		t.Fatal(err)
	}
	f, _ := h.Data().Fabric(ctx)
	loaded := 0
	for _, l := range f.Links {
		if l.LoadAB > 0 && l.LoadBA > 0 {
			loaded++
		}
	}
	if loaded < len(f.Links)/2 {
		t.Errorf("only %d of %d links carry routes both ways", loaded, len(f.Links))
	}
	var h9 web.Health
	for _, sw := range f.Tiers[0] {
		for _, hl := range sw.Hosts {
			if hl.Host == "h9" {
				h9 = hl.Health
			}
		}
	}
	if h9 != web.Warning {
		t.Errorf("h9's cable with symbol errors is %q", h9)
	}
	// Error rate: the same collection 60 s later with 120 more symbol
	// errors on one end of a switch link.
	raw, err := fabric.ReadFrom("../../cli/fabric/testdata/manyswitches.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	m := fabricrules.Build(raw)
	first := buildFabric(m, nil, nil, nil)
	var end fabricrules.End
	for _, l := range m.Links {
		if m.Nodes[l.A.Node].Type == ibdiags.Switch && m.Nodes[l.B.Node].Type == ibdiags.Switch {
			end = l.A
			break
		}
	}
	p := m.PortOf(end)
	if p == nil {
		t.Fatal("no switch link end")
	}
	if p.Counters == nil {
		p.Counters = map[string]uint64{}
	}
	p.Counters["SymbolErrorCounter"] += 120
	m.Taken = m.Taken.Add(time.Minute)
	second := buildFabric(m, nil, nil, first)
	rated := 0
	for _, l := range second.view.Links {
		switch {
		case l.ErrorRate == 2:
			rated++
		case l.ErrorRate != 0:
			t.Errorf("link %s: error rate %v with unchanged counters", l.ID, l.ErrorRate)
		}
	}
	if rated != 1 {
		t.Errorf("%d links at 2 errors/s, want 1", rated)
	}
}
