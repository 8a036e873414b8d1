package web

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// bigFleet is n nodes with ports ports each, one in 50 critical, one in
// 20 warning, one in 100 unreachable, on leaves of 32.
func bigFleet(n, ports int) *fixture {
	f := newFixture()
	f.fleet = Fleet{Generated: t0, FindingIDs: []string{"node.port_down", "node.symbol_errors"}}
	for i := range n {
		row := NodeRow{Host: fmt.Sprintf("gpu%04d", i), Group: fmt.Sprintf("leaf%02d", i/32), Health: OK, LastSeen: t0}
		for p := range ports {
			row.Ports = append(row.Ports, PortCell{Name: fmt.Sprintf("mlx5_%d/1", p), Health: OK, State: "ACTIVE", Rate: "400 Gb/s"})
		}
		switch {
		case i%100 == 7:
			row.Health, row.Ports, row.Error = Unreachable, nil, "context deadline exceeded"
		case i%50 == 3:
			row.Health, row.Ports[1].Health, row.Ports[1].State = Critical, Critical, "DOWN"
			row.FindingIDs = []string{"node.port_down"}
		case i%20 == 5:
			row.Health, row.Ports[2].Health = Warning, Warning
			row.FindingIDs = []string{"node.symbol_errors"}
		}
		f.fleet.Nodes = append(f.fleet.Nodes, row)
	}
	for g := 0; g*32 < n; g++ {
		f.fleet.Groups = append(f.fleet.Groups, fmt.Sprintf("leaf%02d", g))
	}
	return f
}

// fatTree is a two-tier fat tree: hosts/perLeaf leaves, each cabled to
// every one of spines spines, some links degraded or erroring.
func fatTree(hosts, perLeaf, spines int) Fabric {
	fab := Fabric{Taken: t0, Source: "bench"}
	var leaves, tops []Switch
	for s := range spines {
		tops = append(tops, Switch{ID: fmt.Sprintf("0x%016x", 0x1000+s), Name: fmt.Sprintf("spine%02d", s), Health: OK})
	}
	for l := 0; l*perLeaf < hosts; l++ {
		sw := Switch{ID: fmt.Sprintf("0x%016x", 0x2000+l), Name: fmt.Sprintf("leaf%02d", l), Health: OK}
		for h := l * perLeaf; h < min(hosts, (l+1)*perLeaf); h++ {
			hh := OK
			if h%50 == 3 {
				hh = Critical
			}
			sw.Hosts = append(sw.Hosts, HostLink{Host: fmt.Sprintf("gpu%04d", h), Port: "mlx5_0/1", Health: hh})
		}
		leaves = append(leaves, sw)
		for s, sp := range tops {
			ln := Link{ID: fmt.Sprintf("%s/%d-%s/%d", sp.ID, l+1, sw.ID, perLeaf+s+1),
				A: LinkEnd{ID: sp.ID, Name: sp.Name, Port: l + 1}, B: LinkEnd{ID: sw.ID, Name: sw.Name, Port: perLeaf + s + 1},
				Health: OK, State: "Active", Width: "4X", Speed: "NDR", LoadAB: 100 + (l*s)%300, LoadBA: 90}
			if (l+s)%97 == 0 {
				ln.Health, ln.Degraded, ln.Width = Warning, true, "1X"
			}
			if (l*7+s)%131 == 0 {
				ln.Health, ln.ErrorRate = Critical, 42
			}
			fab.Links = append(fab.Links, ln)
		}
	}
	fab.Tiers = [][]Switch{leaves, tops}
	return fab
}

func BenchmarkFleetPage2000x8(b *testing.B) {
	h := Handler(bigFleet(2000, 8), Options{Now: func() time.Time { return t0 }})
	b.ReportAllocs()
	var size int
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size)/1e6, "MB/page")
}

func BenchmarkFabricPage2000Hosts(b *testing.B) {
	f := newFixture()
	fab := fatTree(2000, 32, 32)
	f.fabric = &fab
	h := Handler(f, Options{Now: func() time.Time { return t0 }})
	b.ReportAllocs()
	var size int
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/fabric", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size)/1e6, "MB/page")
}

// The big pages stay well-formed and complete: every node and every
// link is on them.
func TestBigPages(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 2,000 nodes")
	}
	h := Handler(bigFleet(2000, 8), Options{})
	code, body, _ := get(t, h, "GET", "/")
	if code != 200 {
		t.Fatal(code)
	}
	if _, err := scan(body); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{">gpu0000<", ">gpu1999<", "2000 of 2000 nodes", "✖ critical <b>40</b>", "⊘ unreachable <b>20</b>"} {
		if !contains(body, s) {
			t.Errorf("fleet page: no %q", s)
		}
	}
	_, body, _ = get(t, h, "GET", "/?view=map")
	if _, err := scan(body); err != nil {
		t.Fatal(err)
	}
	if n := count0(body, `<a class="tile `); n != 2000 {
		t.Errorf("map view: %d tiles for 2000 nodes", n)
	}
	f := newFixture()
	fab := fatTree(2000, 32, 32)
	f.fabric = &fab
	code, body, _ = get(t, Handler(f, Options{}), "GET", "/fabric")
	if code != 200 {
		t.Fatal(code)
	}
	if _, err := scan(body); err != nil {
		t.Fatal(err)
	}
	if n := count0(body, "<a href=\"/fabric/links/"); n < len(fab.Links) {
		t.Errorf("fabric page links %d of %d cables", n, len(fab.Links))
	}
	// Healthy links are faint and drawn first; the ones that need a look
	// come after, over them.
	lastFaint := strings.LastIndex(body, `stroke-opacity="0.35"`)
	firstBad := strings.Index(body, `stroke="`+Looks[Critical].Fg+`" stroke-width="`)
	if lastFaint < 0 || firstBad < 0 || firstBad < lastFaint {
		t.Errorf("fabric page: last faint link at %d, first critical one at %d", lastFaint, firstBad)
	}
	if n := count0(body, " hosts "); n < 63 {
		t.Errorf("fabric page: %d host boxes for 63 leaves", n)
	}
}
