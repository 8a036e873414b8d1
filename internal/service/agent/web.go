package agent

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
)

// WebData is the agent's own state as the web pages read it: a fleet of
// one node, its page from the last sample and the active findings with
// the time each was first seen, its timeline from those. An agent has no
// fabric and runs no pairwise matrix of its own, so Fabric is
// web.ErrNotFound and there are no perf runs.
func (a *Agent) WebData() web.Data { return webData{a} }

type webData struct{ a *Agent }

// view is the last sample's view, nil before the first.
func (d webData) view() *View {
	v := d.a.view.Load()
	if v == nil || v.Snapshot == nil {
		return nil
	}
	return v
}

func (d webData) Fleet(context.Context) (web.Fleet, error) {
	v := d.view()
	if v == nil {
		return web.Fleet{Counts: map[web.Health]int{}}, nil
	}
	row := web.NodeRow{Host: v.Snapshot.Host, Health: nodeHealth(v), LastSeen: v.Snapshot.Taken}
	ids := map[string]bool{}
	for _, f := range v.Active {
		ids[f.Finding.ID] = true
	}
	for id := range ids {
		row.FindingIDs = append(row.FindingIDs, id)
	}
	slices.Sort(row.FindingIDs)
	for _, dev := range v.Snapshot.Devices {
		for _, p := range dev.Ports {
			row.Ports = append(row.Ports, web.PortCell{Name: fmt.Sprintf("%s/%d", p.Device, p.Number),
				Health: portHealth(v, p.Device, p.Number), State: stateText(p.State), Rate: rateText(p.Rate)})
		}
	}
	return web.Fleet{Generated: v.Snapshot.Taken, Counts: map[web.Health]int{row.Health: 1},
		Nodes: []web.NodeRow{row}, FindingIDs: row.FindingIDs}, nil
}

// nodeHealth is the worst severity among the active findings, ok when
// there are none.
func nodeHealth(v *View) web.Health {
	h := web.OK
	for _, f := range v.Active {
		h = web.Worst(h, web.HealthOf(f.Finding.Severity))
	}
	return h
}

// portHealth is the worst severity among the findings about a port or
// its whole device.
func portHealth(v *View, dev string, port int) web.Health {
	h := web.OK
	for _, f := range v.Active {
		s := f.Finding.Subject
		if s.Device == dev && (s.Port == 0 || s.Port == port) {
			h = web.Worst(h, web.HealthOf(f.Finding.Severity))
		}
	}
	return h
}

func stateText(s *ib.PortState) string {
	if s == nil {
		return "?"
	}
	return s.String()
}

func rateText(r *ib.Rate) string {
	if r == nil {
		return "?"
	}
	return r.String()
}

func (d webData) Node(_ context.Context, host string) (web.Node, error) {
	v := d.view()
	if v == nil || host != v.Snapshot.Host {
		return web.Node{}, fmt.Errorf("host %q: %w", host, web.ErrNotFound)
	}
	snap := v.Snapshot
	n := web.Node{Host: snap.Host, Health: nodeHealth(v), LastSeen: snap.Taken}
	for _, dev := range snap.Devices {
		for _, p := range dev.Ports {
			row := web.PortRow{Device: p.Device, Port: p.Number, LinkLayer: string(p.LinkLayer), State: stateText(p.State),
				Rate: rateText(p.Rate), PCI: pcieText(snap, dev), GUID: portGUIDText(&dev, &p), Health: portHealth(v, p.Device, p.Number)}
			if p.PhysState != nil {
				row.PhysState = p.PhysState.String()
			}
			if p.Rate != nil && p.Rate.Width > 0 {
				row.Width = strconv.Itoa(p.Rate.Width) + "X"
			}
			n.Ports = append(n.Ports, row)
		}
	}
	for _, f := range v.Active {
		n.Findings = append(n.Findings, web.FindingView{Finding: f.Finding, Opened: f.FirstSeen})
	}
	for _, c := range v.Cleared {
		n.Findings = append(n.Findings, web.FindingView{Finding: c.Finding, Opened: c.FirstSeen, Closed: c.Cleared})
	}
	n.Series = series(v.History)
	return n, nil
}

// portGUIDText is the port's GUID (InfiniBand), else its device's node
// GUID, both as ib.GUIDString: the hub's node page shows the same.
func portGUIDText(d *snapshot.Device, p *snapshot.Port) string {
	if g := metrics.PortGUID(p); g != "" {
		return g
	}
	return guidText(d.NodeGUID)
}

// pcieText is the HCA's PCI address with its link as trained and as
// capable ("0000:17:00.0 Gen5 x16", "… Gen4 x8 of Gen5 x16").
func pcieText(snap *snapshot.Snapshot, dev snapshot.Device) string {
	out := string(dev.PCI)
	if l := pcieLink(snap, dev); out != "" && l != "" {
		out += " " + l
	}
	return out
}

// pcieLink is the PCIe link of the device's function: "Gen5 x16", or
// "Gen4 x8 of Gen5 x16" when it trained below its maximum; "" unknown.
func pcieLink(snap *snapshot.Snapshot, dev snapshot.Device) string {
	i := slices.IndexFunc(snap.PCI, func(p snapshot.PCIDevice) bool { return p.Address == dev.PCI })
	if dev.PCI == "" || i < 0 {
		return ""
	}
	p := snap.PCI[i]
	link := func(s *pcie.Speed, w *int) string {
		if s == nil || w == nil {
			return ""
		}
		return fmt.Sprintf("%s x%d", s.Short(), *w)
	}
	cur, most := link(p.CurrentLinkSpeed, p.CurrentLinkWidth), link(p.MaxLinkSpeed, p.MaxLinkWidth)
	switch {
	case cur == "":
		return ""
	case most == "" || most == cur:
		return cur
	default:
		return cur + " of " + most
	}
}

