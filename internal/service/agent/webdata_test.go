package agent

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/store"
)

func TestNoteCleared(t *testing.T) {
	f := func(id, dev string) finding.Finding {
		return finding.Finding{ID: id, Severity: finding.Warning, Subject: finding.Subject{Device: dev, Port: 1}}
	}
	a, b := f("port.symbol_errors", "mlx5_0"), f("port.link_flapping", "mlx5_1")
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	for _, c := range []struct {
		name    string
		active  []finding.Finding
		before  []Cleared
		now     []finding.Finding
		taken   time.Time
		want    []string
		wantLen int
	}{
		{"one of two clears", []finding.Finding{a, b}, nil, []finding.Finding{a}, at(10),
			[]string{"port.link_flapping 12:01 12:10"}, 1},
		{"nothing clears", []finding.Finding{a}, nil, []finding.Finding{a, b}, at(10), nil, 0},
		{"a day old is forgotten", []finding.Finding{a}, []Cleared{{Finding: b, FirstSeen: at(-2000), Cleared: at(-1500)}, {Finding: b, FirstSeen: at(-60), Cleared: at(-30)}}, nil, at(10),
			[]string{"port.link_flapping 11:00 11:30", "port.symbol_errors 12:01 12:10"}, 2},
		{"at most MaxCleared", nil, make([]Cleared, MaxCleared+5), nil, time.Time{}, nil, MaxCleared},
	} {
		ag := &Agent{active: map[string]finding.Finding{}, firstSeen: map[string]time.Time{}, cleared: c.before}
		for _, x := range c.active {
			ag.active[key(x)] = x
			ag.firstSeen[key(x)] = at(1)
		}
		ag.noteCleared(c.now, c.taken)
		if len(ag.cleared) != c.wantLen {
			t.Errorf("%s: %d cleared, want %d", c.name, len(ag.cleared), c.wantLen)
			continue
		}
		for i, w := range c.want {
			cl := ag.cleared[i]
			if g := fmt.Sprintf("%s %s %s", cl.Finding.ID, cl.FirstSeen.Format("15:04"), cl.Cleared.Format("15:04")); g != w {
				t.Errorf("%s: cleared[%d] = %s, want %s", c.name, i, g, w)
			}
		}
	}
}

// webView is a view of one node with two ports: a finding active on
// port 2 of mlx5_0, one cleared, and three samples 10 s apart in which
// mlx5_0/1 receives 1000 words and counts 5 symbol errors per interval.
func webView() *View {
	active, down := ib.StateActive, ib.PortState(1)
	rate := ib.NewRate(4, ib.SpeedNDR)
	snap := &snapshot.Snapshot{Host: "gpu7", Taken: t0.Add(20 * time.Second), Devices: []snapshot.Device{{Name: "mlx5_0", NodeGUID: "0x0002c90300aa0001", PCI: "0000:17:00.0",
		Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &active, Rate: &rate,
			GIDs: []snapshot.GIDEntry{{GID: ib.GID{0xfe, 0x80, 8: 0x00, 0x02, 0xc9, 0x03, 0x00, 0xaa, 0x00, 0x11}}}},
			{Device: "mlx5_0", Number: 2, LinkLayer: ib.LinkLayerInfiniBand, State: &down}}}}}
	gen5, x16 := pcie.Speed(320), 16
	snap.PCI = []snapshot.PCIDevice{{Address: "0000:17:00.0", CurrentLinkSpeed: &gen5, MaxLinkSpeed: &gen5, CurrentLinkWidth: &x16, MaxLinkWidth: &x16}}
	var hist []trend.Sample
	for i := range 3 {
		hist = append(hist, trend.Sample{T: t0.Add(time.Duration(i*10) * time.Second), Ports: []trend.Port{{Device: "mlx5_0", Port: 1, State: "ACTIVE", Readings: []trend.Reading{
			{Source: trend.SrcCounters, Name: "port_rcv_data", Value: uint64(1000 * i), Bits: 64, Unit: ib.UnitWords4},
			{Source: trend.SrcCounters, Name: "symbol_error", Value: uint64(5 * i), Bits: 16, Saturating: true, Unit: ib.UnitErrors},
		}}}})
	}
	fa := finding.Finding{ID: "port.state_down", Severity: finding.Critical, Subject: finding.Subject{Host: "gpu7", Device: "mlx5_0", Port: 2}, Summary: "port 2 is DOWN"}
	fc := finding.Finding{ID: "port.link_flapping", Severity: finding.Warning, Subject: finding.Subject{Host: "gpu7", Device: "mlx5_0", Port: 1}}
	return &View{Active: []store.Active{{Finding: fa, FirstSeen: t0}},
		Cleared: []Cleared{{Finding: fc, FirstSeen: t0.Add(-time.Hour), Cleared: t0.Add(-time.Minute)}},
		Sample:  hist[2], History: hist, Interval: 10 * time.Second,
		State: metrics.State{Snapshot: snap}}
}

