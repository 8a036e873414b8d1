// Package ibdiagnet judges what ibdiagnet reported (parsed by
// internal/parse/ibdiagnet) with the fabric finding IDs: links below the
// width or speed both ends support, port counters over ibdiagnet's PM
// thresholds, duplicate GUIDs and LIDs, the subnet manager, links not
// Active. One ibdiagnet check is one finding, its lines the evidence, so a
// cable fault printed on fifty ports stays one finding. Errors of stages
// with no specific finding become fabric.ibdiagnet_error; warnings that are
// not faults are listed as notes with the reason. Pure functions, no I/O.
package ibdiagnet

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	diag "github.com/ibdoctor/ibdoctor/internal/parse/ibdiagnet"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Result is the judgement of one ibdiagnet output.
type Result struct {
	Findings []finding.Finding
	// Judged says what the verdict rests on: the node and link counts and
	// the stages ibdiagnet ran ("42 nodes (6 switches, 31 CAs, 5
	// aggregation nodes), 58 links; 11 stages: 15 errors, 19 warnings").
	Judged string
	// Notes name what was not judged and why, with line numbers.
	Notes []string
}

// group is one ibdiagnet check's lines, becoming one finding.
type group struct {
	id    string
	check string // the ibdiagnet check, for the summary
	cat   string // stage category, to match the stage table
	sev   finding.Severity
	ev    []finding.Evidence
	items []string // what each line says, for the summary
	// subj is the port or link of the first line; many says the lines name
	// more than one.
	subj  *finding.Subject
	many  bool
	count int // lines that name a port or link
	// counted is the stage table's error count for the stage, named
	// table.
	counted int
	table   string
	stage   string
	// warnings says counted is the stage's warnings (1.x width and speed
	// checks warn).
	warnings bool
}

type checker struct {
	r      *diag.Report
	groups []*group
	index  map[string]*group
	// unmapped holds the -E- lines no check took, by stage category;
	// warnReason and warnLines the -W- lines that are not judged, by stage.
	unmapped   map[string][]diag.Message
	stageOf    map[string]string // category → stage name as printed
	warnReason map[string][]string
	warnLines  map[string][]int
	notes      []string
}

// Check judges one parsed ibdiagnet output.
func Check(r *diag.Report) Result {
	c := &checker{r: r, index: map[string]*group{}, unmapped: map[string][]diag.Message{}, stageOf: map[string]string{},
		warnReason: map[string][]string{}, warnLines: map[string][]int{}}
	structured := map[int]bool{}
	for _, ci := range r.Counters {
		structured[ci.Line] = true
		structured[ci.Head] = true
		c.counter(ci)
	}
	for _, li := range r.Links {
		structured[li.Line] = true
		c.link(li)
	}
	for _, m := range r.Messages {
		if !structured[m.Line] && (m.Level == diag.Warning || m.Level == diag.Error) {
			c.message(m)
		}
	}
	c.sms()
	c.lst()
	c.tables()
	fs := c.stageTable()
	for _, g := range c.groups {
		fs = append(fs, c.finding(g))
	}
	catalog.Sort(fs)
	return Result{Findings: fs, Judged: judged(r), Notes: append(c.warnNotes(), c.notes...)}
}

func (c *checker) src(line int) string { return fmt.Sprintf("%s:%d", c.r.Source, line) }

func (c *checker) get(id, check, cat, stage string) *group {
	k := id + "|" + check
	if g, ok := c.index[k]; ok {
		return g
	}
	g := &group{id: id, check: check, cat: cat, stage: stage}
	if m, ok := catalog.Default.Lookup(id); ok {
		g.sev = m.Severity
	}
	c.index[k] = g
	c.groups = append(c.groups, g)
	return g
}

// add records a line of a check; subj is the port or link it names (nil
// for a check's status line).
func (g *group) add(ev finding.Evidence, item string, subj *finding.Subject) {
	g.ev = append(g.ev, ev)
	if subj == nil {
		return
	}
	g.count++
	if item != "" {
		g.items = append(g.items, item)
	}
	switch {
	case g.subj == nil:
		g.subj = subj
	case !sameSubject(*g.subj, *subj):
		g.many = true
	}
}

func sameSubject(a, b finding.Subject) bool {
	if finding.CompareSubject(a, b) != 0 {
		return false
	}
	if (a.Peer == nil) != (b.Peer == nil) {
		return false
	}
	return a.Peer == nil || finding.CompareSubject(*a.Peer, *b.Peer) == 0
}

