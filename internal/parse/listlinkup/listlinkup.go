// Package listlinkup reads the listlinkup hardware command of Oracle's Sun
// Datacenter InfiniBand Switch 36 and 72 (and the Sun Network QDR
// InfiniBand Gateway Switch): one line per connector, "Connector  0A
// Present <-> Switch Port 20 up (Enabled)" (36-port switches), "Connector
// 0A Present <-> I4-A Ports 22 up 21 up 20 up" (the 72-port switch, three
// ports per CXP connector), "Connector  1A Not present"; a gateway's
// "Connector 0A-ETH Present" with indented "Bridge-0-1 Port 0A-ETH-1 up
// (Enabled)" lines; and the 72-port switch's internal chip-to-chip
// links, "Link I4-A 01 <-> I4-E 09 up".
package listlinkup

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoLine says the text holds no listlinkup line.
var ErrNoLine = errors.New("no listlinkup line (\"Connector  0A Present <-> Switch Port 20 up (Enabled)\", \"Link I4-A 01 <-> I4-E 09 up\")")

// Port is a switch chip (or gateway bridge) port behind a connector.
type Port struct {
	Name  string // "Switch Port 20", "I4-A Port 22", "Bridge-0-1 Port 0A-ETH-1"
	Up    bool
	Admin string // "Enabled", "Disabled"; "" when not printed
	Line  int
	Raw   string
}

// Connector is one front-panel connector.
type Connector struct {
	Name    string // "0A", "15B", "0A-ETH"
	Present bool
	Ports   []Port
	Line    int
	Raw     string
}

// Link is an internal link between two switch chips.
type Link struct {
	A, B string // "I4-A 01", "I4-E 09"
	Up   bool
	Line int
	Raw  string
}

// Output is one listlinkup output.
type Output struct {
	Connectors []Connector
	Links      []Link
}

// IsLine says whether t (trimmed) is a listlinkup connector, bridge or
// internal link line.
func IsLine(t string) bool {
	if _, ok := connector(t); ok {
		return true
	}
	if _, ok := link(t); ok {
		return true
	}
	_, ok := bridge(t)
	return ok
}

func connector(t string) (Connector, bool) {
	rest, ok := strings.CutPrefix(t, "Connector ")
	if !ok {
		return Connector{}, false
	}
	f := strings.Fields(rest)
	if len(f) < 2 || !connName(f[0]) {
		return Connector{}, false
	}
	c := Connector{Name: f[0], Raw: t}
	switch {
	case len(f) == 3 && f[1] == "Not" && strings.EqualFold(f[2], "present"):
		return c, true
	case f[1] != "Present":
		return Connector{}, false
	}
	c.Present = true
	if len(f) == 2 {
		return c, true // a gateway's Ethernet connector: its bridge lines follow
	}
	if f[2] != "<->" || len(f) < 5 {
		return Connector{}, false
	}
	c.Ports = ports(f[3], f[4:])
	if len(c.Ports) == 0 {
		return Connector{}, false
	}
	return c, true
}

// ports reads "Port 20 up (Enabled)" or "Ports 22 up 21 up 20 up" of the
// chip named chip.
func ports(chip string, f []string) []Port {
	if len(f) < 3 || f[0] != "Port" && f[0] != "Ports" {
		return nil
	}
	var out []Port
	for i := 1; i+1 < len(f); {
		st := f[i+1]
		if st != "up" && st != "down" {
			return nil
		}
		p := Port{Name: chip + " Port " + f[i], Up: st == "up"}
		i += 2
		if i < len(f) && strings.HasPrefix(f[i], "(") && strings.HasSuffix(f[i], ")") {
			p.Admin = strings.Trim(f[i], "()")
			i++
		}
		out = append(out, p)
	}
	return out
}

func connName(s string) bool {
	b, _, _ := strings.Cut(s, "-")
	return len(b) >= 2 && len(b) <= 3 && strings.Trim(b[:len(b)-1], "0123456789") == "" && (b[len(b)-1] == 'A' || b[len(b)-1] == 'B')
}

func link(t string) (Link, bool) {
	rest, ok := strings.CutPrefix(t, "Link ")
	if !ok {
		return Link{}, false
	}
	f := strings.Fields(rest)
	if len(f) != 6 || f[2] != "<->" || f[5] != "up" && f[5] != "down" {
		return Link{}, false
	}
	return Link{A: f[0] + " " + f[1], B: f[3] + " " + f[4], Up: f[5] == "up", Raw: t}, true
}

// bridge reads a gateway's "Bridge-0-1 Port 0A-ETH-1 up (Enabled)".
func bridge(t string) (Port, bool) {
	f := strings.Fields(t)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Bridge-") {
		return Port{}, false
	}
	ps := ports(f[0], f[1:])
	if len(ps) != 1 {
		return Port{}, false
	}
	ps[0].Name = f[0] + " Port " + f[2]
	ps[0].Raw = t
	return ps[0], true
}

// Parse reads one listlinkup output from r; other lines (the prompt, an
// author's "." for elided lines) are skipped.
func Parse(r io.Reader, source string) (*Output, error) {
	o := &Output{}
	last := -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if c, ok := connector(t); ok {
			c.Line = n
			for i := range c.Ports {
				c.Ports[i].Line, c.Ports[i].Raw = n, t
			}
			o.Connectors = append(o.Connectors, c)
			last = len(o.Connectors) - 1
			continue
		}
		if l, ok := link(t); ok {
			l.Line = n
			o.Links = append(o.Links, l)
			last = -1
			continue
		}
		if p, ok := bridge(t); ok && last >= 0 {
			p.Line = n
			o.Connectors[last].Ports = append(o.Connectors[last].Ports, p)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(o.Connectors) == 0 && len(o.Links) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoLine}
	}
	return o, nil
}
