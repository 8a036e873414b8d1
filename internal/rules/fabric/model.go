package fabric

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"time"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
)

// Fabric is the model of one collection.
type Fabric struct {
	Taken  time.Time `json:"taken"`
	Source string    `json:"source"`
	Nodes  []Node    `json:"nodes"`
	Links  []Link    `json:"links"`
	// SMQueried says whether sminfo ran and answered or failed in a way
	// that shows there is no SM; SMs are the answers.
	SMQueried bool             `json:"sm_queried"`
	SMs       []ibdiags.SMInfo `json:"sms"`
	// SMPorts are the ports the SA lists as running an SM (saquery -s);
	// nil when not queried.
	SMPorts []ibdiags.SMPort `json:"sm_ports,omitempty"`
	LFTs    []ibdiags.LFT    `json:"-"`
	Diags   []ibdiags.Diag   `json:"diags,omitempty"`
	// OriginLID is the LID of the port the collection was taken from
	// (ibnetdiscover's "Initiated from node ... port ..."); 0 unknown.
	OriginLID int `json:"origin_lid,omitempty"`
	// HaveCounters says whether port counters were read (ibqueryerrors or
	// perfquery); ports without an entry in Counters then have no errors.
	HaveCounters bool `json:"have_counters"`
	// Gaps lists what could not be queried or parsed.
	Gaps []Gap `json:"gaps"`
	// SL2VL and VLArb are the QoS tables smpquery read (nil when not
	// collected).
	SL2VL []ibdiags.SL2VLRow   `json:"sl2vl,omitempty"`
	VLArb []ibdiags.VLArbTable `json:"vlarb,omitempty"`
	// PathSLs are the service levels the SA gave CA-to-CA paths (saquery
	// PathRecords; nil when not collected).
	PathSLs []ibdiags.PathSL `json:"path_sl,omitempty"`
	// PortInfos are the smpquery portinfo answers of both ends of every
	// CA link (fabric check --mtu; nil when not collected).
	PortInfos []ibdiags.PortInfo `json:"portinfo,omitempty"`

	// peers indexes Links by end, byKey nodes by GUID/ID (built on first
	// use).
	peers map[End]int
	byKey map[string]int
	// pmaFailures is ibqueryerrors' "N PMA query failures".
	pmaFailures int
}

// Gap is one thing the collection could not provide.
type Gap struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
	// Kind, Node, NodeType, LID and Port describe a per-port gap (Kind
	// "pma_query_failed": a port's counters could not be read), so that
	// reports can sum them up per reason and node type.
	Kind     string           `json:"kind,omitempty"`
	Node     string           `json:"node,omitempty"`
	NodeType ibdiags.NodeType `json:"node_type,omitempty"`
	LID      int              `json:"lid,omitempty"`
	Port     int              `json:"port,omitempty"`
	// Cause is why, when the checks found it (no route from the collecting
	// node to the LID).
	Cause string `json:"cause,omitempty"`
}

// Node is a switch, CA or router.
type Node struct {
	Type ibdiags.NodeType `json:"type"`
	GUID uint64           `json:"guid"`
	// ID is ibnetdiscover's node name ("S-<guid>" or an ibsim name).
	ID       string `json:"id"`
	Desc     string `json:"desc"`
	NumPorts int    `json:"num_ports"`
	// LID of a switch's port 0; -1 unknown.
	LID   int    `json:"lid"`
	Ports []Port `json:"ports"`
}

// Name is what people call the node: its description, else its ID.
func (n *Node) Name() string {
	if n.Desc != "" {
		return n.Desc
	}
	return n.ID
}

// Port is what is known of one port.
type Port struct {
	Num  int    `json:"num"`
	GUID uint64 `json:"guid,omitempty"`
	// LID is the port's LID (CA ports; switch ports share port 0's); -1
	// unknown.
	LID int `json:"lid"`
	// State and Phys from iblinkinfo; HaveState says whether it listed the
	// port.
	HaveState bool         `json:"have_state"`
	State     ib.PortState `json:"state"`
	Phys      ib.PhysState `json:"phys"`
	Width     int          `json:"width,omitempty"`
	Speed     ib.Speed     `json:"speed,omitempty"`
	// RemoteUnavailable: iblinkinfo's "Port not available" on an up link.
	RemoteUnavailable bool `json:"remote_unavailable,omitempty"`
	// CouldBeWidth and CouldBeSpeed are iblinkinfo's "Could be" hints.
	CouldBeWidth int      `json:"could_be_width,omitempty"`
	CouldBeSpeed ib.Speed `json:"could_be_speed,omitempty"`
	// Counters are PortCounters values by perfquery name
	// ("SymbolErrorCounter"); nil when none were reported.
	Counters map[string]uint64 `json:"counters,omitempty"`
	// CounterSource names the tool and line the counters came from.
	CounterSource string `json:"counter_source,omitempty"`
}

