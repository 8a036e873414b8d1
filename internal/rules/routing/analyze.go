package routing

import (
	"cmp"
	"slices"

	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// BreakKind says why a route does not arrive.
type BreakKind uint8

// Ways a route breaks, at the switch where it breaks.
const (
	// NoEntry: the switch's LFT has no entry for the LID (0xFF, an out
	// port beyond the switch's ports, or beyond the end of the table).
	NoEntry BreakKind = iota + 1
	// NoTable: the switch has no forwarding table, or one without a single
	// valid entry (it could not be read, or the SM never programmed it:
	// dump_fts then prints "[0x0-0x0]" and "0 valid lids dumped").
	NoTable
	// DeadPort: the entry names a port with no link (down or uncabled).
	DeadPort
	// Misdelivered: the entry hands the packet to the wrong node: port 0
	// on a switch that does not own the LID, or a port to another CA.
	Misdelivered
	// Loop: the tables lead around a cycle of switches.
	Loop
)

// String names the kind for summaries.
func (k BreakKind) String() string {
	switch k {
	case NoEntry:
		return "no forwarding entry"
	case NoTable:
		return "no forwarding table"
	case DeadPort:
		return "entry points to a port without a link"
	case Misdelivered:
		return "entry delivers to the wrong node"
	case Loop:
		return "forwarding loop"
	}
	return "unknown"
}

// Break is one place where routes break, aggregated over the destination
// LIDs that break there (fabric.route_missing, or fabric.route_loop for
// Kind Loop).
type Break struct {
	Kind BreakKind
	// Node is the switch whose entry breaks the routes (for a loop, the
	// cycle's switch with the lowest index in the fabric). Port is the
	// entry's output port: each wrong port is its own break (DeadPort,
	// Misdelivered); for NoEntry the first offending value (0xFF, or a
	// port the switch does not have).
	Node int
	Port int
	// Cycle lists a loop's switches in forwarding order, starting at Node
	// (Kind Loop only), for the first destination that loops there.
	Cycle []int
	// LIDs is how many destination LIDs break here; Examples are the
	// lowest of them (at most Options.MaxExamples).
	LIDs     int
	Examples []uint16
	// Pairs is how many CA-port → CA-LID pairs are lost here;
	// ManagementPairs how many CA-port → switch-LID pairs (LID-routed
	// management: perfquery, ibqueryerrors); SwitchRoutes how many switch →
	// LID routes (any destination) end here. A break with neither kind of
	// pair only affects routes between switches, which up/down engines
	// (updn, ftree) leave out on purpose: it is reported as info.
	Pairs           int64
	ManagementPairs int64
	SwitchRoutes    int64
	// ExampleSource is a CA node that cannot reach ExampleLID because of
	// this break (-1 when only switches are affected), ExampleSourcePort
	// its port.
	ExampleSource     int
	ExampleSourcePort int
	ExampleLID        uint16
	// SourceSwitches are the switches (node indices, ascending) whose CA
	// ports lose at least one destination here, SourcePorts how many CA
	// ports hang off them: "the hosts behind leaf1 and leaf3 cannot reach
	// these LIDs, the others can".
	SourceSwitches []int
	SourcePorts    int

	// DestHash fingerprints the set of destination LIDs that break here
	// (equal sets, equal hashes). CADests counts the CA destinations among
	// them, and DestSwitch is the switch every one of those hangs off (the
	// hosts behind a leaf), else -1.
	DestHash   uint64
	DestSwitch int
	CADests    int

	// The CA destinations apart: a break that loses CA pairs is judged
	// on them, its switch LIDs go with the management routes.
	caHash     uint64
	caExamples []uint16
	mgmtRoutes int64  // switch routes to switch LIDs that end here
	mgmtLID    uint16 // the first switch LID among them

	last      int      // last destination LID counted
	exampleCA bool     // ExampleLID is a CA's
	srcSet    []uint64 // bitset of dense source switches
	attach    int32    // dense switch of the CA destinations; -1 none yet, -2 mixed
}

// Detour is a switch that sends destinations off every shortest path
// (fabric.route_nonminimal).
type Detour struct {
	Node int
	// LIDs is how many destination LIDs it detours; Examples the lowest.
	LIDs     int
	Examples []DetourExample
	// Pairs: CA-port → CA-LID pairs whose route passes this switch and is
	// longer than the minimum because of it.
	Pairs int64
}

// DetourExample is one detoured destination at a switch.
type DetourExample struct {
	LID     uint16
	Port    int // the port the table uses
	Hops    int // hops of the route from this switch
	MinHops int // shortest path from this switch
}

// LinkLoad is the number of CA-port → CA-LID routes over one directed link.
type LinkLoad struct {
	From, To PortRef
	Routes   int64
}

// Imbalance is a group of a switch's links towards one tier whose route
// counts are uneven (fabric.route_imbalance).
type Imbalance struct {
	Node       int // the switch
	ToTier     int // tier of the neighbours at the other end
	Links      int // links in the group
	Mean       float64
	MaxRoutes  int64
	MinRoutes  int64
	HotPort    int // port with MaxRoutes (lowest such port)
	ColdPort   int // port with MinRoutes
	TotalGroup int64
}

// Ratio is MaxRoutes/Mean.
func (im Imbalance) Ratio() float64 {
	if im.Mean == 0 {
		return 0
	}
	return float64(im.MaxRoutes) / im.Mean
}

// Channel is one directed link (a virtual lane's buffer, with all traffic
// on one VL).
type Channel struct {
	From, To PortRef
}

// CreditLoop is one strongly connected component of the channel dependency
// graph (fabric.credit_loop), with one example cycle.
type CreditLoop struct {
	// Cycle lists channels in dependency order: a route uses Cycle[i] then
	// Cycle[i+1], and the last then the first.
	Cycle []Channel
	// Channels and Switches count the component.
	Channels int
	Switches int
}

// SkippedLID is a destination LID left out of the analysis.
type SkippedLID struct {
	LID    uint16
	Reason string
}

// Options tune the analysis; the zero value means the defaults.
type Options struct {
	// ImbalanceRatio: a link group whose max/mean route count reaches this
	// is reported (default 1.5).
	ImbalanceRatio float64
	// ImbalanceMinRoutes: groups whose busiest link carries fewer routes
	// are ignored (default 16).
	ImbalanceMinRoutes int64
	// MaxExamples bounds the example LIDs per finding (default 8).
	MaxExamples int
	// MaxCreditLoops bounds the credit loops reported (default 16).
	MaxCreditLoops int
	// MaxMinHopSwitches: above this many switches the all-pairs shortest
	// paths for the non-minimal check (switches² bytes) are skipped
	// (default 16384).
	MaxMinHopSwitches int
	// Confirm, when set, checks one sample broken pair of every critical
	// routing finding against the fabric itself (ibtracert) and says what
	// it found; the answer goes into the finding's summary and evidence.
	Confirm func(Sample) Confirmation
}

// Sample is one CA-to-CA pair whose route the tables break.
type Sample struct {
	Src     PortRef // the source CA port
	SrcLID  uint16
	DstLID  uint16
	SrcName string
	DstName string
}

// Confirmation is what a check against the fabric found for a Sample.
// Note goes after the summary ("confirmed by ibtracert", "not confirmed:
// offline collection"); Evidence, when set, is the tool's own words.
type Confirmation struct {
	Confirmed bool
	Note      string
	Evidence  string
}

func (o Options) withDefaults() Options {
	if o.ImbalanceRatio <= 0 {
		o.ImbalanceRatio = limits.RouteImbalanceRatio
	}
	if o.ImbalanceMinRoutes <= 0 {
		o.ImbalanceMinRoutes = limits.RouteImbalanceMinRoutes
	}
	if o.MaxExamples <= 0 {
		o.MaxExamples = 8
	}
	if o.MaxCreditLoops <= 0 {
		o.MaxCreditLoops = 16
	}
	if o.MaxMinHopSwitches <= 0 {
		o.MaxMinHopSwitches = 16384
	}
	return o
}

// Result is the routing analysis of one fabric.
type Result struct {
	Switches int
	CAPorts  int // CA ports cabled to a switch: the sources
	LIDs     int // destination LIDs analysed
	Skipped  []SkippedLID
	// Pairs is the number of CA-port → CA-LID pairs (self excluded),
	// RoutedPairs those whose route arrives.
	Pairs       int64
	RoutedPairs int64
	// SwitchRoutes is the number of switch → LID routes followed (every
	// switch, every destination), BrokenSwitchRoutes those that fail.
	SwitchRoutes       int64
	BrokenSwitchRoutes int64

	Breaks []Break // by kind, then switch
	// NonMinimalRoutes counts switch → LID routes longer than the shortest
	// path; MinHopChecked is false when the fabric was too large for it.
	NonMinimalRoutes int64
	MinHopChecked    bool
	Detours          []Detour
	Loads            []LinkLoad // every directed link with a switch at either end, by From
	Imbalances       []Imbalance
	CreditLoops      []CreditLoop
	// DependencyEdges is the number of distinct edges of the channel
	// dependency graph.
	DependencyEdges int

	Tree Tree

	g    *Graph
	opts Options
}

// Graph returns the graph the result was computed on.
func (r *Result) Graph() *Graph { return r.g }

// Analyze is New followed by Graph.Analyze.
func Analyze(f *Subnet, opts Options) (*Result, error) {
	g, err := New(f)
	if err != nil {
		return nil, err
	}
	return g.Analyze(opts), nil
}

// walk states of a switch for the current destination.
const (
	stVisiting uint8 = iota
	stOK
	stFail
)

// walker holds the per-destination scratch arrays, reused across
// destinations (a generation stamp replaces clearing).
type walker struct {
	g     *Graph
	stamp []uint32
	gen   uint32
	st    []uint8
	kind  []BreakKind
	hops  []uint16
	nxt   []int32 // next switch (dense), -1 terminal
	outp  []uint8
	brk   []int32 // dense switch of the break
	pos   []int32 // stack position while visiting
	stack []int32
	order []int32 // resolution order: a switch after its next switch
	flow  []int64
}

// Analyze follows every switch's table for every destination LID and
// computes all routing results (see Result). It is deterministic.
func (g *Graph) Analyze(opts Options) *Result {
	a := newAnalysis(g, opts.withDefaults())
	for lid := 1; lid <= g.maxLID; lid++ {
		d, ok := a.destination(lid)
		if !ok {
			continue
		}
		a.w.walkAll(lid, d.owner, d.port)
		a.r.LIDs++
		a.r.SwitchRoutes += int64(len(g.swNode))
		if d.isCA {
			a.pushFlows(&d)
		}
		w := a.w
		for _, s := range w.order {
			switch {
			case w.st[s] != stOK:
				a.recordBreak(&d, s)
			case d.isCA && w.flow[s] > 0 && w.nxt[s] >= 0:
				a.recordDependency(s)
			}
			if w.st[s] == stOK && a.dist != nil && int(w.hops[s]) > a.minHops(&d, s) {
				a.detour(&d, s)
			}
		}
	}
	return a.finish()
}

// analysis is one Analyze run: the walker's scratch, the accumulators over
// all destinations and the result being built.
type analysis struct {
	g      *Graph
	r      *Result
	opts   Options
	w      *walker
	dist   []uint8 // switch × switch hop counts; nil when over the limit
	load   []int64 // CA-to-CA routes per channel (flat port)
	okCA   []int64 // CA destinations reached from each switch
	selfOK []int64 // CA port → its own LIDs reached (not pairs)
	deps   *depSet

	groups  map[brkKey]int // → index in r.Breaks
	detours map[int32]int  // dense switch → index in r.Detours
}

// dest is the destination LID being analysed.
type dest struct {
	lid    int
	owner  endpoint
	isCA   bool
	port   int32 // the owner CA port's flat index, -1 for a switch
	attach int32 // the dense switch that port hangs off, -1 for a switch
}

// srcs is the number of CA source ports behind switch s for this
// destination: its CA ports, minus the destination port itself.
func (d *dest) srcs(g *Graph, s int32) int64 {
	n := int64(len(g.caAt[s]))
	if s == d.attach {
		n--
	}
	return n
}

func newAnalysis(g *Graph, opts Options) *analysis {
	S := len(g.swNode)
	a := &analysis{
		g:    g,
		r:    &Result{Switches: S, g: g, opts: opts},
		opts: opts,
		w: &walker{
			g:     g,
			stamp: make([]uint32, S),
			st:    make([]uint8, S),
			kind:  make([]BreakKind, S),
			hops:  make([]uint16, S),
			nxt:   make([]int32, S),
			outp:  make([]uint8, S),
			brk:   make([]int32, S),
			pos:   make([]int32, S),
			order: make([]int32, 0, S),
			flow:  make([]int64, S),
		},
		load:    make([]int64, len(g.peer)),
		okCA:    make([]int64, S),
		selfOK:  make([]int64, len(g.peer)),
		deps:    newDepSet(g),
		groups:  map[brkKey]int{},
		detours: map[int32]int{},
	}
	for _, c := range g.caAt {
		a.r.CAPorts += len(c)
	}
	for _, c := range g.conflicts {
		a.r.Skipped = append(a.r.Skipped, SkippedLID{LID: c.LID, Reason: "LID claimed by more than one port"})
	}
	if S <= opts.MaxMinHopSwitches {
		a.dist = g.switchDistances()
		a.r.MinHopChecked = true
	}
	return a
}

// destination describes lid, or says why it is not analysed: no owner (not
// recorded), or an owner CA port no switch reaches (recorded as skipped).
func (a *analysis) destination(lid int) (dest, bool) {
	g := a.g
	o := g.owner[lid]
	if o.node < 0 {
		return dest{}, false
	}
	d := dest{lid: lid, owner: o, port: -1, attach: -1}
	if g.f.Nodes[o.node].Type != CA {
		return d, true
	}
	d.isCA = true
	d.port = g.base[o.node] + o.port
	q := g.peer[d.port]
	if q < 0 {
		a.r.Skipped = append(a.r.Skipped, SkippedLID{LID: uint16(lid), Reason: "owner port has no link"})
		return d, false
	}
	if d.attach = g.sw[g.portNode[q]]; d.attach < 0 {
		a.r.Skipped = append(a.r.Skipped, SkippedLID{LID: uint16(lid), Reason: "owner port is cabled to another CA, not a switch"})
		return d, false
	}
	return d, true
}

// pushFlows counts, for a CA destination, the sources whose route passes
// each switch (its own CA ports plus everything routed into it), pushing
// counts along the next hops from the far end of every route inwards, and
// adds them to the channels' loads.
func (a *analysis) pushFlows(d *dest) {
	g, w, r := a.g, a.w, a.r
	for _, s := range w.order {
		if w.st[s] == stOK {
			w.flow[s] = d.srcs(g, s)
		} else {
			w.flow[s] = 0
		}
	}
	// order lists a switch after its next switch: walk it backwards.
	for i := len(w.order) - 1; i >= 0; i-- {
		s := w.order[i]
		if w.st[s] != stOK {
			continue
		}
		a.okCA[s]++
		r.RoutedPairs += d.srcs(g, s)
		f := w.flow[s]
		if f == 0 {
			continue
		}
		a.load[g.base[g.swNode[s]]+int32(w.outp[s])] += f
		if n := w.nxt[s]; n >= 0 {
			w.flow[n] += f
		}
	}
	if w.st[d.attach] == stOK {
		a.selfOK[d.port]++
	}
	r.Pairs += int64(r.CAPorts - 1) // every source but the destination
}

// recordBreak adds the failed route from switch s to its break.
func (a *analysis) recordBreak(d *dest, s int32) {
	g, w, r := a.g, a.w, a.r
	r.BrokenSwitchRoutes++
	k := brkKey{sw: w.brk[s], kind: w.kind[s]}
	if k.kind == DeadPort || k.kind == Misdelivered {
		k.port = w.outp[k.sw] // one break per wrong port
	}
	gi, ok := a.groups[k]
	if !ok {
		gi = len(r.Breaks)
		a.groups[k] = gi
		b := Break{Kind: k.kind, Node: int(g.swNode[k.sw]), Port: int(k.port), ExampleSource: -1, DestHash: fnvOffset, DestSwitch: -1, attach: -1, caHash: fnvOffset}
		if k.kind == NoEntry {
			b.Port = int(w.outp[k.sw]) // the first offending entry
		}
		if k.kind == Loop {
			b.Cycle = w.cycle(k.sw)
		}
		r.Breaks = append(r.Breaks, b)
	}
	b := &r.Breaks[gi]
	if b.last != d.lid {
		b.last = d.lid
		b.LIDs++
		b.DestHash = (b.DestHash ^ uint64(d.lid)) * fnvPrime
		if d.isCA {
			b.caHash = (b.caHash ^ uint64(d.lid)) * fnvPrime
			if len(b.caExamples) < a.opts.MaxExamples {
				b.caExamples = append(b.caExamples, uint16(d.lid))
			}
		} else if b.mgmtLID == 0 {
			b.mgmtLID = uint16(d.lid)
		}
		switch {
		case !d.isCA:
		case b.attach == -1:
			b.attach = d.attach
			b.CADests++
		case b.attach != d.attach:
			b.attach = -2
			b.CADests++
		default:
			b.CADests++
		}
		if len(b.Examples) < a.opts.MaxExamples {
			b.Examples = append(b.Examples, uint16(d.lid))
		}
	}
	b.SwitchRoutes++
	if !d.isCA {
		b.mgmtRoutes++
	}
	n := d.srcs(g, s)
	if d.isCA {
		b.Pairs += n
	} else {
		b.ManagementPairs += n
	}
	if n == 0 {
		return
	}
	if b.srcSet == nil {
		b.srcSet = make([]uint64, (len(g.swNode)+63)/64)
	}
	b.srcSet[s>>6] |= 1 << (s & 63)
	// The example prefers a CA destination over a switch LID.
	if b.ExampleSource < 0 || d.isCA && !b.exampleCA {
		for _, p := range g.caAt[s] {
			if p != d.port {
				ref := g.ref(p)
				b.ExampleSource, b.ExampleSourcePort = ref.Node, ref.Port
				b.ExampleLID, b.exampleCA = uint16(d.lid), d.isCA
				break
			}
		}
	}
}

// recordDependency adds the channel dependency of the working route from
// switch s to its next switch n: arriving at n over the link from s,
// leaving n through its table's port. The caller passes only routes that
// carry CA-to-CA traffic (flow > 0): traffic to switch LIDs is management
// traffic (SMPs ride VL15, which has no credit flow control), and routes no
// CA uses carry nothing.
func (a *analysis) recordDependency(s int32) {
	g, w := a.g, a.w
	n := w.nxt[s]
	if w.outp[n] == 0 {
		return // n is the destination switch
	}
	in := g.peer[g.base[g.swNode[s]]+int32(w.outp[s])] - g.base[g.swNode[n]]
	a.deps.set(n, int(in), int(w.outp[n]))
}

// detour counts the working route from s, longer than the shortest path,
// and charges the detour to s when s itself leaves every shortest path.
func (a *analysis) detour(d *dest, s int32) {
	w, r := a.w, a.r
	minh := a.minHops(d, s)
	r.NonMinimalRoutes++
	nextMin := 0
	if n := w.nxt[s]; n >= 0 {
		nextMin = a.minHops(d, n)
	}
	if nextMin+1 <= minh {
		return // the detour starts further on
	}
	di, ok := a.detours[s]
	if !ok {
		di = len(r.Detours)
		a.detours[s] = di
		r.Detours = append(r.Detours, Detour{Node: int(a.g.swNode[s])})
	}
	dt := &r.Detours[di]
	dt.LIDs++
	if len(dt.Examples) < a.opts.MaxExamples {
		dt.Examples = append(dt.Examples, DetourExample{LID: uint16(d.lid), Port: int(w.outp[s]), Hops: int(w.hops[s]), MinHops: minh})
	}
	if d.isCA {
		dt.Pairs += w.flow[s]
	}
}

// minHops is the shortest path length from dense switch s to the owner of
// destination d.
func (a *analysis) minHops(d *dest, s int32) int {
	S := len(a.g.swNode)
	if d.attach >= 0 {
		return int(a.dist[int(s)*S+int(d.attach)]) + 1
	}
	return int(a.dist[int(s)*S+int(a.g.sw[d.owner.node])])
}

// finish derives the per-link loads, source lists, sorted results, tree
// shape, imbalances and credit loops.
func (a *analysis) finish() *Result {
	g, r := a.g, a.r
	// CA → switch links carry one route per destination their switch
	// reaches (minus their own LIDs).
	for s := range int32(len(g.swNode)) {
		for _, p := range g.caAt[s] {
			a.load[p] += a.okCA[s] - a.selfOK[p]
		}
	}
	for p := range int32(len(g.peer)) {
		q := g.peer[p]
		if q < 0 || (g.sw[g.portNode[p]] < 0 && g.sw[g.portNode[q]] < 0) {
			continue
		}
		r.Loads = append(r.Loads, LinkLoad{From: g.ref(p), To: g.ref(q), Routes: a.load[p]})
	}
	for i := range r.Breaks {
		b := &r.Breaks[i]
		for s := range int32(len(g.swNode)) {
			if b.srcSet != nil && b.srcSet[s>>6]&(1<<(s&63)) != 0 {
				b.SourceSwitches = append(b.SourceSwitches, int(g.swNode[s]))
				b.SourcePorts += len(g.caAt[s])
			}
		}
		b.srcSet = nil
		if b.attach >= 0 {
			b.DestSwitch = int(g.swNode[b.attach])
		}
	}
	slices.SortFunc(r.Breaks, func(a, b Break) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Node, b.Node), cmp.Compare(a.Port, b.Port))
	})
	slices.SortFunc(r.Detours, func(a, b Detour) int { return cmp.Compare(a.Node, b.Node) })
	slices.SortStableFunc(r.Skipped, func(a, b SkippedLID) int { return cmp.Compare(a.LID, b.LID) })
	r.Tree = g.Tree()
	r.Imbalances = g.imbalances(a.load, r.Tree.Tiers, a.opts)
	r.CreditLoops, r.DependencyEdges = a.deps.creditLoops(a.opts.MaxCreditLoops)
	return r
}

