package ibdiags

import (
	"bufio"
	"bytes"
	"io"
	"strings"
)

// DestType is the kind of node a forwarding-table entry leads to.
type DestType uint8

// Destination kinds printed in dump_fts/ibroute's Info column.
const (
	DestUnknown DestType = iota // "(unknown node and type)"
	DestCA                      // "Channel Adapter"
	DestSwitch                  // "Switch"
	DestRouter                  // "Router"
)

// LFT is one switch's unicast linear forwarding table as dump_fts and
// ibroute print it.
type LFT struct {
	SwitchGUID uint64 `json:"switch_guid"`
	SwitchDesc string `json:"switch_desc"`
	// LID of the switch when it was addressed by LID (ibroute, dump_fts
	// with an SM); -1 when it was reached by directed route (DRPath set).
	LID    int    `json:"lid"`
	DRPath string `json:"dr_path,omitempty"`
	// MinLID and MaxLID are the header's "[0x0-0x8]" range.
	MinLID  int        `json:"min_lid"`
	MaxLID  int        `json:"max_lid"`
	Entries []LFTEntry `json:"entries"`
	Line    int        `json:"line"`
	// All says the table was dumped with every entry (dump_fts -a: the
	// footer reads "N lids dumped", not "N valid lids dumped"). Without
	// -a, dump_fts leaves out the entries it calls illegal, and (in
	// infiniband-diags up to at least 44) it calls the switch's last port
	// illegal too: a table without All may lack valid entries.
	All bool `json:"all,omitempty"`
}

// LFTEntry is "0x0002 001 : (Channel Adapter portguid 0x...: 'h1')": the
// out port for a destination LID (0 = the switch itself).
type LFTEntry struct {
	DestGUID uint64   `json:"dest_guid,omitempty"`
	LID      uint16   `json:"lid"`
	Port     uint8    `json:"port"`
	Dest     DestType `json:"dest"`
	// ToolIllegal: the tool printed "(illegal port)" (or "(path #0 -
	// illegal port)" for LID 0). dump_fts tests the out port against the
	// switch's port count with >=, so it marks the last port of a switch
	// illegal although it is valid; whether an entry is usable is decided
	// from the topology, not from this mark.
	ToolIllegal bool `json:"tool_illegal,omitempty"`
}

// ParseFTs parses dump_fts or ibroute output (unicast tables; multicast
// sections are skipped). It is written for fabrics of 10^4 switches and
// 10^8 entries: one pass, no per-entry allocation beyond the entry slice.
func ParseFTs(r io.Reader, src string) ([]LFT, error) {
	var out []LFT
	br := bufio.NewReaderSize(r, 256*1024)
	n := 0
	skip := false
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, &ParseError{Source: src, Line: n + 1, Err: errf("%w: line too long", ErrMalformed)}
		}
		if len(b) == 0 && err != nil {
			if err != io.EOF {
				return nil, &ParseError{Source: src, Line: n + 1, Err: err}
			}
			break
		}
		n++
		line := bytes.TrimSpace(b)
		switch {
		case len(line) == 0:
		case line[0] == '0' && len(line) > 1 && line[1] == 'x':
			if skip {
				break
			}
			if len(out) == 0 {
				return nil, perr(src, n, string(line), "entry before a \"Unicast lids\" header")
			}
			e, ok := parseLFTEntry(line)
			t := &out[len(out)-1]
			if !ok {
				return nil, perr(src, n, string(line), `want "0xLID PORT : (Type portguid 0x...: 'desc')"`)
			}
			if int(e.LID) < t.MinLID || int(e.LID) > t.MaxLID {
				return nil, perr(src, n, string(line), "LID %d outside the header's range [%d-%d]", e.LID, t.MinLID, t.MaxLID)
			}
			if k := len(t.Entries); k > 0 && t.Entries[k-1].LID >= e.LID {
				return nil, perr(src, n, string(line), "LID %d out of order or repeated", e.LID)
			}
			t.Entries = append(t.Entries, e)
		case bytes.HasPrefix(line, []byte("Unicast lids [")):
			skip = false
			t, perrMsg := parseLFTHeader(string(line))
			if perrMsg != "" {
				return nil, perr(src, n, string(line), "%s", perrMsg)
			}
			t.Line = n
			// The tables of one fabric have about the same size: size each
			// like the previous one (a 16k-HCA fabric has 10^7 entries;
			// growing every table by append copies them over and over).
			// The header's range alone is not trusted for the allocation.
			hint := 256
			if len(out) > 0 {
				hint = len(out[len(out)-1].Entries) + 1
			}
			t.Entries = make([]LFTEntry, 0, min(t.MaxLID-t.MinLID+1, hint))
			out = append(out, t)
		case bytes.HasPrefix(line, []byte("Multicast mlids [")):
			skip = true
		case bytes.HasSuffix(line, []byte("lids dumped")) && !skip && !bytes.HasSuffix(line, []byte("mlids dumped")):
			if len(out) > 0 && !bytes.Contains(line, []byte("valid")) {
				out[len(out)-1].All = true
			}
		case bytes.HasPrefix(line, []byte("Lid")), bytes.HasPrefix(line, []byte("Port")), bytes.HasPrefix(line, []byte("MLid")),
			bytes.HasSuffix(line, []byte("mlids dumped")), skip:
		default:
			return nil, perr(src, n, string(line), "unexpected line in a forwarding table dump")
		}
		if err == io.EOF {
			break
		}
	}
	if len(out) == 0 {
		return nil, noData(src, `"Unicast lids" table`)
	}
	return out, nil
}

