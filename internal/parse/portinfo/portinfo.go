// Package portinfo reads the dotted attribute dumps of infiniband-diags'
// SMP tools: `smpquery portinfo|nodeinfo|switchinfo …` and `ibportstate`
// (which prints the same PortInfo dump under "CA/RT PortInfo:", "Switch
// PortInfo:", "Peer PortInfo:", "Initial …"/"After PortInfo set:"). Each
// dump is a "# Port info: Lid 12 port 2" header and "Name:.....value"
// lines (rdma-core infiniband-diags, the dump functions of libibmad's
// dump.c that smpquery and ibportstate call).
package portinfo

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

// ErrNoBlock says the text holds no dotted attribute dump.
var ErrNoBlock = errors.New("no \"# Port info:\" dump or \"Name:.....value\" line")

// Field is one "Name:.....value" line.
type Field struct {
	Key, Value string
	Line       int
}

// Block is one dump.
type Block struct {
	// Label is the line ibportstate prints above a dump, without its
	// colon ("CA/RT PortInfo", "Peer PortInfo", "After PortInfo set"); ""
	// for smpquery.
	Label string
	// What is the header's attribute: "Port info", "MLNX ext Port info",
	// "Node info", "Switch info"; "" when the header was not pasted.
	What string
	// LID and Port are the header's "Lid N port P" (-1 when not given, as
	// in a directed-route header).
	LID, Port int
	Line      int
	Fields    []Field
}

// Get returns the field named key.
func (b *Block) Get(key string) (Field, bool) {
	for _, f := range b.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// Skip is a line passed over, and why.
type Skip struct {
	Line   int
	Reason string
}

// Result is every dump of a paste.
type Result struct {
	Blocks  []*Block
	Skipped []Skip
}

// labels are the lines ibportstate prints above a PortInfo dump.
var labels = []string{"CA/RT PortInfo", "CA PortInfo", "Switch PortInfo", "Peer PortInfo", "Initial CA/RT PortInfo", "Initial Switch PortInfo", "Initial PortInfo", "After PortInfo set", "Switch port info"}

func label(t string) (string, bool) {
	s, ok := strings.CutSuffix(t, ":")
	if !ok {
		return "", false
	}
	for _, l := range labels {
		if s == l {
			return s, true
		}
	}
	return "", false
}

// Header says whether t starts a dump: "# Port info: Lid 2 port 1" (or
// smpquery's Node info, Switch info and MLNX ext Port info headers) or an
// ibportstate label.
func Header(t string) bool {
	if _, ok := label(t); ok {
		return true
	}
	_, ok := header(t)
	return ok
}

// header reads "# Port info: Lid 12 port 2" → "Port info".
func header(t string) (string, bool) {
	rest, ok := strings.CutPrefix(t, "# ")
	if !ok {
		return "", false
	}
	what, _, ok := strings.Cut(rest, ":")
	if !ok {
		return "", false
	}
	switch what {
	case "Port info", "MLNX ext Port info", "Node info", "Switch info":
		return what, true
	}
	return "", false
}

// IsField says whether t is a "Name:.....value" line.
func IsField(t string) bool {
	_, _, ok := field(t)
	return ok
}

func field(t string) (string, string, bool) {
	i := strings.IndexByte(t, ':')
	if i <= 0 || i+1 >= len(t) || t[i+1] != '.' {
		return "", "", false
	}
	key := t[:i]
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return "", "", false
		}
	}
	v := strings.TrimLeft(t[i+1:], ".")
	// A comment the poster added after the value ("4X    # before").
	if j := strings.Index(v, " #"); j >= 0 {
		v = v[:j]
	}
	return key, strings.TrimSpace(v), true
}

// Parse reads the dumps of a paste; lines that are neither a header nor a
// field (prompts, prose, ibwarn lines) are listed in Skipped.
func Parse(r io.Reader, source string) (*Result, error) {
	res := &Result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var cur *Block
	pending := ""
	n := 0
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		if l, ok := label(t); ok {
			pending = l
			continue
		}
		if what, ok := header(t); ok {
			cur = &Block{Label: pending, What: what, LID: -1, Port: -1, Line: n}
			if what == "MLNX ext Port info" && len(res.Blocks) > 0 {
				cur.Label = res.Blocks[len(res.Blocks)-1].Label
			}
			f := strings.Fields(t)
			for i := 0; i+1 < len(f); i++ {
				switch f[i] {
				case "Lid":
					if v, err := strconv.Atoi(strings.TrimSuffix(f[i+1], ";")); err == nil {
						cur.LID = v
					}
				case "port":
					if v, err := strconv.Atoi(f[i+1]); err == nil {
						cur.Port = v
					}
				}
			}
			res.Blocks = append(res.Blocks, cur)
			pending = ""
			continue
		}
		key, val, ok := field(t)
		if !ok {
			res.Skipped = append(res.Skipped, Skip{n, "not a \"Name:.....value\" line"})
			continue
		}
		if cur == nil || cur.has(key) {
			// A dump pasted without its header, or a second one.
			cur = &Block{Label: pending, LID: -1, Port: -1, Line: n}
			res.Blocks = append(res.Blocks, cur)
			pending = ""
		}
		cur.Fields = append(cur.Fields, Field{Key: key, Value: val, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	blocks := res.Blocks[:0]
	for _, b := range res.Blocks {
		if len(b.Fields) > 0 {
			blocks = append(blocks, b)
		}
	}
	res.Blocks = blocks
	if len(res.Blocks) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoBlock}
	}
	return res, nil
}

func (b *Block) has(key string) bool {
	_, ok := b.Get(key)
	return ok
}