func TestWebData(t *testing.T) {
	ctx := context.Background()
	a := &Agent{}
	d := a.WebData()
	if f, err := d.Fleet(ctx); err != nil || len(f.Nodes) != 0 {
		t.Errorf("fleet before a sample: %+v %v", f, err)
	}
	if _, err := d.Node(ctx, "gpu7"); !errors.Is(err, web.ErrNotFound) {
		t.Errorf("node before a sample: %v", err)
	}
	a.view.Store(webView())
	f, err := d.Fleet(ctx)
	if err != nil || len(f.Nodes) != 1 {
		t.Fatalf("fleet: %+v %v", f, err)
	}
	row := f.Nodes[0]
	if g := fmt.Sprintf("%s %s %v %v", row.Host, row.Health, row.FindingIDs, row.Ports); g !=
		"gpu7 critical [port.state_down] [{mlx5_0/1 ok ACTIVE 400 Gb/s 4X NDR} {mlx5_0/2 critical DOWN ?}]" {
		t.Errorf("fleet row: %s", g)
	}
	n, err := d.Node(ctx, "gpu7")
	if err != nil {
		t.Fatal(err)
	}
	// Port 1's GUID is its own (GID 0); port 2 read no GID: its node GUID.
	if g := fmt.Sprintf("%s %s %s %s %s %s", n.Ports[0].Width, n.Ports[0].PCI, n.Ports[0].GUID, n.Ports[1].GUID, n.Ports[1].Health, n.Ports[0].Rate); g !=
		"4X 0000:17:00.0 Gen5 x16 0x0002c90300aa0011 0x0002c90300aa0001 critical 400 Gb/s 4X NDR" {
		t.Errorf("ports: %s", g)
	}
	if len(n.Findings) != 2 || !n.Findings[0].Closed.IsZero() || !n.Findings[1].Closed.Equal(t0.Add(-time.Minute)) {
		t.Errorf("findings: %+v", n.Findings)
	}
	var got []string
	for _, s := range n.Series {
		got = append(got, fmt.Sprintf("%s %s %v", s.Name, s.Unit, s.Points))
	}
	// 1000 4-octet words in 10 s = 400 bytes/s; 5 symbol errors = 0.5/s.
	want := fmt.Sprint([]string{
		fmt.Sprintf("mlx5_0/1 receive bytes/s [{%v 400} {%v 400}]", t0.Add(10*time.Second), t0.Add(20*time.Second)),
		fmt.Sprintf("mlx5_0/1 errors errors/s [{%v 0.5} {%v 0.5}]", t0.Add(10*time.Second), t0.Add(20*time.Second)),
	})
	if fmt.Sprint(got) != want {
		t.Errorf("series:\n%v\nwant\n%v", got, want)
	}
	if _, err := d.Node(ctx, "other"); !errors.Is(err, web.ErrNotFound) {
		t.Errorf("other host: %v", err)
	}
	if _, err := d.Fabric(ctx); !errors.Is(err, web.ErrNotFound) {
		t.Errorf("fabric: %v", err)
	}
	for _, c := range []struct {
		since time.Time
		host  string
		n     int
	}{{t0.Add(-2 * time.Hour), "", 2}, {t0.Add(-30 * time.Second), "", 1}, {t0.Add(-2 * time.Hour), "gpu7", 2}, {t0.Add(-2 * time.Hour), "other", 0}} {
		tl, err := d.Timeline(ctx, c.since, c.host)
		if err != nil || len(tl.Events) != c.n {
			t.Errorf("timeline since %s host %q: %d events, want %d (%v)", c.since, c.host, len(tl.Events), c.n, err)
		}
	}
}