func portSubject(p diag.PortRef) finding.Subject {
	s := finding.Subject{Port: p.Port}
	if p.NodeGUID != 0 {
		s.NodeGUID = diag.GUIDText(p.NodeGUID)
	}
	if p.Name != "" {
		s.NodeDesc = p.Name
	} else if p.NodeGUID == 0 {
		s.NodeDesc = p.Raw
	}
	return s
}

func msgText(m diag.Message) string { return fmt.Sprintf("-%s- %s", m.Level, m.Text) }

// category groups the stage names of ibdiagnet 1.x (section headings and
// stage table rows) and 2.x by the check they run.
func category(stage string) string {
	s := strings.ToLower(stage)
	switch {
	case strings.Contains(s, "guids/lids"):
		return "ids" // 1.x: duplicate GUIDs and LIDs together
	case s == "discovery":
		return "discovery"
	case s == "lids check":
		return "lids"
	case s == "links check", strings.Contains(s, "logical state"), strings.Contains(s, "link state active"):
		return "links"
	case strings.Contains(s, "subnet manager"):
		return "sm"
	case strings.Contains(s, "port counters"), strings.Contains(s, "pm counters"), strings.Contains(s, "performance counters"):
		return "counters"
	case strings.Contains(s, "speed / width"), strings.Contains(s, "links width"), strings.Contains(s, "links speed"),
		strings.Contains(s, "link width check"), strings.Contains(s, "link speed check"), s == "bad links info":
		return "speedwidth"
	}
	return s
}

// congestion counters are not errors: their growth is fabric.congestion.
func isCongestion(counter string) bool { return strings.Contains(counter, "xmit_wait") }

func (c *checker) counter(ci diag.CounterIssue) {
	if ci.Level != diag.Error && ci.Level != diag.Warning {
		return
	}
	stage := ci.Stage
	if stage == "" {
		stage = "Port Counters"
	}
	id, check := "fabric.link_errors", "Ports counters value Check"
	if ci.During {
		check = "Ports counters Difference Check (during run)"
	}
	if isCongestion(ci.Counter) {
		id = "fabric.congestion"
	}
	g := c.get(id, check, "counters", stage)
	var val, item string
	switch {
	case ci.During:
		val = fmt.Sprintf("%s %s grew by %d during the run (ibdiagnet allows %d)", ci.Port.String(), ci.Counter, ci.Value, ci.Threshold)
		item = fmt.Sprintf("%s %s +%d", ci.Port.String(), ci.Counter, ci.Value)
		if strings.Contains(ci.Counter, "link_down") {
			g.sev = finding.Critical // the link went down while ibdiagnet ran
		}
	default:
		val = fmt.Sprintf("%s %s == %d", ci.Port.String(), ci.Counter, ci.Value)
		if ci.LID > 0 {
			val = fmt.Sprintf("lid %d ", ci.LID) + val
		}
		if ci.Overflow {
			val += " (overflow: the counter is saturated)"
		}
		item = fmt.Sprintf("%s %s %d", ci.Port.String(), ci.Counter, ci.Value)
	}
	s := portSubject(ci.Port)
	g.add(finding.Evidence{Source: c.src(ci.Line), Value: val}, item, &s)
}

var (
	reCannotJoin = regexp.MustCompile(`^Port (\S+) .*can ?not join\s+due to rate:\s*(\S+)\s*<\s*group:\s*(\S+)`)
	reWidth      = regexp.MustCompile(`actual link width is ([^\s,(]+)(?:.*final width should be ([^\s)]+))?`)
	reSpeed      = regexp.MustCompile(`actual (?:link )?speed (?:is )?([^\s,(]+)(?:.*final speed should be ([^\s)]+))?`)
)