// series are each port's receive and transmit data rates and its error
// counters' summed rate at every sample of the window.
func series(hist []trend.Sample) []web.Series {
	type key struct {
		port string
		what int
	}
	const (
		rcv = iota
		xmit
		errs
	)
	names := [...]string{rcv: "receive", xmit: "transmit", errs: "errors"}
	units := [...]string{rcv: "bytes/s", xmit: "bytes/s", errs: "errors/s"}
	pts := map[key][]web.Point{}
	var order []key
	add := func(k key, p web.Point) {
		if _, ok := pts[k]; !ok {
			order = append(order, k)
		}
		pts[k] = append(pts[k], p)
	}
	for i := 1; i < len(hist); i++ {
		prev, cur := &hist[i-1], &hist[i]
		sum := map[string]float64{}
		known := map[string]bool{}
		for _, r := range trend.Rates(prev, cur) {
			port := fmt.Sprintf("%s/%d", r.Device, r.Port)
			if !r.Rate.Known() {
				continue
			}
			switch {
			case r.Source == trend.SrcCounters && r.Name == "port_rcv_data":
				add(key{port, rcv}, web.Point{T: cur.T, V: r.Rate.PerSecond})
			case r.Source == trend.SrcCounters && r.Name == "port_xmit_data":
				add(key{port, xmit}, web.Point{T: cur.T, V: r.Rate.PerSecond})
			case isError(r):
				sum[port] += r.Rate.PerSecond
				known[port] = true
			}
		}
		for _, p := range cur.Ports {
			port := fmt.Sprintf("%s/%d", p.Device, p.Port)
			if known[port] {
				add(key{port, errs}, web.Point{T: cur.T, V: sum[port]})
			}
		}
	}
	slices.SortStableFunc(order, func(a, b key) int {
		if a.port != b.port {
			if a.port < b.port {
				return -1
			}
			return 1
		}
		return a.what - b.what
	})
	out := make([]web.Series, 0, len(order))
	for _, k := range order {
		out = append(out, web.Series{Name: k.port + " " + names[k.what], Unit: units[k.what], Points: pts[k]})
	}
	return out
}

// isError reports whether a rate is of an error counter (the port
// counters and hw_counters the kernel documents as errors).
func isError(r trend.CounterRate) bool {
	switch r.Source {
	case trend.SrcCounters:
		return ib.PortCounterSpec(r.Name, false).Kind == ib.KindError
	case trend.SrcHW:
		return ib.HWCounterSpec(r.Name).Kind == ib.KindError
	}
	return false
}

func (d webData) Fabric(context.Context) (web.Fabric, error) {
	return web.Fabric{}, fmt.Errorf("an agent has no fabric: %w", web.ErrNotFound)
}

func (d webData) PerfRuns(context.Context) ([]web.PerfRunRef, error) { return nil, nil }

func (d webData) PerfRun(_ context.Context, id string) (web.PerfRun, error) {
	return web.PerfRun{}, fmt.Errorf("run %q: %w", id, web.ErrNotFound)
}

// Timeline is the active findings, each from when it was first seen, and
// those that cleared in the last day.
func (d webData) Timeline(_ context.Context, since time.Time, host string) (web.Timeline, error) {
	tl := web.Timeline{Since: since}
	v := d.view()
	if v == nil {
		return tl, nil
	}
	if host != "" && host != v.Snapshot.Host {
		return tl, nil
	}
	for _, f := range v.Active {
		tl.Events = append(tl.Events, web.Event{Host: v.Snapshot.Host, ID: f.Finding.ID, Severity: f.Finding.Severity,
			Subject: web.SubjectText(f.Finding.Subject), Opened: f.FirstSeen})
	}
	for _, c := range v.Cleared {
		if c.Cleared.After(since) {
			tl.Events = append(tl.Events, web.Event{Host: v.Snapshot.Host, ID: c.Finding.ID, Severity: c.Finding.Severity,
				Subject: web.SubjectText(c.Finding.Subject), Opened: c.FirstSeen, Closed: c.Cleared})
		}
	}
	return tl, nil
}

// Cleared is a finding that was active and is no longer, with when it was
// first seen and the sample it was gone in.
type Cleared struct {
	Finding   finding.Finding
	FirstSeen time.Time
	Cleared   time.Time
}

// MaxCleared bounds the cleared findings an agent remembers (in memory
// only: a restart forgets them); ClearedFor is how long it keeps one.
const (
	MaxCleared = 256
	ClearedFor = 24 * time.Hour
)

// noteCleared remembers the findings active before this sample that fs
// no longer holds, and forgets those cleared more than ClearedFor ago
// or beyond MaxCleared. It runs before activeSince replaces the
// first-seen times.
func (a *Agent) noteCleared(fs []finding.Finding, taken time.Time) {
	now := make(map[string]bool, len(fs))
	for _, f := range fs {
		now[key(f)] = true
	}
	for _, k := range sortedKeys(a.active) {
		if !now[k] {
			a.cleared = append(a.cleared, Cleared{Finding: a.active[k], FirstSeen: a.firstSeen[k], Cleared: taken})
		}
	}
	cut := 0
	for cut < len(a.cleared) && (len(a.cleared)-cut > MaxCleared || taken.Sub(a.cleared[cut].Cleared) > ClearedFor) {
		cut++
	}
	a.cleared = a.cleared[cut:]
}
