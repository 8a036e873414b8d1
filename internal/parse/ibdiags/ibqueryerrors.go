package ibdiags

import (
	"io"
	"strconv"
	"strings"
)

// QueryErrors is ibqueryerrors' report: the ports whose error counters are
// above the thresholds (default 0), with the data counters when --data was
// given, and the summary.
type QueryErrors struct {
	Ports []ErrorPort `json:"ports"`
	// Summary figures; -1 when the summary was not printed.
	NodesChecked int `json:"nodes_checked"`
	PortsChecked int `json:"ports_checked"`
	PMAFailures  int `json:"pma_failures"`
}

// ErrorPort is one "   GUID 0x100003 port 1: [PortRcvErrors == 4] ..."
// line under its "Errors for 0x200003 "leaf2"" node header.
type ErrorPort struct {
	// NodeGUID is printed in the header for switches; for CAs the header
	// has only the description and GUID is the port GUID.
	NodeGUID uint64 `json:"node_guid,omitempty"`
	NodeDesc string `json:"node_desc"`
	GUID     uint64 `json:"guid"`
	// Port is the port number, or 0 with All set for the switch's "port
	// ALL" aggregate line.
	Port     int               `json:"port"`
	All      bool              `json:"all,omitempty"`
	Counters map[string]uint64 `json:"counters"`
	Line     int               `json:"line"`
	// LID is the port's LID in legacy ibcheckerrors output, which names
	// ports by LID instead of GUID; 0 when not printed.
	LID int `json:"lid,omitempty"`
	// Lines are the lines of every counter of the port (legacy output
	// prints one "#warn: counter" line each), by counter name.
	Lines map[string]int `json:"lines,omitempty"`
}

// legacyCounters maps ibcheckerrors' counter names (ibcheckerrors.sh,
// perfquery's old labels, which the Perl ibqueryerrors.pl of
// infiniband-diags 1.4 also prints in its "[XmtDiscards == 44]" brackets)
// to the PortCounters names ibqueryerrors prints.
var legacyCounters = map[string]string{
	"SymbolErrors":        "SymbolErrorCounter",
	"LinkRecovers":        "LinkErrorRecoveryCounter",
	"LinkDowned":          "LinkDownedCounter",
	"RcvErrors":           "PortRcvErrors",
	"RcvRemotePhysErrors": "PortRcvRemotePhysicalErrors",
	"RcvSwRelayErrors":    "PortRcvSwitchRelayErrors",
	"XmtDiscards":         "PortXmitDiscards",
	"XmtConstraintErrors": "PortXmitConstraintErrors",
	"RcvConstraintErrors": "PortRcvConstraintErrors",
	"LinkIntegrityErrors": "LocalLinkIntegrityErrors",
	"ExcBufOverrunErrors": "ExcessiveBufferOverrunErrors",
	"VL15Dropped":         "VL15Dropped",
}

// LegacyLine says whether a line is one of ibcheckerrors' own: a
// "#warn: counter" line or an "Error check on lid" verdict.
func LegacyLine(t string) bool {
	return strings.HasPrefix(t, "#warn: counter ") || strings.HasPrefix(t, "Error check on lid ")
}

// legacy reads ibcheckerrors output: "#warn: counter SymbolErrors = 36905
// (threshold 10) lid 193 port 14" lines (the lid and port are missing in
// some releases) and the "Error check on lid 193 (desc) port 14:  FAILED"
// line after them, which mail clients wrap after "port".
type legacy struct {
	q       *QueryErrors
	pending []legacyCounter
	// wrapped is the "Error check" line waiting for its "N:  FAILED" tail.
	wrapped string
	wrapN   int
}

type legacyCounter struct {
	name     string
	value    uint64
	lid      int
	port     int
	line     int
	havePort bool
}

var errNotLegacy = errf("not an ibcheckerrors line")

