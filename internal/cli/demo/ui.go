package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/service/democluster"
	"github.com/ibdoctor/ibdoctor/internal/service/hub"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
)

// UIOptions configure StartUI.
type UIOptions struct {
	// Listen is the hub's address (127.0.0.1:0 picks a free port).
	Listen string
	// Dir holds the node roots, the fabric collection, the pairwise
	// reports and the hub's history (required).
	Dir string
	// Nodes and HostsPerLeaf size the cluster (0: 12 nodes, 4 a leaf).
	Nodes, HostsPerLeaf int
	// Speed, Tick and Interval: simulated seconds per real second, the
	// real time between simulation steps, and the agents' and hub's
	// polling interval (0: 1, 1 s, 5 s).
	Speed    float64
	Tick     time.Duration
	Interval time.Duration
	// Logf receives the schedule's events and the hub's diagnostics.
	Logf func(format string, a ...any)
}

// UI is the whole demo system running: the simulated cluster, the hub
// polling its agents, and the hub's pages.
type UI struct {
	// URL is the hub's address, http://127.0.0.1:PORT.
	URL     string
	Cluster *democluster.Cluster
	Hub     *hub.Hub

	cancel context.CancelFunc
	done   chan struct{}
	st     *hubstore.Store
	srv    *http.Server
}

// StartUI starts the simulated cluster, a hub over its agents with the
// fabric collection (read again as the cluster rewrites it) and the
// pairwise report (once the run ends), takes the hub's first poll and
// serves the pages and the API. Close stops everything.
func StartUI(ctx context.Context, o UIOptions) (*UI, error) {
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.Speed <= 0 {
		o.Speed = 1
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(ctx)
	u := &UI{cancel: cancel, done: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			cancel()
			u.closeParts()
		}
	}()
	c, err := democluster.Start(ctx, democluster.Options{Dir: o.Dir, Nodes: o.Nodes, HostsPerLeaf: o.HostsPerLeaf,
		Speed: o.Speed, Tick: o.Tick, Interval: o.Interval, Logf: o.Logf})
	if err != nil {
		return nil, err
	}
	u.Cluster = c
	st, err := hubstore.Open(filepath.Join(o.Dir, "hub.db"), hubstore.Options{})
	if err != nil {
		return nil, err
	}
	u.st = st
	var targets []hub.Target
	for _, a := range c.Agents {
		targets = append(targets, hub.Target{Name: a.Host, Base: a.URL, Addr: a.Addr})
	}
	h, err := hub.New(ctx, hub.Options{Targets: targets, Store: st, Interval: o.Interval, Logf: o.Logf})
	if err != nil {
		return nil, err
	}
	u.Hub = h
	if err := h.LoadFabric(ctx, c.FabricDir); err != nil {
		return nil, fmt.Errorf("fabric: %w", err)
	}
	if err := h.PollOnce(ctx); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, err
	}
	u.URL = "http://" + ln.Addr().String()
	ui := web.Handler(h.Data(), web.Options{Title: "ibdoctor demo", Refresh: max(o.Interval, 5*time.Second)})
	u.srv = &http.Server{Handler: h.Handler(hub.HandlerOptions{UI: ui}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = u.srv.Serve(ln) }()
	go func() {
		defer close(u.done)
		u.feed(ctx, o)
	}()
	ok = true
	return u, nil
}

// feed polls the agents, reads the fabric again as often as the cluster
// rewrites it, and loads the pairwise report once it is written.
func (u *UI) feed(ctx context.Context, o UIOptions) {
	c, h := u.Cluster, u.Hub
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		_ = h.Run(ctx)
	}()
	defer func() { <-runDone }()
	fab := time.NewTicker(max(time.Duration(float64(30*time.Second)/o.Speed), time.Second))
	defer fab.Stop()
	perf := c.PerfDone()
	for {
		select {
		case <-ctx.Done():
			return
		case <-fab.C:
			if err := h.LoadFabric(ctx, c.FabricDir); err != nil && ctx.Err() == nil {
				o.Logf("fabric: %v", err)
			}
		case <-perf:
			perf = nil
			if _, _, err := c.Perf(); err != nil {
				continue // logged by the cluster
			}
			if _, err := hub.NewPerfDir(h, c.PerfDir).Scan(ctx); err != nil && ctx.Err() == nil {
				o.Logf("pairwise report: %v", err)
			}
		}
	}
}