func (c *checker) link(li diag.LinkIssue) {
	if li.Level != diag.Error && li.Level != diag.Warning {
		return
	}
	reason := strings.ToLower(li.Reason)
	a, b := portSubject(li.A), portSubject(li.B)
	a.Peer = &b
	name := fmt.Sprintf("%s <-> %s", li.A.String(), li.B.String())
	ev := finding.Evidence{Source: c.src(li.Line), Value: fmt.Sprintf("-%s- Link: %s<-->%s - %s", li.Level, li.A.Raw, li.B.Raw, li.Reason)}
	switch {
	case strings.Contains(reason, "width"):
		item := name
		if m := reWidth.FindStringSubmatch(li.Reason); m != nil {
			item = fmt.Sprintf("%s at %s", name, m[1])
			if m[2] != "" {
				item += ", should be " + m[2]
			}
		}
		c.get("fabric.link_degraded", "Links Width Check", "speedwidth", li.Stage).add(ev, item, &a)
	case strings.Contains(reason, "speed"):
		item := name
		if m := reSpeed.FindStringSubmatch(li.Reason); m != nil {
			item = fmt.Sprintf("%s at %s", name, m[1])
			if m[2] != "" {
				item += ", should be " + m[2]
			}
		}
		c.get("fabric.link_degraded", "Links Speed Check", "speedwidth", li.Stage).add(ev, item, &a)
	case strings.Contains(reason, "state"), strings.Contains(reason, "init"), strings.Contains(reason, "down"), strings.Contains(reason, "active"):
		c.get("fabric.link_down", "Links Check", "links", li.Stage).add(ev, name+": "+li.Reason, &a)
	default:
		c.unmap(diag.Message{Line: li.Line, Level: li.Level, Stage: li.Stage, Text: fmt.Sprintf("Link: %s<-->%s - %s", li.A.Raw, li.B.Raw, li.Reason)})
	}
}

func (c *checker) unmap(m diag.Message) {
	cat := category(m.Stage)
	if _, ok := c.stageOf[cat]; !ok {
		c.stageOf[cat] = m.Stage
	}
	c.unmapped[cat] = append(c.unmapped[cat], m)
}

// notFaults are warnings ibdiagnet gives that say nothing is broken, with
// why.
var notFaults = []struct{ match, why string }{
	{"No response for MAD", "a node did not answer a vendor-specific query (VSGeneralInfo and the like): ibdiagnet could not read its vendor details, which is common for aggregation nodes and older firmware; not a link or fabric fault"},
	{"VS Capability", "the vendor-specific capability queries finished with warnings (the nodes that did not answer are listed): not a fabric fault"},
	{"FW Check finished with warnings", "some devices run older firmware than the newest seen for the same device in the fabric: an upgrade hint, not a fault"},
	{"Topology file is not specified", "no topology file was given, so links are reported by direct route: not a fault"},
	{"Suboptimal rate for group", "an IPoIB multicast group's rate is below its members' rate: limits IPoIB multicast throughput, not a link fault"},
}

// statusChecks map ibdiagnet's "<check> finished with errors" lines to the
// finding of the check.
var statusChecks = []struct{ prefix, id, check, cat string }{
	{"Ports counters value Check", "fabric.link_errors", "Ports counters value Check", "counters"},
	{"Ports counters Difference Check", "fabric.link_errors", "Ports counters Difference Check (during run)", "counters"},
	{"Links Speed Check", "fabric.link_degraded", "Links Speed Check", "speedwidth"},
	{"Links Width Check", "fabric.link_degraded", "Links Width Check", "speedwidth"},
	{"Duplicated GUIDs detection", "fabric.duplicate_guid", "Duplicated GUIDs detection", "discovery"},
}