func (l *legacy) line(n int, t string) error {
	if l.wrapped != "" {
		w := l.wrapped
		l.wrapped = ""
		if err := l.check(l.wrapN, w+" "+t); err == nil {
			return nil
		}
	}
	switch {
	case strings.HasPrefix(t, "#warn: counter "):
		f := strings.Fields(strings.TrimPrefix(t, "#warn: counter "))
		if len(f) < 3 || f[1] != "=" {
			return errf(`want "#warn: counter NAME = VALUE"`)
		}
		v, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil {
			return errf("bad counter value %q", f[2])
		}
		c := legacyCounter{name: f[0], value: v, line: n}
		if full, ok := legacyCounters[f[0]]; ok {
			c.name = full
		}
		for i := 3; i+1 < len(f); i++ {
			switch f[i] {
			case "lid":
				if x, ok := parseUint(f[i+1], 0xffff); ok {
					c.lid = int(x)
				}
			case "port":
				if x, ok := parseUint(f[i+1], 255); ok {
					c.port, c.havePort = int(x), true
				}
			}
		}
		l.pending = append(l.pending, c)
		return nil
	case strings.HasPrefix(t, "Error check on lid "):
		if !strings.Contains(t, ":") {
			l.wrapped, l.wrapN = t, n // "... port" / "all:  FAILED"
			return nil
		}
		return l.check(n, t)
	}
	return errNotLegacy
}

// check reads "Error check on lid 193 (desc) port 14:  FAILED" and gives
// the pending counters their port.
func (l *legacy) check(n int, t string) error {
	rest := strings.TrimPrefix(t, "Error check on lid ")
	lidS, rest, _ := strings.Cut(rest, " ")
	lid, ok := parseUint(lidS, 0xffff)
	if !ok {
		return errf("bad lid %q", lidS)
	}
	desc := ""
	if strings.HasPrefix(rest, "(") {
		if e := strings.LastIndex(rest, ")"); e > 0 {
			desc, rest = rest[1:e], strings.TrimSpace(rest[e+1:])
		}
	}
	portS, verdict, ok := strings.Cut(strings.TrimPrefix(rest, "port "), ":")
	if !ok || !strings.HasPrefix(rest, "port ") {
		return errf(`want "port N: FAILED"`)
	}
	portS = strings.TrimSpace(portS)
	all := portS == "all"
	port := 0
	if !all {
		v, ok := parseUint(portS, 255)
		if !ok {
			return errf("bad port %q", portS)
		}
		port = int(v)
	}
	if strings.TrimSpace(verdict) != "FAILED" {
		l.pending = l.pending[:0]
		return nil
	}
	ep := ErrorPort{NodeDesc: desc, LID: int(lid), Port: port, All: all, Line: n, Counters: map[string]uint64{}, Lines: map[string]int{}}
	for _, c := range l.pending {
		if c.havePort && (c.lid != int(lid) || c.port != port) {
			continue
		}
		ep.Counters[c.name] = c.value
		ep.Lines[c.name] = c.line
		if c.line < ep.Line {
			ep.Line = c.line
		}
	}
	l.pending = l.pending[:0]
	l.q.Ports = append(l.q.Ports, ep)
	return nil
}

// flush keeps counters whose "Error check" line was cut off the paste.
func (l *legacy) flush() {
	by := map[[2]int]*ErrorPort{}
	for _, c := range l.pending {
		if !c.havePort {
			continue
		}
		k := [2]int{c.lid, c.port}
		ep := by[k]
		if ep == nil {
			l.q.Ports = append(l.q.Ports, ErrorPort{LID: c.lid, Port: c.port, Line: c.line, Counters: map[string]uint64{}, Lines: map[string]int{}})
			ep = &l.q.Ports[len(l.q.Ports)-1]
			by[k] = ep
		}
		ep.Counters[c.name] = c.value
		ep.Lines[c.name] = c.line
	}
	l.pending = nil
}