// FNV-1a over the destination LIDs of a break, in ascending order.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

type brkKey struct {
	sw   int32
	kind BreakKind
	port uint8
}

// walkAll resolves every switch for one destination LID.
func (w *walker) walkAll(lid int, o endpoint, destPort int32) {
	w.gen++
	w.order = w.order[:0]
	g := w.g
	for s := range int32(len(w.stamp)) {
		if w.stamp[s] == w.gen {
			continue
		}
		w.stack = w.stack[:0]
		cur := s
		for {
			if w.stamp[cur] == w.gen {
				if w.st[cur] == stVisiting {
					w.resolveLoop(int(w.pos[cur]))
				} else {
					w.unwind()
				}
				break
			}
			w.stamp[cur] = w.gen
			w.st[cur] = stVisiting
			w.pos[cur] = int32(len(w.stack))
			w.stack = append(w.stack, cur)
			node := g.swNode[cur]
			nd := &g.f.Nodes[node]
			out := g.lft(node, lid)
			w.outp[cur] = out
			w.nxt[cur] = -1
			if g.noTable[cur] {
				w.terminal(cur, stFail, NoTable, 0)
				break
			}
			if out == 0 {
				if node == o.node {
					w.terminal(cur, stOK, 0, 0)
				} else {
					w.terminal(cur, stFail, Misdelivered, 0)
				}
				break
			}
			if int(out) >= len(nd.Ports) {
				w.terminal(cur, stFail, NoEntry, 0)
				break
			}
			q := g.peer[g.base[node]+int32(out)]
			if q < 0 {
				w.terminal(cur, stFail, DeadPort, 0)
				break
			}
			if n := g.sw[g.portNode[q]]; n >= 0 {
				w.nxt[cur] = n
				cur = n
				continue
			}
			if q == destPort {
				w.terminal(cur, stOK, 0, 1)
			} else {
				w.terminal(cur, stFail, Misdelivered, 0)
			}
			break
		}
	}
}

