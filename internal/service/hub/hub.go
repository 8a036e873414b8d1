package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
)

// Options configure a Hub.
type Options struct {
	// Targets are the agents polled (with Prometheus unset).
	Targets []Target
	// Prometheus, when set, is read instead of polling the agents.
	Prometheus *Prometheus
	// Store keeps the history (required).
	Store *hubstore.Store
	// Interval between polls of one agent (default 15 s).
	Interval time.Duration
	// Timeout bounds one request to an agent (default 5 s, at most the
	// interval).
	Timeout time.Duration
	// MaxInFlight bounds the agents polled at once (default 64).
	MaxInFlight int
	// MaxBackoff bounds the wait before retrying an agent that failed
	// (default 8 intervals, at least 1 min).
	MaxBackoff time.Duration
	// UnreachableAfter is the number of failed polls in a row that open
	// hub.agent_unreachable (default 2).
	UnreachableAfter int
	// Client makes the requests (default: a client with keep-alive
	// connections to every agent).
	Client *http.Client
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logf receives diagnostics (nil: discarded).
	Logf func(format string, a ...any)
	// Points is about how many points a node's history keeps over the
	// retention (default 720): the step is the retention divided by it,
	// at least the interval.
	Points int
}

// Hub polls agents and keeps their history.
type Hub struct {
	opts Options
	st   *hubstore.Store
	step time.Duration

	mu    sync.RWMutex
	nodes map[string]*node
	order []string // node names, sorted
	// fabric is the last fabric view and the host → leaf map from it.
	fabric *fabricState
	// restored are open findings read at start of hosts not polled yet.
	restored map[string][]hubstore.FindingRow

	// commitMu serialises the history writes.
	commitMu sync.Mutex
}

// node is what the hub knows of one agent.
type node struct {
	t Target

	health   *agent.Health
	ports    *agent.Ports
	lastSeen time.Time
	err      string
	failures int
	nextTry  time.Time
	// open are the node's open findings by key.
	open map[string]*hubstore.FindingRow
	acc  accumulator
	// errTotals are the summed error counters per port read through
	// Prometheus, for the next rate.
	errTotals map[string]errTotal
}

// New builds a hub and restores the open findings from the store.
func New(ctx context.Context, o Options) (*Hub, error) {
	if o.Store == nil {
		return nil, errors.New("hub: no store")
	}
	if o.Interval <= 0 {
		o.Interval = 15 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	o.Timeout = min(o.Timeout, o.Interval)
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = max(8*o.Interval, time.Minute)
	}
	if o.UnreachableAfter <= 0 {
		o.UnreachableAfter = 2
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Points <= 0 {
		o.Points = 720
	}
	if o.Client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns = 0
		tr.MaxIdleConnsPerHost = 2
		tr.IdleConnTimeout = 3 * o.Interval
		o.Client = &http.Client{Transport: tr}
	}
	h := &Hub{opts: o, st: o.Store, nodes: map[string]*node{}}
	h.step = max(o.Interval, o.Store.Retention()/time.Duration(o.Points))
	for _, t := range o.Targets {
		h.addNode(t)
	}
	rows, err := h.st.Findings(ctx, hubstore.FindingQuery{OpenOnly: true})
	if err != nil {
		return nil, fmt.Errorf("reading the open findings: %w", err)
	}
	// Open findings are kept by host until the node is polled (with
	// --prometheus, nodes appear only at discovery); a host that no
	// longer has an agent keeps its findings as they were.
	h.restored = map[string][]hubstore.FindingRow{}
	for _, r := range rows {
		h.restored[r.Host] = append(h.restored[r.Host], r)
	}
	for name, n := range h.nodes {
		h.attach(name, n)
	}
	return h, nil
}

// attach gives node n the open findings restored for name.
func (h *Hub) attach(name string, n *node) {
	for i := range h.restored[name] {
		r := h.restored[name][i]
		n.open[findingKey(r.Finding)] = &r
	}
	delete(h.restored, name)
}

func (h *Hub) addNode(t Target) *node {
	if n, ok := h.nodes[t.Name]; ok {
		return n
	}
	n := &node{t: t, open: map[string]*hubstore.FindingRow{}}
	h.nodes[t.Name] = n
	if h.restored != nil {
		h.attach(t.Name, n)
	}
	i, _ := slices.BinarySearch(h.order, t.Name)
	h.order = slices.Insert(h.order, i, t.Name)
	return n
}

