package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// A real Prometheus scrapes three agents on loopback addresses;
// `perf pairwise --from-agents` takes the fleet from its targets (names
// from the "node" label), runs every pair and finds the throttled node.
func TestPairwiseFromAgentsPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("starts prometheus")
	}
	testenv.NeedTool(t, "prometheus")
	ips := []string{"127.0.0.21", "127.0.0.22", "127.0.0.23"}
	var targets []string
	for _, ip := range ips {
		ln, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Skipf("cannot listen on %s: %v", ip, err)
		}
		limit := 50e6
		if ip == "127.0.0.23" {
			limit = 2.5e6
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(prometheus.NewRegistry(), promhttp.HandlerOpts{}))
		mux.Handle(pairwise.PathPrefix, pairwise.NewServer(pairwise.ServerOptions{Token: "tok", RateLimit: limit}))
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		targets = append(targets, fmt.Sprintf("      - targets: ['%s']\n        labels: {node: gpu%s}\n", ln.Addr(), strings.TrimPrefix(ip, "127.0.0.")))
	}
	promAddr := testenv.StartPrometheus(t, "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: ibdoctor\n    static_configs:\n"+strings.Join(targets, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Wait until Prometheus has scraped all three.
	base := "http://" + promAddr
	deadline := time.Now().Add(45 * time.Second)
	for {
		hosts, _, err := pairwise.DiscoverAgents(ctx, http.DefaultClient, base, pairwise.DefaultAgentsJob)
		if err == nil && len(hosts) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus did not report 3 agents up: %v %v", hosts, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	f, stdout, stderr := testFactory(map[string]string{"IBDOCTOR_TOKEN": "tok"})
	pw := NewCmdPairwise(f, nil)
	pw.SetArgs([]string{"--from-agents", base, "--duration", "200ms", "--repeat", "3", "--format", "json", "--slow-fraction", "0.2"})
	err := pw.Execute()
	if code := exitCode(err); code != 2 {
		t.Fatalf("exit %d (%v), want 2; stderr: %s", code, err, stderr)
	}
	var rep pairwise.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "perf.node_slow" || rep.Findings[0].Subject.Host != "gpu23" {
		t.Errorf("findings %+v, want perf.node_slow on gpu23 only", rep.Findings)
	}
}