// terminal resolves the top of the stack and unwinds the rest.
func (w *walker) terminal(s int32, st uint8, k BreakKind, hops uint16) {
	w.st[s], w.kind[s], w.hops[s], w.brk[s] = st, k, hops, s
	w.stack = w.stack[:len(w.stack)-1]
	w.order = append(w.order, s)
	w.unwind()
}

// unwind resolves the stack from the top: each switch takes its next
// switch's outcome with one more hop.
func (w *walker) unwind() {
	for i := len(w.stack) - 1; i >= 0; i-- {
		s := w.stack[i]
		n := w.nxt[s]
		w.st[s], w.kind[s], w.brk[s] = w.st[n], w.kind[n], w.brk[n]
		if w.hops[n] < 0xFFFF {
			w.hops[s] = w.hops[n] + 1
		}
		w.order = append(w.order, s)
	}
	w.stack = w.stack[:0]
}

// resolveLoop marks the cycle stack[from:] and everything before it.
func (w *walker) resolveLoop(from int) {
	low := w.stack[from]
	for _, s := range w.stack[from:] {
		low = min(low, s)
	}
	for i := len(w.stack) - 1; i >= 0; i-- {
		s := w.stack[i]
		w.st[s], w.kind[s], w.brk[s], w.hops[s] = stFail, Loop, low, 0
		w.order = append(w.order, s)
	}
	w.stack = w.stack[:0]
}

