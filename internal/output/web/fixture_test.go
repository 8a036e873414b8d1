package web

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// fixture is a Data held in Go values: four nodes on two leaves, two
// spines, a degraded, an erroring and a down link, one perf run.
type fixture struct {
	fleet  Fleet
	nodes  map[string]Node
	fabric *Fabric
	runs   []PerfRun
	tl     []Event
	// err, when set, is returned by every call.
	err error
	// asked records the timeline queries.
	asked []string
}

const (
	spineA = "0x0002c90300000001"
	spineB = "0x0002c90300000002"
	leaf1  = "0x0002c90300000011"
	leaf2  = "0x0002c90300000012"
)

var linkDeg = spineA + "/1-" + leaf1 + "/33"

func newFixture() *fixture {
	down := finding.Finding{ID: "node.port_down", Severity: finding.Critical,
		Subject: finding.Subject{Host: "gpu-b1", Device: "mlx5_1", Port: 1},
		Summary: "mlx5_1 port 1 is DOWN", Evidence: []finding.Evidence{{Source: "/sys/class/infiniband/mlx5_1/ports/1/state", Value: "1: DOWN"}},
		Causes: []string{"cable unplugged or broken"}, Remedy: []string{"reseat the cable on mlx5_1 port 1"}}
	sym := finding.Finding{ID: "node.symbol_errors", Severity: finding.Warning,
		Subject: finding.Subject{Host: "gpu-b1", Device: "mlx5_0", Port: 1},
		Summary: "symbol errors rising at 12/s", Evidence: []finding.Evidence{{Source: "counters/symbol_error", Value: "+720 in 60 s"}},
		Causes: []string{"dirty connector"}, Remedy: []string{"clean and reseat the transceiver"}}
	sym2 := sym
	sym2.Subject.Device, sym2.Summary = "mlx5_1", "symbol errors rising at 3/s"
	old := finding.Finding{ID: "node.link_flap", Severity: finding.Warning, Subject: finding.Subject{Host: "gpu-b1", Device: "mlx5_0", Port: 1},
		Summary: "link went down twice"}
	ports := func(h Health, states ...string) []PortCell {
		var out []PortCell
		for i, s := range states {
			ph := OK
			if s != "ACTIVE" {
				ph = h
			}
			out = append(out, PortCell{Name: fmt.Sprintf("mlx5_%d/1", i), Health: ph, State: s, Rate: "400 Gb/s"})
		}
		return out
	}
	f := &fixture{nodes: map[string]Node{}}
	f.fleet = Fleet{Generated: t0, Groups: []string{"leaf1", "leaf2"},
		FindingIDs: []string{"node.port_down", "node.symbol_errors"},
		Nodes: []NodeRow{
			{Host: "gpu-a1", Group: "leaf1", Health: OK, LastSeen: t0, Ports: ports(OK, "ACTIVE", "ACTIVE")},
			{Host: "gpu-a2", Group: "leaf1", Health: Unreachable, LastSeen: t0.Add(-5 * time.Minute), Error: `connection refused: "10.0.0.2:9315" & <retry>`},
			{Host: "gpu-b1", Group: "leaf2", Health: Critical, LastSeen: t0, Ports: ports(Critical, "ACTIVE", "DOWN"),
				FindingIDs: []string{"node.port_down", "node.symbol_errors"}},
			{Host: "gpu-b2 <x>", Group: "leaf2", Health: Warning, LastSeen: t0, Ports: ports(OK, "ACTIVE")},
		}}
	for _, n := range f.fleet.Nodes {
		node := Node{Host: n.Host, Group: n.Group, Health: n.Health, LastSeen: n.LastSeen, Error: n.Error}
		for _, p := range n.Ports {
			node.Ports = append(node.Ports, PortRow{Device: p.Name[:6], Port: 1, LinkLayer: "InfiniBand", State: p.State,
				PhysState: "LinkUp", Rate: "400 Gb/sec (4X NDR)", Width: "4X", PCI: "0000:17:00.0 Gen5 x16",
				GUID: "0x0002c9030000a" + p.Name[5:6] + "01", Peer: "leaf2 port " + p.Name[5:6], Health: p.Health})
		}
		f.nodes[n.Host] = node
	}
	b1 := f.nodes["gpu-b1"]
	b1.Findings = []FindingView{
		{Finding: down, Opened: t0.Add(-30 * time.Minute)},
		{Finding: sym, Opened: t0.Add(-2 * time.Hour)},
		{Finding: sym2, Opened: t0.Add(-time.Hour)},
		{Finding: old, Opened: t0.Add(-5 * time.Hour), Closed: t0.Add(-4 * time.Hour)},
	}
	for i := range 20 {
		ts := t0.Add(time.Duration(i-20) * time.Minute)
		if len(b1.Series) == 0 {
			b1.Series = []Series{{Name: "mlx5_0/1 rcv_data", Unit: "bytes/s"}, {Name: "mlx5_0/1 symbol_error", Unit: "errors/s"}, {Name: "mlx5_1/1 rcv_data", Unit: "bytes/s"}}
		}
		b1.Series[0].Points = append(b1.Series[0].Points, Point{ts, 4.2e10 + float64(i%3)*1e9})
		b1.Series[1].Points = append(b1.Series[1].Points, Point{ts, float64(i) * 0.6})
	}
	f.nodes["gpu-b1"] = b1
	ctr := func(sym uint64) map[string]uint64 {
		return map[string]uint64{"SymbolErrorCounter": sym, "PortXmitData": 123456789, "LinkDownedCounter": 0}
	}
	f.fabric = &Fabric{Taken: t0, Source: "ibnetdiscover fixture",
		Tiers: [][]Switch{
			{{ID: leaf1, Name: "leaf1", Health: Warning, Hosts: []HostLink{{Host: "gpu-a1", Port: "mlx5_0/1", Health: OK}, {Host: "gpu-a2", Port: "mlx5_0/1", Health: Unreachable}, {Host: "gpu-z9", Port: "mlx5_0/1", Health: OK}}},
				{ID: leaf2, Name: "leaf2", Health: OK, Hosts: []HostLink{{Host: "gpu-b1", Port: "mlx5_1/1", Health: Critical}, {Host: "gpu-b2 <x>", Port: "mlx5_0/1", Health: Warning}}}},
			{{ID: spineA, Name: "spine-a", Health: OK}, {ID: spineB, Name: "spine-b", Health: Critical}},
		},
		Links: []Link{
			{ID: linkDeg, A: LinkEnd{ID: spineA, Name: "spine-a", Port: 1, Counters: ctr(0)}, B: LinkEnd{ID: leaf1, Name: "leaf1", Port: 33, Counters: ctr(7)},
				Health: Warning, State: "Active", Width: "1X", Speed: "NDR", Degraded: true, LoadAB: 40, LoadBA: 12},
			{ID: spineA + "/2-" + leaf2 + "/33", A: LinkEnd{ID: spineA, Name: "spine-a", Port: 2, Counters: ctr(0)}, B: LinkEnd{ID: leaf2, Name: "leaf2", Port: 33, Counters: ctr(0)},
				Health: OK, State: "Active", Width: "4X", Speed: "NDR", LoadAB: 7, LoadBA: 9},
			{ID: spineB + "/1-" + leaf1 + "/34", A: LinkEnd{ID: spineB, Name: "spine-b", Port: 1, Counters: ctr(98765)}, B: LinkEnd{ID: leaf1, Name: "leaf1", Port: 34, Counters: map[string]uint64{"PortRcvErrors": 5}},
				Health: Critical, State: "Active", Width: "4X", Speed: "NDR", ErrorRate: 250, LoadAB: 3, LoadBA: 3},
			{ID: spineB + "/2-" + leaf2 + "/34", A: LinkEnd{ID: spineB, Name: "spine-b", Port: 2}, B: LinkEnd{ID: leaf2, Name: "leaf2", Port: 34},
				Health: Critical, State: "Down", Width: "4X", Speed: "NDR"},
		},
		Findings: []finding.Finding{{ID: "fabric.link_degraded", Severity: finding.Critical, Summary: "spine-a port 1 runs 1X"}},
	}
	f.runs = []PerfRun{{ID: "run-7", Started: t0.Add(-time.Hour), Test: "ib_write_bw", Hosts: []string{"gpu-a1", "gpu-b1", "gpu-q7"},
		Gbps:     [][]float64{{-1, 191.5, 388.2}, {187.25, -1, 310.9}, {391.7, -1, -1}},
		Expected: 400, Culprits: []string{"gpu-b1", "gpu-q7"},
		Findings: []finding.Finding{{ID: "perf.pair_slow", Severity: finding.Warning, Summary: "gpu-b1 slow in both directions"}}},
		{ID: "run-6", Started: t0.Add(-3 * time.Hour), Test: "ib_read_bw", Hosts: []string{"gpu-a1", "gpu-b1"}, Gbps: [][]float64{{-1, 395}, {396, -1}}}}
	f.tl = []Event{
		{Host: "gpu-b1", ID: "node.port_down", Severity: finding.Critical, Subject: "mlx5_1 port 1", Opened: t0.Add(-30 * time.Minute)},
		{Host: "gpu-b1", ID: "node.link_flap", Severity: finding.Warning, Subject: "mlx5_0 port 1", Opened: t0.Add(-5 * time.Hour), Closed: t0.Add(-4 * time.Hour)},
		{Host: "gpu-a1", ID: "node.symbol_errors", Severity: finding.Info, Subject: "mlx5_0 port 1", Opened: t0.Add(-48 * time.Hour), Closed: t0.Add(-47 * time.Hour)},
	}
	return f
}

