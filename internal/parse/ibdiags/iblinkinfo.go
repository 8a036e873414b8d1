package ibdiags

import (
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// LinkInfo is iblinkinfo's output: one entry per port of every node.
type LinkInfo struct {
	Ports []LinkPort `json:"ports"`
	// Skipped are lines that are neither a node header nor a port line
	// (prose, prompts and "..." elisions in pasted output).
	Skipped []Note `json:"skipped,omitempty"`
}

// Note is a line a parser passed over, and why.
type Note struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// LinkPort is one iblinkinfo port line, in the default form
//
//	Switch: 0x0000000000200003 leaf2:
//	           6    5[  ] ==( 1X           2.5 Gbps Active/  LinkUp)==>       1    2[  ] "spine1" (Could be 12X Could be 10.0 Gbps)
//
// or the --line (-l) form, which repeats the node GUID and description and
// adds the peer's GUID.
type LinkPort struct {
	NodeType NodeType `json:"node_type"`
	// NodeGUID is printed for switches (and by -l for every node); 0 else.
	NodeGUID uint64 `json:"node_guid,omitempty"`
	NodeDesc string `json:"node_desc"`
	// PortGUID is the port GUID that leads CA port lines.
	PortGUID uint64 `json:"port_guid,omitempty"`
	LID      int    `json:"lid"`
	Port     int    `json:"port"`
	// Width and Speed of the active link; 0 when the port is down.
	Width int          `json:"width,omitempty"`
	Speed ib.Speed     `json:"speed,omitempty"`
	State ib.PortState `json:"state"`
	Phys  ib.PhysState `json:"phys"`
	// Remote end; RemoteLID is -1 and RemoteDesc "" when nothing is
	// attached. RemoteUnavailable is iblinkinfo's "Port not available": the
	// link is up but discovery could not map the peer (as with a duplicate
	// GUID).
	RemoteGUID        uint64 `json:"remote_guid,omitempty"`
	RemoteLID         int    `json:"remote_lid"`
	RemotePort        int    `json:"remote_port,omitempty"`
	RemoteDesc        string `json:"remote_desc,omitempty"`
	RemoteUnavailable bool   `json:"remote_unavailable,omitempty"`
	// CouldBeWidth and CouldBeSpeed are iblinkinfo's "Could be 12X Could be
	// 10.0 Gbps" hints: the best both ends support; 0 when not printed.
	CouldBeWidth int      `json:"could_be_width,omitempty"`
	CouldBeSpeed ib.Speed `json:"could_be_speed,omitempty"`
	Line         int      `json:"line"`
}

// ParseLinkInfo parses iblinkinfo output (default or --line form).
func ParseLinkInfo(r io.Reader, src string) (*LinkInfo, error) {
	li := &LinkInfo{}
	var firstBad error
	var typ NodeType
	var guid uint64
	var desc string
	err := scanLines(r, src, func(n int, raw string) error {
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || line[0] == '#':
			return nil
		case line == "..." || line == "[...]" || line == "…":
			li.Skipped = append(li.Skipped, Note{n, "elided by the poster (\"...\")"})
			return nil
		case oldSwitchHeader(line):
			// Old releases: "Switch 0x0008f10500380136 IBM HSSM:".
			line = "Switch: " + strings.TrimPrefix(line, "Switch ")
			fallthrough
		case strings.HasPrefix(line, "CA: ") || strings.HasPrefix(line, "Switch: ") || strings.HasPrefix(line, "Router: "):
			k, rest, _ := strings.Cut(line, ": ")
			typ = map[string]NodeType{"CA": CA, "Switch": Switch, "Router": Router}[k]
			rest = strings.TrimSuffix(rest, ":")
			guid = 0
			if typ == Switch {
				g, d, _ := strings.Cut(rest, " ")
				var ok bool
				if guid, ok = parseHexGUID(g); !ok || !strings.HasPrefix(g, "0x") {
					return perr(src, n, raw, "bad switch GUID %q", g)
				}
				rest = d
			}
			desc = rest
			return nil
		case !strings.Contains(line, "==("):
			// Prose and prompts around a paste: passed over once a port
			// line was read, an error when nothing else is.
			if firstBad == nil {
				firstBad = perr(src, n, raw, "want a node header (CA:/Switch:) or a port line with ==( ... )==>")
			}
			li.Skipped = append(li.Skipped, Note{n, "not a node header or port line"})
			return nil
		}
		p, err := parseLinkLine(line, typ, guid, desc)
		if err != nil {
			return perr(src, n, raw, "%v", err)
		}
		if p.NodeType == "" {
			return perr(src, n, raw, "port line before any CA:/Switch: header")
		}
		p.Line = n
		li.Ports = append(li.Ports, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(li.Ports) == 0 {
		if firstBad != nil {
			return nil, firstBad
		}
		return nil, noData(src, "iblinkinfo port line")
	}
	return li, nil
}

// oldSwitchHeader matches the switch header of old iblinkinfo releases,
// "Switch 0x0008f10500380136 IBM HSSM:" (no colon after "Switch").
func oldSwitchHeader(l string) bool {
	g, ok := strings.CutPrefix(l, "Switch 0x")
	if !ok || !strings.HasSuffix(l, ":") {
		return false
	}
	g, _, _ = strings.Cut(g, " ")
	_, ok = parseHexGUID(strings.TrimSuffix(g, ":"))
	return ok
}

func parseLinkLine(line string, typ NodeType, guid uint64, desc string) (LinkPort, error) {
	p := LinkPort{NodeType: typ, NodeGUID: guid, NodeDesc: desc, RemoteLID: -1}
	left, rest, _ := strings.Cut(line, "==(")
	mid, right, ok := strings.Cut(rest, ")==>")
	if !ok {
		return p, errf("unterminated ==( ... )==>")
	}
	// Left: [0xGUID ["desc"]] LID PORT[ext]
	left = strings.TrimSpace(left)
	if strings.HasPrefix(left, "0x") {
		g, r2, _ := cutField(left)
		v, ok := parseHexGUID(g)
		if !ok {
			return p, errf("bad GUID %q", g)
		}
		left = strings.TrimSpace(r2)
		if strings.HasPrefix(left, `"`) { // --line form: node GUID and description
			d, r3, ok := cutQuoted(left)
			if !ok {
				return p, errf("unterminated node description")
			}
			p.NodeGUID, p.NodeDesc, left = v, strings.TrimSpace(d), strings.TrimSpace(r3)
			if p.NodeType == "" {
				p.NodeType = Switch
			}
		} else {
			p.PortGUID = v
		}
	}
	lid, port, r4, err := parseLidPort(left)
	if err != nil {
		return p, err
	}
	if strings.TrimSpace(r4) != "" {
		return p, errf("unexpected %q before ==(", r4)
	}
	if lid < 0 || port < 0 {
		return p, errf("want LID and port before ==(")
	}
	p.LID, p.Port = lid, port
	if err := parseLinkMid(&p, mid); err != nil {
		return p, err
	}
	right = strings.TrimSpace(right)
	if right == `"Port not available"` || strings.HasPrefix(right, `"Port not available"`) {
		p.RemoteUnavailable = true
		return p, nil
	}
	if strings.HasPrefix(right, "0x") {
		g, r2, _ := cutField(right)
		v, ok := parseHexGUID(g)
		if !ok {
			return p, errf("bad remote GUID %q", g)
		}
		p.RemoteGUID, right = v, strings.TrimSpace(r2)
	}
	rl, rp, r5, err := parseLidPort(right)
	if err != nil {
		return p, err
	}
	p.RemoteLID = rl
	if rp > 0 {
		p.RemotePort = rp
	}
	r5 = strings.TrimSpace(r5)
	d, r6, ok := cutQuoted(r5)
	if !ok {
		return p, errf("want the quoted remote description")
	}
	p.RemoteDesc = d
	hint := strings.TrimSpace(r6)
	if h, ok := strings.CutPrefix(hint, "("); ok {
		h = strings.TrimSuffix(h, ")")
		f := strings.Fields(h)
		for i := 0; i+2 < len(f); i++ {
			if f[i] != "Could" || f[i+1] != "be" {
				continue
			}
			v := f[i+2]
			if w, ok := strings.CutSuffix(v, "X"); ok {
				if n, ok := parseUint(w, 12); ok && validWidth(int(n)) {
					p.CouldBeWidth = int(n)
				}
			} else if sp, ok := laneGbps[v]; ok {
				p.CouldBeSpeed = sp
			}
		}
	}
	return p, nil
}

// parseLidPort reads "LID PORT[ext]" or, for an unattached peer, "[  ]"
// alone (then both are -1).
func parseLidPort(s string) (int, int, string, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		e := strings.IndexByte(s, ']')
		if e < 0 {
			return 0, 0, s, errf("unterminated [ext]")
		}
		return -1, -1, s[e+1:], nil
	}
	l, rest, _ := cutField(s)
	lid, ok := parseUint(l, 0xffff)
	if !ok {
		return 0, 0, s, errf("bad LID %q", l)
	}
	rest = strings.TrimSpace(rest)
	b := strings.IndexByte(rest, '[')
	e := strings.IndexByte(rest, ']')
	if b <= 0 || e < b {
		return 0, 0, s, errf("want PORT[..] after the LID")
	}
	port, ok := parseUint(rest[:b], 255)
	if !ok {
		return 0, 0, s, errf("bad port %q", rest[:b])
	}
	return int(lid), int(port), rest[e+1:], nil
}

// parseLinkMid reads " 4X  25.78125 Gbps Active/  LinkUp" (or
// "  Down/ Polling", or "4X 10.0 Gbps (FDR10) Active/ LinkUp").
func parseLinkMid(p *LinkPort, mid string) error {
	st, phys, ok := strings.Cut(mid, "/")
	if !ok {
		return errf("want STATE/ PHYS inside ==( )==>")
	}
	ph, err := ib.ParsePhysStateName(strings.TrimSpace(phys))
	if err != nil {
		return errf("bad physical state %q", strings.TrimSpace(phys))
	}
	p.Phys = ph
	f := strings.Fields(st)
	if len(f) == 0 {
		return errf("missing port state")
	}
	switch name := f[len(f)-1]; name {
	case "Initialize", "Init":
		p.State = ib.PortState(2)
	default:
		s, err := ib.ParsePortStateName(name)
		if err != nil {
			return errf("bad port state %q", name)
		}
		p.State = s
	}
	f = f[:len(f)-1]
	if len(f) == 0 {
		return nil
	}
	if len(f) < 3 || f[2] != "Gbps" {
		return errf("want WIDTH SPEED Gbps before the state, got %q", strings.Join(f, " "))
	}
	w, ok := strings.CutSuffix(f[0], "X")
	n, ok2 := parseUint(w, 12)
	if !ok || !ok2 || !validWidth(int(n)) {
		return errf("bad width %q", f[0])
	}
	p.Width = int(n)
	sp, ok := laneGbps[f[1]]
	if len(f) > 3 && f[3] == "(FDR10)" {
		sp, ok = ib.SpeedFDR10, true
	} else if len(f) > 3 {
		return errf("unexpected %q after Gbps", f[3])
	}
	if !ok {
		return errf("unknown lane speed %q Gbps", f[1])
	}
	p.Speed = sp
	return nil
}
