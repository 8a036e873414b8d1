package hub

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// TestPrometheusMode runs a real Prometheus scraping two real agents and
// a hub that reads them through it: the nodes are discovered by their
// node label, their health and findings match the agents', and an agent
// that stops answering Prometheus's scrapes becomes unreachable.
func TestPrometheusMode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts prometheus")
	}
	ok, broken := newSimAgent(t, "gpu01"), newSimAgent(t, "gpu02", "polling:mlx5_5/1")
	prom := testenv.StartPrometheus(t, fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: ibdoctor
    static_configs:
      - targets: ['%s']
        labels: {node: node-a}
      - targets: ['%s']
        labels: {node: node-b}
`, ok.addr, broken.addr))
	c := &clock{t: t0}
	h := newHub(t, c, Options{Prometheus: &Prometheus{URL: "http://" + prom}})
	ctx := context.Background()
	waitFor(t, func() bool {
		s, err := h.query(ctx, `ibdoctor_node_health{job="ibdoctor"}`)
		return err == nil && len(s) == 2
	})
	if err := h.PollOnce(ctx); err != nil {
		t.Fatal(err)
	}
	fl, err := h.Data().Fleet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fl.Nodes) != 2 || fl.Nodes[0].Host != "node-a" || fl.Nodes[1].Host != "node-b" {
		t.Fatalf("nodes %+v", fl.Nodes)
	}
	if fl.Nodes[0].Health != web.OK || fl.Nodes[1].Health == web.OK || len(fl.Nodes[1].Ports) == 0 {
		t.Fatalf("health through Prometheus: %s, %s (%d ports)", fl.Nodes[0].Health, fl.Nodes[1].Health, len(fl.Nodes[1].Ports))
	}
	// The node page's identity cells come through ibdoctor_port_info.
	na, err := h.Data().Node(ctx, "node-a")
	if err != nil {
		t.Fatal(err)
	}
	snap := ok.a.View().Snapshot
	var checked int
	for _, r := range na.Ports {
		d := snap.Device(r.Device)
		if d == nil || r.Device != "mlx5_0" && r.Device != "mlx5_8" {
			continue
		}
		checked++
		g, _ := ib.NormalizeGUID(d.NodeGUID)
		if r.Width != "4X" || r.PhysState != "LinkUp" || r.PCI != string(d.PCI) || r.PCI == "" || r.GUID != g || g == "" {
			t.Errorf("node-a %s/%d through Prometheus: %+v, want width 4X, LinkUp, PCI %s, GUID %s", r.Device, r.Port, r, d.PCI, g)
		}
	}
	if checked != 2 {
		t.Errorf("node-a: %d of mlx5_0/1 and mlx5_8/1 on the node page", checked)
	}
	open := openIDs(t, h.st, "node-b")
	for _, a := range broken.a.View().Active {
		if !open[a.Finding.ID] {
			t.Errorf("agent's %s not open through Prometheus (open: %v)", a.Finding.ID, open)
		}
	}
	broken.stop()
	waitFor(t, func() bool {
		s, err := h.query(ctx, `up{instance="`+broken.addr+`"}`)
		return err == nil && len(s) == 1 && s[0].v == 0
	})
	for range 2 {
		c.Add(15 * time.Second)
		if err := h.PollOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !openIDs(t, h.st, "node-b")["hub.agent_unreachable"] {
		t.Fatal("an agent Prometheus cannot scrape is not unreachable")
	}
	if openIDs(t, h.st, "node-a")["hub.agent_unreachable"] {
		t.Fatal("the agent still scraped is unreachable")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 60 s")
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestPromIdentity reads a port's identity from ibdoctor_port_info labels,
// including those of an agent before port_guid and pci.
func TestPromIdentity(t *testing.T) {
	for _, tc := range []struct {
		name                                  string
		state, phys                           string
		labels                                map[string]string
		width, speed, rate, pguid, nguid, pci string
	}{
		{"active", "ACTIVE", "LinkUp", map[string]string{"node_guid": "0xa088c20300461a2c", "port_guid": "0xa088c20300461a2c", "pci": "0000:17:00.0", "rate": "200 Gb/sec (2X NDR)"},
			"2X", "NDR", "200 Gb/sec (2X NDR)", "0xa088c20300461a2c", "0xa088c20300461a2c", "0000:17:00.0"},
		{"old agent", "ACTIVE", "LinkUp", map[string]string{"node_guid": "0xa088c20300461a2c", "rate": "400 Gb/sec (4X NDR)"},
			"4X", "NDR", "400 Gb/sec (4X NDR)", "", "0xa088c20300461a2c", ""},
		{"down RoCE rate means nothing", "DOWN", "Disabled", map[string]string{"node_guid": "0x0c42a10300a1b2c4", "pci": "0000:a1:00.0", "rate": "40 Gb/sec (4X QDR)"},
			"", "", "", "", "0x0c42a10300a1b2c4", "0000:a1:00.0"},
		{"INIT with the link up", "INIT", "LinkUp", map[string]string{"rate": "100 Gb/sec (4X EDR)"}, "4X", "EDR", "100 Gb/sec (4X EDR)", "", "", ""},
		{"unparsable rate", "ACTIVE", "LinkUp", map[string]string{"rate": "fast"}, "", "", "", "", "", ""},
	} {
		ps := &agent.PortSummary{Port: trend.Port{State: tc.state}, PhysState: tc.phys}
		promIdentity(ps, tc.labels)
		if ps.Width != tc.width || ps.Speed != tc.speed || ps.Rate != tc.rate || ps.PortGUID != tc.pguid || ps.NodeGUID != tc.nguid || ps.PCI != tc.pci {
			t.Errorf("%s: %+v", tc.name, ps)
		}
	}
}
