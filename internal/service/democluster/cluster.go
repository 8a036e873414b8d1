// Package democluster runs a whole simulated cluster on one machine for
// `ibdoctor demo --ui`: simulated GPU nodes whose sysfs roots change over
// time, with faults on a schedule; an agent per node on a loopback port,
// reading its root; the nodes' InfiniBand fabric as a saved collection;
// and a pairwise bandwidth run between the agents with one slow node.
// What reads it all (the hub) is wired by the caller.
package democluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// Options say what to simulate and how fast.
type Options struct {
	// Dir holds everything written: nodes/<host> (the roots),
	// fabric/ (the collection), perf/ (pairwise reports) and agents.txt
	// (one `address:port host` line per agent). Required.
	Dir string
	// Nodes is the number of nodes (default 12, at least 4), HostsPerLeaf
	// how many share a leaf switch (default 4).
	Nodes, HostsPerLeaf int
	// Speed is how many simulated seconds pass per real second (default
	// 1); Tick is the real time between simulation steps (default 1 s).
	Speed float64
	Tick  time.Duration
	// Interval is the agents' sampling interval (default 5 s).
	Interval time.Duration
	// PerfDuration is how long each pair's bandwidth test sends (default
	// 300 ms).
	PerfDuration time.Duration
	// Logf receives one line per scheduled event (nil: discarded).
	Logf func(format string, a ...any)
}

func (o *Options) defaults() error {
	if o.Dir == "" {
		return errors.New("democluster: no directory")
	}
	if o.Nodes == 0 {
		o.Nodes = 12
	}
	if o.HostsPerLeaf == 0 {
		o.HostsPerLeaf = 4
	}
	if o.Nodes < 4 || o.Nodes > 99 {
		return fmt.Errorf("democluster: %d nodes (want 4 to 99: the faults need 4 nodes)", o.Nodes)
	}
	if o.Speed <= 0 {
		o.Speed = 1
	}
	if o.Tick <= 0 {
		o.Tick = time.Second
	}
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.PerfDuration <= 0 {
		o.PerfDuration = 300 * time.Millisecond
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return nil
}

// Agent is one node's agent.
type Agent struct {
	Host string
	// Addr is host:port on 127.0.0.1; URL is http://Addr.
	Addr, URL string
	// Root is the node's simulated root.
	Root string
	// Leaf is the leaf switch the node's HCAs are cabled to.
	Leaf string
}

// Event is something the schedule did, at simulated time At.
type Event struct {
	At   time.Duration
	Host string
	What string
}

// Cluster is a running simulated cluster.
type Cluster struct {
	Agents []Agent
	// AgentsFile lists the agents, one `address:port host` per line.
	AgentsFile string
	// FabricDir is the fabric collection (`fabric check --from`).
	FabricDir string
	// PerfDir receives the pairwise report, <id>.json, once the run is
	// done (see PerfDone).
	PerfDir string
	// Token authorises pairwise tests on the agents.
	Token string

	o      Options
	nodes  []*node
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	events   []Event
	elapsed  time.Duration
	perf     *pairwise.Report
	perfErr  error
	perfFile string
	perfDone chan struct{}
}

// node is one simulated node with its agent.
type node struct {
	host  string
	dir   string
	live  *simnode.Live
	agent *agent.Agent
	h     http.Handler
	addr  string

	mu  sync.Mutex
	srv *http.Server // nil while the agent is away
}

// The schedule: who breaks how. Hosts are named by their index so any
// cluster of at least 4 nodes has every fault.
const (
	flapHost   = 1 // mlx5_3/1 goes down for 5 s every minute from 20 s
	errorsHost = 2 // mlx5_1/1 symbol errors grow from 10 s
	narrowHost = 3 // mlx5_2/1 retrains at 2X at 40 s
	// awayHost's agent stops answering at 60 s and returns at 120 s.
	awayHost = 0
	// slowHost sends and receives pairwise tests at a quarter of the rate.
	slowHost = 3
	// pollingHost has mlx5_5/1 unplugged from the start (the last node).
	pollingHost = -1
)

// Away is when awayHost's agent is gone, in simulated time. It leaves
// once the pairwise run at the start is over too (PerfDone), so every
// pair of that run is measured: at the speeds tests use, 60 simulated
// seconds are 2 real ones, less than the run takes on a loaded machine.
var Away = [2]time.Duration{60 * time.Second, 120 * time.Second}

// HostName is the name of node i (0-based): gpu01, gpu02…
func HostName(i int) string { return fmt.Sprintf("gpu%02d", i+1) }

// Start builds the nodes, writes their roots, starts their agents and the
// simulation, writes the fabric collection and starts the pairwise run in
// the background. Close stops it all.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	c := &Cluster{o: o, Token: hex.EncodeToString(tok), perfDone: make(chan struct{}),
		AgentsFile: filepath.Join(o.Dir, "agents.txt"), FabricDir: filepath.Join(o.Dir, "fabric"), PerfDir: filepath.Join(o.Dir, "perf")}
	ctx, c.cancel = context.WithCancel(ctx)
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	for i := range o.Nodes {
		n, err := c.buildNode(i)
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}
	leafOf, err := c.writeFabric(0)
	if err != nil {
		return nil, fmt.Errorf("fabric: %w", err)
	}
	var hosts []byte
	for i, n := range c.nodes {
		if err := c.startAgent(ctx, n, i); err != nil {
			return nil, err
		}
		c.Agents = append(c.Agents, Agent{Host: n.host, Addr: n.addr, URL: "http://" + n.addr, Root: n.dir, Leaf: leafOf[n.host]})
		hosts = fmt.Appendf(hosts, "%s %s\n", n.addr, n.host)
	}
	if err := os.WriteFile(c.AgentsFile, hosts, 0o644); err != nil {
		return nil, err
	}
	c.wg.Add(2)
	go func() { defer c.wg.Done(); c.simulate(ctx) }()
	go func() { defer c.wg.Done(); c.runPerf(ctx) }()
	ok = true
	return c, nil
}