// End is one end of a link: a node index and a port number.
type End struct {
	Node int `json:"node"`
	Port int `json:"port"`
}

// Link is one cable as ibnetdiscover saw it, with its active width and
// speed (0 when not printed).
type Link struct {
	A     End      `json:"a"`
	B     End      `json:"b"`
	Width int      `json:"width,omitempty"`
	Speed ib.Speed `json:"speed,omitempty"`
	// Source is the ibnetdiscover line of end A.
	Source string `json:"source"`
}

// Node returns a pointer to node i.
func (f *Fabric) Node(i int) *Node { return &f.Nodes[i] }

// PortOf returns the port of an end, or nil when the node has no such port.
func (f *Fabric) PortOf(e End) *Port {
	if e.Node < 0 || e.Node >= len(f.Nodes) {
		return nil
	}
	n := &f.Nodes[e.Node]
	i, ok := slices.BinarySearchFunc(n.Ports, e.Port, func(p Port, k int) int { return cmp.Compare(p.Num, k) })
	if !ok {
		return nil
	}
	return &n.Ports[i]
}

func (f *Fabric) port(e End) *Port {
	if p := f.PortOf(e); p != nil {
		return p
	}
	n := &f.Nodes[e.Node]
	i, _ := slices.BinarySearchFunc(n.Ports, e.Port, func(p Port, k int) int { return cmp.Compare(p.Num, k) })
	n.Ports = slices.Insert(n.Ports, i, Port{Num: e.Port, LID: -1})
	return &n.Ports[i]
}

// Peer returns the other end of the link at e, if any.
func (f *Fabric) Peer(e End) (End, *Link, bool) {
	if f.peers == nil {
		f.peers = make(map[End]int, 2*len(f.Links))
		for i, l := range f.Links {
			f.peers[l.A], f.peers[l.B] = i, i
		}
	}
	i, ok := f.peers[e]
	if !ok {
		return End{}, nil, false
	}
	l := &f.Links[i]
	if l.A == e {
		return l.B, l, true
	}
	return l.A, l, true
}

// EndName renders an end for people: `leaf2[5]`.
func (f *Fabric) EndName(e End) string {
	return fmt.Sprintf("%s[%d]", f.Nodes[e.Node].Name(), e.Port)
}

// Build turns a collection into the model. Unparseable or failed outputs
// become gaps; Build itself never fails.
func Build(raw *fabricmodel.Raw) *Fabric {
	b := &builder{raw: raw, f: &Fabric{Taken: raw.Taken, Source: raw.Source}, seenGap: map[Gap]bool{}}
	b.readTopology()
	b.readLinkInfo()
	b.readQueryErrors()
	b.readPerfQuery()
	b.addPMAGaps()
	b.readFTs()
	b.readSMInfo()
	b.readSAViews()
	b.f.addQoS(raw, b.gap)
	b.f.addMTU(raw, b.gap)
	// Build the indexes now, so the checks only read the model.
	f := b.f
	f.Peer(End{-1, -1})
	f.endByGUID(f, End{})
	return f
}

// builder holds what the steps of Build share: the collection, the model
// being filled and the gaps already recorded.
type builder struct {
	raw     *fabricmodel.Raw
	f       *Fabric
	seenGap map[Gap]bool
}

// addGap records g unless the same gap is already recorded.
func (b *builder) addGap(g Gap) {
	if !b.seenGap[g] {
		b.seenGap[g] = true
		b.f.Gaps = append(b.f.Gaps, g)
	}
}

// gap records that src could not provide something, for the reason the
// format gives.
func (b *builder) gap(src, format string, a ...any) {
	b.addGap(Gap{Source: src, Reason: fmt.Sprintf(format, a...)})
}

