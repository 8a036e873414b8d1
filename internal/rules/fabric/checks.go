package fabric

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// Thresholds of fabric.link_errors and fabric.congestion (the catalogue
// documents the defaults).
type Thresholds struct {
	SymbolErrors      uint64 `json:"symbol_errors"`
	LinkErrorRecovery uint64 `json:"link_error_recovery"`
	LinkDowned        uint64 `json:"link_downed"`
	RcvErrors         uint64 `json:"rcv_errors"`
	XmitDiscards      uint64 `json:"xmit_discards"`
	XmitWait          uint64 `json:"xmit_wait"`
}

// DefaultThresholds are the IBTA counter table's totals (limits.Counters),
// the ones the node rules judge a host port's sysfs counters with. A value
// reports when it is at or above its threshold.
func DefaultThresholds() Thresholds {
	return Thresholds{SymbolErrors: limits.SymbolError.Total, LinkErrorRecovery: limits.LinkErrorRecovery.Total,
		LinkDowned: limits.LinkDowned.Total, RcvErrors: limits.RcvErrors.Total, XmitDiscards: limits.XmitDiscards.Total,
		XmitWait: limits.XmitWaitTicks}
}

// Options of Check.
type Options struct {
	// Plan, when set, is the expectation for link state, width and speed.
	Plan *Plan
	// Baseline is an earlier collection: links it had that are gone now
	// are down, and counters are judged by their growth.
	Baseline   *Fabric
	Thresholds Thresholds
	// QoS, when set, is the QoS plan the SL-to-VL tables are judged by;
	// without it the tables are only compared across nodes.
	QoS *QoSPlan
}

// Check runs every check that needs no plan beyond opts: links, counters,
// identity, the subnet manager. Routing is checked by CheckRouting, cabling
// by Diff. It is pure: the findings depend on f and opts only.
func Check(f *Fabric, opts Options) []finding.Finding {
	if opts.Thresholds == (Thresholds{}) {
		opts.Thresholds = DefaultThresholds()
	}
	var out []finding.Finding
	out = append(out, checkLinkDown(f, opts)...)
	out = append(out, checkDegraded(f, opts.Plan)...)
	out = append(out, checkCounters(f, opts.Baseline, opts.Thresholds)...)
	out = append(out, checkIdentity(f)...)
	out = append(out, checkSM(f)...)
	out = append(out, CheckQoS(f, opts.QoS)...)
	out = append(out, checkMTU(f)...)
	catalog.Sort(out)
	return out
}

func guidText(g uint64) string { return ib.GUIDString(g) }

// subject names an end of a link (and its peer, when given).
func (f *Fabric) subject(e End, peer *End) finding.Subject {
	n := &f.Nodes[e.Node]
	s := finding.Subject{NodeDesc: n.Name(), Port: e.Port, LinkLayer: string(ib.LinkLayerInfiniBand)}
	if n.GUID != 0 {
		s.NodeGUID = guidText(n.GUID) // 0: a node known only as a peer
	}
	// The LID that addresses this port in ibportstate and perfquery: a
	// switch's port 0 LID, a CA port's own.
	lid := n.LID
	if n.Type != ibdiags.Switch {
		lid = -1
		for _, p := range n.Ports {
			if p.Num == e.Port {
				lid = p.LID
			}
		}
	}
	if lid > 0 {
		s.LID = uint32(lid)
	}
	if peer != nil {
		p := f.subject(*peer, nil)
		s.Peer = &p
	}
	return s
}

// resolver maps plan node names to model nodes.
type resolver struct {
	f    *Fabric
	idx  map[string]int
	ambi map[string]bool
}

func newResolver(f *Fabric) *resolver {
	r := &resolver{f: f, idx: map[string]int{}, ambi: map[string]bool{}}
	add := func(k string, i int) {
		if k == "" {
			return
		}
		if j, ok := r.idx[k]; ok && j != i {
			r.ambi[k] = true
			return
		}
		r.idx[k] = i
	}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		add(n.Desc, i)
		add(n.ID, i)
		if n.GUID != 0 {
			add(guidText(n.GUID), i)
		}
	}
	return r
}

func (r *resolver) node(name string) (int, bool) {
	key := name
	if g, err := ib.ParseGUID(name); err == nil {
		key = guidText(g)
	} else if g := guidOfID(name); g != 0 {
		key = guidText(g)
	}
	if r.ambi[key] || r.ambi[name] {
		return 0, false
	}
	if i, ok := r.idx[key]; ok {
		return i, true
	}
	i, ok := r.idx[name]
	return i, ok
}

func isUp(p *Port) bool { return p != nil && p.HaveState && p.Phys == ib.PhysState(5) }

func stateText(p *Port) string {
	if p == nil || !p.HaveState {
		return "not listed by iblinkinfo"
	}
	return fmt.Sprintf("%s/%s", p.State, p.Phys)
}