// Close stops the simulation, the pairwise run and the agents, and waits
// for them.
func (c *Cluster) Close() {
	if c.cancel != nil {
		c.cancel()
	}
	c.wg.Wait()
	for _, n := range c.nodes {
		n.stop()
	}
}

// Events returns what the schedule did so far.
func (c *Cluster) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

// Elapsed is the simulated time since the start.
func (c *Cluster) Elapsed() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.elapsed
}

// perfOver says whether the pairwise run has ended.
func (c *Cluster) perfOver() bool {
	select {
	case <-c.perfDone:
		return true
	default:
		return false
	}
}

// PerfDone is closed when the pairwise run has ended; Perf then returns
// its report and the file it was written to.
func (c *Cluster) PerfDone() <-chan struct{} { return c.perfDone }

// Perf returns the pairwise report, its file and the run's error (nil
// report before PerfDone).
func (c *Cluster) Perf() (*pairwise.Report, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.perf, c.perfFile, c.perfErr
}

func (c *Cluster) event(at time.Duration, host, what string) {
	c.mu.Lock()
	c.events = append(c.events, Event{At: at, Host: host, What: what})
	c.mu.Unlock()
	c.o.Logf("t=%s %s: %s", at.Round(time.Second), host, what)
}

// index resolves a schedule index (negative counts from the end).
func (c *Cluster) index(i int) int {
	if i < 0 {
		return c.o.Nodes + i
	}
	return i
}

func (c *Cluster) buildNode(i int) (*node, error) {
	host := HostName(i)
	var faults []simnode.Fault
	if i == c.index(pollingHost) {
		f, err := simnode.ParseFault("polling:mlx5_5/1")
		if err != nil {
			return nil, err
		}
		faults = append(faults, f)
	}
	n, err := simnode.Build(simnode.Options{Profile: simnode.DefaultProfile, Host: host, Faults: faults})
	if err != nil {
		return nil, err
	}
	assignLIDs(n, i)
	dir := filepath.Join(c.o.Dir, "nodes", host)
	nd := &node{host: host, dir: dir, live: simnode.NewLive(n, c.scenario(i))}
	return nd, nil
}

