// Package cellcli reads Oracle Exadata's CellCLI `LIST IBPORT` and `LIST
// IBPORT DETAIL` (Oracle Exadata System Software User's Guide, the
// IBPORT object): the list's "HCA-1:1  Active" rows and the detail's
// "name:  HCA-1:1", "status:  Active", "symbolErrs:  0" … attributes,
// one block per port starting at its name.
package cellcli

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoPort says the text holds no IBPORT row or detail.
var ErrNoPort = errors.New("no CellCLI IBPORT row (\"HCA-1:1  Active\") or detail (\"name:  HCA-1:1\")")

// Port is one IBPORT.
type Port struct {
	Name   string
	Status string
	// Counters are the detail's error counters that are set (name:
	// value), in the order printed.
	Counters []Counter
	Line     int
	// StatusLine is the line of the status (the list's row or the
	// detail's status attribute).
	StatusLine int
	Raw        string
}

// Counter is one numeric attribute of the detail.
type Counter struct {
	Name  string
	Value uint64
	Line  int
}

// ErrorCounters are the detail's error counters (the IBPORT attributes
// the guide lists).
var ErrorCounters = []string{"linkDowned", "linkIntegrityErrs", "linkRecovers", "rcvConstraintErrs", "rcvErrs", "rcvRemotePhysErrs", "symbolErrs", "vl15Dropped", "xmtConstraintErrs", "xmtDiscards"}

// CommandLine says whether l is a CellCLI command listing IBPORTs
// ("CellCLI> LIST IBPORT DETAIL", a dcli or cellcli -e form).
func CommandLine(l string) bool {
	u := strings.ToUpper(strings.TrimSpace(l))
	return strings.Contains(u, "LIST IBPORT") && (strings.HasPrefix(u, "CELLCLI>") || strings.Contains(u, "CELLCLI -E"))
}

func portName(s string) bool {
	n, p, ok := strings.Cut(s, ":")
	return ok && strings.HasPrefix(n, "HCA-") && p != "" && strings.Trim(p, "0123456789") == ""
}

// Parse reads the IBPORT rows and details of r.
func Parse(r io.Reader, source string) ([]Port, error) {
	var out []Port
	find := func(name string) *Port {
		for i := range out {
			if out[i].Name == name {
				return &out[i]
			}
		}
		out = append(out, Port{Name: name})
		return &out[len(out)-1]
	}
	var cur *Port
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		f := strings.Fields(t)
		if len(f) == 2 && portName(f[0]) && !strings.HasSuffix(f[0], ":") {
			p := find(f[0]) // the list's row
			if p.Line == 0 {
				p.Line = n
			}
			p.Status, p.StatusLine, p.Raw = f[1], n, t
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok || strings.ContainsAny(k, " \t") || k == "" {
			continue
		}
		v = strings.TrimSpace(v)
		if k == "name" && portName(v) {
			cur = find(v)
			if cur.Line == 0 {
				cur.Line = n
			}
			continue
		}
		if cur == nil {
			continue
		}
		if k == "status" {
			cur.Status, cur.StatusLine, cur.Raw = v, n, t
			continue
		}
		for _, c := range ErrorCounters {
			if k == c {
				if x, err := strconv.ParseUint(v, 10, 64); err == nil {
					cur.Counters = append(cur.Counters, Counter{Name: k, Value: x, Line: n})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoPort}
	}
	return out, nil
}
