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
}

// ParseQueryErrors parses ibqueryerrors output (with or without --data,
// --details).
func ParseQueryErrors(r io.Reader, src string) (*QueryErrors, error) {
	q := &QueryErrors{NodesChecked: -1, PortsChecked: -1, PMAFailures: -1}
	var guid uint64
	var desc string
	header := false
	seen := false
	err := scanLines(r, src, func(n int, raw string) error {
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
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
			if !header {
				return perr(src, n, raw, `port line before "Errors for"`)
			}
			p, err := parseErrorPort(line)
			if err != nil {
				return perr(src, n, raw, "%v", err)
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
	if !seen {
		return nil, noData(src, "ibqueryerrors report")
	}
	return q, nil
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
		p.Counters[strings.TrimSpace(name)] = v
	}
	return p, nil
}
