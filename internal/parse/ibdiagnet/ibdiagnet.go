package ibdiagnet

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoData says the input holds no line ibdiagnet prints.
var ErrNoData = errors.New("no ibdiagnet output found")

// ParseError names the source and line of a refused input.
type ParseError = parse.Error

// maxLine bounds one input line.
const maxLine = 1 << 20

// Level is the severity prefix of a message line.
type Level string

// The message levels: "-I-", "-W-", "-E-".
const (
	Info    Level = "I"
	Warning Level = "W"
	Error   Level = "E"
)

// Message is one "-I-", "-W-" or "-E-" line (with the indented lines that
// continue it).
type Message struct {
	Line  int
	Level Level
	// Stage is the stage heading the line appeared under ("Discovery",
	// "Speed / Width checks", "Bad Guids/LIDs Info"); "" before the first.
	Stage string
	// Text is the line after its prefix, blanks trimmed; continuation
	// lines are appended after a space.
	Text string
}

// PortRef names a port the way ibdiagnet does: "S<system>/N<node>/P<port>"
// or "<node description>/U1/P<port>".
type PortRef struct {
	Raw string
	// NodeGUID is the N part of the GUID form; 0 in the name form.
	NodeGUID uint64
	// Name is the node description part of the name form ("smg-ib-sw041/U1").
	Name string
	// Port is the number after "/P"; 0 when it is not a plain number
	// ("P1/27/2" of a split port).
	Port int
}

// LinkIssue is a "Link: A<-->B - reason" message (speed, width and link
// checks).
type LinkIssue struct {
	Line   int
	Level  Level
	Stage  string
	A, B   PortRef
	Reason string
}

// CounterIssue is one port counter ibdiagnet's PM checks reported: a value
// above its threshold (a "-E- lid=… dev=… <port>" block with "counter :
// value" lines) or growth during the run ("<port> - "counter" increased
// during the run (difference value=N,difference allowed threshold=T)").
type CounterIssue struct {
	Line int
	// Head is the line of the "-E- lid=… dev=… <port>" header of a PM
	// block (0 for growth lines).
	Head    int
	Level   Level
	Stage   string
	Port    PortRef
	LID     int
	Counter string
	Value   uint64
	// Overflow says ibdiagnet marked the value "(overflow)": the counter
	// is saturated.
	Overflow bool
	// During says the counter grew during the run (Value is the growth,
	// Threshold the allowed growth).
	During    bool
	Threshold uint64
}

// StageCount is one row of the stage table ("Summary" of 2.x, "Stages
// Status Report" of 1.x).
type StageCount struct {
	Line     int
	Stage    string
	Warnings int
	Errors   int
	Comment  string
}

// Field is a "name : value" line of the fabric summary.
type Field struct {
	Line  int
	Name  string
	Value string
}

// SM is a "Master SM:" or "Standby SM:" line of the fabric summary.
type SM struct {
	Line   int
	Master bool
	// None is set for "No Standby SM" / "No Master SM".
	None     bool
	Port     int
	LID      int
	GUID     uint64
	Priority int
	NodeType string
	NodeDesc string
	Text     string
}

// Discovery is a "Discovering ... N nodes (S Switches & C CA-s)" line.
type Discovery struct {
	Line     int
	Nodes    int
	Switches int
	CAs      int
}

// Table is a START_xxx … END_xxx section of ibdiagnet2.db_csv.
type Table struct {
	Name   string
	Line   int // of START_xxx
	Header []string
	Rows   []Row
	// Closed says END_xxx was seen.
	Closed bool
}

// Row is one CSV row of a table.
type Row struct {
	Line   int
	Fields []string
}

// LSTEnd is one end of a .lst link: "{ CA Ports:02 … LID:0005 PN:01 }".
type LSTEnd struct {
	Type     string // "CA", "SW"
	NodeGUID uint64
	PortGUID uint64
	Desc     string
	LID      int
	Port     int
}

// LSTLink is one line of ibdiagnet.lst: two ends and the link's physical
// width, logical state and speed ("PHY=4x LOG=ACT SPD=2.5").
type LSTLink struct {
	Line  int
	A, B  LSTEnd
	Width string
	State string
	Speed string
}

// Skip is a line the parser did not understand.
type Skip struct {
	Line   int
	Text   string
	Reason string
}