// cycle returns the node indices of the loop through dense switch s, in
// forwarding order starting at s (valid right after the walk).
func (w *walker) cycle(s int32) []int {
	out := []int{int(w.g.swNode[s])}
	for n := w.nxt[s]; n >= 0 && n != s && len(out) <= len(w.nxt); n = w.nxt[n] {
		out = append(out, int(w.g.swNode[n]))
	}
	return out
}

// switchDistances is the all-pairs hop count between switches over
// switch-to-switch links (BFS from each switch), 255 = unreachable.
func (g *Graph) switchDistances() []uint8 {
	S := len(g.swNode)
	// Adjacency in CSR form over dense switch indices.
	start := make([]int32, S+1)
	var adj []int32
	for s := range S {
		start[s] = int32(len(adj))
		n := g.swNode[s]
		for p := g.base[n] + 1; p < g.base[n+1]; p++ {
			if q := g.peer[p]; q >= 0 {
				if t := g.sw[g.portNode[q]]; t >= 0 {
					adj = append(adj, t)
				}
			}
		}
	}
	start[S] = int32(len(adj))
	dist := make([]uint8, S*S)
	for i := range dist {
		dist[i] = 0xFF
	}
	queue := make([]int32, 0, S)
	for src := range S {
		row := dist[src*S : (src+1)*S]
		row[src] = 0
		queue = append(queue[:0], int32(src))
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			d := row[u]
			if d >= 0xFE {
				continue
			}
			for _, v := range adj[start[u]:start[u+1]] {
				if row[v] == 0xFF {
					row[v] = d + 1
					queue = append(queue, v)
				}
			}
		}
	}
	return dist
}

func sortConflicts(c []LIDConflict) {
	slices.SortFunc(c, func(a, b LIDConflict) int { return cmp.Compare(a.LID, b.LID) })
	for i := range c {
		slices.SortFunc(c[i].Ports, func(a, b PortRef) int {
			return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Port, b.Port))
		})
	}
}