// get returns a tool's standard output, or nil (and a gap) when the tool
// was not collected or failed without output. Its standard error's
// diagnostics go to the model's Diags either way.
func (b *builder) get(name string) []byte {
	o := b.raw.Get(name)
	switch {
	case o == nil:
		b.gap(name, "not collected")
		return nil
	case o.Err != "" && len(bytes.TrimSpace(o.Stdout)) == 0:
		b.gap(name, "%s", o.Err)
		return nil
	}
	if len(o.Stderr) > 0 {
		if d, err := ibdiags.ParseDiags(bytes.NewReader(o.Stderr), name+".stderr"); err == nil {
			for i := range d {
				d[i].Text = name + ": " + d[i].Text
			}
			b.f.Diags = append(b.f.Diags, d...)
		}
	}
	return o.Stdout
}

// readTopology adds ibnetdiscover's nodes and links, and the LID the
// collection was taken from.
func (b *builder) readTopology() {
	out := b.get("ibnetdiscover")
	if out == nil {
		return
	}
	top, err := ibdiags.ParseNetDiscover(bytes.NewReader(out), "ibnetdiscover.txt")
	if err != nil {
		b.gap("ibnetdiscover", "%v", err)
		return
	}
	b.f.addTopology(top)
	b.f.OriginLID = b.f.originLID(out)
}

// readLinkInfo adds iblinkinfo's port states, widths and speeds, and takes
// the topology from it when ibnetdiscover gave none.
func (b *builder) readLinkInfo() {
	out := b.get("iblinkinfo")
	if out == nil {
		return
	}
	li, err := ibdiags.ParseLinkInfo(bytes.NewReader(out), "iblinkinfo.txt")
	switch {
	case err != nil:
		b.gap("iblinkinfo", "%v", err)
	case len(b.f.Nodes) == 0:
		// No ibnetdiscover topology: iblinkinfo names both ends of
		// every link too, so the topology is taken from it.
		b.f.topologyFromLinkInfo(li)
		b.gap("ibnetdiscover", "topology taken from iblinkinfo (node GUIDs of CAs unknown)")
		b.f.addLinkInfo(li, b.gap)
	default:
		b.f.addLinkInfo(li, b.gap)
	}
}

// readQueryErrors adds ibqueryerrors' port counters and remembers its PMA
// failure count.
func (b *builder) readQueryErrors() {
	out := b.get("ibqueryerrors")
	if out == nil {
		return
	}
	q, err := ibdiags.ParseQueryErrors(bytes.NewReader(out), "ibqueryerrors.txt")
	if err != nil {
		b.gap("ibqueryerrors", "%v", err)
		return
	}
	b.f.HaveCounters = true
	// The summary's PMA failure count backs up the per-port stderr
	// warnings when stderr was captured but not understood (a
	// pasted report without stderr says nothing about them).
	if o := b.raw.Get("ibqueryerrors"); len(o.Stderr) > 0 {
		b.f.pmaFailures = max(q.PMAFailures, 0)
	}
	b.f.addQueryErrors(q, b.gap)
}

// readPerfQuery adds perfquery's port counters, when it was collected; a
// perfquery that failed part way still gives what it printed.
func (b *builder) readPerfQuery() {
	o := b.raw.Get("perfquery")
	if o == nil {
		return
	}
	if o.Err != "" && len(o.Stdout) > 0 {
		b.gap("perfquery", "%s", o.Err)
	}
	out := b.get("perfquery")
	if out == nil {
		return
	}
	pq, err := ibdiags.ParsePerfQuery(bytes.NewReader(out), "perfquery.txt")
	if err != nil {
		b.gap("perfquery", "%v", err)
		return
	}
	b.f.HaveCounters = true
	b.f.addPerfQuery(pq, b.gap)
}

// addPMAGaps turns each port whose counters could not be read (a PMA
// query failure on stderr) into a per-port gap, or, when stderr named none,
// ibqueryerrors' summary count into one gap.
func (b *builder) addPMAGaps() {
	lidType := b.f.lidTypes()
	pmaGaps := 0
	for _, d := range b.f.Diags {
		if d.Kind != ibdiags.DiagPMAFailed || d.Port <= 0 {
			continue
		}
		pmaGaps++
		g := Gap{Source: "ibqueryerrors", Kind: string(ibdiags.DiagPMAFailed), Node: d.NodeDesc, NodeType: lidType[d.LID], LID: d.LID, Port: d.Port}
		if d.LID > 0 {
			g.Reason = fmt.Sprintf("port counters of %s LID %d port %d could not be read", d.NodeDesc, d.LID, d.Port)
		} else {
			g.Reason = fmt.Sprintf("port counters of %s port %d could not be read", d.NodeDesc, d.Port)
		}
		b.addGap(g)
	}
	if pmaGaps == 0 && b.f.pmaFailures > 0 {
		b.gap("ibqueryerrors", "%d PMA queries failed (ibqueryerrors summary); those ports' counters were not judged", b.f.pmaFailures)
	}
}

