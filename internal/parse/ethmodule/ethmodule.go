// Package ethmodule reads `ethtool -m <netdev>` (--module-info): the
// transceiver EEPROM as ethtool decodes it, one "\t%-41s : %s" line a field
// (ethtool sfpid.c and sfpdiag.c for SFP/SFP+ per SFF-8079/8472, qsfp.c
// for QSFP per SFF-8636). With optical diagnostics the module's alarm and
// warning flags follow, each "On" or "Off" ("Laser rx power low alarm
// : On", on QSFP per channel: "Laser bias current high alarm   (Chan 1)").
// Several modules pasted one after another are read as one block each.
package ethmodule

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoModule says the text holds no "Identifier : 0x.." line.
var ErrNoModule = errors.New("no ethtool -m \"Identifier : 0x..\" line")

// Field is one "Name : value" line.
type Field struct {
	Key, Value string
	Line       int
}

// Module is one transceiver's block; NetDev is empty when no command
// line above named it.
type Module struct {
	NetDev string
	Line   int
	Fields []Field
}

// Get returns the first field named key.
func (m *Module) Get(key string) (Field, bool) {
	for _, f := range m.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// Flag is an alarm or warning flag that is On.
type Flag struct {
	Field
	// Alarm is an alarm flag (past the alarm threshold); false for a
	// warning flag.
	Alarm bool
}

// FlagsOn returns the alarm and warning flags the module raises.
func (m *Module) FlagsOn() []Flag {
	var out []Flag
	for _, f := range m.Fields {
		if f.Value != "On" {
			continue
		}
		k := f.Key
		if i := strings.Index(k, "(Chan"); i > 0 {
			k = strings.TrimSpace(k[:i])
		}
		switch {
		case strings.HasSuffix(k, " alarm"):
			out = append(out, Flag{Field: f, Alarm: true})
		case strings.HasSuffix(k, " warning"):
			out = append(out, Flag{Field: f})
		}
	}
	return out
}

// Result is every module of a paste.
type Result struct {
	Modules []*Module
}

// Header reports whether t is ethtool -m's first line, "Identifier", padded
// to the field width, " : 0x03 (SFP)". The padding tells it from other
// tools' "Identifier: 0x11 (QSFP28)".
func Header(t string) bool {
	k, v, ok := split(t)
	return ok && k == "Identifier" && strings.HasPrefix(v, "0x") && strings.Contains(t, "  :")
}

// split cuts "  Key    : value" at its first " : ".
func split(t string) (key, value string, ok bool) {
	i := strings.Index(t, " : ")
	if i <= 0 {
		if t = strings.TrimRight(t, " \t"); strings.HasSuffix(t, " :") {
			i = len(t) - 2
		} else {
			return "", "", false
		}
	}
	key = strings.TrimSpace(t[:i])
	value = strings.TrimSpace(t[min(i+3, len(t)):])
	return key, value, key != ""
}

// CommandNetDev returns the netdev of an "ethtool -m eth0" or "ethtool
// --module-info eth0" command line (a shell prompt before it allowed).
func CommandNetDev(t string) (string, bool) {
	i := strings.Index(t, "ethtool ")
	if i < 0 {
		return "", false
	}
	f := strings.Fields(t[i+len("ethtool "):])
	for j := 0; j+1 < len(f); j++ {
		if f[j] == "-m" || f[j] == "--module-info" || f[j] == "--dump-module-eeprom" {
			if d := f[j+1]; !strings.HasPrefix(d, "-") {
				return d, true
			}
		}
	}
	return "", false
}

// Parse reads every module block of r. Lines outside a block are
// skipped; a block ends at a line that is not a "Name : value" field.
func Parse(r io.Reader, source string) (*Result, error) {
	res := &Result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var cur *Module
	dev, n := "", 0
	for sc.Scan() {
		n++
		t := sc.Text()
		if d, ok := CommandNetDev(t); ok {
			dev, cur = d, nil
			continue
		}
		if Header(t) {
			cur = &Module{NetDev: dev, Line: n}
			dev = ""
			res.Modules = append(res.Modules, cur)
		}
		if cur == nil {
			continue
		}
		k, v, ok := split(t)
		if !ok {
			if strings.TrimSpace(t) != "" {
				cur = nil
			}
			continue
		}
		cur.Fields = append(cur.Fields, Field{Key: k, Value: v, Line: n})
	}
	if err := sc.Err(); err != nil {
		return res, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if len(res.Modules) == 0 {
		return res, &ParseError{Source: source, Err: ErrNoModule}
	}
	return res, nil
}