func (f *fixture) Fleet(context.Context) (Fleet, error) { return f.fleet, f.err }

func (f *fixture) Node(_ context.Context, host string) (Node, error) {
	if f.err != nil {
		return Node{}, f.err
	}
	n, ok := f.nodes[host]
	if !ok {
		return Node{}, fmt.Errorf("host %q: %w", host, ErrNotFound)
	}
	return n, nil
}

func (f *fixture) Fabric(context.Context) (Fabric, error) {
	if f.err != nil {
		return Fabric{}, f.err
	}
	if f.fabric == nil {
		return Fabric{}, ErrNotFound
	}
	return *f.fabric, nil
}

func (f *fixture) PerfRuns(context.Context) ([]PerfRunRef, error) {
	var out []PerfRunRef
	for _, r := range f.runs {
		out = append(out, PerfRunRef{ID: r.ID, Started: r.Started, Test: r.Test, Hosts: len(r.Hosts)})
	}
	return out, f.err
}

func (f *fixture) PerfRun(_ context.Context, id string) (PerfRun, error) {
	if f.err != nil {
		return PerfRun{}, f.err
	}
	i := slices.IndexFunc(f.runs, func(r PerfRun) bool { return r.ID == id })
	if i < 0 {
		return PerfRun{}, ErrNotFound
	}
	return f.runs[i], nil
}

func (f *fixture) Timeline(_ context.Context, since time.Time, host string) (Timeline, error) {
	f.asked = append(f.asked, since.UTC().Format(time.RFC3339)+" "+host)
	if f.err != nil {
		return Timeline{}, f.err
	}
	tl := Timeline{Since: since, Until: t0}
	for _, e := range f.tl {
		if (host == "" || e.Host == host) && (e.Closed.IsZero() || e.Closed.After(since)) {
			tl.Events = append(tl.Events, e)
		}
	}
	return tl, nil
}

var errBroken = errors.New("store is locked")
