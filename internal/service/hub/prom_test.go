package hub

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/output/web"
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
