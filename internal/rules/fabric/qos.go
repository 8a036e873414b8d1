package fabric

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// QoSPlan says which service level each traffic class uses and, where the
// plan fixes it, the virtual lane that SL should map to.
type QoSPlan struct {
	Source  string     `json:"source"`
	Classes []QoSClass `json:"classes"`
}

// QoSClass is one plan line: `name SL [VL]`.
type QoSClass struct {
	Name string `json:"name"`
	SL   int    `json:"sl"`
	// VL is the lane the SL should map to; -1 when the plan leaves it open.
	VL   int `json:"vl"`
	Line int `json:"line"`
}

// ErrQoSPlan is wrapped by QoS plan parse errors.
var ErrQoSPlan = errors.New("bad QoS plan line")

// ParseQoSPlan reads a QoS plan, one class per line:
//
//	# class     SL  [VL]
//	training    0   0
//	storage     1   1
//	management  2
//
// SLs are 0-14 (SL 15 is not used for data), VLs 0-14 (VL 15 carries
// subnet management only); '#' starts a comment. A class name and an SL
// appear once each.
func ParseQoSPlan(r io.Reader, src string) (*QoSPlan, error) {
	p := &QoSPlan{Source: src}
	sc := bufio.NewScanner(io.LimitReader(r, 1<<20))
	sc.Buffer(make([]byte, 0, 4096), 64*1024)
	n := 0
	names, sls := map[string]int{}, map[int]int{}
	bad := func(line, format string, a ...any) error {
		return &ibdiags.ParseError{Source: src, Line: n, Input: line, Err: fmt.Errorf("%w: "+format, append([]any{ErrQoSPlan}, a...)...)}
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 && len(f) != 3 {
			return nil, bad(line, "want `class SL [VL]`")
		}
		c := QoSClass{Name: f[0], VL: -1, Line: n}
		sl, err := strconv.Atoi(f[1])
		if err != nil || sl < 0 || sl > 14 {
			return nil, bad(line, "SL %q: want 0-14", f[1])
		}
		c.SL = sl
		if len(f) == 3 {
			vl, err := strconv.Atoi(f[2])
			if err != nil || vl < 0 || vl > 14 {
				return nil, bad(line, "VL %q: want 0-14", f[2])
			}
			c.VL = vl
		}
		if prev, dup := names[c.Name]; dup {
			return nil, bad(line, "class %s already planned on line %d", c.Name, prev)
		}
		if prev, dup := sls[c.SL]; dup {
			return nil, bad(line, "SL %d already used on line %d", c.SL, prev)
		}
		names[c.Name], sls[c.SL] = n, n
		p.Classes = append(p.Classes, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if len(p.Classes) == 0 {
		return nil, &ibdiags.ParseError{Source: src, Err: fmt.Errorf("%w: no classes", ibdiags.ErrNoData)}
	}
	return p, nil
}

// addQoS parses the smpquery QoS tables of a collection. Collections
// without them (taken before they were collected) have no gap: the QoS
// check then has nothing to judge.
func (f *Fabric) addQoS(raw *fabricmodel.Raw, gap func(src, format string, a ...any)) {
	if o := raw.Get("smpquery-sl2vl"); o != nil {
		if o.Err != "" {
			gap("smpquery-sl2vl", "%s", o.Err)
		}
		if len(bytes.TrimSpace(o.Stdout)) > 0 {
			rows, err := ibdiags.ParseSL2VL(bytes.NewReader(o.Stdout), "smpquery-sl2vl.txt")
			if err != nil {
				gap("smpquery-sl2vl", "%v", err)
			}
			f.SL2VL = rows
		}
	}
	if o := raw.Get("smpquery-vlarb"); o != nil {
		if o.Err != "" {
			gap("smpquery-vlarb", "%s", o.Err)
		}
		if len(bytes.TrimSpace(o.Stdout)) > 0 {
			tabs, err := ibdiags.ParseVLArb(bytes.NewReader(o.Stdout), "smpquery-vlarb.txt")
			if err != nil {
				gap("smpquery-vlarb", "%v", err)
			}
			f.VLArb = tabs
		}
	}
	if o := raw.Get("saquery-path-sl"); o != nil {
		if o.Err != "" {
			gap("saquery-path-sl", "%s", o.Err)
		}
		if len(bytes.TrimSpace(o.Stdout)) > 0 {
			ps, err := ibdiags.ParsePathSLs(bytes.NewReader(o.Stdout), "saquery-path-sl.txt")
			if err != nil {
				gap("saquery-path-sl", "%v", err)
			}
			f.PathSLs = ps
		}
	}
}

// lidNode maps LIDs to nodes: a switch's port-0 LID, a CA port's LID.
func (f *Fabric) lidNode() map[int]int {
	m := map[int]int{}
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if n.Type == ibdiags.Switch {
			if n.LID > 0 {
				m[n.LID] = i
			}
			continue
		}
		for _, p := range n.Ports {
			if p.LID > 0 {
				m[p.LID] = i
			}
		}
	}
	return m
}

// qosRow is an SL2VL row that carries data traffic: a CA's table, or a
// switch row between two linked external ports (port 0, the switch's
// management port, has its own table).
type qosRow struct {
	node int
	row  ibdiags.SL2VLRow
}

func (f *Fabric) qosRows() []qosRow {
	byLID := f.lidNode()
	var out []qosRow
	for _, r := range f.SL2VL {
		i, ok := byLID[r.LID]
		if !ok {
			continue
		}
		n := &f.Nodes[i]
		if n.Type == ibdiags.Switch {
			if r.In == 0 || r.Out == 0 || r.In == r.Out || !isUp(f.PortOf(End{i, r.In})) || !isUp(f.PortOf(End{i, r.Out})) {
				continue
			}
		}
		out = append(out, qosRow{i, r})
	}
	return out
}

// vlUse is which VLs one node maps an SL to, with the first row of each.
type vlUse map[int]ibdiags.SL2VLRow

func vlText(u vlUse) string {
	vls := slices.Sorted(maps.Keys(u))
	s := make([]string, len(vls))
	for i, v := range vls {
		s[i] = strconv.Itoa(v)
	}
	return "VL " + strings.Join(s, "/")
}

func rowEvidence(r ibdiags.SL2VLRow, sl int) finding.Evidence {
	return finding.Evidence{Source: fmt.Sprintf("smpquery-sl2vl.txt line %d", r.Line),
		Value: fmt.Sprintf("lid %d in %d out %d: SL %d -> VL %d", r.LID, r.In, r.Out, sl, r.VL[sl])}
}

// maxQoSEvidence bounds the evidence lines of one finding.
const maxQoSEvidence = 8

// CheckQoS judges the SL-to-VL mapping tables and VL arbitration tables
// (fabric.qos_mismatch): nodes that map an SL to a different VL than the
// rest of the fabric (or than the plan says), and planned SLs that map to
// VL 15 (dropped) or to a VL with no weight in a port's arbitration
// tables, high and low (its packets are never sent). Without a plan every
// SL 0-14 is compared across nodes; with one, the planned SLs. Findings of
// the same kind, SL and VLs are merged over nodes.
func CheckQoS(f *Fabric, plan *QoSPlan) []finding.Finding {
	rows := f.qosRows()
	if len(rows) == 0 {
		return nil
	}
	use := slUses(rows)
	var out []finding.Finding
	for _, c := range qosClasses(plan) {
		what := fmt.Sprintf("SL %d", c.sl)
		if c.name != "" {
			what = fmt.Sprintf("%s (SL %d)", c.name, c.sl)
		}
		out = append(out, f.checkQoSMapping(c, what, use[c.sl], plan)...)
		if plan == nil {
			continue
		}
		out = append(out, f.checkQoSDrop(c.sl, what, use[c.sl])...)
		out = append(out, f.checkQoSWeight(c.sl, what, rows)...)
	}
	catalog.Sort(out)
	return out
}

// slUses indexes the data rows by SL and node: use[sl][node] holds the
// VLs the node maps sl to, each with the first row that does.
func slUses(rows []qosRow) [15]map[int]vlUse {
	var use [15]map[int]vlUse
	for sl := range use {
		use[sl] = map[int]vlUse{}
	}
	for _, r := range rows {
		for sl := range use {
			u := use[sl][r.node]
			if u == nil {
				u = vlUse{}
				use[sl][r.node] = u
			}
			if _, ok := u[r.row.VL[sl]]; !ok {
				u[r.row.VL[sl]] = r.row
			}
		}
	}
	return use
}

// qosClass is one SL judged: a planned class with its VL, or (vl -1)
// an SL compared across the fabric.
type qosClass struct {
	name string
	sl   int
	vl   int
	line int
}

// qosClasses lists the SLs to judge: the plan's classes, else every SL
// 0-14.
func qosClasses(plan *QoSPlan) []qosClass {
	var classes []qosClass
	if plan != nil {
		for _, c := range plan.Classes {
			classes = append(classes, qosClass{c.Name, c.SL, c.VL, c.Line})
		}
	} else {
		for sl := range 15 {
			classes = append(classes, qosClass{sl: sl, vl: -1})
		}
	}
	return classes
}

// fabricVL is the fabric's VL for an SL: the one most nodes map it to
// alone (the lowest on a tie), or -1 when no node maps it to one VL.
func fabricVL(use map[int]vlUse) int {
	votes := map[int]int{}
	for _, u := range use {
		if len(u) == 1 {
			for vl := range u {
				votes[vl]++
			}
		}
	}
	want := -1
	for vl, n := range votes {
		if want < 0 || n > votes[want] || n == votes[want] && vl < want {
			want = vl
		}
	}
	return want
}

// checkQoSMapping reports the nodes that map class c's SL to another VL
// than the plan's (or the fabric's), one finding per distinct mapping.
func (f *Fabric) checkQoSMapping(c qosClass, what string, use map[int]vlUse, plan *QoSPlan) []finding.Finding {
	want, byPlan := c.vl, c.vl >= 0
	if !byPlan {
		want = fabricVL(use)
	}
	// Nodes that differ, grouped by what they map the SL to.
	groups := map[string][]int{}
	for node, u := range use {
		if _, ok := u[want]; ok && len(u) == 1 {
			continue
		}
		groups[vlText(u)] = append(groups[vlText(u)], node)
	}
	var out []finding.Finding
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		nodes := groups[key]
		slices.SortFunc(nodes, func(a, b int) int { return cmp.Compare(f.Nodes[a].Name(), f.Nodes[b].Name()) })
		var ev []finding.Evidence
		if byPlan && plan != nil {
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s line %d", plan.Source, c.line), Value: fmt.Sprintf("%s %d %d", c.name, c.sl, c.vl)})
		}
		for _, node := range nodes {
			for _, vl := range slices.Sorted(maps.Keys(use[node])) {
				if vl != want && len(ev) < maxQoSEvidence {
					ev = append(ev, rowEvidence(use[node][vl], c.sl))
				}
			}
		}
		ref := fmt.Sprintf("the rest of the fabric maps it to VL %d", want)
		if byPlan {
			ref = fmt.Sprintf("the QoS plan says VL %d", want)
		} else if want < 0 {
			ref = "no VL is common to the fabric"
		}
		out = append(out, catalog.New("fabric.qos_mismatch", f.nodeSubject(nodes[0]),
			fmt.Sprintf("%s maps %s to %s on %s; %s", nodeCount(f, nodes), what, key, countOf(len(nodes), "node"), ref), ev...))
	}
	return out
}