func (c *checker) message(m diag.Message) {
	text := m.Text
	low := strings.ToLower(text)
	ev := finding.Evidence{Source: c.src(m.Line), Value: msgText(m)}
	cat := category(m.Stage)
	if strings.Contains(text, "finished with errors") {
		for _, s := range statusChecks {
			if strings.HasPrefix(text, s.prefix) {
				c.get(s.id, s.check, s.cat, m.Stage).add(ev, "", nil)
				return
			}
		}
	}
	if m.Level == diag.Warning {
		for _, nf := range notFaults {
			if strings.Contains(text, nf.match) {
				c.warn(m, nf.why)
				return
			}
		}
	}
	// 1.x IPoIB check: "-W- Port localhost/P1 lid=0x00e2 guid=0x… dev=25218
	// can not join due to rate:2.5Gbps < group:10Gbps" — the port's link
	// runs slower than the rate the fabric's multicast group was made for.
	if j := reCannotJoin.FindStringSubmatch(text); j != nil {
		p := diag.ParsePort(j[1])
		s := portSubject(p)
		c.get("fabric.link_degraded", "IPoIB Subnets Check", category(m.Stage), m.Stage).add(ev,
			fmt.Sprintf("%s at %s, the IPoIB group (and the fabric) at %s", p.String(), j[2], j[3]), &s)
		return
	}
	switch {
	case strings.Contains(low, "duplicat") && strings.Contains(low, "guid") && !strings.Contains(low, "finished"):
		c.get("fabric.duplicate_guid", "Duplicated GUIDs detection", cat, m.Stage).add(ev, text, subjectOf(text))
		return
	case strings.Contains(low, "duplicat") && strings.Contains(low, "lid") && !strings.Contains(low, "finished"):
		c.get("fabric.duplicate_lid", "Lids Check", cat, m.Stage).add(ev, text, subjectOf(text))
		return
	case strings.Contains(low, "master") && (cat == "sm" || strings.Contains(low, " sm")):
		switch {
		case strings.Contains(low, "more than one"), strings.Contains(low, "multiple"), strings.Contains(low, "several"), strings.Contains(low, "masters"):
			c.get("fabric.sm_multiple_masters", "Subnet Manager Check", "sm", m.Stage).add(ev, text, subjectOf(text))
			return
		case strings.Contains(low, "no master"), strings.Contains(low, "not found"), strings.Contains(low, "missing"):
			c.get("fabric.sm_missing", "Subnet Manager Check", "sm", m.Stage).add(ev, "", nil)
			return
		}
	}
	// ibdiagnet 1.x sections list only what is wrong: every -W-/-E- line of
	// them is one case of the section's check.
	if c.r.Major == 1 && m.Stage != "" {
		switch cat {
		case "ids":
			if strings.Contains(low, "lid") {
				c.get("fabric.duplicate_lid", m.Stage, cat, m.Stage).add(ev, text, subjectOf(text))
			} else {
				c.get("fabric.duplicate_guid", m.Stage, cat, m.Stage).add(ev, text, subjectOf(text))
			}
			return
		case "links":
			c.get("fabric.link_down", m.Stage, cat, m.Stage).add(ev, text, subjectOf(text))
			return
		case "speedwidth":
			g := c.get("fabric.link_degraded", m.Stage, cat, m.Stage)
			if m.Level == diag.Warning && len(g.ev) == 0 {
				g.sev = finding.Warning // 1.x warns: the link differs from -lw/-ls
			}
			g.add(ev, text, subjectOf(text))
			return
		case "counters":
			c.get("fabric.link_errors", m.Stage, cat, m.Stage).add(ev, text, subjectOf(text))
			return
		}
	}
	if m.Level == diag.Error {
		c.unmap(m)
		return
	}
	c.warn(m, "")
}

// warn records a warning that is not judged, with why ("" for warnings
// no check covers).
func (c *checker) warn(m diag.Message, why string) {
	stage := m.Stage
	if stage == "" {
		stage = "(before the first stage)"
	}
	if why == "" {
		why = "a warning no specific check covers; not judged"
	}
	if !slices.Contains(c.warnReason[stage], why) {
		c.warnReason[stage] = append(c.warnReason[stage], why)
	}
	c.warnLines[stage] = append(c.warnLines[stage], m.Line)
}

// warnedIn says whether a warning of a stage of category cat was printed.
func (c *checker) warnedIn(cat string) bool {
	for s := range c.warnLines {
		if category(s) == cat {
			return true
		}
	}
	return false
}

func (c *checker) warnNotes() []string {
	var stages []string
	for s := range c.warnLines {
		stages = append(stages, s)
	}
	slices.SortFunc(stages, func(a, b string) int { return c.warnLines[a][0] - c.warnLines[b][0] })
	var out []string
	for _, s := range stages {
		counted := ""
		for _, row := range c.r.Stages {
			if category(row.Stage) == category(s) && row.Warnings > len(c.warnLines[s]) {
				counted = fmt.Sprintf(" (%d counted in the stage table, the others are in %s)", row.Warnings, c.r.LogFile())
			}
		}
		out = append(out, fmt.Sprintf("%s: ibdiagnet warnings in %s%s: %s", lineList(c.r.Source, c.warnLines[s]), s, counted, strings.Join(c.warnReason[s], "; ")))
	}
	return out
}

// rePortRef and reGUID find the ports and GUIDs ibdiagnet names in free
// text (a GUID is 16 hex digits; "0x0008" is a LID).
var (
	rePortRef = regexp.MustCompile(`\bS[0-9a-fA-F]{1,16}/N[0-9a-fA-F]{1,16}(?:/P\d+)?\b`)
	reGUID    = regexp.MustCompile(`\b0x[0-9a-fA-F]{16}\b`)
)

