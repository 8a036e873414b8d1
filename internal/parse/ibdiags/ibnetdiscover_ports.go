package ibdiags

import (
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// PortLine is one line of `ibnetdiscover -p` (ports report):
//
//	CA     8  1 0x0000000000100007 4x DDR - SW     6  2 0x0000000000200003 ( 'h4' - 'leaf2' )
//	SW     3  8 0x0000000000200001 4x SDR                                    'spine2'
//
// The GUID is the node GUID for switches and the port GUID for CAs. An
// unconnected port has no remote part.
type PortLine struct {
	Type NodeType `json:"type"`
	LID  int      `json:"lid"`
	Port int      `json:"port"`
	GUID uint64   `json:"guid"`
	// Width and Speed are the port's active (connected) or enabled
	// (unconnected) width and speed.
	Width      int      `json:"width"`
	Speed      ib.Speed `json:"speed"`
	Desc       string   `json:"desc"`
	Connected  bool     `json:"connected"`
	RemoteType NodeType `json:"remote_type,omitempty"`
	RemoteLID  int      `json:"remote_lid,omitempty"`
	RemotePort int      `json:"remote_port,omitempty"`
	RemoteGUID uint64   `json:"remote_guid,omitempty"`
	RemoteDesc string   `json:"remote_desc,omitempty"`
	Line       int      `json:"line"`
}

func portsNodeType(s string) (NodeType, bool) {
	switch s {
	case "SW":
		return Switch, true
	case "CA":
		return CA, true
	case "RT":
		return Router, true
	}
	return "", false
}

// ParseNetDiscoverPorts parses `ibnetdiscover -p` output.
func ParseNetDiscoverPorts(r io.Reader, src string) ([]PortLine, error) {
	var out []PortLine
	err := scanLines(r, src, func(n int, raw string) error {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' {
			return nil
		}
		p, err := parsePortLine(line)
		if err != nil {
			return perr(src, n, raw, "%v", err)
		}
		p.Line = n
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, noData(src, "ibnetdiscover -p port line")
	}
	return out, nil
}

// parseEnd reads "TYPE LID PORT GUID" from f.
func parseEnd(f []string) (NodeType, int, int, uint64, error) {
	t, ok := portsNodeType(f[0])
	if !ok {
		return "", 0, 0, 0, errf("unknown node type %q (want SW, CA or RT)", f[0])
	}
	lid, ok1 := parseUint(f[1], 0xffff)
	port, ok2 := parseUint(f[2], 255)
	g, ok3 := parseHexGUID(f[3])
	if !ok1 || !ok2 || !ok3 || !strings.HasPrefix(f[3], "0x") {
		return "", 0, 0, 0, errf("want TYPE LID PORT 0xGUID, got %q", strings.Join(f[:4], " "))
	}
	return t, int(lid), int(port), g, nil
}

func parsePortLine(line string) (PortLine, error) {
	var p PortLine
	// Split off the quoted description part first: it may hold spaces.
	q := strings.IndexByte(line, '\'')
	head, tail := line, ""
	if q >= 0 {
		head, tail = line[:q], line[q:]
	}
	head = strings.TrimSuffix(strings.TrimSpace(head), "(")
	f := strings.Fields(head)
	if len(f) < 6 {
		return p, errf("want TYPE LID PORT GUID WIDTH SPEED")
	}
	var err error
	if p.Type, p.LID, p.Port, p.GUID, err = parseEnd(f); err != nil {
		return p, err
	}
	w, sp, ok := parseWidthSpeed(f[4] + f[5])
	if !ok {
		return p, errf("bad width/speed %q", f[4]+" "+f[5])
	}
	p.Width, p.Speed = w, sp
	rest := f[6:]
	switch {
	case len(rest) == 0:
		d, r2, ok := cutQuotedWith(tail, '\'')
		if !ok || strings.TrimSpace(r2) != "" {
			return p, errf("want the quoted node description")
		}
		p.Desc = d
	case len(rest) == 5 && rest[0] == "-":
		p.Connected = true
		if p.RemoteType, p.RemoteLID, p.RemotePort, p.RemoteGUID, err = parseEnd(rest[1:]); err != nil {
			return p, err
		}
		// ( 'descA' - 'descB' )
		d1, r2, ok1 := cutQuotedWith(tail, '\'')
		r2 = strings.TrimSpace(r2)
		r2, ok2 := strings.CutPrefix(r2, "-")
		d2, r3, ok3 := cutQuotedWith(strings.TrimSpace(r2), '\'')
		if !ok1 || !ok2 || !ok3 || strings.TrimSpace(r3) != ")" {
			return p, errf("want ( 'desc' - 'remote desc' )")
		}
		p.Desc, p.RemoteDesc = d1, d2
	default:
		return p, errf("unexpected %q after the speed", strings.Join(rest, " "))
	}
	return p, nil
}

func cutQuotedWith(s string, q byte) (string, string, bool) {
	if s == "" || s[0] != q {
		return "", s, false
	}
	i := strings.IndexByte(s[1:], q)
	if i < 0 {
		return "", s, false
	}
	return s[1 : 1+i], s[2+i:], true
}