func (f *Fabric) hasMaster() bool {
	for _, s := range f.SMs {
		if s.State == ibdiags.SMMaster {
			return true
		}
	}
	return false
}

// checkLinkDown reports ports that are down where the plan or the
// baseline has a link, and links up physically that a running master SM
// has not made Active. Each port is reported once.
func checkLinkDown(f *Fabric, opts Options) []finding.Finding {
	r := &linkDownReport{f: f, reported: map[End]bool{}}
	if opts.Plan != nil {
		r.plannedLinks(opts.Plan)
	}
	if opts.Baseline != nil {
		r.baselineLinks(opts.Baseline)
	}
	// A link up physically but not Active while a master SM runs: the SM
	// did not (or could not) bring it up.
	if f.hasMaster() {
		r.notActive()
	}
	return r.out
}

// linkDownReport collects fabric.link_down findings, at most one per
// port.
type linkDownReport struct {
	f        *Fabric
	out      []finding.Finding
	reported map[End]bool
}

// report adds a finding for e unless one exists; it says whether it
// added one.
func (r *linkDownReport) report(e End, peer *End, why string, ev ...finding.Evidence) bool {
	if r.reported[e] {
		return false
	}
	r.reported[e] = true
	r.out = append(r.out, catalog.New("fabric.link_down", r.f.subject(e, peer),
		fmt.Sprintf("%s is %s; %s", r.f.EndName(e), stateText(r.f.PortOf(e)), why), ev...))
	return true
}

// plannedLinks reports each planned link that is not cabled as planned
// and has an end that is down: one finding per link, on its first down
// end.
func (r *linkDownReport) plannedLinks(plan *Plan) {
	f := r.f
	res := newResolver(f)
	for _, pl := range plan.Links {
		a, okA := res.node(pl.A.Node)
		b, okB := res.node(pl.B.Node)
		ea, eb := End{a, pl.A.Port}, End{b, pl.B.Port}
		if okA && okB {
			if peer, _, ok := f.Peer(ea); ok && peer == eb {
				continue
			}
		}
		ev := finding.Evidence{Source: fmt.Sprintf("%s line %d", plan.Source, pl.Line), Value: fmt.Sprintf("%s <-> %s", pl.A, pl.B)}
		for _, x := range []struct {
			e, peer    End
			ok, okPeer bool
			peerName   PlanEnd
		}{{ea, eb, okA, okB, pl.B}, {eb, ea, okB, okA, pl.A}} {
			if !x.ok {
				continue
			}
			p := f.PortOf(x.e)
			if p == nil || !p.HaveState || isUp(p) {
				continue
			}
			var pp *End
			evs := []finding.Evidence{ev, {Source: "iblinkinfo", Value: f.EndName(x.e) + " " + stateText(p)}}
			if x.okPeer {
				pe := x.peer
				pp = &pe
				if q := f.PortOf(pe); q != nil && q.HaveState {
					evs = append(evs, finding.Evidence{Source: "iblinkinfo", Value: f.EndName(pe) + " " + stateText(q)})
				}
				// One finding per planned link: its peer end is named,
				// not reported again.
				r.reported[pe] = true
			}
			r.report(x.e, pp, fmt.Sprintf("the plan cables it to %s", x.peerName), evs...)
			break
		}
	}
}

// baselineLinks reports the down ends of links the baseline collection
// had and the fabric no longer has.
func (r *linkDownReport) baselineLinks(bf *Fabric) {
	f := r.f
	for _, l := range bf.Links {
		ea, okA := f.endByGUID(bf, l.A)
		eb, okB := f.endByGUID(bf, l.B)
		if okA && okB {
			if peer, _, ok := f.Peer(ea); ok && peer == eb {
				continue
			}
		}
		ev := finding.Evidence{Source: "baseline " + l.Source, Value: fmt.Sprintf("%s <-> %s", bf.EndName(l.A), bf.EndName(l.B))}
		for _, x := range []struct {
			e, peer End
			ok      bool
		}{{ea, eb, okA}, {eb, ea, okB}} {
			if !x.ok {
				continue
			}
			if p := f.PortOf(x.e); p != nil && p.HaveState && !isUp(p) {
				var pp *End
				if (x.e == ea && okB) || (x.e == eb && okA) {
					pe := x.peer
					pp = &pe
				}
				r.report(x.e, pp, "the baseline collection had a link here", ev,
					finding.Evidence{Source: "iblinkinfo", Value: f.EndName(x.e) + " " + stateText(p)})
			}
		}
	}
}

// notActive reports, as warnings, ports that are LinkUp physically but
// neither Active nor ActDefer.
func (r *linkDownReport) notActive() {
	f := r.f
	for i := range f.Nodes {
		for _, p := range f.Nodes[i].Ports {
			if p.HaveState && p.Phys == ib.PhysState(5) && p.State != ib.PortState(4) && p.State != ib.PortState(5) {
				e := End{i, p.Num}
				var pp *End
				if peer, _, ok := f.Peer(e); ok {
					pp = &peer
				}
				if r.report(e, pp, "the link is up physically but the subnet manager has not made it Active",
					finding.Evidence{Source: "iblinkinfo", Value: f.EndName(e) + " " + stateText(&p)}) {
					// Traffic cannot pass, but the cable is fine: the SM
					// is the one to look at.
					r.out[len(r.out)-1].Severity = finding.Warning
				}
			}
		}
	}
}