// subjectOf names the first port (else GUID) a line mentions; an empty
// subject when it names none.
func subjectOf(text string) *finding.Subject {
	if m := rePortRef.FindString(text); m != "" {
		s := portSubject(diag.ParsePort(m))
		return &s
	}
	if m := reGUID.FindString(text); m != "" {
		if g, err := strconv.ParseUint(m[2:], 16, 64); err == nil {
			return &finding.Subject{NodeGUID: diag.GUIDText(g)}
		}
	}
	return &finding.Subject{}
}

// sms judges the "Master SM:" lines of the fabric summary.
func (c *checker) sms() {
	var masters []diag.SM
	for _, s := range c.r.SMs {
		if !s.Master {
			continue
		}
		if s.None {
			c.get("fabric.sm_missing", "Fabric Summary", "sm", "Fabric Summary").add(finding.Evidence{Source: c.src(s.Line), Value: s.Text}, "", nil)
			continue
		}
		if !slices.ContainsFunc(masters, func(m diag.SM) bool { return m.GUID == s.GUID }) {
			masters = append(masters, s)
		}
	}
	if len(masters) > 1 {
		g := c.get("fabric.sm_multiple_masters", "Fabric Summary", "sm", "Fabric Summary")
		for _, m := range masters {
			s := finding.Subject{NodeGUID: diag.GUIDText(m.GUID), NodeDesc: m.NodeDesc, Port: m.Port}
			g.add(finding.Evidence{Source: c.src(m.Line), Value: m.Text}, fmt.Sprintf("lid %d %s priority %d", m.LID, s.NodeGUID, m.Priority), &s)
		}
	}
}

// lst judges the links of an ibdiagnet.lst: a link whose logical state is
// not ACT is physically up but not Active.
func (c *checker) lst() {
	for _, l := range c.r.LST {
		if strings.EqualFold(l.State, "ACT") {
			continue
		}
		a := finding.Subject{NodeGUID: diag.GUIDText(l.A.NodeGUID), NodeDesc: l.A.Desc, Port: l.A.Port}
		b := finding.Subject{NodeGUID: diag.GUIDText(l.B.NodeGUID), NodeDesc: l.B.Desc, Port: l.B.Port}
		a.Peer = &b
		c.get("fabric.link_down", "ibdiagnet.lst", "links", "").add(finding.Evidence{Source: c.src(l.Line), Value: fmt.Sprintf("%s/P%d <-> %s/P%d PHY=%s LOG=%s SPD=%s", a.NodeGUID, a.Port, b.NodeGUID, b.Port, l.Width, l.State, l.Speed)},
			fmt.Sprintf("%s/P%d <-> %s/P%d %s", a.NodeGUID, a.Port, b.NodeGUID, b.Port, l.State), &a)
	}
	if len(c.r.LST) > 0 {
		c.notes = append(c.notes, fmt.Sprintf("%d .lst links read: their logical state is judged; their width and speed are not (ibdiagnet's Speed / Width checks judge them against what both ends support)", len(c.r.LST)))
	}
}

// tables says what of the db_csv sections was read: they are not judged.
func (c *checker) tables() {
	if len(c.r.Tables) == 0 {
		return
	}
	var parts []string
	for _, t := range c.r.Tables {
		parts = append(parts, fmt.Sprintf("%s (line %d, %d rows)", t.Name, t.Line, len(t.Rows)))
	}
	c.notes = append(c.notes, "ibdiagnet2.db_csv sections read but not judged (ibdiagnet's verdicts are in its console output and ibdiagnet2.log): "+strings.Join(parts, ", "))
}