// Step is the spacing of the stored history.
func (h *Hub) Step() time.Duration { return h.step }

// Run polls until ctx ends.
func (h *Hub) Run(ctx context.Context) error {
	tick := time.NewTicker(h.opts.Interval)
	defer tick.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	for {
		if err := h.PollOnce(ctx); err != nil && ctx.Err() == nil {
			h.opts.Logf("poll: %v", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-prune.C:
			if n, err := h.st.Prune(ctx, h.opts.Now()); err != nil {
				h.opts.Logf("pruning the history: %v", err)
			} else if n > 0 {
				h.opts.Logf("pruned %d rows older than %s", n, h.st.Retention())
			}
		case <-tick.C:
		}
	}
}

// result is one agent's poll.
type result struct {
	n      *node
	t      time.Time
	health *agent.Health
	ports  *agent.Ports
	// rates are the ports' data and error rates (portRates).
	rates []hubstore.PortRate
	err   error
	// noSample: the agent answered but has not read its node yet.
	noSample bool
}

// PollOnce polls every agent that is due (not backing off), at most
// MaxInFlight at once, records the results and commits them to the
// store in one transaction.
func (h *Hub) PollOnce(ctx context.Context) error {
	if h.opts.Prometheus != nil {
		return h.pollPrometheus(ctx)
	}
	now := h.opts.Now()
	h.mu.RLock()
	var due []*node
	for _, name := range h.order {
		if n := h.nodes[name]; !n.nextTry.After(now) {
			due = append(due, n)
		}
	}
	h.mu.RUnlock()
	results := make([]result, len(due))
	sem := make(chan struct{}, h.opts.MaxInFlight)
	var wg sync.WaitGroup
	for i, n := range due {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = h.poll(ctx, n)
		}()
	}
	wg.Wait()
	return h.record(ctx, results)
}

// poll reads one agent's health and ports.
func (h *Hub) poll(ctx context.Context, n *node) result {
	r := result{n: n}
	var hl agent.Health
	if err := h.get(ctx, n.t.Base+"/api/v1/health", &hl, http.StatusOK, http.StatusServiceUnavailable); err != nil {
		r.err, r.t = err, h.opts.Now()
		return r
	}
	if hl.ExitCode == finding.ExitCannot && hl.Host == "" {
		// It answers: not unreachable, but there is nothing to judge.
		r.noSample, r.t = true, h.opts.Now()
		return r
	}
	buf := bodies.Get().(*bytes.Buffer)
	defer putBody(buf)
	// Without the raw readings, which the hub does not keep (an agent
	// before readings=0 sends them, and they are skipped).
	url := n.t.Base + "/api/v1/ports?readings=0"
	err := h.read(ctx, url, buf, http.StatusOK)
	if err == nil {
		if r.ports, r.rates, err = decodePorts(buf.Bytes()); err != nil {
			err = fmt.Errorf("GET %s: not the agent's API: %w", url, err)
		}
	}
	if err != nil {
		r.ports, r.rates = nil, nil
		r.err, r.t = err, h.opts.Now()
		return r
	}
	r.health, r.t = &hl, h.opts.Now()
	return r
}

// bodies are the buffers answers are read into.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putBody returns buf to bodies unless an unusually large answer grew
// it.
func putBody(buf *bytes.Buffer) {
	if buf.Cap() <= 4<<20 {
		bodies.Put(buf)
	}
}

// portsDoc is the part of the agent's /api/v1/ports document the hub
// keeps: each port's identity (physical state, width and speed, GUIDs,
// PCI address), state, rate and counter rates, without
// the raw readings (most of the document's bytes and allocations).
type portsDoc struct {
	Host     string    `json:"host"`
	Taken    time.Time `json:"taken"`
	Interval float64   `json:"interval_seconds"`
	Ports    []struct {
		Device    string  `json:"device"`
		Port      int     `json:"port"`
		LinkLayer string  `json:"link_layer"`
		NetDev    string  `json:"netdev"`
		State     string  `json:"state"`
		RateGbps  float64 `json:"rate_gbps"`
		// Identity; agents before these fields send none of them.
		PhysState string            `json:"phys_state"`
		Rate      string            `json:"rate"`
		Width     string            `json:"width"`
		Speed     string            `json:"speed"`
		PortGUID  string            `json:"port_guid"`
		NodeGUID  string            `json:"node_guid"`
		PCI       string            `json:"pci"`
		PCIeLink  string            `json:"pcie_link"`
		Rates     []agent.NamedRate `json:"rates"`
	} `json:"ports"`
}