// endByGUID maps an end of another model (a baseline) into f by node GUID,
// falling back to the ibnetdiscover ID (or the description when the
// topology came from iblinkinfo).
func (f *Fabric) endByGUID(other *Fabric, e End) (End, bool) {
	if f.byKey == nil {
		f.byKey = make(map[string]int, len(f.Nodes))
		for i := range f.Nodes {
			k := nodeKey(&f.Nodes[i])
			if _, dup := f.byKey[k]; !dup {
				f.byKey[k] = i
			}
		}
	}
	if e.Node < 0 || e.Node >= len(other.Nodes) {
		return End{}, false
	}
	i, ok := f.byKey[nodeKey(&other.Nodes[e.Node])]
	return End{i, e.Port}, ok
}

func nodeKey(n *Node) string {
	if n.GUID != 0 {
		return "g" + guidText(n.GUID)
	}
	if n.ID != "" {
		return "i" + n.ID
	}
	return "d" + n.Desc
}

// linkRate returns a link's width and speed from ibnetdiscover, else from
// iblinkinfo's view of either end.
func (f *Fabric) linkRate(l *Link) (int, ib.Speed) {
	w, s := l.Width, l.Speed
	for _, e := range []End{l.A, l.B} {
		if p := f.PortOf(e); p != nil && p.HaveState && isUp(p) {
			if w == 0 {
				w = p.Width
			}
			if s == 0 {
				s = p.Speed
			}
		}
	}
	return w, s
}

// Tiers returns every node's tier: 0 for CAs and routers, then the hop
// distance of a switch from the nearest CA (1 = leaf); -1 when no CA is
// reachable.
func (f *Fabric) Tiers() []int {
	tier := make([]int, len(f.Nodes))
	adj := make([][]int, len(f.Nodes))
	for _, l := range f.Links {
		adj[l.A.Node] = append(adj[l.A.Node], l.B.Node)
		adj[l.B.Node] = append(adj[l.B.Node], l.A.Node)
	}
	var q []int
	for i := range f.Nodes {
		tier[i] = -1
		if f.Nodes[i].Type != ibdiags.Switch {
			tier[i] = 0
			q = append(q, i)
		}
	}
	for len(q) > 0 {
		n := q[0]
		q = q[1:]
		for _, m := range adj[n] {
			if tier[m] < 0 {
				tier[m] = tier[n] + 1
				q = append(q, m)
			}
		}
	}
	return tier
}

