package democluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
	"github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// health reads an agent's /api/v1/health; err is set when it does not
// answer.
func health(url string) (*agent.Health, error) {
	cl := &http.Client{Timeout: 2 * time.Second}
	resp, err := cl.Get(url + "/api/v1/health")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var h agent.Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return nil, err
	}
	return &h, nil
}

func ids(h *agent.Health) []string {
	var out []string
	for _, f := range h.Findings {
		out = append(out, fmt.Sprintf("%s %s/%d", f.ID, f.Subject.Device, f.Subject.Port))
	}
	return out
}

// waitFor polls cond every 100 ms until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() (bool, string)) {
	t.Helper()
	end := time.Now().Add(d)
	last := ""
	for time.Now().Before(end) {
		ok, s := cond()
		if ok {
			return
		}
		last = s
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s (last: %s)", what, d, last)
}

// TestCluster runs 4 nodes at 30× speed: the agents answer, the fabric
// and hosts file are written, each scheduled fault shows on its node in
// time, the away agent goes and comes back, and the pairwise run blames
// the slow node.
func TestCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var logMu chanLog
	c, err := Start(ctx, Options{Dir: t.TempDir(), Nodes: 4, HostsPerLeaf: 2, Speed: 30, Tick: 100 * time.Millisecond,
		Interval: 200 * time.Millisecond, PerfDuration: 300 * time.Millisecond, Logf: logMu.logf(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	if len(c.Agents) != 4 {
		t.Fatalf("%d agents", len(c.Agents))
	}
	for i, a := range c.Agents {
		h, err := health(a.URL)
		if err != nil {
			t.Fatalf("%s: %v", a.Host, err)
		}
		if h.Host != HostName(i) || a.Host != h.Host {
			t.Errorf("agent %d answers for %q, listed as %q", i, h.Host, a.Host)
		}
		if want := fmt.Sprintf("leaf%d", i/2+1); a.Leaf != want {
			t.Errorf("%s on %q, want %s", a.Host, a.Leaf, want)
		}
	}
	f, err := os.Open(c.AgentsFile)
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := pairwise.ParseHosts(f, c.AgentsFile)
	f.Close()
	if err != nil || len(hosts) != 4 || hosts[3].Name != "gpu04" || hosts[3].Addr != c.Agents[3].Addr {
		t.Errorf("agents file: %+v, %v", hosts, err)
	}

	// The fabric as `fabric check --from` reads it: gpu04's mlx5_5 has no
	// cable (the node's port is Polling) and leaf1's first uplink is 1X.
	raw, err := fabric.ReadFrom(c.FabricDir)
	if err != nil {
		t.Fatal(err)
	}
	m := fabricrules.Build(raw)
	if len(m.Gaps) > 0 {
		t.Errorf("fabric gaps: %+v", m.Gaps)
	}
	var fnames []string
	for _, x := range fabricrules.Check(m, fabricrules.Options{}) {
		fnames = append(fnames, x.ID+" "+x.Subject.NodeDesc)
	}
	if !slices.Contains(fnames, "fabric.link_degraded spine1") {
		t.Errorf("fabric findings %q: no degraded leaf1-spine1 uplink", fnames)
	}
	for _, n := range m.Nodes {
		if n.Name() == "gpu04 mlx5_5" {
			t.Error("gpu04 mlx5_5 is Polling on the node but discovered in the fabric")
		}
	}

	// gpu04: Polling from the start; 2X from 42 s.
	waitFor(t, "gpu04 mlx5_2 at 2X", 30*time.Second, func() (bool, string) {
		h, err := health(c.Agents[3].URL)
		if err != nil {
			return false, err.Error()
		}
		got := ids(h)
		return slices.Contains(got, "port.width_degraded mlx5_2/1") && slices.Contains(got, "port.polling mlx5_5/1"), strings.Join(got, ", ")
	})
	// gpu03: symbol errors grow on mlx5_1.
	waitFor(t, "gpu03 symbol errors", 30*time.Second, func() (bool, string) {
		h, err := health(c.Agents[2].URL)
		if err != nil {
			return false, err.Error()
		}
		return slices.Contains(ids(h), "port.symbol_errors mlx5_1/1"), strings.Join(ids(h), ", ")
	})
	// gpu02: mlx5_3 went down at 20 s (and flaps every minute).
	waitFor(t, "gpu02 flap", 30*time.Second, func() (bool, string) {
		return slices.ContainsFunc(c.Events(), func(e Event) bool {
			return e.Host == "gpu02" && strings.Contains(e.What, "mlx5_3/1 link down")
		}), fmt.Sprint(c.Elapsed())
	})
	// gpu01's agent: gone from 60 s, back from 120 s.
	waitFor(t, "gpu01 away", 30*time.Second, func() (bool, string) {
		_, err := health(c.Agents[0].URL)
		return err != nil, fmt.Sprint(c.Elapsed())
	})
	waitFor(t, "gpu01 back", 30*time.Second, func() (bool, string) {
		_, err := health(c.Agents[0].URL)
		return err == nil && c.Elapsed() >= Away[1], fmt.Sprint(c.Elapsed(), err)
	})

	select {
	case <-c.PerfDone():
	case <-ctx.Done():
		t.Fatal("pairwise run did not end")
	}
	rep, file, err := c.Perf()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Error(err)
	}
	if n := len(rep.Matrix.Pairs); n != 6 {
		t.Errorf("%d pairs measured, want 6 (every pair of 4 hosts once)", n)
	}
	// The pairs with gpu04 (throttled to a quarter) are slower than the
	// others: medians, so one pair starved on a loaded machine does not
	// decide.
	var with, without []float64
	for _, p := range rep.Matrix.Pairs {
		if p.Result == nil {
			t.Fatalf("pair %s-%s failed: %s", p.A, p.B, p.Error)
		}
		if p.A == "gpu04" || p.B == "gpu04" {
			with = append(with, p.Result.BitsPerSecond)
		} else {
			without = append(without, p.Result.BitsPerSecond)
		}
	}
	slices.Sort(with)
	slices.Sort(without)
	if w, wo := with[len(with)/2], without[len(without)/2]; w >= wo*0.6 {
		t.Errorf("pairs with gpu04: median %.0f b/s, without: %.0f b/s (%v, %v)", w, wo, with, without)
	}
	if len(rep.Findings) == 0 {
		t.Error("no pairwise findings")
	}
}

// chanLog logs through t until the test ends.
type chanLog struct{}

func (chanLog) logf(t *testing.T) func(string, ...any) {
	return func(format string, a ...any) { t.Logf(format, a...) }
}