// lidTypes maps each known LID to the type of its node: a switch's port-0
// LID, a CA's or router's port LIDs.
func (f *Fabric) lidTypes() map[int]ibdiags.NodeType {
	lidType := map[int]ibdiags.NodeType{}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if n.Type == ibdiags.Switch && n.LID > 0 {
			lidType[n.LID] = n.Type
		}
		for _, p := range n.Ports {
			if n.Type != ibdiags.Switch && p.LID > 0 {
				lidType[p.LID] = n.Type
			}
		}
	}
	return lidType
}

// readFTs adds dump_fts' forwarding tables, with a gap when a table was
// dumped without -a and so lost its switch's last port.
func (b *builder) readFTs() {
	out := b.get("dump_fts")
	if out == nil {
		return
	}
	fts, err := ibdiags.ParseFTs(bytes.NewReader(out), "dump_fts.txt")
	if err != nil {
		b.gap("dump_fts", "%v", err)
		return
	}
	b.f.LFTs = fts
	if n := b.f.lastPortHidden(); n > 0 {
		b.gap("dump_fts", "%d forwarding table(s) were dumped without -a and have no entry to their switch's last port although it is linked: dump_fts then leaves those entries out (it calls the last port illegal), so routes through it look missing; collect again with this version of ibdoctor", n)
	}
}

// readSMInfo adds sminfo's answer. A query that reached the fabric and
// found no SM counts as queried (no SM); other failures are gaps.
func (b *builder) readSMInfo() {
	o := b.raw.Get("sminfo")
	if o == nil {
		b.gap("sminfo", "not collected")
		return
	}
	sms, err := ibdiags.ParseSMInfo(bytes.NewReader(o.Stdout), "sminfo.txt")
	switch {
	case err == nil:
		b.f.SMQueried, b.f.SMs = true, sms
	case !bytes.Contains(o.Stderr, []byte("umad")) && !bytes.Contains(o.Stderr, []byte("Permission denied")) &&
		(bytes.Contains(o.Stderr, []byte("failed: query")) || bytes.Contains(o.Stderr, []byte("_do_madrpc failed"))):
		// sminfo reached the fabric but no SM answered: without an SM
		// the port's SM LID is 0 and the query goes nowhere
		// ("_do_madrpc failed"), or the SM LID no longer answers
		// ("iberror: failed: query").
		b.f.SMQueried = true
	case o.Err != "":
		b.gap("sminfo", "%s", o.Err)
	default:
		b.gap("sminfo", "%v", err)
	}
}

// readSAViews adds the optional SA-based views of every SM (saquery -s and
// sminfo on each SM port); their absence is not a gap (no SM, or no SA),
// only a failure to parse them is.
func (b *builder) readSAViews() {
	if o := b.raw.Get("saquery-sm"); o != nil && o.Err == "" && len(o.Stdout) > 0 {
		ps, err := ibdiags.ParseSMPorts(bytes.NewReader(o.Stdout), "saquery-sm.txt")
		if err != nil {
			b.gap("saquery-sm", "%v", err)
		} else {
			b.f.SMPorts = ps
		}
	}
	if o := b.raw.Get("sminfo-sms"); o != nil && len(bytes.TrimSpace(o.Stdout)) > 0 {
		sms, err := ibdiags.ParseSMInfo(bytes.NewReader(o.Stdout), "sminfo-sms.txt")
		if err != nil {
			b.gap("sminfo-sms", "%v", err)
			return
		}
		b.f.SMQueried = true
		for _, s := range sms {
			if !slices.ContainsFunc(b.f.SMs, func(x ibdiags.SMInfo) bool { return x.GUID == s.GUID && x.State == s.State }) {
				b.f.SMs = append(b.f.SMs, s)
			}
		}
	}
}

