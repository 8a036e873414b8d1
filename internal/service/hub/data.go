package hub

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
)

// Data returns the view the web pages read.
func (h *Hub) Data() web.Data { return (*data)(h) }

type data Hub

var _ web.Data = (*data)(nil)

// health is a node's health as the pages show it (h.mu held).
func (h *Hub) health(n *node) web.Health {
	switch {
	case n.failures >= h.opts.UnreachableAfter || (n.health == nil && n.failures > 0):
		return web.Unreachable
	case n.health == nil:
		return web.Unknown
	}
	return nodeHealth(openFindings(n))
}

// openFindings are n's open findings, sorted (h.mu held).
func openFindings(n *node) []finding.Finding {
	fs := make([]finding.Finding, 0, len(n.open))
	for _, o := range n.open {
		fs = append(fs, o.Finding)
	}
	catalog.Sort(fs)
	return fs
}

func findingIDs(fs []finding.Finding) []string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// portHealth is the worst finding on a port, else ok for an active port
// and unknown for another.
func portHealth(fs []finding.Finding, dev string, port int, state string) web.Health {
	worst := finding.Severity("")
	for _, f := range fs {
		if f.Subject.Device == dev && (f.Subject.Port == 0 || f.Subject.Port == port) && f.Severity.Rank() > worst.Rank() {
			worst = f.Severity
		}
	}
	switch {
	case worst != "":
		return web.HealthOf(worst)
	case state == "ACTIVE":
		return web.OK
	}
	return web.Unknown
}

func rateText(gbps float64) string {
	if gbps <= 0 {
		return ""
	}
	return strconv.FormatFloat(gbps, 'f', -1, 64) + " Gb/s"
}

// Fleet is the fleet page's data.
func (d *data) Fleet(ctx context.Context) (web.Fleet, error) {
	h := (*Hub)(d)
	h.mu.RLock()
	defer h.mu.RUnlock()
	fl := web.Fleet{Generated: h.opts.Now(), Counts: map[web.Health]int{}, Nodes: make([]web.NodeRow, 0, len(h.order))}
	groups := map[string]bool{}
	ids := map[string]bool{}
	for _, name := range h.order {
		n := h.nodes[name]
		fs := openFindings(n)
		row := web.NodeRow{Host: name, Group: h.groupOf(name), Health: h.health(n), LastSeen: n.lastSeen, Error: n.err, FindingIDs: findingIDs(fs)}
		if n.ports != nil {
			row.Ports = make([]web.PortCell, 0, len(n.ports.Ports))
			for _, p := range n.ports.Ports {
				row.Ports = append(row.Ports, web.PortCell{Name: p.Device + "/" + strconv.Itoa(p.Port.Port), State: p.State, Rate: rateText(p.RateGbps),
					Health: portHealth(fs, p.Device, p.Port.Port, p.State)})
			}
		}
		fl.Counts[row.Health]++
		if row.Group != "" {
			groups[row.Group] = true
		}
		for _, id := range row.FindingIDs {
			ids[id] = true
		}
		fl.Nodes = append(fl.Nodes, row)
	}
	for g := range groups {
		fl.Groups = append(fl.Groups, g)
	}
	slices.Sort(fl.Groups)
	for id := range ids {
		fl.FindingIDs = append(fl.FindingIDs, id)
	}
	slices.Sort(fl.FindingIDs)
	return fl, nil
}

// Node is one node's page: its ports, findings (open and closed within
// the retention) and rate charts.
func (d *data) Node(ctx context.Context, host string) (web.Node, error) {
	h := (*Hub)(d)
	h.mu.RLock()
	n, ok := h.nodes[host]
	if !ok {
		h.mu.RUnlock()
		return web.Node{}, web.ErrNotFound
	}
	v := web.Node{Host: host, Group: h.groupOf(host), Health: h.health(n), LastSeen: n.lastSeen, Error: n.err}
	fs := openFindings(n)
	if n.ports != nil {
		for _, p := range n.ports.Ports {
			v.Ports = append(v.Ports, h.portRow(host, p, fs))
		}
	}
	var cur *hubstore.PortRates
	if len(n.acc.ports) > 0 {
		cur = &hubstore.PortRates{Host: host, T: n.acc.start, Ports: n.acc.means()}
	}
	h.mu.RUnlock()
	since := h.opts.Now().Add(-h.st.Retention())
	rows, err := h.st.Findings(ctx, hubstore.FindingQuery{Host: host, Since: since, Limit: 500})
	if err != nil {
		return web.Node{}, err
	}
	for _, r := range rows {
		v.Findings = append(v.Findings, web.FindingView{Finding: r.Finding, Opened: r.Opened, Closed: r.Closed})
	}
	// Open first, then the most recently closed.
	slices.SortStableFunc(v.Findings, func(a, b web.FindingView) int {
		if a.Closed.IsZero() != b.Closed.IsZero() {
			if a.Closed.IsZero() {
				return -1
			}
			return 1
		}
		return b.Closed.Compare(a.Closed)
	})
	rates, err := h.st.PortRates(ctx, host, since)
	if err != nil {
		return web.Node{}, err
	}
	if cur != nil && (len(rates) == 0 || cur.T.After(rates[len(rates)-1].T)) {
		rates = append(rates, *cur)
	}
	v.Series = series(rates)
	return v, nil
}

