package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// TestPrometheusScrapesAgent starts a real Prometheus (Debian package)
// scraping the agent over loopback every second while a simulated node
// carries traffic, and reads a rate back through Prometheus's HTTP API.
func TestPrometheusScrapesAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts prometheus")
	}
	l := newLiveNode(t, "roce-400g", "traffic")
	a, err := New(Options{Read: RootSource(l.root, nil), Ethtool: EthtoolFor(l.root), Interval: time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// The writer must have stopped before the temporary root is removed
	// (cleanups run last-registered first), or the removal races it.
	stepped := make(chan struct{})
	t.Cleanup(func() { cancel(); <-stepped })
	// The simulated node advances in step with the wall clock, so rates
	// read through Prometheus are the simulated traffic.
	go func() {
		defer close(stepped)
		tk := time.NewTicker(500 * time.Millisecond)
		defer tk.Stop()
		last := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tk.C:
				l.live.Step(now.Sub(last))
				last = now
				if _, err := l.live.Node.Update(l.dir); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	go func() { _ = a.Run(ctx) }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = Serve(ctx, ln, a.Handler(HandlerOptions{})) }()

	promAddr := testenv.StartPrometheus(t, fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ibdoctor
    static_configs:
      - targets: ['%s']
`, ln.Addr()))

	// Simulated traffic: 70% of 400 Gb/s = 35e9 bytes/s per active port.
	q := `max(rate(ibdoctor_port_xmit_bytes_total{job="ibdoctor",link_layer="Ethernet"}[10s]))`
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		n, _ := queryScalar(promAddr, `min(count_over_time(ibdoctor_port_xmit_bytes_total{job="ibdoctor"}[10s]))`)
		v, err := queryScalar(promAddr, q)
		if err == nil && v > 0 && n >= 8 { // a full window of scrapes
			// The simulated node runs at 70% of 400 Gb/s = 35e9 bytes/s, but
			// it is stepped in real time on a shared machine, so updates come
			// in bursts: accept a wide band, and require the PromQL rate to
			// agree with the agent's own rate gauge over the same window.
			if v < 10e9 || v > 40e9 {
				t.Fatalf("rate through Prometheus = %.3g bytes/s, want about 35e9 (70%% of 400 Gb/s)", v)
			}
			g, err := queryScalar(promAddr, `max(avg_over_time(ibdoctor_port_data_rate_bytes_per_second{job="ibdoctor",direction="transmit"}[10s]))`)
			if err != nil || g < 0.6*v || g > 1.6*v {
				t.Errorf("agent's rate gauge %.3g vs PromQL rate %.3g (%v)", g, v, err)
			}
			f, err := queryScalar(promAddr, `count(ibdoctor_port_state{job="ibdoctor"})`)
			if err != nil || f < 1 {
				t.Errorf("port state series through Prometheus: %v %v", f, err)
			}
			return
		}
		last = fmt.Sprint(v, err)
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("no rate through Prometheus within 60 s (last: %s)", last)
}

// queryScalar runs an instant query and returns the first sample's value.
func queryScalar(addr, q string) (float64, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, err
	}
	if r.Status != "success" || len(r.Data.Result) == 0 {
		return 0, fmt.Errorf("no result (status %q)", r.Status)
	}
	s, ok := r.Data.Result[0].Value[1].(string)
	if !ok {
		return 0, fmt.Errorf("value %v", r.Data.Result[0].Value)
	}
	return strconv.ParseFloat(s, 64)
}