// Report is everything read from one input.
type Report struct {
	Source string
	// Major is 1 or 2 when the output says which ibdiagnet printed it.
	Major int
	// Version is the version line's text ("IBDIAGNET 2.7.0.MLNX…").
	Version   string
	Messages  []Message
	Links     []LinkIssue
	Counters  []CounterIssue
	Stages    []StageCount
	Discovery *Discovery
	// FabricLine is the line of the "Fabric Summary" heading (0: none).
	FabricLine int
	Fabric     []Field
	SMs        []SM
	Tables     []Table
	LST        []LSTLink
	Skipped    []Skip
	// Lines counts every line; Blank the empty ones and Framing the
	// separators, headings and tool banners that carry no data. Every
	// other line is counted in exactly one of Messages (with their
	// continuations in Continued), Stages, Fabric, SMs, the tables' rows
	// and headers (TableLines), LST, CounterLines or Skipped.
	Lines        int
	Blank        int
	Framing      int
	Continued    int
	TableLines   int
	CounterLines int
}

// Parsed is the number of lines that were understood.
func (r *Report) Parsed() int {
	return r.Lines - r.Blank - len(r.Skipped)
}

// Accounted is the number of lines the report's parts account for; it
// equals Lines.
func (r *Report) Accounted() int {
	return r.Blank + r.Framing + len(r.Messages) + r.Continued + len(r.Stages) + len(r.Fabric) + len(r.SMs) + r.TableLines + len(r.LST) + r.CounterLines + len(r.Skipped)
}