// originLID finds the port ibnetdiscover started from ("# Initiated from
// node 0000000000200000 port 0000000000200000" in its header) and returns
// its LID: a switch's port-0 LID or a CA port's own; 0 when unknown.
func (f *Fabric) originLID(out []byte) int {
	const mark = "# Initiated from node "
	i := bytes.Index(out[:min(len(out), 4096)], []byte(mark))
	if i < 0 {
		return 0
	}
	line := out[i+len(mark):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var node, port uint64
	if _, err := fmt.Sscanf(string(line), "%x port %x", &node, &port); err != nil {
		return 0
	}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if n.GUID != node {
			continue
		}
		if n.Type == ibdiags.Switch {
			return max(n.LID, 0)
		}
		for _, p := range n.Ports {
			if p.GUID == port && p.LID > 0 {
				return p.LID
			}
		}
	}
	return 0
}

// lastPortHidden counts the tables dumped without -a whose switch has its
// last port linked and not one entry to it: there dump_fts's off-by-one
// (the last port printed as illegal, left out without -a) has hidden
// entries.
func (f *Fabric) lastPortHidden() int {
	bySwitch := map[uint64]int{}
	for i := range f.Nodes {
		if f.Nodes[i].Type == ibdiags.Switch {
			bySwitch[f.Nodes[i].GUID] = i
		}
	}
	n := 0
	for i := range f.LFTs {
		t := &f.LFTs[i]
		j, ok := bySwitch[t.SwitchGUID]
		if t.All || !ok || f.Nodes[j].NumPorts <= 0 {
			continue
		}
		last := f.Nodes[j].NumPorts
		if _, _, linked := f.Peer(End{j, last}); !linked {
			continue
		}
		if !slices.ContainsFunc(t.Entries, func(e ibdiags.LFTEntry) bool { return int(e.Port) == last }) {
			n++
		}
	}
	return n
}

func (f *Fabric) addTopology(top *ibdiags.Topology) {
	byID := make(map[string]int, len(top.Nodes))
	for _, tn := range top.Nodes {
		n := Node{Type: tn.Type, GUID: tn.GUID, ID: tn.ID, Desc: tn.Desc, NumPorts: tn.NumPorts, LID: tn.LID}
		if _, dup := byID[tn.ID]; !dup {
			byID[tn.ID] = len(f.Nodes)
		}
		f.Nodes = append(f.Nodes, n)
	}
	type key struct{ a, b End }
	seen := map[key]bool{}
	for i, tn := range top.Nodes {
		for _, tp := range tn.Ports {
			p := f.port(End{i, tp.Port})
			if tp.PortGUID != 0 {
				p.GUID = tp.PortGUID
			}
			if tp.LID >= 0 {
				p.LID = tp.LID
			}
			j, ok := byID[tp.RemoteID]
			if !ok {
				// The peer has no record of its own (a truncated output):
				// keep it as a node known only from this line.
				j = len(f.Nodes)
				byID[tp.RemoteID] = j
				f.Nodes = append(f.Nodes, Node{ID: tp.RemoteID, Desc: tp.RemoteDesc, GUID: guidOfID(tp.RemoteID), LID: -1, Type: typeOfID(tp.RemoteID)})
			}
			rp := f.port(End{j, tp.RemotePort})
			if tp.RemotePortGUID != 0 {
				rp.GUID = tp.RemotePortGUID
			}
			if f.Nodes[j].Type == ibdiags.CA && tp.RemoteLID >= 0 && rp.LID < 0 {
				rp.LID = tp.RemoteLID
			}
			a, b := End{i, tp.Port}, End{j, tp.RemotePort}
			if cmpEnd(b, a) < 0 {
				a, b = b, a
			}
			if seen[key{a, b}] {
				continue
			}
			seen[key{a, b}] = true
			f.Links = append(f.Links, Link{A: a, B: b, Width: tp.Width, Speed: tp.Speed, Source: fmt.Sprintf("ibnetdiscover.txt line %d", tp.Line)})
		}
	}
	slices.SortFunc(f.Links, func(x, y Link) int { return cmp.Or(cmpEnd(x.A, y.A), cmpEnd(x.B, y.B)) })
}

func cmpEnd(a, b End) int { return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Port, b.Port)) }

func guidOfID(id string) uint64 {
	if len(id) == 18 && id[1] == '-' {
		var v uint64
		if _, err := fmt.Sscanf(id[2:], "%x", &v); err == nil {
			return v
		}
	}
	return 0
}

