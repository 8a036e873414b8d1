package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
)

// Prometheus reads the agents' series from the Prometheus server that
// scrapes them instead of polling the agents: the targets of Job are the
// nodes (as `perf pairwise --from-agents` finds them), and each poll reads
// their ibdoctor_node_health, ibdoctor_finding, port state, physical state,
// identity (ibdoctor_port_info), link rate, data rates and error counter
// rates through the HTTP query API.
type Prometheus struct {
	// URL is the server's base URL (http://prometheus:9090).
	URL string
	// Job is the scrape job of the agents (default "ibdoctor").
	Job string
}

// promVector is an instant vector answer of /api/v1/query.
type promVector struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	} `json:"data"`
}

type sample struct {
	labels map[string]string
	v      float64
}

// query runs an instant query.
func (h *Hub) query(ctx context.Context, q string) ([]sample, error) {
	p := h.opts.Prometheus
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, err
	}
	u = u.JoinPath("api/v1/query")
	u.RawQuery = url.Values{"query": {q}}.Encode()
	ctx, cancel := context.WithTimeout(ctx, max(h.opts.Timeout, 10*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("querying Prometheus: %w", err)
	}
	defer resp.Body.Close()
	var ans promVector
	if err := json.NewDecoder(io.LimitReader(resp.Body, 256<<20)).Decode(&ans); err != nil {
		return nil, fmt.Errorf("%s: HTTP %d, not a Prometheus query answer: %w", u.Redacted(), resp.StatusCode, err)
	}
	if ans.Status != "success" {
		return nil, fmt.Errorf("Prometheus query %s: %s", q, ans.Error)
	}
	if ans.Data.ResultType != "vector" {
		return nil, fmt.Errorf("Prometheus query %s: a %s, want a vector", q, ans.Data.ResultType)
	}
	out := make([]sample, 0, len(ans.Data.Result))
	for _, r := range ans.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			continue
		}
		out = append(out, sample{labels: r.Metric, v: v})
	}
	return out, nil
}

// errorMetricsRegexp matches the metric names of every PortCounters
// error counter.
func errorMetricsRegexp() string {
	var names []string
	for _, c := range ib.PortCounterSpecs {
		if c.Kind == ib.KindError {
			names = append(names, regexp.QuoteMeta(metrics.PortCounterName(c.Name, c)))
		}
	}
	slices.Sort(names)
	return strings.Join(slices.Compact(names), "|")
}

// promErrors names the summed error counter rate that the Prometheus
// mode reads in one query.
const promErrors = "error_counters"

// errTotal is a port's summed error counters at one poll.
type errTotal struct {
	v float64
	t time.Time
}

// promState is what one poll read of one instance.
type promState struct {
	health *agent.Health
	ports  map[string]*agent.PortSummary
	order  []string
}