// FabricValue returns the value of a fabric summary field ("Total Nodes").
func (r *Report) FabricValue(name string) (Field, bool) {
	for _, f := range r.Fabric {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return Field{}, false
}

// mode is what the lines being read belong to.
type mode int

const (
	modeNone          mode = iota
	modeTableV2            // "Summary" stage table
	modeTableV1            // "Stages Status Report" table
	modeFabric             // "Fabric Summary" fields
	modeCounters           // the "counter : value" lines of a PM block
	modeCSV                // inside START_xxx … END_xxx
	modePlugins            // "Load Plugins from:" … plugin table
	modeCSVHeader          // the line after START_xxx
	modeWantHeading        // the line after a "-----" separator
	modeWantV1Heading      // the line after a "-I-----" separator
)

type parser struct {
	r       *Report
	mode    mode
	stage   string
	col     struct{ warn, err int } // stage table column order
	pm      *CounterIssue           // the port of the PM block being read
	lastMsg int                     // index of the message continuation lines extend, -1 none
	v1Open  bool                    // a v1 heading was read, its closing separator not yet
	rows    int                     // rows read since the stage table's header
}

// Parse reads ibdiagnet output. It fails only when no line of it is
// ibdiagnet's (ErrNoData) or the input cannot be read; lines it does not
// understand are listed in Report.Skipped.
func Parse(rd io.Reader, source string) (*Report, error) {
	p := &parser{r: &Report{Source: source}, lastMsg: -1}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	n := 0
	for sc.Scan() {
		n++
		p.line(n, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	r := p.r
	r.Lines = n
	if len(r.Messages)+len(r.Stages)+len(r.Tables)+len(r.LST)+len(r.Fabric)+len(r.SMs) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoData}
	}
	return r, nil
}

var (
	reDiscover  = regexp.MustCompile(`Discover(?:ing|ed)\s*(?:\.\.\.)?\s*(\d+)\s+nodes\s*\((\d+)\s+Switch(?:es)?\s*&\s*(\d+)\s+CA-?s?\)`)
	reStageRow  = regexp.MustCompile(`^(.*?\S)\s+(\d+)\s+(\d+)(?:\s+(.*?))?\s*$`)
	reLink      = regexp.MustCompile(`^Link:\s*(\S+?)\s*<-+>\s*(\S+)\s+-\s+(.*)$`)
	reDuring    = regexp.MustCompile(`^(\S+)\s+-\s+"(\w+)"\s+increased during the run\s*\(difference value=(\d+)\s*,\s*difference allowed threshold=(\d+)\)`)
	rePMPort    = regexp.MustCompile(`^lid=(0x[0-9a-fA-F]+|\d+)\s+dev=\d+\s+(\S+)\s*$`)
	reCounter   = regexp.MustCompile(`^(\w+)\s*:\s*(\d+)\s*(\(overflow\))?\s*$`)
	reCSVMarker = regexp.MustCompile(`^(START|END)_([A-Z0-9_]+)\s*,*\s*$`)
	reLSTEnd    = regexp.MustCompile(`\{\s*(CA|SW|RT)\s+Ports:[0-9a-fA-F]+\s+SystemGUID:([0-9a-fA-F]+)\s+NodeGUID:([0-9a-fA-F]+)\s+PortGUID:([0-9a-fA-F]+)\s+VenID:[0-9a-fA-F]+\s+DevID:[0-9a-fA-F]+\s+Rev:[0-9a-fA-F]+\s*(?:\{([^}]*)\})?\s*LID:([0-9a-fA-F]+)\s+PN:([0-9a-fA-F]+)\s*\}`)
	reLSTTail   = regexp.MustCompile(`\}\s*PHY=(\S+)\s+LOG=(\S+)\s+SPD=(\S+)\s*$`)
	reSMKV      = regexp.MustCompile(`(Port|LID|GUID|devid|Priority|Node_Type)[=:](\S+)`)
)

func isDashes(t string) bool { return len(t) >= 5 && strings.Trim(t, "-") == "" }

// isSepV1 matches 1.x's "-I---------" section frame.
func isSepV1(t string) bool {
	return strings.HasPrefix(t, "-I---") && strings.Trim(t[3:], "-") == ""
}

// splitMsg splits "-W- text" into its level and text (blanks trimmed).
func splitMsg(t string) (Level, string, bool) {
	if len(t) < 3 || t[0] != '-' || t[2] != '-' || (t[1] != 'I' && t[1] != 'W' && t[1] != 'E') {
		return "", "", false
	}
	if len(t) > 3 && t[3] != ' ' && t[3] != '\t' {
		return "", "", false
	}
	return Level(t[1:2]), strings.TrimSpace(t[3:]), true
}

// match runs re only on text that holds word (most lines do not, and the
// regular expressions cost more than the look).
func match(re *regexp.Regexp, text, word string) []string {
	if !strings.Contains(text, word) {
		return nil
	}
	return re.FindStringSubmatch(text)
}

// csvMarker matches "START_NODES" / "END_NODES" (a trailing comma allowed).
func csvMarker(t string) []string {
	if !strings.HasPrefix(t, "START_") && !strings.HasPrefix(t, "END_") {
		return nil
	}
	return reCSVMarker.FindStringSubmatch(t)
}

func (p *parser) skip(n int, l, why string) {
	p.r.Skipped = append(p.r.Skipped, Skip{Line: n, Text: l, Reason: why})
}

func (p *parser) line(n int, l string) {
	r := p.r
	l = Unquote(l)
	t := strings.TrimSpace(l)
	if t == "" {
		r.Blank++
		p.lastMsg = -1
		switch p.mode {
		case modeCounters, modePlugins:
			p.mode = modeNone
		case modeTableV2, modeTableV1:
			// A blank line ends the table once it has rows.
			if p.rows > 0 {
				p.mode = modeNone
			}
		}
		return
	}
	// db_csv sections.
	if m := csvMarker(t); m != nil {
		if m[1] == "START" {
			r.Tables = append(r.Tables, Table{Name: m[2], Line: n})
			p.mode = modeCSVHeader
		} else {
			if k := len(r.Tables); k > 0 && r.Tables[k-1].Name == m[2] && !r.Tables[k-1].Closed {
				r.Tables[k-1].Closed = true
			}
			p.mode = modeNone
		}
		r.TableLines++
		return
	}
	if p.mode == modeCSV {
		// A section without its END_ line ends where ibdiagnet's own lines
		// resume.
		if _, _, ok := splitMsg(t); ok || isDashes(t) {
			p.mode = modeNone
		}
	}
	if p.mode == modeCSVHeader || p.mode == modeCSV {
		f, err := csvFields(t)
		tb := &r.Tables[len(r.Tables)-1]
		switch {
		case err != nil:
			p.skip(n, l, "not a CSV row: "+err.Error())
		case p.mode == modeCSVHeader:
			tb.Header = f
			r.TableLines++
			p.mode = modeCSV
		case len(f) != len(tb.Header):
			p.skip(n, l, fmt.Sprintf("CSV row of %s has %d fields, its header %d", tb.Name, len(f), len(tb.Header)))
		default:
			tb.Rows = append(tb.Rows, Row{Line: n, Fields: f})
			r.TableLines++
		}
		return
	}
	// .lst link lines.
	if strings.HasPrefix(t, "{") && strings.Contains(t, "PHY=") {
		if lk, ok := parseLST(n, t); ok {
			r.LST = append(r.LST, lk)
			return
		}
		p.skip(n, l, "not an ibdiagnet .lst link line ({ end } { end } PHY= LOG= SPD=)")
		return
	}
	if isSepV1(t) {
		r.Framing++
		if r.Major == 0 {
			r.Major = 1 // 2.x frames its stages with plain dashes
		}
		p.lastMsg = -1
		if p.v1Open {
			p.v1Open = false
			p.mode = modeNone
		} else {
			p.mode = modeWantV1Heading
		}
		return
	}
	if isDashes(t) {
		r.Framing++
		p.lastMsg = -1
		p.mode = modeWantHeading
		return
	}
	if lv, text, ok := splitMsg(t); ok {
		p.message(n, lv, text)
		return
	}
	p.plain(n, l, t)
}

// message reads a "-X- text" line.
func (p *parser) message(n int, lv Level, text string) {
	r := p.r
	switch p.mode {
	case modeWantV1Heading:
		// "-I- Bad Guids/LIDs Info" between two "-I-----" lines.
		p.stage, p.mode, p.v1Open = text, modeNone, true
		r.Framing++
		return
	case modeTableV2:
		if row, ok := p.stageRow(n, text); ok {
			r.Stages = append(r.Stages, row)
			p.rows++
			return
		}
		if strings.HasPrefix(text, "Stage") && strings.Contains(text, "Errors") {
			p.columns(text)
			r.Framing++
			return
		}
	case modeCounters, modeWantHeading, modeFabric, modePlugins, modeTableV1:
		p.mode = modeNone
	}
	if lv == Info && strings.HasPrefix(text, "Stage") && strings.Contains(text, "Warnings") && strings.Contains(text, "Errors") {
		// The 2.x table header, also without its "Summary" heading.
		p.stage = "Summary"
		p.columns(text)
		p.mode, p.rows = modeTableV2, 0
		r.Framing++
		return
	}
	if lv == Info && strings.HasPrefix(text, "Stages Status Report") {
		r.Major = 1 // only 1.x prints this table
		p.stage = "Stages Status Report"
		p.mode, p.rows = modeTableV1, 0
		r.Framing++
		return
	}
	r.Messages = append(r.Messages, Message{Line: n, Level: lv, Stage: p.stage, Text: text})
	p.lastMsg = len(r.Messages) - 1
	if m := match(reDiscover, text, "Discover"); m != nil && r.Discovery == nil {
		r.Discovery = &Discovery{Line: n, Nodes: atoi(m[1]), Switches: atoi(m[2]), CAs: atoi(m[3])}
	}
	if m := match(reLink, text, "Link:"); m != nil {
		r.Links = append(r.Links, LinkIssue{Line: n, Level: lv, Stage: p.stage, A: ParsePort(m[1]), B: ParsePort(m[2]), Reason: strings.TrimSpace(m[3])})
		return
	}
	if m := match(reDuring, text, "increased during the run"); m != nil {
		v, _ := strconv.ParseUint(m[3], 10, 64)
		th, _ := strconv.ParseUint(m[4], 10, 64)
		r.Counters = append(r.Counters, CounterIssue{Line: n, Level: lv, Stage: p.stage, Port: ParsePort(m[1]), Counter: m[2], Value: v, During: true, Threshold: th})
		return
	}
	if m := match(rePMPort, text, "lid="); m != nil {
		lid, _ := strconv.ParseInt(m[1], 0, 32)
		p.pm = &CounterIssue{Head: n, Level: lv, Stage: p.stage, Port: ParsePort(m[2]), LID: int(lid)}
		p.mode = modeCounters
		p.lastMsg = -1
		return
	}
}

// columns reads the stage table header's column order.
func (p *parser) columns(h string) {
	f := strings.Fields(h)
	p.col.warn, p.col.err = 1, 2
	for i, w := range f {
		switch strings.ToLower(w) {
		case "warnings":
			p.col.warn = i
		case "errors":
			p.col.err = i
		}
	}
}

// stageRow reads "Discovery   3   0" in the header's column order.
func (p *parser) stageRow(n int, text string) (StageCount, bool) {
	m := reStageRow.FindStringSubmatch(text)
	if m == nil {
		return StageCount{}, false
	}
	a, b := atoi(m[2]), atoi(m[3])
	if a < 0 || b < 0 {
		return StageCount{}, false
	}
	row := StageCount{Line: n, Stage: m[1], Comment: m[4]}
	if p.col.err < p.col.warn {
		row.Errors, row.Warnings = a, b
	} else {
		row.Warnings, row.Errors = a, b
	}
	return row, true
}

// plain reads a line without a "-X-" prefix.
func (p *parser) plain(n int, l, t string) {
	r := p.r
	indented := l != "" && (l[0] == ' ' || l[0] == '\t')
	switch p.mode {
	case modeWantHeading:
		if strings.Contains(t, ":") {
			// "Load Plugins from:" after the banner's dashes: no heading.
			p.mode = modeNone
			break
		}
		// "Discovery", "Fabric Summary", "Summary" after "-----".
		p.stage = t
		p.mode = modeNone
		r.Framing++
		switch t {
		case "Fabric Summary":
			r.FabricLine = n
			p.mode = modeFabric
		case "Summary":
			p.mode, p.rows = modeTableV2, 0
		}
		return
	case modeTableV1:
		if strings.HasPrefix(t, "STAGE") {
			p.columns(t)
			r.Framing++
			return
		}
		if row, ok := p.stageRow(n, t); ok {
			r.Stages = append(r.Stages, row)
			p.rows++
			return
		}
		p.mode = modeNone
	case modeCounters:
		if strings.HasPrefix(t, "Performance Monitor counter") {
			r.Framing++
			return
		}
		if m := reCounter.FindStringSubmatch(t); m != nil && p.pm != nil {
			c := *p.pm
			c.Line, c.Counter = n, m[1]
			c.Value, _ = strconv.ParseUint(m[2], 10, 64)
			c.Overflow = m[3] != ""
			r.Counters = append(r.Counters, c)
			r.CounterLines++
			return
		}
		p.mode = modeNone
	case modeFabric:
		if p.fabricLine(n, t) {
			return
		}
	case modePlugins:
		// "libibdiagnet_cable_diag_plugin-2.1.1   Succeeded  Plugin loaded"
		// and the paths plugins are loaded from.
		r.Framing++
		return
	}
	switch {
	case strings.HasPrefix(t, "Running version:"):
		r.Version = strings.Trim(strings.TrimSpace(strings.TrimPrefix(t, "Running version:")), `"`)
		if v, _, ok := strings.Cut(r.Version, `"`); ok {
			r.Version = v
		}
		r.Major = 2
		r.Framing++
	case strings.HasPrefix(t, "Loading IBDIAGNET from:"):
		r.Version = strings.TrimSpace(strings.TrimPrefix(t, "Loading IBDIAGNET from:"))
		r.Major = 1
		r.Framing++
	case strings.HasPrefix(t, "Loading IBDM from:"), strings.HasPrefix(t, "Running command:"), strings.HasPrefix(t, "Timestamp:"),
		strings.HasPrefix(t, "Please see ") && strings.HasSuffix(t, "for complete log"):
		r.Framing++
	case strings.HasPrefix(t, "Load Plugins from:"), strings.HasPrefix(t, "Plugin Name") && strings.Contains(t, "Result"):
		r.Framing++
		p.mode = modePlugins
	case strings.HasPrefix(t, "(You can specify more paths"):
		r.Framing++
	case (strings.HasPrefix(t, "Master SM") || strings.HasPrefix(t, "Standby SM")) && strings.Contains(t, ":"):
		p.sm(n, t)
	case indented && p.lastMsg >= 0:
		// An indented line continues the message above it (1.x wraps its
		// warnings: "-W- Topology file is not specified." + "    Reports …").
		r.Messages[p.lastMsg].Text += " " + t
		r.Continued++
	default:
		p.skip(n, l, "not a line ibdiagnet prints (no -I-/-W-/-E- prefix, not in a stage table, fabric summary or CSV section)")
	}
}

// fabricLine reads "Total Nodes : 42", "Links at 4x25 : 21" and the SM
// lines of the fabric summary.
func (p *parser) fabricLine(n int, t string) bool {
	if strings.HasPrefix(t, "Master SM") || strings.HasPrefix(t, "Standby SM") {
		p.sm(n, t)
		return true
	}
	name, val, ok := strings.Cut(t, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return false
	}
	p.r.Fabric = append(p.r.Fabric, Field{Line: n, Name: strings.TrimSpace(name), Value: strings.TrimSpace(val)})
	return true
}

// sm reads "Master SM: Port=1 LID=10 GUID=0x… devid=4123 Priority:15
// Node_Type=CA Node_Description=smg-ib-svr43 mlx5_0" and "Standby SM : No
// Standby SM".
func (p *parser) sm(n int, t string) {
	head, rest, _ := strings.Cut(t, ":")
	s := SM{Line: n, Master: strings.HasPrefix(head, "Master"), Text: t}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "No ") || rest == "" {
		s.None = true
	}
	kv := rest
	if i := strings.Index(rest, "Node_Description="); i >= 0 {
		s.NodeDesc = strings.TrimSpace(rest[i+len("Node_Description="):])
		kv = rest[:i]
	}
	for _, m := range reSMKV.FindAllStringSubmatch(kv, -1) {
		switch m[1] {
		case "Port":
			s.Port = atoi(m[2])
		case "LID":
			s.LID = atoi(m[2])
		case "GUID":
			s.GUID, _ = parseGUID(m[2])
		case "Priority":
			s.Priority = atoi(m[2])
		case "Node_Type":
			s.NodeType = m[2]
		}
	}
	p.r.SMs = append(p.r.SMs, s)
}