func typeOfID(id string) ibdiags.NodeType {
	if len(id) > 2 && id[1] == '-' {
		switch id[0] {
		case 'S':
			return ibdiags.Switch
		case 'R':
			return ibdiags.Router
		}
	}
	return ibdiags.CA
}

// findNode locates a node by switch GUID, port GUID, or description.
func (f *Fabric) findNode(typ ibdiags.NodeType, nodeGUID, portGUID uint64, desc string) (int, bool) {
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if nodeGUID != 0 && n.GUID == nodeGUID && (typ == "" || n.Type == typ) {
			return i, true
		}
	}
	if portGUID != 0 {
		for i := range f.Nodes {
			for _, p := range f.Nodes[i].Ports {
				if p.GUID == portGUID {
					return i, true
				}
			}
		}
	}
	if nodeGUID == 0 && portGUID == 0 && desc != "" {
		found := -1
		for i := range f.Nodes {
			if f.Nodes[i].Desc == desc && (typ == "" || f.Nodes[i].Type == typ) {
				if found >= 0 {
					return 0, false // ambiguous
				}
				found = i
			}
		}
		if found >= 0 {
			return found, true
		}
	}
	return 0, false
}

func (f *Fabric) addLinkInfo(li *ibdiags.LinkInfo, gap func(string, string, ...any)) {
	missing := map[string]bool{}
	for _, lp := range li.Ports {
		i, ok := f.findNode(lp.NodeType, lp.NodeGUID, lp.PortGUID, lp.NodeDesc)
		if !ok {
			if !missing[lp.NodeDesc] {
				missing[lp.NodeDesc] = true
				gap("iblinkinfo", "node %q (line %d) is not in the ibnetdiscover topology", lp.NodeDesc, lp.Line)
			}
			continue
		}
		p := f.port(End{i, lp.Port})
		p.HaveState, p.State, p.Phys, p.Width, p.Speed, p.RemoteUnavailable = true, lp.State, lp.Phys, lp.Width, lp.Speed, lp.RemoteUnavailable
		p.CouldBeWidth, p.CouldBeSpeed = lp.CouldBeWidth, lp.CouldBeSpeed
		if lp.PortGUID != 0 && p.GUID == 0 {
			p.GUID = lp.PortGUID
		}
		if p.LID < 0 && f.Nodes[i].Type != ibdiags.Switch {
			p.LID = lp.LID
		}
		if f.Nodes[i].Type == ibdiags.Switch && f.Nodes[i].LID < 0 {
			f.Nodes[i].LID = lp.LID
		}
	}
}

func (f *Fabric) addQueryErrors(q *ibdiags.QueryErrors, gap func(string, string, ...any)) {
	for _, ep := range q.Ports {
		if ep.All {
			continue
		}
		typ := ibdiags.NodeType("")
		ng, pg := ep.NodeGUID, uint64(0)
		if ng == 0 {
			pg = ep.GUID
		}
		i, ok := f.findNode(typ, ng, pg, ep.NodeDesc)
		if !ok && ng == 0 {
			i, ok = f.findNode(typ, ep.GUID, 0, "")
		}
		if !ok {
			gap("ibqueryerrors", "node %q (GUID %s, line %d) is not in the topology", ep.NodeDesc, guidText(ep.GUID), ep.Line)
			continue
		}
		p := f.port(End{i, ep.Port})
		p.Counters = ep.Counters
		p.CounterSource = fmt.Sprintf("ibqueryerrors.txt line %d", ep.Line)
	}
}

func (f *Fabric) addPerfQuery(pq *ibdiags.PerfQuery, gap func(string, string, ...any)) {
	for _, b := range pq.Blocks {
		if b.Extended || b.Port == 255 || b.Set != "" {
			continue // (detail attributes name other counters)
		}
		found := false
		for i := range f.Nodes {
			n := &f.Nodes[i]
			for j := range n.Ports {
				p := &n.Ports[j]
				if (n.Type == ibdiags.Switch && n.LID == b.LID && p.Num == b.Port) || (n.Type != ibdiags.Switch && p.LID == b.LID && p.Num == b.Port) {
					if p.Counters == nil {
						p.Counters = map[string]uint64{}
					}
					for k, v := range b.Counters {
						p.Counters[k] = v
					}
					p.CounterSource = fmt.Sprintf("perfquery.txt line %d", b.Line)
					found = true
				}
			}
		}
		if !found {
			gap("perfquery", "LID %d port %d (line %d) is not in the topology", b.LID, b.Port, b.Line)
		}
	}
}