// scenario is node i's script: traffic at 60% of line rate everywhere,
// plus the node's fault.
func (c *Cluster) scenario(i int) *simnode.Scenario {
	s := &simnode.Scenario{Name: "demo", LoadPermille: 600}
	onPort := func(ref string, f func(n *simnode.Node, p *simnode.Port) error) func(*simnode.Node) error {
		return func(n *simnode.Node) error {
			_, p, err := n.PortRef(ref)
			if err != nil {
				return err
			}
			return f(n, p)
		}
	}
	switch i {
	case flapHost:
		for k := range 60 {
			at := 20*time.Second + time.Duration(k)*time.Minute
			s.Events = append(s.Events,
				simnode.Event{At: at, What: "mlx5_3/1 link down (link_downed +1)", Do: onPort("mlx5_3/1", func(n *simnode.Node, p *simnode.Port) error {
					simnode.LinkDown(n, p)
					return nil
				})},
				simnode.Event{At: at + 5*time.Second, What: "mlx5_3/1 link up", Do: onPort("mlx5_3/1", func(n *simnode.Node, p *simnode.Port) error {
					simnode.LinkUp(n, p)
					return nil
				})})
		}
	case errorsHost:
		// symbol_error on mlx5_1/1: 20/s from 10 s, doubling every 30 s
		// up to 20·2^6/s.
		s.Tick = func(n *simnode.Node, from, to time.Duration) {
			_, p, err := n.PortRef("mlx5_1/1")
			if err != nil || to <= 10*time.Second {
				return
			}
			for t := max(from, 10*time.Second); t < to; {
				next := min(to, (t/time.Second+1)*time.Second)
				k := min(uint64((t-10*time.Second)/(30*time.Second)), 6)
				p.AddCounter("symbol_error", uint64(float64(uint64(20)<<k)*(next-t).Seconds()))
				t = next
			}
		}
	case narrowHost:
		s.Events = []simnode.Event{
			{At: 40 * time.Second, What: "mlx5_2/1 retrains: link down", Do: onPort("mlx5_2/1", func(n *simnode.Node, p *simnode.Port) error {
				simnode.LinkDown(n, p)
				return nil
			})},
			{At: 42 * time.Second, What: "mlx5_2/1 back up at 2X of 4X (a dead lane)", Do: onPort("mlx5_2/1", func(n *simnode.Node, p *simnode.Port) error {
				if err := p.SetWidth(2); err != nil {
					return err
				}
				simnode.LinkUp(n, p)
				return nil
			})},
		}
	}
	return s
}

// startAgent writes the node's root and serves its agent on a free
// loopback port; the first sample is taken before it listens.
func (c *Cluster) startAgent(ctx context.Context, n *node, i int) error {
	if err := n.live.Node.Write(n.dir); err != nil {
		return err
	}
	root, err := rootfs.Open(n.dir)
	if err != nil {
		return err
	}
	var kern agent.KernelReader
	if name, ok := agent.RootKernelLog(root); ok {
		kern = agent.FileKernel(root, name)
	}
	src := agent.NewCachedSource(root, nil, agent.DefaultFullReadEvery)
	a, err := agent.New(agent.Options{Read: src.Read, KernelNews: src.Kernel,
		Ethtool: agent.EthtoolFor(root), Interval: c.o.Interval, Kernel: kern, Boot: agent.RootBoot(root), Version: "demo"})
	if err != nil {
		return err
	}
	if err := a.Sample(ctx); err != nil {
		return fmt.Errorf("%s: %w", n.host, err)
	}
	rate := 25e6 // bytes/s (200 Mb/s): every pair's test is throttled alike…
	if i == slowHost {
		rate /= 4 // …but this node's
	}
	perf := pairwise.NewServer(pairwise.ServerOptions{Token: c.Token, RateLimit: rate, ListenIP: "127.0.0.1"})
	n.agent, n.h = a, a.Handler(agent.HandlerOptions{Token: c.Token, Perf: perf})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	n.addr = ln.Addr().String()
	n.serve(ln)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		_ = a.Tick(ctx)
	}()
	return nil
}