func rateText(w int, s ib.Speed) string {
	if w == 0 || s == 0 {
		return "unknown rate"
	}
	r := ib.NewRate(w, s)
	return fmt.Sprintf("%dX %s (%s Gb/s)", w, s, strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", r.Gbps()), "0"), "."))
}

// checkDegraded reports links running narrower or slower than expected:
// the plan's rate where the plan gives one, else the majority width of
// the links between the same tiers and the lane speed both ends can do.
func checkDegraded(f *Fabric, plan *Plan) []finding.Finding {
	var out []finding.Finding
	d := newDegradedCheck(f, plan)
	for i := range f.Links {
		l := &f.Links[i]
		w, s := f.linkRate(l)
		if w == 0 || s == 0 {
			continue
		}
		x := d.expect(l, s)
		narrow := x.width != 0 && w < x.width
		slow := x.speed != 0 && s.Generation() < x.speed.Generation()
		if !narrow && !slow {
			continue
		}
		ewText, esText := w, s
		if narrow {
			ewText = x.width
		}
		if slow {
			esText = x.speed
		}
		ev := x.ev
		if c, ok := couldBeEvidence(f, l); ok {
			ev = append(ev, c)
		}
		b := l.B
		why := x.why
		if slow && !narrow && x.speedWhy != "" {
			why = x.speedWhy
		} else if slow && x.speedWhy != "" {
			why += "; " + x.speedWhy
		}
		fd := catalog.New("fabric.link_degraded", f.subject(l.A, &b),
			fmt.Sprintf("link %s <-> %s runs at %s, expected %s (%s)", f.EndName(l.A), f.EndName(l.B), rateText(w, s), rateText(ewText, esText), why),
			append([]finding.Evidence{{Source: l.Source, Value: fmt.Sprintf("%s <-> %s %dx%s", f.EndName(l.A), f.EndName(l.B), w, s)}}, ev...)...)
		if slow && !narrow && x.speedSev != "" {
			fd.Severity = x.speedSev
		}
		out = append(out, fd)
	}
	return out
}

// tierPair is a class of links: those between tier lo and tier hi.
type tierPair struct{ lo, hi int }

// degradedCheck is what checkDegraded judges each link against: the
// planned links, the widths and speeds counted per tier pair, and the
// lane speeds each class of node was seen running.
type degradedCheck struct {
	f       *Fabric
	plan    *Plan
	planned map[[2]End]PlanLink
	tiers   []int
	caps    *speedCaps
	gw      map[tierPair]map[int]int
}

// newDegradedCheck resolves the plan's links into f (both directions)
// and counts the link widths of each tier pair.
func newDegradedCheck(f *Fabric, plan *Plan) *degradedCheck {
	d := &degradedCheck{f: f, plan: plan, planned: map[[2]End]PlanLink{}, tiers: f.Tiers(), caps: newSpeedCaps(f),
		gw: map[tierPair]map[int]int{}}
	if plan != nil {
		r := newResolver(f)
		for _, pl := range plan.Links {
			a, okA := r.node(pl.A.Node)
			b, okB := r.node(pl.B.Node)
			if okA && okB {
				ea, eb := End{a, pl.A.Port}, End{b, pl.B.Port}
				d.planned[[2]End{ea, eb}], d.planned[[2]End{eb, ea}] = pl, pl
			}
		}
	}
	for i := range f.Links {
		l := &f.Links[i]
		w, _ := f.linkRate(l)
		g := d.pair(l)
		if d.gw[g] == nil {
			d.gw[g] = map[int]int{}
		}
		if w > 0 {
			d.gw[g][w]++
		}
	}
	return d
}

// pair is the tier pair of link l.
func (d *degradedCheck) pair(l *Link) tierPair {
	a, b := d.tiers[l.A.Node], d.tiers[l.B.Node]
	return tierPair{min(a, b), max(a, b)}
}

// linkExpectation is the rate a link should run at and why: a zero
// width or speed means nothing is expected of it.
type linkExpectation struct {
	width         int
	speed         ib.Speed
	why, speedWhy string
	speedSev      finding.Severity
	ev            []finding.Evidence
}

// expect is the rate link l, running lane speed s, should run at: the
// plan's when it gives both width and speed, else the strict majority
// width (of at least 3 links) of its tier pair and the lane speed both
// ends can do.
func (d *degradedCheck) expect(l *Link, s ib.Speed) linkExpectation {
	var x linkExpectation
	if pl, ok := d.planned[[2]End{l.A, l.B}]; ok && pl.Width != 0 && pl.Speed != 0 {
		x.width, x.speed = pl.Width, pl.Speed
		x.why = "the plan"
		x.ev = append(x.ev, finding.Evidence{Source: fmt.Sprintf("%s line %d", d.plan.Source, pl.Line), Value: fmt.Sprintf("%s <-> %s %s", pl.A, pl.B, rateText(pl.Width, pl.Speed))})
		return x
	}
	g := d.pair(l)
	mw, nw := mode(d.gw[g])
	// A majority needs a strict majority of at least 2 other links.
	tw := 0
	for _, c := range d.gw[g] {
		tw += c
	}
	if nw*2 > tw && tw >= 3 {
		x.width = mw
	}
	// Lane speed: judged by what both ends can do.
	x.why = fmt.Sprintf("the majority of the %d links between tier %d and tier %d", tw, g.lo, g.hi)
	if sp, proof, sev, ok := d.caps.expect(d.f, l, s); ok {
		x.speed, x.speedWhy, x.speedSev = sp, proof, sev
	}
	return x
}

// couldBeEvidence is iblinkinfo's "could be" hint on the first end of l
// that has one.
func couldBeEvidence(f *Fabric, l *Link) (finding.Evidence, bool) {
	for _, e := range []End{l.A, l.B} {
		if p := f.PortOf(e); p != nil && (p.CouldBeWidth != 0 || p.CouldBeSpeed != 0) {
			// iblinkinfo prints only the hints that differ: a width, a
			// lane speed, or both.
			var could []string
			if p.CouldBeWidth != 0 {
				could = append(could, fmt.Sprintf("%dX", p.CouldBeWidth))
			}
			if p.CouldBeSpeed != 0 {
				could = append(could, p.CouldBeSpeed.String())
			}
			return finding.Evidence{Source: "iblinkinfo", Value: fmt.Sprintf("%s %dX %s, could be %s (the best both ends support)", f.EndName(e), p.Width, p.Speed, strings.Join(could, " "))}, true
		}
	}
	return finding.Evidence{}, false
}

// speedCaps is the best lane speed each class of node was seen running
// (class: a switch's model, a CA's description without its host name),
// from the fabric's own active links. Generations mix by design (EDR HCAs
// on an HDR switch, an FDR switch beside an HDR one), so a link is judged
// against the best both its ends' classes reach, never against the
// fabric's majority.
type speedCaps struct {
	best  map[string]ib.Speed
	class []string
}

func newSpeedCaps(f *Fabric) *speedCaps {
	c := &speedCaps{best: map[string]ib.Speed{}, class: make([]string, len(f.Nodes))}
	for i := range f.Nodes {
		c.class[i] = nodeClass(&f.Nodes[i])
	}
	for i := range f.Links {
		l := &f.Links[i]
		_, s := f.linkRate(l)
		for _, e := range []End{l.A, l.B} {
			if k := c.class[e.Node]; s.Generation() > c.best[k].Generation() {
				c.best[k] = s
			}
		}
	}
	return c
}

// nodeClass names what kind of node n is: a switch by its model (the part
// of "MF0;leaf01:MQM8700/U1" after the name), a CA by its description
// without the leading host name ("HCA-1" of "gpu-v100-3 HCA-1").
func nodeClass(n *Node) string {
	d := n.Desc
	if n.Type == ibdiags.Switch {
		if i := strings.LastIndexByte(d, ':'); i >= 0 && strings.Contains(d, ";") {
			d = d[i+1:]
		}
	} else if _, rest, ok := strings.Cut(d, " "); ok {
		d = rest
	}
	return string(n.Type) + ":" + d
}

// expect returns the lane speed link l (running at s) should reach: the
// slower of the best its two ends' classes reach elsewhere, why, and the
// severity: critical when at least two links from the same switch to
// nodes of the same class as the far end run at that speed (the same
// hardware on the same switch proves it), a warning otherwise.
func (c *speedCaps) expect(f *Fabric, l *Link, s ib.Speed) (ib.Speed, string, finding.Severity, bool) {
	ka, kb := c.class[l.A.Node], c.class[l.B.Node]
	want := c.best[ka]
	if c.best[kb].Generation() < want.Generation() {
		want = c.best[kb]
	}
	if want.Generation() <= s.Generation() {
		return 0, "", "", false
	}
	sw, far := l.A, l.B
	if f.Nodes[sw.Node].Type != ibdiags.Switch {
		sw, far = l.B, l.A
	}
	proof := 0
	if f.Nodes[sw.Node].Type == ibdiags.Switch {
		for i := range f.Links {
			o := &f.Links[i]
			if o == l {
				continue
			}
			var other End
			switch sw.Node {
			case o.A.Node:
				other = o.B
			case o.B.Node:
				other = o.A
			default:
				continue
			}
			if _, os := f.linkRate(o); c.class[other.Node] == c.class[far.Node] && os.Generation() >= want.Generation() {
				proof++
			}
		}
	}
	if proof >= 2 {
		return want, fmt.Sprintf("%d other links of %s to %s run at %s", proof, f.Nodes[sw.Node].Name(), strings.TrimPrefix(c.class[far.Node], string(f.Nodes[far.Node].Type)+":"), want), finding.Critical, true
	}
	return want, fmt.Sprintf("both ends' kinds of node reach %s elsewhere in this fabric (%s, %s); without their capabilities this is a warning", want, strings.TrimPrefix(ka, string(f.Nodes[l.A.Node].Type)+":"), strings.TrimPrefix(kb, string(f.Nodes[l.B.Node].Type)+":")), finding.Warning, true
}

func mode(m map[int]int) (int, int) {
	best, n := 0, 0
	for k, c := range m {
		if c > n || (c == n && k > best) {
			best, n = k, c
		}
	}
	return best, n
}

// errorCounters are the PortCounters names fabric.link_errors judges.
var errorCounters = []struct {
	name  string
	label string
	th    func(Thresholds) uint64
}{
	{limits.SymbolError.PMA, limits.SymbolError.Label, func(t Thresholds) uint64 { return t.SymbolErrors }},
	{limits.LinkErrorRecovery.PMA, limits.LinkErrorRecovery.Label, func(t Thresholds) uint64 { return t.LinkErrorRecovery }},
	{limits.LinkDowned.PMA, limits.LinkDowned.Label, func(t Thresholds) uint64 { return t.LinkDowned }},
	{limits.RcvErrors.PMA, limits.RcvErrors.Label, func(t Thresholds) uint64 { return t.RcvErrors }},
	{limits.XmitDiscards.PMA, limits.XmitDiscards.Label, func(t Thresholds) uint64 { return t.XmitDiscards }},
}

func checkCounters(f *Fabric, base *Fabric, th Thresholds) []finding.Finding {
	var out []finding.Finding
	for i := range f.Nodes {
		for _, p := range f.Nodes[i].Ports {
			if p.Counters == nil {
				continue
			}
			e := End{i, p.Num}
			var before map[string]uint64
			if base != nil {
				if be, ok := base.endByGUID(f, e); ok {
					if bp := base.PortOf(be); bp != nil {
						before = bp.Counters
						if before == nil && base.HaveCounters {
							before = map[string]uint64{}
						}
					}
				}
			}
			var parts []string
			var ev []finding.Evidence
			sev := finding.Warning
			for _, c := range errorCounters {
				v, ok := p.Counters[c.name]
				if !ok {
					continue
				}
				limit := c.th(th)
				if limit == 0 {
					limit = 1
				}
				if before != nil {
					b := before[c.name]
					delta := v
					if v >= b {
						delta = v - b
					}
					if delta == 0 || (delta < limit && c.name != "SymbolErrorCounter") {
						continue
					}
					parts = append(parts, fmt.Sprintf("%s +%d (%d -> %d)", c.label, delta, b, v))
					if c.name == "LinkDownedCounter" || (b > 0 && v >= 10*b && delta >= 10) || (b == 0 && delta >= 10*limit) {
						sev = finding.Critical
					}
				} else {
					if v < limit {
						continue
					}
					parts = append(parts, fmt.Sprintf("%s %d", c.label, v))
				}
				ev = append(ev, finding.Evidence{Source: p.CounterSource, Value: fmt.Sprintf("%s == %d", c.name, v)})
			}
			var peer *End
			if pe, _, ok := f.Peer(e); ok {
				peer = &pe
			}
			if len(parts) > 0 {
				when := "since the counters were last cleared"
				if before != nil {
					when = "since the baseline"
				}
				fd := catalog.New("fabric.link_errors", f.subject(e, peer),
					fmt.Sprintf("%s: %s %s", f.EndName(e), strings.Join(parts, ", "), when), ev...)
				fd.Severity = sev
				out = append(out, fd)
			}
			if v, ok := p.Counters["PortXmitWait"]; ok && th.XmitWait > 0 {
				w := v
				if before != nil && v >= before["PortXmitWait"] {
					w = v - before["PortXmitWait"]
				}
				if w >= th.XmitWait {
					out = append(out, catalog.New("fabric.congestion", f.subject(e, peer),
						fmt.Sprintf("%s waited %d ticks for credits to send (congestion hot spot downstream)", f.EndName(e), w),
						finding.Evidence{Source: p.CounterSource, Value: fmt.Sprintf("PortXmitWait == %d", v)}))
				}
			}
		}
	}
	return out
}

// checkIdentity reports duplicate GUIDs, duplicate LIDs and ports
// without a LID.
func checkIdentity(f *Fabric) []finding.Finding {
	out := checkDuplicateGUIDs(f)
	lc := takeLIDCensus(f)
	out = append(out, lc.duplicateLIDs(f)...)
	return append(out, lc.missingLIDs(f)...)
}

// checkDuplicateGUIDs reports every GUID that libibnetdisc warned about
// or that two node records or two ports carry, one finding per GUID in
// GUID order, with the up ports whose peer discovery could not map.
func checkDuplicateGUIDs(f *Fabric) []finding.Finding {
	var out []finding.Finding
	dups := diagDuplicateGUIDs(f)
	nodeBy, portBy := guidOwners(f)
	for g, ns := range nodeBy {
		if len(ns) > 1 {
			var names []string
			for _, i := range ns {
				names = append(names, f.Nodes[i].Name())
			}
			dups[g] = append(dups[g], finding.Evidence{Source: "ibnetdiscover.txt", Value: fmt.Sprintf("node GUID %s on %s", guidText(g), strings.Join(names, ", "))})
		}
	}
	for g, es := range portBy {
		if len(es) > 1 {
			var names []string
			for _, e := range es {
				names = append(names, f.EndName(e))
			}
			dups[g] = append(dups[g], finding.Evidence{Source: "ibnetdiscover.txt", Value: fmt.Sprintf("port GUID %s on %s", guidText(g), strings.Join(names, ", "))})
		}
	}
	if len(dups) == 0 {
		return out
	}
	unav := unavailablePeers(f)
	keys := make([]uint64, 0, len(dups))
	for g := range dups {
		keys = append(keys, g)
	}
	slices.Sort(keys)
	for _, g := range keys {
		subj := finding.Subject{NodeGUID: guidText(g)}
		if ns := nodeBy[g]; len(ns) > 0 {
			subj.NodeDesc = f.Nodes[ns[0]].Name()
		} else if es := portBy[g]; len(es) > 0 {
			subj.NodeDesc, subj.NodeGUID = f.Nodes[es[0].Node].Name(), guidText(f.Nodes[es[0].Node].GUID)
			subj.Port = es[0].Port
		}
		out = append(out, catalog.New("fabric.duplicate_guid", subj,
			fmt.Sprintf("GUID %s is used by more than one node or port", guidText(g)), append(dups[g], unav...)...))
	}
	return out
}

// diagDuplicateGUIDs collects libibnetdisc's duplicate-GUID warnings,
// keyed by GUID. Every libibnetdisc-based tool repeats the warning: only
// the first is kept.
func diagDuplicateGUIDs(f *Fabric) map[uint64][]finding.Evidence {
	dups := map[uint64][]finding.Evidence{}
	for _, d := range f.Diags {
		if d.Kind == ibdiags.DiagDuplicateGUID && d.GUID != 0 && len(dups[d.GUID]) == 0 {
			tool, msg, _ := strings.Cut(d.Text, ": ")
			dups[d.GUID] = append(dups[d.GUID], finding.Evidence{Source: fmt.Sprintf("%s stderr line %d", tool, d.Line), Value: msg})
		}
	}
	return dups
}

// guidOwners indexes the fabric by GUID: the nodes carrying each node
// GUID, and the non-switch ports carrying each port GUID.
func guidOwners(f *Fabric) (nodeBy map[uint64][]int, portBy map[uint64][]End) {
	nodeBy = map[uint64][]int{}
	portBy = map[uint64][]End{}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if n.GUID != 0 {
			nodeBy[n.GUID] = append(nodeBy[n.GUID], i)
		}
		for _, p := range n.Ports {
			if p.GUID != 0 && n.Type != ibdiags.Switch {
				portBy[p.GUID] = append(portBy[p.GUID], End{i, p.Num})
			}
		}
	}
	return nodeBy, portBy
}