// checkQoSDrop: a planned SL that maps to VL 15 is dropped.
func (f *Fabric) checkQoSDrop(sl int, what string, use map[int]vlUse) []finding.Finding {
	var nodes []int
	var ev []finding.Evidence
	for node, u := range use {
		if r, ok := u[15]; ok {
			nodes = append(nodes, node)
			if len(ev) < maxQoSEvidence {
				ev = append(ev, rowEvidence(r, sl))
			}
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	slices.SortFunc(nodes, func(a, b int) int { return cmp.Compare(f.Nodes[a].Name(), f.Nodes[b].Name()) })
	slices.SortFunc(ev, func(a, b finding.Evidence) int { return cmp.Compare(a.Source, b.Source) })
	return []finding.Finding{catalog.New("fabric.qos_mismatch", f.nodeSubject(nodes[0]),
		fmt.Sprintf("%s maps %s to VL 15 on %s: its packets are dropped", nodeCount(f, nodes), what, countOf(len(nodes), "node")), ev...)}
}

// checkQoSWeight: the VL a planned SL leaves a port on has weight 0 in
// both of the port's arbitration tables.
func (f *Fabric) checkQoSWeight(sl int, what string, rows []qosRow) []finding.Finding {
	type key struct{ lid, port int }
	out := map[key]map[int]ibdiags.SL2VLRow{} // output port → VLs used
	for _, r := range rows {
		port := r.row.Out
		if f.Nodes[r.node].Type != ibdiags.Switch {
			port = -1 // a CA's table serves its port, whatever the number
		}
		k := key{r.row.LID, port}
		if out[k] == nil {
			out[k] = map[int]ibdiags.SL2VLRow{}
		}
		if _, ok := out[k][r.row.VL[sl]]; !ok {
			out[k][r.row.VL[sl]] = r.row
		}
	}
	byLID := f.lidNode()
	type hit struct {
		node int
		tab  ibdiags.VLArbTable
		row  ibdiags.SL2VLRow
	}
	zero := map[int][]hit{}
	for _, tab := range f.VLArb {
		node, ok := byLID[tab.LID]
		if !ok {
			continue
		}
		k := key{tab.LID, tab.Port}
		if f.Nodes[node].Type != ibdiags.Switch {
			k.port = -1
		}
		for vl, r := range out[k] {
			if vl != 15 && tab.Weight(vl) == 0 {
				zero[vl] = append(zero[vl], hit{node, tab, r})
			}
		}
	}
	var fs []finding.Finding
	for _, vl := range slices.Sorted(maps.Keys(zero)) {
		hits := zero[vl]
		slices.SortFunc(hits, func(a, b hit) int {
			return cmp.Or(cmp.Compare(f.Nodes[a.node].Name(), f.Nodes[b.node].Name()), cmp.Compare(a.tab.Port, b.tab.Port))
		})
		var ev []finding.Evidence
		var nodes []int
		for _, h := range hits {
			if !slices.Contains(nodes, h.node) {
				nodes = append(nodes, h.node)
			}
			if len(ev) < maxQoSEvidence {
				ev = append(ev, rowEvidence(h.row, sl), finding.Evidence{Source: fmt.Sprintf("smpquery-vlarb.txt line %d", h.tab.Line),
					Value: fmt.Sprintf("lid %d port %d: VL %d weight 0 in the high and the low table", h.tab.LID, h.tab.Port, vl)})
			}
		}
		subj := f.nodeSubject(hits[0].node)
		subj.Port = hits[0].tab.Port
		fs = append(fs, catalog.New("fabric.qos_mismatch", subj,
			fmt.Sprintf("%s maps %s to VL %d on %s, and VL %d has no arbitration weight there (0 in the high and the low table): its packets are never sent",
				nodeCount(f, nodes), what, vl, countOf(len(hits), "port"), vl), ev...))
	}
	return fs
}

func (f *Fabric) nodeSubject(i int) finding.Subject {
	n := &f.Nodes[i]
	s := finding.Subject{NodeDesc: n.Name()}
	if n.GUID != 0 {
		s.NodeGUID = guidText(n.GUID)
	}
	return s
}

// nodeCount names the first node and how many more there are.
func nodeCount(f *Fabric, nodes []int) string {
	s := f.Nodes[nodes[0]].Name()
	if len(nodes) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(nodes)-1)
	}
	return s
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
