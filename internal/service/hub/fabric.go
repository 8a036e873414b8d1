package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/job"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
	"github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// fabricState is the last fabric the hub judged.
type fabricState struct {
	view web.Fabric
	// leafOf maps a host to the leaf switch its first HCA is cabled to;
	// peerOf "host dev/port" to "leaf port N".
	leafOf map[string]string
	peerOf map[string]string
	// errs are each link's error counter sums, for the next rate.
	errs  map[string]uint64
	taken time.Time
}

// FabricResult is the stored fabric check: its findings and gaps with the
// page's view.
type FabricResult struct {
	Taken    time.Time         `json:"taken"`
	Source   string            `json:"source"`
	Findings []finding.Finding `json:"findings"`
	Gaps     []fabricrules.Gap `json:"gaps"`
	View     web.Fabric        `json:"view"`
	Errs     map[string]uint64 `json:"link_errors"`
	Summary  map[string]int    `json:"summary"`
	LeafOf   map[string]string `json:"leaf_of"`
	PeerOf   map[string]string `json:"peer_of"`
}

// groupOf is a host's leaf, "" unknown (h.mu held).
func (h *Hub) groupOf(host string) string {
	if h.fabric == nil {
		return ""
	}
	return h.fabric.leafOf[host]
}

// peerOf is the switch port a host's port is cabled to (h.mu held).
func (h *Hub) peerOf(host, dev string, port int) string {
	if h.fabric == nil {
		return ""
	}
	return h.fabric.peerOf[host+" "+dev+"/"+strconv.Itoa(port)]
}

// LoadFabric reads a `fabric collect` directory or .tar.gz, judges it as
// `fabric check` does and keeps the result.
func (h *Hub) LoadFabric(ctx context.Context, path string) error {
	raw, err := fabric.ReadFrom(path)
	if err != nil {
		return err
	}
	return h.JudgeFabric(ctx, raw)
}

// CollectFabric queries the fabric as `fabric collect` does and judges it.
func (h *Hub) CollectFabric(ctx context.Context, o fabric.CollectOptions) error {
	raw, err := fabric.Collect(ctx, o)
	if err != nil {
		return err
	}
	return h.JudgeFabric(ctx, raw)
}

// JudgeFabric checks a collection (links, counters, SM, routes), builds
// the page's view and stores the result.
func (h *Hub) JudgeFabric(ctx context.Context, raw *fabricmodel.Raw) error {
	m := fabricrules.Build(raw)
	if len(m.Nodes) == 0 {
		return errors.New("no fabric topology could be read from the collection")
	}
	fs := fabricrules.Check(m, fabricrules.Options{})
	rfs, res, rerr := fabricrules.CheckRouting(m, routing.Options{Confirm: func(routing.Sample) routing.Confirmation {
		return routing.Confirmation{Note: "not confirmed by the hub"}
	}})
	fs = append(fs, rfs...)
	gaps := slices.Clone(m.Gaps)
	if rerr != nil {
		gaps = append(gaps, fabricrules.Gap{Source: "routing", Reason: rerr.Error()})
	}
	catalog.Sort(fs)
	h.mu.RLock()
	prev := h.fabric
	h.mu.RUnlock()
	st := buildFabric(m, fs, res, prev)
	r := FabricResult{Taken: m.Taken, Source: m.Source, Findings: fs, Gaps: gaps, View: st.view, Errs: st.errs, LeafOf: st.leafOf, PeerOf: st.peerOf,
		Summary: map[string]int{"nodes": len(m.Nodes), "links": len(m.Links)}}
	doc, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := h.st.PutFabric(ctx, m.Taken, m.Source, doc); err != nil {
		return fmt.Errorf("storing the fabric check: %w", err)
	}
	h.mu.Lock()
	h.fabric = st
	h.mu.Unlock()
	return nil
}

// RestoreFabric loads the last stored fabric check (at start).
func (h *Hub) RestoreFabric(ctx context.Context) error {
	_, _, doc, ok, err := h.st.LatestFabric(ctx)
	if err != nil || !ok {
		return err
	}
	var r FabricResult
	if err := json.Unmarshal(doc, &r); err != nil {
		return fmt.Errorf("stored fabric check: %w", err)
	}
	h.mu.Lock()
	h.fabric = &fabricState{view: r.View, leafOf: r.LeafOf, peerOf: r.PeerOf, errs: r.Errs, taken: r.Taken}
	h.mu.Unlock()
	return nil
}