// stageTable reconciles the stage table with the findings: a stage's
// errors go to its check's finding, or become fabric.ibdiagnet_error; the
// -E- lines of stages without a row too.
func (c *checker) stageTable() []finding.Finding {
	var out []finding.Finding
	done := map[string]bool{}
	for _, row := range c.r.Stages {
		cat := category(row.Stage)
		var mine []*group
		for _, g := range c.groups {
			if g.cat == cat {
				mine = append(mine, g)
			}
		}
		ev := finding.Evidence{Source: c.src(row.Line), Value: fmt.Sprintf("stage %s: %d errors, %d warnings", row.Stage, row.Errors, row.Warnings)}
		switch {
		case len(mine) > 0:
			for _, g := range mine {
				g.ev = append(g.ev, ev)
				g.counted += row.Errors
				g.table = row.Stage
			}
			// -E- lines of the stage that no check took stay with it.
			for _, m := range c.unmapped[cat] {
				mine[0].ev = append(mine[0].ev, finding.Evidence{Source: c.src(m.Line), Value: msgText(m)})
			}
			done[cat] = true
		case row.Errors > 0:
			out = append(out, c.unmappedFinding(row.Stage, cat, ev, row.Errors))
			done[cat] = true
		case row.Warnings > 0 && cat == "speedwidth":
			// 1.x warns about each link whose width or speed differs from
			// -lw/-ls: degraded links, not named here.
			g := c.get("fabric.link_degraded", row.Stage, cat, row.Stage)
			g.sev, g.counted, g.table, g.warnings = finding.Warning, row.Warnings, row.Stage, true
			g.ev = append(g.ev, ev)
		case row.Warnings > 0 && !c.warnedIn(cat):
			c.notes = append(c.notes, fmt.Sprintf("%s: %s in %s, none printed in this paste: not judged (they are in %s)", c.src(row.Line), plural(row.Warnings, "ibdiagnet warning"), row.Stage, c.r.LogFile()))
		}
	}
	var cats []string
	for cat := range c.unmapped {
		if !done[cat] {
			cats = append(cats, cat)
		}
	}
	slices.SortFunc(cats, func(a, b string) int { return c.unmapped[a][0].Line - c.unmapped[b][0].Line })
	for _, cat := range cats {
		// A failed check's status line beside the lines of a finding of
		// the same stage belongs to that finding.
		if i := slices.IndexFunc(c.groups, func(g *group) bool { return g.cat == cat }); i >= 0 {
			for _, m := range c.unmapped[cat] {
				c.groups[i].ev = append(c.groups[i].ev, finding.Evidence{Source: c.src(m.Line), Value: msgText(m)})
			}
			continue
		}
		out = append(out, c.unmappedFinding(c.stageOf[cat], cat, finding.Evidence{}, 0))
	}
	return out
}

func (c *checker) unmappedFinding(stage, cat string, row finding.Evidence, counted int) finding.Finding {
	var ev []finding.Evidence
	if row.Source != "" {
		ev = append(ev, row)
	}
	for _, m := range c.unmapped[cat] {
		ev = append(ev, finding.Evidence{Source: c.src(m.Line), Value: msgText(m)})
	}
	name := stage
	if name == "" {
		name = "the output before the first stage"
	}
	sum := fmt.Sprintf("ibdiagnet reports errors in %s", name)
	switch listed := len(c.unmapped[cat]); {
	case counted > 0 && listed == 0:
		sum += fmt.Sprintf(": %d errors counted, none printed in this paste (read them in %s)", counted, c.r.LogFile())
	case counted > 0:
		sum += fmt.Sprintf(": %d errors counted, %d lines printed here", counted, listed)
	default:
		sum += fmt.Sprintf(": %d -E- lines", listed)
	}
	return catalog.New("fabric.ibdiagnet_error", finding.Subject{}, sum, ev...)
}