func (d *portsDoc) ports() *agent.Ports {
	out := &agent.Ports{Host: d.Host, Taken: d.Taken, Interval: d.Interval, Ports: make([]agent.PortSummary, len(d.Ports))}
	for i, p := range d.Ports {
		out.Ports[i] = agent.PortSummary{Port: trend.Port{Device: p.Device, Port: p.Port, LinkLayer: p.LinkLayer, NetDev: p.NetDev, State: p.State, RateGbps: p.RateGbps},
			PhysState: p.PhysState, Rate: p.Rate, Width: p.Width, Speed: p.Speed, PortGUID: p.PortGUID, NodeGUID: p.NodeGUID, PCI: p.PCI, PCIeLink: p.PCIeLink, Rates: p.Rates}
	}
	return out
}

// maxAnswer bounds one agent answer (a node with hundreds of ports).
const maxAnswer = 32 << 20

// get decodes the JSON answer of url into v; codes are the accepted
// status codes.
func (h *Hub) get(ctx context.Context, url string, v any, codes ...int) error {
	buf := bodies.Get().(*bytes.Buffer)
	defer putBody(buf)
	if err := h.read(ctx, url, buf, codes...); err != nil {
		return err
	}
	if err := json.NewDecoder(bytes.NewReader(buf.Bytes())).Decode(v); err != nil {
		return fmt.Errorf("GET %s: not the agent's API: %w", url, err)
	}
	return nil
}

// read reads the answer of url into buf (reset first); codes are the
// accepted status codes.
func (h *Hub) read(ctx context.Context, url string, buf *bytes.Buffer, codes ...int) error {
	buf.Reset()
	ctx, cancel := context.WithTimeout(ctx, h.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return fmt.Errorf("GET %s: no answer within %s", url, h.opts.Timeout)
		}
		return fmt.Errorf("GET %s: %w", url, unwrapURL(err))
	}
	defer resp.Body.Close()
	if !slices.Contains(codes, resp.StatusCode) {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return fmt.Errorf("GET %s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if resp.ContentLength > maxAnswer {
		return fmt.Errorf("GET %s: the answer is %d bytes, over %d MiB", url, resp.ContentLength, maxAnswer>>20)
	}
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return fmt.Errorf("GET %s: the answer did not end within %s", url, h.opts.Timeout)
		}
		return fmt.Errorf("GET %s: reading the answer: %w", url, err)
	}
	if n > maxAnswer {
		return fmt.Errorf("GET %s: the answer is over %d MiB", url, maxAnswer>>20)
	}
	return nil
}

func unwrapURL(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		if _, ok := err.(interface{ Timeout() bool }); !ok {
			return err
		}
		err = u
	}
}

// backoff is the wait before the next poll of an agent that failed
// failures times in a row: the interval, then doubling, at most
// MaxBackoff.
func (h *Hub) backoff(failures int) time.Duration {
	d := h.opts.Interval
	for i := 1; i < failures && d < h.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, h.opts.MaxBackoff)
}

// record applies poll results to the nodes and commits what changed.
func (h *Hub) record(ctx context.Context, results []result) error {
	b := &hubstore.Batch{}
	h.mu.Lock()
	for _, r := range results {
		if r.n == nil {
			continue
		}
		h.apply(b, r)
	}
	h.mu.Unlock()
	return h.commit(ctx, b)
}

func (h *Hub) commit(ctx context.Context, b *hubstore.Batch) error {
	h.commitMu.Lock()
	defer h.commitMu.Unlock()
	if err := h.st.Commit(ctx, b); err != nil {
		return fmt.Errorf("writing the history: %w", err)
	}
	return nil
}