func guid(g uint64) string { return ib.GUIDString(g) }

// errorCounters are the PortCounters fields summed into a link's error
// rate.
var errorCounters = []string{"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
	"PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards", "PortXmitConstraintErrors",
	"PortRcvConstraintErrors", "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped"}

// errSum sums a port's error counters; ok is false when they were not
// read (with have, a port the counters did not list has none).
func errSum(p *fabricrules.Port, have bool) (uint64, bool) {
	if p == nil || (p.Counters == nil && !have) {
		return 0, false
	}
	var s uint64
	for _, k := range errorCounters {
		s += p.Counters[k]
	}
	return s, true
}

func healthOfPort(p *fabricrules.Port) web.Health {
	switch {
	case p == nil || !p.HaveState:
		return web.Unknown
	case p.State == ib.StateActive:
		return web.OK
	}
	return web.Critical
}

func worse(a, b web.Health) web.Health {
	if healthRank[b] > healthRank[a] {
		return b
	}
	return a
}

// buildFabric turns the model into the page's view: switches by tier
// (leaves carry their hosts), every switch-to-switch link with its rate,
// health, error rate since prev and route load.
func buildFabric(m *fabricrules.Fabric, fs []finding.Finding, res *routing.Result, prev *fabricState) *fabricState {
	st := &fabricState{leafOf: map[string]string{}, peerOf: map[string]string{}, errs: map[string]uint64{}, taken: m.Taken}
	v := web.Fabric{Taken: m.Taken, Source: m.Source, Findings: fs}
	// The worst finding on each end, by GUID and port.
	endHealth := map[string]web.Health{}
	degraded := map[string]bool{}
	mark := func(s *finding.Subject, f finding.Finding) {
		if s == nil || s.NodeGUID == "" {
			return
		}
		k := s.NodeGUID + "/" + strconv.Itoa(s.Port)
		endHealth[k] = worse(endHealth[k], web.HealthOf(f.Severity))
		if f.ID == "fabric.link_degraded" {
			degraded[k] = true
		}
	}
	for _, f := range fs {
		mark(&f.Subject, f)
		mark(f.Subject.Peer, f)
	}
	nodeHealth := make([]web.Health, len(m.Nodes))
	for i := range nodeHealth {
		nodeHealth[i] = web.OK
	}
	loads := map[[2]routing.PortRef]int{}
	if res != nil {
		for _, l := range res.Loads {
			loads[[2]routing.PortRef{l.From, l.To}] += int(l.Routes)
		}
	}
	tiers := m.Tiers()
	maxTier := 0
	for _, t := range tiers {
		maxTier = max(maxTier, t)
	}
	hosts := make([][]web.HostLink, len(m.Nodes))
	for _, l := range m.Links {
		a, b := l.A, l.B
		na, nb := m.Node(a.Node), m.Node(b.Node)
		if na.Type != ibdiags.Switch && nb.Type == ibdiags.Switch {
			a, b, na, nb = b, a, nb, na
		}
		pa, pb := m.PortOf(a), m.PortOf(b)
		kA, kB := guid(na.GUID)+"/"+strconv.Itoa(a.Port), guid(nb.GUID)+"/"+strconv.Itoa(b.Port)
		hl := worse(worse(healthOfPort(pa), healthOfPort(pb)), worse(endHealth[kA], endHealth[kB]))
		if hl == web.Unknown && pa == nil && pb == nil {
			hl = web.OK // ibnetdiscover saw the link; no state read
		}
		if nb.Type != ibdiags.Switch {
			// A switch (na) to a CA (nb): the host hangs off this leaf.
			host := job.HostOf(nb.Desc)
			dev := nb.Name()
			if _, d, ok := strings.Cut(nb.Desc, " "); ok && d != "" {
				dev = d
			}
			port := dev + "/" + strconv.Itoa(b.Port)
			hosts[a.Node] = append(hosts[a.Node], web.HostLink{Host: host, Port: port, Health: hl})
			if _, ok := st.leafOf[host]; !ok && host != "" {
				st.leafOf[host] = na.Name()
			}
			st.peerOf[host+" "+port] = na.Name() + " port " + strconv.Itoa(a.Port)
			nodeHealth[a.Node] = worse(nodeHealth[a.Node], hl)
			continue
		}
		if na.Type != ibdiags.Switch {
			continue // CA to CA: no switch to draw it from
		}
		w, s := l.Width, l.Speed
		for _, p := range []*fabricrules.Port{pa, pb} {
			if p != nil && p.HaveState && p.State == ib.StateActive {
				if w == 0 {
					w = p.Width
				}
				if s == 0 {
					s = p.Speed
				}
			}
		}
		lk := web.Link{ID: kA + "-" + kB, Health: hl, Degraded: degraded[kA] || degraded[kB],
			A: linkEnd(na, a, pa), B: linkEnd(nb, b, pb),
			LoadAB: loads[[2]routing.PortRef{{Node: a.Node, Port: a.Port}, {Node: b.Node, Port: b.Port}}],
			LoadBA: loads[[2]routing.PortRef{{Node: b.Node, Port: b.Port}, {Node: a.Node, Port: a.Port}}]}
		if w > 0 {
			lk.Width = strconv.Itoa(w) + "X"
		}
		if s > 0 {
			lk.Speed = s.String()
		}
		if pa != nil && pa.HaveState {
			lk.State = pa.State.String()
		} else if pb != nil && pb.HaveState {
			lk.State = pb.State.String()
		}
		if lk.Degraded && lk.Health == web.OK {
			lk.Health = web.Warning
		}
		ea, okA := errSum(pa, m.HaveCounters)
		eb, okB := errSum(pb, m.HaveCounters)
		if okA || okB {
			st.errs[lk.ID] = ea + eb
			if prev != nil {
				if before, ok := prev.errs[lk.ID]; ok && ea+eb >= before {
					if dt := m.Taken.Sub(prev.taken).Seconds(); dt > 0 {
						lk.ErrorRate = float64(ea+eb-before) / dt
					}
				}
			}
		}
		nodeHealth[a.Node] = worse(nodeHealth[a.Node], lk.Health)
		nodeHealth[b.Node] = worse(nodeHealth[b.Node], lk.Health)
		v.Links = append(v.Links, lk)
	}
	for _, f := range fs {
		if f.Subject.NodeGUID == "" {
			continue
		}
		for i := range m.Nodes {
			if m.Nodes[i].Type == ibdiags.Switch && guid(m.Nodes[i].GUID) == f.Subject.NodeGUID {
				nodeHealth[i] = worse(nodeHealth[i], web.HealthOf(f.Severity))
			}
		}
	}
	v.Tiers = make([][]web.Switch, maxTier)
	for i := range m.Nodes {
		n := m.Node(i)
		if n.Type != ibdiags.Switch {
			continue
		}
		t := tiers[i]
		if t < 1 {
			t = maxTier // no CA below it: drawn with the spines
		}
		if t < 1 {
			continue
		}
		sw := web.Switch{ID: guid(n.GUID), Name: n.Name(), Health: nodeHealth[i], Hosts: hosts[i]}
		slices.SortFunc(sw.Hosts, func(a, b web.HostLink) int { return strings.Compare(a.Host+" "+a.Port, b.Host+" "+b.Port) })
		v.Tiers[t-1] = append(v.Tiers[t-1], sw)
	}
	for _, tier := range v.Tiers {
		slices.SortFunc(tier, func(a, b web.Switch) int { return strings.Compare(a.Name, b.Name) })
	}
	slices.SortFunc(v.Links, func(a, b web.Link) int { return strings.Compare(a.ID, b.ID) })
	st.view = v
	return st
}

func linkEnd(n *fabricrules.Node, e fabricrules.End, p *fabricrules.Port) web.LinkEnd {
	le := web.LinkEnd{ID: guid(n.GUID), Name: n.Name(), Port: e.Port}
	if p != nil && p.Counters != nil {
		le.Counters = p.Counters
	}
	return le
}