// PerfLoaded reports whether the hub has the pairwise run.
func (u *UI) PerfLoaded(ctx context.Context) bool {
	runs, err := u.Hub.Data().PerfRuns(ctx)
	return err == nil && len(runs) > 0
}

// Close stops the pages, the hub and the cluster.
func (u *UI) Close() {
	u.cancel()
	<-u.done
	u.closeParts()
}

func (u *UI) closeParts() {
	if u.srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = u.srv.Shutdown(sctx)
		cancel()
	}
	if u.Cluster != nil {
		u.Cluster.Close()
	}
	if u.st != nil {
		_ = u.st.Close()
	}
}

// runUI is `ibdoctor demo --ui`: the whole system until Ctrl-C.
func runUI(o *Options) error {
	if o.Format == cmdutil.FormatJSON {
		return cmdutil.FlagErrorf("--ui serves pages: it has no --format json")
	}
	dir := o.Keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "ibdoctor-demo-ui-")
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return cmdutil.FlagErrorf("--keep %s is not empty", dir)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errOut := o.F.ErrOut
	logf := func(format string, a ...any) {
		fmt.Fprintf(errOut, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
	}
	w := o.F.Out
	fmt.Fprintf(w, "ibdoctor demo --ui: starting %d simulated nodes, their agents, the fabric and the hub…\n", max(o.Nodes, 0))
	u, err := StartUI(ctx, UIOptions{Listen: o.Listen, Dir: dir, Nodes: o.Nodes, Logf: logf})
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return cmdutil.FlagErrorf("--listen %s: %v", o.Listen, err)
		}
		return cmdutil.CannotRun(err)
	}
	var hosts []string
	for _, a := range u.Cluster.Agents {
		hosts = append(hosts, a.Host)
	}
	fmt.Fprintf(w, "%d nodes (%s … %s), each 8x H100 + 8x NDR HCAs, on %d leaves and 2 spines; an agent per node on 127.0.0.1.\n",
		len(hosts), hosts[0], hosts[len(hosts)-1], (len(hosts)+3)/4)
	fmt.Fprintf(w, "What breaks, and when (events are logged below as they happen):\n")
	for _, s := range Schedule(hosts) {
		fmt.Fprintf(w, "  - %s\n", s)
	}
	fmt.Fprintf(w, "\nThe hub:  %s/\nIts API:  %s/api/v1/nodes\nRoots, fabric collection and history: %s\nCtrl-C stops it.\n", u.URL, u.URL, dir)
	<-ctx.Done()
	fmt.Fprintln(errOut, "stopping…")
	u.Close()
	fmt.Fprintln(errOut, "stopped")
	return nil
}

// Schedule says, for people, what democluster does to which host.
func Schedule(hosts []string) []string {
	n := len(hosts)
	if n < 4 {
		return nil
	}
	return []string{
		fmt.Sprintf("%s: mlx5_5's cable is unplugged (Polling) from the start; the fabric has no cable there", hosts[n-1]),
		fmt.Sprintf("%s: symbol errors on mlx5_1 from 10 s, doubling every 30 s", hosts[2]),
		fmt.Sprintf("%s: mlx5_3 flaps (down 5 s) at 20 s and every minute after", hosts[1]),
		fmt.Sprintf("%s: mlx5_2 retrains at 2X of 4X at 40 s (a dead lane); its pairwise tests run at a quarter of the rate", hosts[3]),
		fmt.Sprintf("%s: its agent stops answering at 60 s and comes back at 120 s", hosts[0]),
		"fabric: leaf1's first uplink runs 1X, leaf3's last uplink is not cabled, symbol errors grow on leaf2's second uplink from 30 s",
		"perf: one tcp bandwidth test between every pair of agents at the start",
	}
}