// ParsePort reads "S043f…/N043f…/P49" or "smg-ib-sw041/U1/P24" (and
// "…/P1/27/2" of a split port, whose number is not kept).
func ParsePort(s string) PortRef {
	pr := PortRef{Raw: s}
	node := s
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '/' && s[i+1] == 'P' && s[i+2] >= '0' && s[i+2] <= '9' {
			node = s[:i]
			if v, err := strconv.Atoi(s[i+2:]); err == nil && v < 1<<16 {
				pr.Port = v
			}
			break
		}
	}
	if strings.HasPrefix(node, "S") {
		if _, nn, ok := strings.Cut(node, "/N"); ok && len(nn) <= 16 {
			if g, err := strconv.ParseUint(nn, 16, 64); err == nil {
				pr.NodeGUID = g
				return pr
			}
		}
	}
	pr.Name = node
	return pr
}

// parseLST reads "{ CA … } { SW … } PHY=4x LOG=ACT SPD=2.5".
func parseLST(n int, t string) (LSTLink, bool) {
	ends := reLSTEnd.FindAllStringSubmatch(t, -1)
	tail := reLSTTail.FindStringSubmatch(t)
	if len(ends) != 2 || tail == nil {
		return LSTLink{}, false
	}
	var e [2]LSTEnd
	for i, m := range ends {
		ng, _ := strconv.ParseUint(m[3], 16, 64)
		pg, _ := strconv.ParseUint(m[4], 16, 64)
		lid, _ := strconv.ParseUint(m[6], 16, 16)
		pn, _ := strconv.ParseUint(m[7], 16, 8)
		e[i] = LSTEnd{Type: m[1], NodeGUID: ng, PortGUID: pg, Desc: strings.TrimSpace(m[5]), LID: int(lid), Port: int(pn)}
	}
	return LSTLink{Line: n, A: e[0], B: e[1], Width: tail[1], State: tail[2], Speed: tail[3]}, true
}