// unavailablePeers lists where a duplicate GUID hangs: up ports whose
// peer discovery could not map.
func unavailablePeers(f *Fabric) []finding.Evidence {
	var unav []finding.Evidence
	for i := range f.Nodes {
		for _, p := range f.Nodes[i].Ports {
			if p.RemoteUnavailable && isUp(&p) {
				unav = append(unav, finding.Evidence{Source: "iblinkinfo", Value: fmt.Sprintf("%s is up but its peer is \"Port not available\"", f.EndName(End{i, p.Num}))})
			}
		}
	}
	return unav
}

// lidOwner is one holder of a LID: a switch's port 0 or a CA port.
type lidOwner struct {
	e    End
	name string
}

// lidCensus is who holds which LID among switch port 0 and cabled CA
// ports, and which of them hold none (0, or the unassigned 0xFFFF).
type lidCensus struct {
	lids    map[int][]lidOwner
	zero    []End
	withLID int
	lidOf   map[End]int
}

// takeLIDCensus counts the LIDs of switch port 0 and of every cabled CA
// port.
func takeLIDCensus(f *Fabric) *lidCensus {
	lc := &lidCensus{lids: map[int][]lidOwner{}, zero: []End{}, lidOf: map[End]int{}}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if n.Type == ibdiags.Switch {
			lc.add(End{i, 0}, n.LID, n.Name())
			continue
		}
		for _, p := range n.Ports {
			if _, _, cabled := f.Peer(End{i, p.Num}); !cabled {
				continue
			}
			lc.add(End{i, p.Num}, p.LID, f.EndName(End{i, p.Num}))
		}
	}
	return lc
}