func (n *node) serve(ln net.Listener) {
	srv := &http.Server{Handler: n.h, ReadHeaderTimeout: 5 * time.Second}
	n.mu.Lock()
	n.srv = srv
	n.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// stop makes the agent go away: its port refuses connections.
func (n *node) stop() {
	n.mu.Lock()
	srv := n.srv
	n.srv = nil
	n.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// restart brings the agent back on its address.
func (n *node) restart() error {
	ln, err := net.Listen("tcp", n.addr)
	if err != nil {
		return err
	}
	n.serve(ln)
	return nil
}

// fabricEvery is how often (simulated) the fabric collection is written
// again.
const fabricEvery = 30 * time.Second

// simulate steps every node each Tick by Tick×Speed of simulated time,
// rewrites the roots, sends awayHost's agent away and back, and writes the
// fabric collection again every fabricEvery.
func (c *Cluster) simulate(ctx context.Context) {
	t := time.NewTicker(c.o.Tick)
	defer t.Stop()
	last := time.Now()
	away := c.nodes[c.index(awayHost)]
	gone, back := false, false
	fabricAt := fabricEvery
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			dt := time.Duration(float64(now.Sub(last)) * c.o.Speed)
			last = now
			for _, n := range c.nodes {
				for _, msg := range n.live.Step(dt) {
					c.event(n.live.Elapsed, n.host, msg)
				}
				if _, err := n.live.Node.Update(n.dir); err != nil {
					c.event(n.live.Elapsed, n.host, "cannot update the root: "+err.Error())
				}
			}
			el := c.nodes[0].live.Elapsed
			c.mu.Lock()
			c.elapsed = el
			c.mu.Unlock()
			if el >= fabricAt {
				fabricAt = el.Truncate(fabricEvery) + fabricEvery
				if _, err := c.writeFabric(el); err != nil {
					c.event(el, "fabric", "cannot write the collection: "+err.Error())
				}
			}
			switch {
			case !gone && el >= Away[0] && c.perfOver():
				gone = true
				away.stop()
				c.event(el, away.host, "agent stopped (its port refuses connections)")
			case gone && !back && el >= Away[1]:
				if err := away.restart(); err != nil {
					c.event(el, away.host, "agent cannot restart: "+err.Error())
					continue
				}
				back = true
				c.event(el, away.host, "agent back on "+away.addr)
			}
		}
	}
}

// runPerf runs a tcp bandwidth test between every pair of agents (round
// robin, median of three) and writes the report with its findings.
func (c *Cluster) runPerf(ctx context.Context) {
	defer close(c.perfDone)
	var hosts []pairwise.Host
	topo := &pairwise.Topology{Hosts: map[string]pairwise.Placement{}}
	for _, a := range c.Agents {
		hosts = append(hosts, pairwise.Host{Addr: a.Addr, Name: a.Host})
		topo.Hosts[a.Host] = pairwise.Placement{Leaf: a.Leaf}
	}
	// Each pair runs three times and keeps its median: the nodes' own
	// simulation competes for the same CPUs, and one disturbed run should
	// not make a pair look slow.
	r := &pairwise.Runner{Token: c.Token, Hosts: hosts, Repeat: 3,
		Test: pairwise.Test{Backend: pairwise.BackendTCP, Kind: pairwise.KindBW, DurationMS: c.o.PerfDuration.Milliseconds()}}
	m, err := r.Run(ctx, pairwise.RoundRobin(len(hosts)))
	rep := &pairwise.Report{Matrix: m}
	if err == nil {
		rep.Findings = pairwiserules.Check(m.Input(topo), pairwiserules.Options{})
		if rep.Findings == nil {
			rep.Findings = []finding.Finding{}
		}
	}
	file := ""
	if err == nil {
		file = filepath.Join(c.PerfDir, m.Started.UTC().Format("20060102T150405Z")+".json")
		err = writeReport(file, rep)
	}
	c.mu.Lock()
	c.perf, c.perfFile, c.perfErr = rep, file, err
	c.mu.Unlock()
	if err != nil {
		c.o.Logf("pairwise run: %v", err)
		return
	}
	c.o.Logf("pairwise run: %d pairs, %d findings, written to %s", len(m.Pairs), len(rep.Findings), file)
}

func writeReport(file string, rep *pairwise.Report) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pairwise.WriteJSON(f, *rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