// parseLFTHeader reads
// "Unicast lids [0x0-0x8] of switch DR path slid 0; dlid 0; 0,1,6 guid 0x0000000000200001 (spine2):"
// or "Unicast lids [0x0-0x8] of switch Lid 4 guid 0x0000000000200002 (leaf1):".
func parseLFTHeader(s string) (LFT, string) {
	t := LFT{LID: -1}
	rng, rest, ok := strings.Cut(strings.TrimPrefix(s, "Unicast lids ["), "]")
	lo, hi, ok2 := strings.Cut(rng, "-")
	if !ok || !ok2 {
		return t, "bad LID range"
	}
	a, ok1 := parseHexGUID(lo)
	b, ok2 := parseHexGUID(hi)
	if !ok1 || !ok2 || a > b || b > 0xffff {
		return t, "bad LID range"
	}
	t.MinLID, t.MaxLID = int(a), int(b)
	rest, ok = strings.CutPrefix(strings.TrimSpace(rest), "of switch ")
	if !ok {
		return t, `want "of switch"`
	}
	addr, tail, ok := strings.Cut(rest, " guid ")
	if !ok {
		return t, "missing switch guid"
	}
	switch {
	case strings.HasPrefix(addr, "Lid "):
		v, ok := parseUint(strings.TrimSpace(addr[4:]), 0xffff)
		if !ok {
			return t, "bad switch LID"
		}
		t.LID = int(v)
	case strings.HasPrefix(addr, "DR path "):
		p := strings.TrimPrefix(addr, "DR path ")
		if i := strings.LastIndex(p, ";"); i >= 0 {
			p = strings.TrimSpace(p[i+1:])
		}
		t.DRPath = p
	default:
		return t, "want Lid N or DR path"
	}
	g, d, _ := strings.Cut(tail, " ")
	v, ok := parseHexGUID(g)
	if !ok {
		return t, "bad switch guid"
	}
	t.SwitchGUID = v
	d = strings.TrimSuffix(strings.TrimSpace(d), ":")
	d = strings.TrimSuffix(strings.TrimPrefix(d, "("), ")")
	t.SwitchDesc = d
	return t, ""
}

func parseLFTEntry(b []byte) (LFTEntry, bool) {
	var e LFTEntry
	// 0xLLLL
	i := 2
	v, j := hexAt(b, i)
	if j == i || v > 0xffff {
		return e, false
	}
	e.LID = uint16(v)
	i = skipSpace(b, j)
	p, j := decAt(b, i)
	if j == i || p > 255 {
		return e, false
	}
	e.Port = uint8(p)
	i = skipSpace(b, j)
	if i >= len(b) {
		return e, true // dump_fts -n: no destination column
	}
	if b[i] != ':' {
		return e, false
	}
	info := b[i+1:]
	switch {
	case bytes.Contains(info, []byte("(Channel Adapter")):
		e.Dest = DestCA
	case bytes.Contains(info, []byte("(Switch")):
		e.Dest = DestSwitch
	case bytes.Contains(info, []byte("(Router")):
		e.Dest = DestRouter
	case bytes.HasSuffix(bytes.TrimSpace(info), []byte("illegal port)")):
		e.ToolIllegal = true
	}
	if k := bytes.Index(info, []byte("portguid 0x")); k >= 0 {
		g, end := hexAt(info, k+11)
		if end == k+11 {
			return e, false
		}
		e.DestGUID = g
	}
	return e, true
}

func hexAt(b []byte, i int) (uint64, int) {
	var v uint64
	j := i
	for ; j < len(b) && j-i < 16; j++ {
		c := b[j]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint64(c-'A'+10)
		default:
			return v, j
		}
	}
	return v, j
}

func decAt(b []byte, i int) (uint64, int) {
	var v uint64
	j := i
	for ; j < len(b) && j-i < 6 && b[j] >= '0' && b[j] <= '9'; j++ {
		v = v*10 + uint64(b[j]-'0')
	}
	return v, j
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}