// finding renders a group: one finding per ibdiagnet check.
func (c *checker) finding(g *group) finding.Finding {
	var subj finding.Subject
	if g.subj != nil && !g.many {
		subj = *g.subj
	}
	var sum string
	switch g.id {
	case "fabric.link_degraded":
		sum = "links below the width or speed both ends support"
		if strings.Contains(g.check, "IPoIB") {
			sum = "ports whose link runs below the rate of the fabric's IPoIB group"
		} else if strings.Contains(g.check, "Width") {
			sum = "links below the width both ends support"
			if !slices.ContainsFunc(g.items, func(s string) bool { return strings.Contains(s, "should be") }) {
				// "Unexpected width, actual link width is 4x" without
				// "final width should be": the run's --lw named the width.
				sum = "links at another width than the run expected (ibdiagnet --lw)"
			}
		} else if strings.Contains(g.check, "Speed") {
			sum = "links below the speed both ends support"
			if !slices.ContainsFunc(g.items, func(s string) bool { return strings.Contains(s, "should be") }) {
				sum = "links at another speed than the run expected (ibdiagnet --ls)"
			}
		}
	case "fabric.link_errors":
		sum = "port error counters over ibdiagnet's thresholds"
		if strings.Contains(g.check, "during run") {
			sum = "port error counters grew while ibdiagnet ran"
		}
	case "fabric.congestion":
		sum = "ports waited for credits to send (congestion)"
	case "fabric.duplicate_guid":
		sum = "duplicate GUIDs on the fabric"
	case "fabric.duplicate_lid":
		sum = "duplicate LIDs on the fabric"
	case "fabric.sm_missing":
		sum = "no master subnet manager"
	case "fabric.sm_multiple_masters":
		sum = "more than one master subnet manager"
	case "fabric.link_down":
		sum = "links physically up but not Active"
	}
	sum = fmt.Sprintf("ibdiagnet %s: %s", g.check, sum)
	if g.count > 0 {
		sum += fmt.Sprintf(" (%d)", g.count)
	}
	if len(g.items) > 0 {
		const show = 3
		items := g.items
		more := ""
		if len(items) > show {
			more = fmt.Sprintf(" and %d more", len(items)-show)
			items = items[:show]
		}
		sum += ": " + strings.Join(items, "; ") + more
	}
	if g.warnings && g.count == 0 {
		sum = fmt.Sprintf("ibdiagnet %s: %s at a width or speed other than expected (-lw/-ls), none printed in this paste (read them in %s)", g.check, plural(g.counted, "link"), c.r.LogFile())
	} else if g.counted > g.count {
		sum += fmt.Sprintf("; ibdiagnet counted %d errors in %s, %d printed here (the others are in %s)", g.counted, g.table, g.count, c.r.LogFile())
	}
	slices.SortStableFunc(g.ev, func(a, b finding.Evidence) int { return lineOf(a.Source) - lineOf(b.Source) })
	f := catalog.New(g.id, subj, sum, g.ev...)
	f.Severity = g.sev
	return f
}

// lineOf reads the line number of an evidence source "file:N".
func lineOf(src string) int {
	i := strings.LastIndexByte(src, ':')
	n, _ := strconv.Atoi(src[i+1:])
	return n
}

// judged says what ibdiagnet looked at: node and link counts (the fabric
// summary, else the discovery line) and the stage totals.
func judged(r *diag.Report) string {
	var parts []string
	num := func(name string) (int, bool) {
		f, ok := r.FabricValue(name)
		if !ok {
			return 0, false
		}
		v, err := strconv.Atoi(f.Value)
		return v, err == nil
	}
	if n, ok := num("Total Nodes"); ok {
		var kinds []string
		for _, k := range []struct{ field, word string }{{"IB Switches", "switches"}, {"IB Channel Adapters", "CAs"}, {"IB Aggregation Nodes", "aggregation nodes"}, {"IB Routers", "routers"}} {
			if v, ok := num(k.field); ok && v > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", v, k.word))
			}
		}
		s := fmt.Sprintf("%d nodes", n)
		if len(kinds) > 0 {
			s += " (" + strings.Join(kinds, ", ") + ")"
		}
		if l, ok := num("Total number of links"); ok {
			s += fmt.Sprintf(", %d links", l)
		}
		parts = append(parts, s)
	} else if d := r.Discovery; d != nil {
		parts = append(parts, fmt.Sprintf("%d nodes (%d switches, %d CAs)", d.Nodes, d.Switches, d.CAs))
	}
	if len(r.Stages) > 0 {
		e, w := 0, 0
		for _, s := range r.Stages {
			e += s.Errors
			w += s.Warnings
		}
		parts = append(parts, fmt.Sprintf("%s: %s, %s", plural(len(r.Stages), "stage"), plural(e, "error"), plural(w, "warning")))
	}
	if len(r.LST) > 0 {
		parts = append(parts, fmt.Sprintf("%d .lst links", len(r.LST)))
	}
	if len(parts) == 0 {
		return plural(len(r.Messages), "ibdiagnet message")
	}
	return strings.Join(parts, "; ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// lineList renders "f:3,5,9 and 2 more (5 lines)".
func lineList(file string, ns []int) string {
	const show = 5
	var parts []string
	for i, n := range ns {
		if i == show {
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	s := file + ":" + strings.Join(parts, ",")
	if len(ns) > show {
		s += fmt.Sprintf(" and %d more (%d lines)", len(ns)-show, len(ns))
	}
	return s
}