// pollPrometheus discovers the agents Prometheus scrapes and reads their
// series; a known agent whose target is down or that has no series fails
// its poll (and becomes hub.agent_unreachable as a polled one would).
func (h *Hub) pollPrometheus(ctx context.Context) error {
	p := h.opts.Prometheus
	job := p.Job
	if job == "" {
		job = pairwise.DefaultAgentsJob
	}
	hosts, skipped, derr := pairwise.DiscoverAgents(ctx, h.opts.Client, p.URL, job)
	if derr != nil && len(hosts) == 0 && !strings.Contains(derr.Error(), "is up") {
		return derr
	}
	h.mu.Lock()
	byAddr := map[string]*node{}
	for _, x := range hosts {
		n := h.addNode(Target{Name: x.Name, Base: "http://" + x.Addr, Addr: x.Addr})
		byAddr[x.Addr] = n
	}
	var all []*node
	for _, name := range h.order {
		all = append(all, h.nodes[name])
	}
	h.mu.Unlock()
	sel := `{job=` + strconv.Quote(job) + `}`
	queries := []string{
		`ibdoctor_node_health` + sel,
		`ibdoctor_finding` + sel,
		`ibdoctor_port_state` + sel,
		`ibdoctor_port_link_rate_bytes_per_second` + sel,
		`ibdoctor_port_data_rate_bytes_per_second` + sel,
		// rate() over several metric names fails in Prometheus ("same
		// labelset"): the hub sums the counters and takes the rate itself.
		`sum by (instance, device, port) ({job=` + strconv.Quote(job) + `,__name__=~"` + errorMetricsRegexp() + `"})`,
		`ibdoctor_port_phys_state` + sel,
		// Identity labels: node_guid, port_guid, pci and the rate string
		// (agents before port_guid and pci lack those two).
		`ibdoctor_port_info` + sel,
	}
	res := make([][]sample, len(queries))
	for i, q := range queries {
		var err error
		if res[i], err = h.query(ctx, q); err != nil {
			return err
		}
	}
	now := h.opts.Now()
	states := map[string]*promState{}
	state := func(s sample) *promState {
		inst := s.labels["instance"]
		if byAddr[inst] == nil {
			return nil
		}
		st := states[inst]
		if st == nil {
			st = &promState{ports: map[string]*agent.PortSummary{}}
			states[inst] = st
		}
		return st
	}
	port := func(st *promState, s sample) *agent.PortSummary {
		num, _ := strconv.Atoi(s.labels["port"])
		k := s.labels["device"] + "/" + strconv.Itoa(num)
		ps := st.ports[k]
		if ps == nil {
			ps = &agent.PortSummary{Port: trend.Port{Device: s.labels["device"], Port: num, LinkLayer: s.labels["link_layer"], NetDev: s.labels["netdev"]}, Rates: []agent.NamedRate{}}
			st.ports[k] = ps
			st.order = append(st.order, k)
		}
		return ps
	}
	for _, s := range res[0] {
		if st := state(s); st != nil {
			st.health = &agent.Health{Host: byAddr[s.labels["instance"]].t.Name, Taken: now, Findings: []agent.HealthEntry{}}
		}
	}
	for _, s := range res[1] {
		st := state(s)
		if st == nil || st.health == nil {
			continue
		}
		st.health.Findings = append(st.health.Findings, agent.HealthEntry{Finding: promFinding(st.health.Host, s)})
	}
	for _, s := range res[2] {
		if st := state(s); st != nil {
			port(st, s).State = ib.PortState(int(s.v)).String()
		}
	}
	for _, s := range res[3] {
		if st := state(s); st != nil {
			port(st, s).RateGbps = s.v * 8 / 1e9
		}
	}
	for _, s := range res[4] {
		if st := state(s); st != nil {
			name := map[string]string{"receive": "port_rcv_data", "transmit": "port_xmit_data"}[s.labels["direction"]]
			if name != "" {
				v := s.v
				ps := port(st, s)
				ps.Rates = append(ps.Rates, agent.NamedRate{Source: trend.SrcCounters, Name: name, PerSecond: &v})
			}
		}
	}
	for _, s := range res[5] {
		if st := state(s); st != nil {
			ps := port(st, s)
			k := ps.Device + "/" + strconv.Itoa(ps.Port.Port)
			n := byAddr[s.labels["instance"]]
			h.mu.Lock()
			prev, seen := n.errTotals[k]
			if n.errTotals == nil {
				n.errTotals = map[string]errTotal{}
			}
			n.errTotals[k] = errTotal{v: s.v, t: now}
			h.mu.Unlock()
			if dt := now.Sub(prev.t).Seconds(); seen && dt > 0 && s.v >= prev.v {
				v := (s.v - prev.v) / dt
				ps.Rates = append(ps.Rates, agent.NamedRate{Source: trend.SrcCounters, Name: promErrors, PerSecond: &v})
			}
		}
	}
	for _, s := range res[6] {
		if st := state(s); st != nil {
			port(st, s).PhysState = ib.PhysState(int(s.v)).String()
		}
	}
	for _, s := range res[7] {
		if st := state(s); st != nil {
			promIdentity(port(st, s), s.labels)
		}
	}
	down := map[string]string{}
	for _, s := range skipped {
		if addr, why, ok := strings.Cut(s, ": "); ok {
			down[addr] = why
		}
	}
	var results []result
	for _, n := range all {
		if !n.nextTry.IsZero() && n.nextTry.After(now) {
			continue
		}
		r := result{n: n, t: now}
		st := states[n.t.Addr]
		switch {
		case down[n.t.Addr] != "":
			r.err = errors.New("Prometheus: " + down[n.t.Addr])
		case byAddr[n.t.Addr] == nil:
			r.err = fmt.Errorf("Prometheus (%s) no longer lists the agent as a target of job %s", p.URL, job)
		case st == nil || st.health == nil:
			r.err = fmt.Errorf("Prometheus (%s) has no ibdoctor_node_health series for instance %s", p.URL, n.t.Addr)
		default:
			fs := make([]finding.Finding, len(st.health.Findings))
			for i, e := range st.health.Findings {
				fs[i] = e.Finding
			}
			st.health.Outcome, _ = finding.Judge(fs, "")
			ports := &agent.Ports{Host: n.t.Name, Taken: now, Interval: h.opts.Interval.Seconds()}
			slices.Sort(st.order)
			for _, k := range st.order {
				ports.Ports = append(ports.Ports, *st.ports[k])
			}
			r.health, r.ports = st.health, ports
		}
		results = append(results, r)
	}
	return h.record(ctx, results)
}

// promIdentity fills a port's identity from its ibdoctor_port_info
// labels; the rate gives width and speed only while the port is ACTIVE or
// its physical link is up, as the agent's /api/v1/ports does.
func promIdentity(ps *agent.PortSummary, l map[string]string) {
	ps.NodeGUID, ps.PortGUID, ps.PCI = l["node_guid"], l["port_guid"], l["pci"]
	if ps.State != ib.StateActive.String() && ps.PhysState != ib.PhysLinkUp.String() {
		return
	}
	if r, err := ib.ParseRate(l["rate"]); err == nil && !r.IsZero() {
		ps.Rate, ps.Width, ps.Speed = r.Sysfs(), strconv.Itoa(r.Width)+"X", r.Speed.String()
	}
}

// promFinding rebuilds a finding from its ibdoctor_finding series: the
// catalogue gives its title, causes and remedies; the series gives the
// subject.
func promFinding(host string, s sample) finding.Finding {
	l := s.labels
	port, _ := strconv.Atoi(l["port"])
	subj := finding.Subject{Host: host, Device: l["device"], Port: port}
	ev := finding.Evidence{Source: "prometheus", Value: fmt.Sprintf(`ibdoctor_finding{instance=%q,id=%q,device=%q,port=%q}`, l["instance"], l["id"], l["device"], l["port"])}
	sev, err := finding.ParseSeverity(l["severity"])
	if err != nil {
		sev = finding.Warning
	}
	if m, ok := catalog.Default.Lookup(l["id"]); ok {
		f := catalog.New(l["id"], subj, m.Title, ev)
		f.Severity = sev
		return f
	}
	return finding.Finding{ID: l["id"], Severity: sev, Subject: subj, Summary: "reported through Prometheus", Evidence: []finding.Evidence{ev}}
}