func (h *Hub) portRow(host string, p agent.PortSummary, fs []finding.Finding) web.PortRow {
	r := web.PortRow{Device: p.Device, Port: p.Port.Port, LinkLayer: p.LinkLayer, State: p.State, PhysState: p.PhysState, Rate: rateText(p.RateGbps),
		Width: p.Width, PCI: p.PCI, GUID: p.PortGUID,
		Health: portHealth(fs, p.Device, p.Port.Port, p.State), Peer: h.peerOf(host, p.Device, p.Port.Port)}
	if r.Rate != "" && p.Speed != "" {
		r.Rate += " " + p.Speed
	}
	if r.PCI != "" && p.PCIeLink != "" {
		r.PCI += " " + p.PCIeLink
	}
	if r.GUID == "" {
		// RoCE ports have no port GUID: the device's node GUID names them
		// (as on the agent's own page).
		r.GUID = p.NodeGUID
	}
	for _, f := range fs {
		if f.Subject.Device == p.Device && f.Subject.PCI != "" && r.PCI == "" {
			r.PCI = f.Subject.PCI
		}
	}
	return r
}

// series turns stored rates into chart lines: per port, received and
// sent bytes per second and errors per second.
func series(rates []hubstore.PortRates) []web.Series {
	idx := map[string]int{}
	var out []web.Series
	line := func(name, unit string) *web.Series {
		i, ok := idx[name]
		if !ok {
			i = len(out)
			idx[name] = i
			out = append(out, web.Series{Name: name, Unit: unit})
		}
		return &out[i]
	}
	for _, r := range rates {
		for _, p := range r.Ports {
			for _, x := range []struct {
				what, unit string
				v          float64
			}{{"rcv_data", "bytes/s", p.RcvBps}, {"xmit_data", "bytes/s", p.XmitBps}, {"errors", "errors/s", p.ErrPerS}} {
				s := line(p.Port+" "+x.what, x.unit)
				s.Points = append(s.Points, web.Point{T: r.T, V: x.v})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b web.Series) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}

// Timeline is every finding open at some time since since, for one host
// or ("") the fleet.
func (d *data) Timeline(ctx context.Context, since time.Time, host string) (web.Timeline, error) {
	h := (*Hub)(d)
	if host != "" {
		h.mu.RLock()
		_, ok := h.nodes[host]
		h.mu.RUnlock()
		if !ok {
			return web.Timeline{}, web.ErrNotFound
		}
	}
	rows, err := h.st.Findings(ctx, hubstore.FindingQuery{Since: since, Host: host, Limit: 5000})
	if err != nil {
		return web.Timeline{}, err
	}
	tl := web.Timeline{Since: since, Until: h.opts.Now(), Events: make([]web.Event, 0, len(rows))}
	for _, r := range rows {
		tl.Events = append(tl.Events, web.Event{Host: r.Host, ID: r.Finding.ID, Severity: r.Finding.Severity, Subject: r.Subject, Opened: r.Opened, Closed: r.Closed})
	}
	return tl, nil
}

// Fabric is the last fabric view.
func (d *data) Fabric(ctx context.Context) (web.Fabric, error) {
	h := (*Hub)(d)
	h.mu.RLock()
	fs := h.fabric
	h.mu.RUnlock()
	if fs == nil {
		return web.Fabric{}, web.ErrNotFound
	}
	return fs.view, nil
}

// PerfRuns lists the stored pairwise runs, newest first.
func (d *data) PerfRuns(ctx context.Context) ([]web.PerfRunRef, error) {
	refs, err := d.st.PerfRuns(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]web.PerfRunRef, 0, len(refs))
	for _, r := range refs {
		out = append(out, web.PerfRunRef{ID: r.ID, Started: r.Started, Test: r.Test, Hosts: r.Hosts})
	}
	return out, nil
}

// PerfRun is one stored run.
func (d *data) PerfRun(ctx context.Context, id string) (web.PerfRun, error) {
	doc, err := d.st.PerfRun(ctx, id)
	if err == hubstore.ErrNotFound {
		return web.PerfRun{}, web.ErrNotFound
	}
	if err != nil {
		return web.PerfRun{}, err
	}
	rep, err := decodeReport(doc, "run "+id)
	if err != nil {
		return web.PerfRun{}, fmt.Errorf("stored run %s: %w", id, err)
	}
	return perfView(id, rep), nil
}