// add records that port e, named name, holds lid.
func (lc *lidCensus) add(e End, lid int, name string) {
	switch {
	case lid > 0 && lid != unassignedLID:
		lc.lids[lid] = append(lc.lids[lid], lidOwner{e, name})
		lc.withLID++
	case lid == 0 || lid == unassignedLID:
		lc.zero = append(lc.zero, e)
		lc.lidOf[e] = lid
	}
}

// duplicateLIDs reports each LID held by more than one port, in LID
// order.
func (lc *lidCensus) duplicateLIDs(f *Fabric) []finding.Finding {
	var out []finding.Finding
	lk := make([]int, 0, len(lc.lids))
	for l := range lc.lids {
		lk = append(lk, l)
	}
	slices.Sort(lk)
	for _, l := range lk {
		os := lc.lids[l]
		if len(os) < 2 {
			continue
		}
		var names []string
		for _, o := range os {
			names = append(names, o.name)
		}
		e := os[0].e
		fd := catalog.New("fabric.duplicate_lid", f.subject(e, nil), fmt.Sprintf("LID %d is held by %d ports: %s", l, len(os), strings.Join(names, ", ")),
			finding.Evidence{Source: "ibnetdiscover.txt", Value: fmt.Sprintf("lid %d: %s", l, strings.Join(names, ", "))})
		out = append(out, fd)
	}
	return out
}