// apply records one result into node n (h.mu held) and adds the rows to
// write to b.
func (h *Hub) apply(b *hubstore.Batch, r result) {
	n := r.n
	if r.noSample {
		n.failures, n.nextTry, n.lastSeen = 0, time.Time{}, r.t
		n.err = "the agent answers but has not read its node yet"
		var keep []finding.Finding
		for _, o := range n.open {
			if o.Finding.ID != "hub.agent_unreachable" {
				keep = append(keep, o.Finding)
			}
		}
		h.sync(b, n, r.t, keep, false)
		return
	}
	if r.err != nil {
		n.failures++
		n.err = r.err.Error()
		n.nextTry = r.t.Add(h.backoff(n.failures))
		// One failed poll is not yet an unreachable agent: neither the
		// timeline nor the history says so before the finding opens.
		if n.failures >= h.opts.UnreachableAfter {
			f := h.unreachable(n, r.t)
			h.sync(b, n, r.t, []finding.Finding{f}, true)
			n.acc.add(h, b, n, r.t, web.Unreachable, [3]int{}, nil)
		}
		return
	}
	n.failures, n.err, n.nextTry = 0, "", time.Time{}
	n.health, n.ports, n.lastSeen = r.health, r.ports, r.t
	fs := make([]finding.Finding, len(r.health.Findings))
	for i, e := range r.health.Findings {
		fs[i] = e.Finding
	}
	h.sync(b, n, r.t, fs, false)
	rates := r.rates
	if rates == nil {
		rates = portRates(r.ports)
	}
	n.acc.add(h, b, n, r.t, nodeHealth(fs), countSeverities(fs), rates)
	// The counter rates are in the history now; the pages read only the
	// ports' state.
	for i := range r.ports.Ports {
		r.ports.Ports[i].Rates = nil
	}
}

// unreachable is the hub.agent_unreachable finding of n.
func (h *Hub) unreachable(n *node, now time.Time) finding.Finding {
	f := catalog.New("hub.agent_unreachable", finding.Subject{Host: n.t.Name},
		fmt.Sprintf("the agent at %s did not answer %d polls in a row", n.t.Base, n.failures),
		finding.Evidence{Source: "hub", Value: n.err})
	if !n.lastSeen.IsZero() {
		f.Evidence = append(f.Evidence, finding.Evidence{Source: "hub", Value: "last answer " + n.lastSeen.UTC().Format(time.RFC3339) + " (" + now.Sub(n.lastSeen).Round(time.Second).String() + " ago)"})
	} else {
		f.Evidence = append(f.Evidence, finding.Evidence{Source: "hub", Value: "never answered since the hub started"})
	}
	catalog.Fill(&f, "agent", n.t.Addr, "host", hostOf(n.t.Addr))
	return f
}

func hostOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i > 0 {
		return strings.Trim(addr[:i], "[]")
	}
	return addr
}

// sync opens the findings of fs that are new and closes the open ones fs
// no longer holds. With onlyUnreachable the poll failed: the node's other
// findings stay as they were (its health is unknown, not healed), and
// only hub.agent_unreachable is opened.
func (h *Hub) sync(b *hubstore.Batch, n *node, now time.Time, fs []finding.Finding, onlyUnreachable bool) {
	seen := map[string]bool{}
	for _, f := range fs {
		k := findingKey(f)
		seen[k] = true
		if o, ok := n.open[k]; ok {
			o.Finding = f // keep the latest evidence in memory
			continue
		}
		row := &hubstore.FindingRow{Host: n.t.Name, Subject: web.SubjectText(f.Subject), Opened: now, Finding: f}
		n.open[k] = row
		b.Open = append(b.Open, row)
	}
	for k, o := range n.open {
		if seen[k] {
			continue
		}
		if onlyUnreachable && o.Finding.ID != "hub.agent_unreachable" {
			continue
		}
		b.Close = append(b.Close, hubstore.Closing{Row: o.Row, T: now})
		o.Closed = now
		delete(n.open, k)
	}
	// Rows opened in this batch get their Row at commit; the closings
	// above only name rows committed earlier.
}

// findingKey identifies a finding on one host across polls.
func findingKey(f finding.Finding) string {
	s := f.Subject
	s.Host = ""
	b, _ := json.Marshal(s)
	return f.ID + " " + string(b)
}

func nodeHealth(fs []finding.Finding) web.Health {
	if len(fs) == 0 {
		return web.OK
	}
	return web.HealthOf(finding.Worst(fs))
}