func csvFields(t string) ([]string, error) {
	cr := csv.NewReader(strings.NewReader(t))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	f, err := cr.Read()
	if err != nil {
		return nil, err
	}
	return f, nil
}

func parseGUID(s string) (uint64, bool) {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if h == "" || len(h) > 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(h, 16, 64)
	return v, err == nil
}

// atoi parses a small decimal number; -1 when it is not one.
func atoi(s string) int {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > 1<<30 {
		return -1
	}
	return v
}

// Unquote removes the "> " of a quoted reply (mail, GitHub comments) from
// the front of a line: "> > -I- Lids Check finished successfully".
func Unquote(l string) string {
	for {
		t := strings.TrimLeft(l, " \t")
		if !strings.HasPrefix(t, ">") {
			return l
		}
		l = strings.TrimPrefix(t[1:], " ")
	}
}

// LogFile is the log ibdiagnet writes its details to: ibdiagnet.log (1.x)
// or ibdiagnet2.log.
func (r *Report) LogFile() string {
	if r.Major == 1 {
		return "ibdiagnet.log"
	}
	return "ibdiagnet2.log"
}

// GUIDText renders a GUID as "0x" and 16 lowercase hex digits.
func GUIDText(g uint64) string { return fmt.Sprintf("0x%016x", g) }

// Node names the node of a port reference: its description, else its
// GUID.
func (p PortRef) Node() string {
	if p.Name != "" {
		return p.Name
	}
	if p.NodeGUID != 0 {
		return GUIDText(p.NodeGUID)
	}
	return p.Raw
}

// String is "node/P<port>" (the raw reference when the port is not a
// plain number).
func (p PortRef) String() string {
	if p.Port == 0 {
		return p.Raw
	}
	return fmt.Sprintf("%s/P%d", p.Node(), p.Port)
}