// missingLIDs reports the ports without a LID: one fabric-wide finding
// when no port has one, one summary when there are more than
// maxNoLIDFindings, else one finding per port.
func (lc *lidCensus) missingLIDs(f *Fabric) []finding.Finding {
	var out []finding.Finding
	if len(lc.zero) == 0 {
		return out
	}
	if lc.withLID == 0 {
		return append(out, catalog.New("fabric.no_lid", finding.Subject{},
			fmt.Sprintf("no port of the fabric has a LID (%d ports): no subnet manager has configured it", len(lc.zero)),
			finding.Evidence{Source: "ibnetdiscover.txt", Value: fmt.Sprintf("lid 0 on %s", f.EndName(lc.zero[0]))}))
	}
	if len(lc.zero) > maxNoLIDFindings {
		return append(out, lc.missingLIDSummary(f))
	}
	for _, e := range lc.zero {
		out = append(out, catalog.New("fabric.no_lid", f.subject(e, nil),
			fmt.Sprintf("%s has no LID while %d other ports have one", f.EndName(e), lc.withLID),
			finding.Evidence{Source: "ibnetdiscover.txt", Value: fmt.Sprintf("lid %d", lc.lidOf[e])}))
	}
	return out
}

// missingLIDSummary is the one finding for hundreds of ports without a
// LID, which are one fault (the SM does not reach them, or they came up
// after it swept): it names the nodes.
func (lc *lidCensus) missingLIDSummary(f *Fabric) finding.Finding {
	var names []string
	seen := map[string]bool{}
	var ev []finding.Evidence
	for _, e := range lc.zero {
		// A CA is named by its host (the first word of
		// "SAT111092710053 ibp213s0f0"): one host has many HCAs.
		n := &f.Nodes[e.Node]
		who := n.Name()
		if h, _, ok := strings.Cut(who, " "); ok && n.Type != ibdiags.Switch && !strings.HasPrefix(who, "MT") {
			who = h
		}
		if !seen[who] {
			seen[who] = true
			names = append(names, who)
		}
		if len(ev) < 3 {
			ev = append(ev, finding.Evidence{Source: "ibnetdiscover.txt", Value: fmt.Sprintf("%s lid %d", f.EndName(e), lc.lidOf[e])})
		}
	}
	more := ""
	if len(names) > 8 {
		more = fmt.Sprintf(" and %d more", len(names)-8)
		names = names[:8]
	}
	return catalog.New("fabric.no_lid", finding.Subject{},
		fmt.Sprintf("%d ports on %d hosts and switches have no LID (0, or 65535: never assigned) while %d other ports have one: %s%s", len(lc.zero), len(seen), lc.withLID, strings.Join(names, ", "), more), ev...)
}