// countSeverities counts critical, warning and info findings.
func countSeverities(fs []finding.Finding) [3]int {
	var c [3]int
	for _, f := range fs {
		switch f.Severity {
		case finding.Critical:
			c[0]++
		case finding.Warning:
			c[1]++
		case finding.Info:
			c[2]++
		}
	}
	return c
}

// portRates reads each port's data and error rates from the agent's
// ports document: data in bytes per second, errors as the sum of every
// PortCounters error counter's increments per second.
func portRates(ps *agent.Ports) []hubstore.PortRate {
	out := make([]hubstore.PortRate, 0, len(ps.Ports))
	for _, p := range ps.Ports {
		pr := hubstore.PortRate{Port: p.Device + "/" + strconv.Itoa(p.Port.Port)}
		for _, r := range p.Rates {
			if r.PerSecond == nil || r.Source != trend.SrcCounters {
				continue
			}
			switch r.Name {
			case "port_rcv_data":
				pr.RcvBps = *r.PerSecond
			case "port_xmit_data":
				pr.XmitBps = *r.PerSecond
			case promErrors:
				pr.ErrPerS += *r.PerSecond
			default:
				if sysfsErrorCounters[r.Name] && *r.PerSecond > 0 {
					pr.ErrPerS += *r.PerSecond
				}
			}
		}
		out = append(out, pr)
	}
	return out
}

// accumulator gathers a node's polls over one history step: the worst
// health, the highest counts, the mean rates.
type accumulator struct {
	start  time.Time
	health web.Health
	counts [3]int
	errMsg string
	sums   map[string]*rateSum
	ports  []string
}

type rateSum struct {
	rcv, xmit, err float64
	n              int
}

var healthRank = map[web.Health]int{web.OK: 1, web.Info: 2, web.Warning: 3, web.Critical: 4, web.Unreachable: 5}

// add adds one poll; when t falls in a new step, the previous step is
// written to b first.
func (a *accumulator) add(h *Hub, b *hubstore.Batch, n *node, t time.Time, hl web.Health, counts [3]int, rates []hubstore.PortRate) {
	start := t.Truncate(h.step)
	if !a.start.IsZero() && !start.Equal(a.start) {
		a.flush(b, n.t.Name)
	}
	if a.start.IsZero() || !start.Equal(a.start) {
		*a = accumulator{start: start, sums: map[string]*rateSum{}}
	}
	if healthRank[hl] > healthRank[a.health] {
		a.health = hl
	}
	if hl == web.Unreachable {
		a.errMsg = n.err
	}
	for i := range counts {
		a.counts[i] = max(a.counts[i], counts[i])
	}
	for _, r := range rates {
		s := a.sums[r.Port]
		if s == nil {
			s = &rateSum{}
			a.sums[r.Port] = s
			a.ports = append(a.ports, r.Port)
		}
		s.rcv += r.RcvBps
		s.xmit += r.XmitBps
		s.err += r.ErrPerS
		s.n++
	}
}

// flush writes the step gathered so far to b.
func (a *accumulator) flush(b *hubstore.Batch, host string) {
	if a.start.IsZero() {
		return
	}
	b.Samples = append(b.Samples, hubstore.NodeSample{Host: host, T: a.start, Health: string(a.health),
		Critical: a.counts[0], Warning: a.counts[1], Info: a.counts[2], Error: a.errMsg})
	if len(a.ports) > 0 {
		b.Rates = append(b.Rates, hubstore.PortRates{Host: host, T: a.start, Ports: a.means()})
	}
}

// means are the step's mean rates per port.
func (a *accumulator) means() []hubstore.PortRate {
	out := make([]hubstore.PortRate, 0, len(a.ports))
	for _, p := range a.ports {
		s := a.sums[p]
		k := float64(s.n)
		out = append(out, hubstore.PortRate{Port: p, RcvBps: s.rcv / k, XmitBps: s.xmit / k, ErrPerS: s.err / k})
	}
	return out
}

// Flush writes every node's step in progress (at shutdown).
func (h *Hub) Flush(ctx context.Context) error {
	b := &hubstore.Batch{}
	h.mu.Lock()
	for _, name := range h.order {
		n := h.nodes[name]
		n.acc.flush(b, name)
	}
	h.mu.Unlock()
	return h.commit(ctx, b)
}