// topologyFromLinkInfo builds nodes and links from iblinkinfo alone: a node
// per "CA:"/"Switch:" block, a link per port line whose peer is named by
// LID (or, without LIDs, by a unique description) and port.
func (f *Fabric) topologyFromLinkInfo(li *ibdiags.LinkInfo) {
	prev := -1
	var last *ibdiags.LinkPort
	for i := range li.Ports {
		lp := &li.Ports[i]
		// A new block starts where the node header changes.
		if last == nil || lp.NodeType != last.NodeType || lp.NodeGUID != last.NodeGUID || lp.NodeDesc != last.NodeDesc || lp.Line != last.Line+1 {
			if lp.NodeType != ibdiags.Switch || prev < 0 || f.Nodes[prev].GUID != lp.NodeGUID || lp.NodeGUID == 0 {
				f.Nodes = append(f.Nodes, Node{Type: lp.NodeType, GUID: lp.NodeGUID, Desc: lp.NodeDesc, LID: -1})
				prev = len(f.Nodes) - 1
			}
		}
		last = lp
		n := &f.Nodes[prev]
		n.NumPorts = max(n.NumPorts, lp.Port)
		p := f.port(End{prev, lp.Port})
		p.GUID = lp.PortGUID
		if lp.NodeType == ibdiags.Switch {
			n.LID = lp.LID
		} else {
			p.LID = lp.LID
		}
	}
	byLID := map[int][]End{}
	byDesc := map[string][]int{}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		byDesc[n.Desc] = append(byDesc[n.Desc], i)
		if n.Type == ibdiags.Switch {
			if n.LID > 0 {
				byLID[n.LID] = append(byLID[n.LID], End{i, 0})
			}
			continue
		}
		for _, p := range n.Ports {
			if p.LID > 0 {
				byLID[p.LID] = append(byLID[p.LID], End{i, p.Num})
			}
		}
	}
	seen := map[[2]End]bool{}
	node := 0
	last = nil
	prev = -1
	for i := range li.Ports {
		lp := &li.Ports[i]
		if last == nil || lp.NodeType != last.NodeType || lp.NodeGUID != last.NodeGUID || lp.NodeDesc != last.NodeDesc || lp.Line != last.Line+1 {
			if lp.NodeType != ibdiags.Switch || prev < 0 || f.Nodes[prev].GUID != lp.NodeGUID || lp.NodeGUID == 0 {
				prev = node
				node++
			}
		}
		last = lp
		if lp.RemotePort <= 0 || lp.RemoteUnavailable {
			continue
		}
		peer := -1
		if owners := byLID[lp.RemoteLID]; lp.RemoteLID > 0 && len(owners) == 1 {
			peer = owners[0].Node
		} else if ds := byDesc[lp.RemoteDesc]; len(ds) == 1 {
			peer = ds[0]
		}
		if peer < 0 && lp.RemoteDesc != "" && len(byDesc[lp.RemoteDesc]) == 0 && (lp.RemoteLID <= 0 || len(byLID[lp.RemoteLID]) == 0) {
			// A peer without a section of its own (old releases list
			// switches only): a CA known by its description and LID.
			f.Nodes = append(f.Nodes, Node{Type: ibdiags.CA, Desc: lp.RemoteDesc, LID: -1})
			peer = len(f.Nodes) - 1
			byDesc[lp.RemoteDesc] = []int{peer}
			f.port(End{peer, lp.RemotePort}).LID = lp.RemoteLID
		}
		if peer < 0 {
			continue
		}
		a, b := End{prev, lp.Port}, End{peer, lp.RemotePort}
		if cmpEnd(b, a) < 0 {
			a, b = b, a
		}
		if seen[[2]End{a, b}] {
			continue
		}
		seen[[2]End{a, b}] = true
		f.port(b)
		f.Links = append(f.Links, Link{A: a, B: b, Width: lp.Width, Speed: lp.Speed, Source: fmt.Sprintf("iblinkinfo.txt line %d", lp.Line)})
	}
	slices.SortFunc(f.Links, func(x, y Link) int { return cmp.Or(cmpEnd(x.A, y.A), cmpEnd(x.B, y.B)) })
}