// unassignedLID is what ibnetdiscover prints for a port the subnet
// manager never gave a LID: 0xFFFF, the permissive LID (IBTA vol. 1
// 4.1.3), is no unicast address and never a duplicate.
const unassignedLID = 0xffff

// maxNoLIDFindings is the count of LID-less ports above which they are
// reported as one finding.
const maxNoLIDFindings = 8

func checkSM(f *Fabric) []finding.Finding {
	if !f.SMQueried {
		return nil
	}
	var masters []ibdiags.SMInfo
	for _, s := range f.SMs {
		if s.State == ibdiags.SMMaster && !slices.ContainsFunc(masters, func(m ibdiags.SMInfo) bool { return m.GUID == s.GUID }) {
			masters = append(masters, s)
		}
	}
	// SM ports that name different masters: the subnet is split.
	masterLIDs := map[int]bool{}
	for _, p := range f.SMPorts {
		if !p.Disabled && p.MasterSMLID > 0 {
			masterLIDs[p.MasterSMLID] = true
		}
	}
	if len(masters) <= 1 && len(masterLIDs) > 1 {
		lids := make([]int, 0, len(masterLIDs))
		for l := range masterLIDs {
			lids = append(lids, l)
		}
		slices.Sort(lids)
		var ev []finding.Evidence
		for _, p := range f.SMPorts {
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("saquery-sm.txt line %d", p.Line), Value: fmt.Sprintf("SM port lid %d: master_sm_base_lid %d", p.BaseLID, p.MasterSMLID)})
		}
		return []finding.Finding{catalog.New("fabric.sm_multiple_masters", finding.Subject{},
			fmt.Sprintf("the subnet's SM ports name %d different masters (LIDs %v): the subnet is split or the SMs disagree", len(lids), lids), ev...)}
	}
	switch {
	case len(masters) == 0:
		ev := finding.Evidence{Source: "sminfo", Value: "no answer from a master SM (sminfo: query failed)"}
		if len(f.SMs) > 0 {
			ev.Value = fmt.Sprintf("sm lid %d state %d %s", f.SMs[0].LID, f.SMs[0].State, f.SMs[0].StateName)
		}
		return []finding.Finding{catalog.New("fabric.sm_missing", finding.Subject{}, "no master subnet manager answers on the fabric", ev)}
	case len(masters) > 1:
		slices.SortFunc(masters, func(a, b ibdiags.SMInfo) int { return cmp.Compare(a.GUID, b.GUID) })
		var ev []finding.Evidence
		var names []string
		for _, m := range masters {
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("sminfo line %d", m.Line), Value: fmt.Sprintf("sm lid %d guid %s priority %d %s", m.LID, guidText(m.GUID), m.Priority, m.StateName)})
			names = append(names, fmt.Sprintf("lid %d", m.LID))
		}
		subj := finding.Subject{NodeGUID: guidText(masters[0].GUID)}
		for i := range f.Nodes {
			if f.Nodes[i].GUID == masters[0].GUID {
				subj.NodeDesc = f.Nodes[i].Name()
			}
		}
		return []finding.Finding{catalog.New("fabric.sm_multiple_masters", subj,
			fmt.Sprintf("%d subnet managers claim master state (%s)", len(masters), strings.Join(names, ", ")), ev...)}
	}
	return nil
}