// ParseQueryErrors parses ibqueryerrors output (with or without --data,
// --details).
func ParseQueryErrors(r io.Reader, src string) (*QueryErrors, error) {
	q := &QueryErrors{NodesChecked: -1, PortsChecked: -1, PMAFailures: -1}
	var guid uint64
	var desc string
	header := false
	seen := false
	old := &legacy{q: q}
	err := scanLines(r, src, func(n int, raw string) error {
		line := strings.TrimSpace(raw)
		if line != "" && (old.wrapped != "" || LegacyLine(line)) {
			if err := old.line(n, line); err != errNotLegacy {
				if err != nil {
					return perr(src, n, raw, "%v", err)
				}
				seen = true
				return nil
			}
		}
		switch {
		case line == "":
			return nil
		case strings.HasPrefix(line, "# Checked ") || strings.HasPrefix(line, "#warn: ") || strings.HasPrefix(line, "# ibcheckerrors"):
			// ibcheckerrors' per-node notes ("# Checked Switch: nodeguid
			// 0x… with failure") and other warnings: informative only.
			return nil
		case strings.HasPrefix(line, "Errors for "):
			h := strings.TrimPrefix(line, "Errors for ")
			guid = 0
			if strings.HasPrefix(h, "0x") {
				g, rest, _ := cutField(h)
				v, ok := parseHexGUID(g)
				if !ok {
					return perr(src, n, raw, "bad GUID %q", g)
				}
				guid, h = v, strings.TrimSpace(rest)
			}
			d, _, ok := cutQuoted(h)
			if !ok {
				return perr(src, n, raw, "want the quoted node description")
			}
			desc, header, seen = d, true, true
			return nil
		case strings.HasPrefix(line, "##"):
			seen = true
			f := strings.Fields(strings.TrimLeft(line, "# "))
			num := func(i int) int {
				if i < 0 || i >= len(f) {
					return -1
				}
				v, ok := parseUint(f[i], 1<<31)
				if !ok {
					return -1
				}
				return int(v)
			}
			for i := range f {
				switch {
				case f[i] == "nodes" && i+1 < len(f) && f[i+1] == "checked,":
					q.NodesChecked = num(i - 1)
				case f[i] == "ports" && i+1 < len(f) && f[i+1] == "checked,":
					q.PortsChecked = num(i - 1)
				case f[i] == "PMA" && i+2 < len(f) && f[i+1] == "query" && f[i+2] == "failures":
					q.PMAFailures = num(i - 1)
				}
			}
			return nil
		case strings.HasPrefix(line, "GUID "):
			p, err := parseErrorPort(line)
			if err != nil {
				return perr(src, n, raw, "%v", err)
			}
			if !header {
				// A port line pasted without its "Errors for" header
				// (the node is unknown) still says what its counters
				// are; anything else before the header is not this tool.
				if len(p.Counters) == 0 {
					return perr(src, n, raw, `port line before "Errors for"`)
				}
				seen = true
			}
			p.NodeGUID, p.NodeDesc, p.Line = guid, desc, n
			q.Ports = append(q.Ports, p)
			return nil
		case strings.HasPrefix(line, "Link info:") || strings.HasPrefix(line, "Details for") || line[0] == '[' || strings.Contains(line, "==("):
			// --report-port and --details lines: informative only.
			return nil
		}
		return perr(src, n, raw, `want "Errors for", "GUID ... port N: [...]" or a "##" summary`)
	})
	if err != nil {
		return nil, err
	}
	old.flush()
	if !seen {
		return nil, noData(src, "ibqueryerrors report")
	}
	return q, nil
}

// ErrorPortLine says whether t is one of ibqueryerrors' per-port lines,
// "GUID 0x… port N: [Counter == V] …" (or "port ALL:"), with at least one
// counter: no other tool prints it, so the line alone, pasted without
// its "Errors for" header, names the tool.
func ErrorPortLine(t string) bool {
	if !strings.HasPrefix(t, "GUID 0x") || !strings.Contains(t, " == ") {
		return false
	}
	p, err := parseErrorPort(t)
	return err == nil && len(p.Counters) > 0
}

func parseErrorPort(line string) (ErrorPort, error) {
	p := ErrorPort{Counters: map[string]uint64{}}
	head, body, ok := strings.Cut(line, ":")
	if !ok {
		return p, errf("missing ':' after the port")
	}
	f := strings.Fields(head)
	if len(f) != 4 || f[2] != "port" {
		return p, errf(`want "GUID 0x... port N:"`)
	}
	g, ok := parseHexGUID(f[1])
	if !ok {
		return p, errf("bad GUID %q", f[1])
	}
	p.GUID = g
	if f[3] == "ALL" {
		p.All = true
	} else {
		v, ok := parseUint(f[3], 255)
		if !ok {
			return p, errf("bad port %q", f[3])
		}
		p.Port = int(v)
	}
	for {
		body = strings.TrimSpace(body)
		if body == "" {
			break
		}
		if body[0] != '[' {
			return p, errf("want [Counter == N], got %q", body)
		}
		e := strings.IndexByte(body, ']')
		if e < 0 {
			return p, errf("unterminated [Counter == N]")
		}
		name, val, ok := strings.Cut(body[1:e], " == ")
		body = body[e+1:]
		if !ok {
			return p, errf("want [Counter == N]")
		}
		val, _, _ = strings.Cut(strings.TrimSpace(val), " ")
		v, err := strconv.ParseUint(val, 10, 64)
		if err != nil || name == "" {
			return p, errf("bad counter value %q", val)
		}
		name = strings.TrimSpace(name)
		if full, ok := legacyCounters[name]; ok {
			name = full // ibqueryerrors.pl prints perfquery's old labels: "[XmtDiscards == 44]"
		}
		p.Counters[name] = v
	}
	return p, nil
}
