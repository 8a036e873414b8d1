package ibdiags

import (
	"fmt"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// NodeType is the kind of an IB node.
type NodeType string

// Node types as ibnetdiscover prints them ("Switch", "Ca", "Rt"); ibsim
// net files say "Hca" for a CA.
const (
	Switch NodeType = "Switch"
	CA     NodeType = "CA"
	Router NodeType = "Router"
)

// Topology is ibnetdiscover's topology output (the default form, which
// ibsim also reads as its net file).
type Topology struct {
	Nodes []TopoNode `json:"nodes"`
	// Skipped are lines that are no part of a topology (a terminal log's
	// banner, the CLI prompt after the output).
	Skipped []Note `json:"skipped,omitempty"`
}

// TopoNode is one node record: the optional "vendid=", "devid=",
// "sysimgguid=", "switchguid=|caguid=|routerguid=" lines, the header line
// `Switch	36 "S-<guid>"	# "desc" enhanced port 0 lid 3 lmc 0` and one line
// per connected port.
type TopoNode struct {
	Type NodeType `json:"type"`
	// ID is the quoted node name of the header: "S-0002c90200400e30" from
	// ibnetdiscover, any unique string in an ibsim net file.
	ID string `json:"id"`
	// GUID is the node GUID from switchguid=/caguid= or from the ID; 0 when
	// neither gives it (ibsim net files).
	GUID       uint64 `json:"guid"`
	SysImgGUID uint64 `json:"sysimgguid,omitempty"`
	VendorID   uint32 `json:"vendid,omitempty"`
	DeviceID   uint32 `json:"devid,omitempty"`
	NumPorts   int    `json:"num_ports"`
	// Desc is the node description from the header's trailer; "" when the
	// trailer is missing.
	Desc string `json:"desc,omitempty"`
	// LID and LMC of a switch's port 0 ("base port 0 lid 3 lmc 0"); -1
	// when not printed.
	LID int `json:"lid"`
	LMC int `json:"lmc"`
	// EnhancedPort0 is set for "enhanced port 0" switches.
	EnhancedPort0 bool       `json:"enhanced_port0,omitempty"`
	Ports         []TopoPort `json:"ports"`
	Line          int        `json:"line"`
}

// TopoPort is one connected port line:
//
//	[1]	"H-0002c903000a0001"[1](2c903000a0002) 		# "h1" lid 7 4xHDR
//	[1](100005) 	"S-0000000000200003"[1]		# lid 7 lmc 0 "leaf2" lid 6 4xSDR
//	[2]	"leaf2"[5]	w=1	(ibsim net file)
type TopoPort struct {
	Port int `json:"port"`
	// PortGUID is the local port GUID printed after the local port (CA and
	// router ports); 0 when absent.
	PortGUID       uint64 `json:"port_guid,omitempty"`
	RemoteID       string `json:"remote_id"`
	RemotePort     int    `json:"remote_port"`
	RemotePortGUID uint64 `json:"remote_port_guid,omitempty"`
	RemoteDesc     string `json:"remote_desc,omitempty"`
	// LID is the local port's LID (CA ports: "# lid 7 lmc 0 ..."), -1 when
	// not printed; RemoteLID likewise for the peer.
	LID       int `json:"lid"`
	RemoteLID int `json:"remote_lid"`
	// Width and Speed of the active link ("4xHDR"); 0 when not printed.
	Width int      `json:"width,omitempty"`
	Speed ib.Speed `json:"speed,omitempty"`
	// NetWidth and NetSpeed are ibsim's net-file "w=" and "s=" settings.
	NetWidth int `json:"net_width,omitempty"`
	NetSpeed int `json:"net_speed,omitempty"`
	Line     int `json:"line"`
}

// ParseNetDiscover parses ibnetdiscover's topology output (or an ibsim net
// file, which uses the same grammar) read from r; src names the input in
// errors.
func ParseNetDiscover(r io.Reader, src string) (*Topology, error) {
	p := &netDiscoverParser{t: &Topology{}, src: src}
	if err := scanLines(r, src, p.line); err != nil {
		return nil, err
	}
	if len(p.t.Nodes) == 0 {
		if p.firstBad != nil {
			return nil, p.firstBad
		}
		return nil, noData(src, "Switch/Ca node record")
	}
	return p.t, nil
}

// netDiscoverParser is ParseNetDiscover's state between lines: the node
// record being read and the key=value lines (ibsim) waiting for the next
// node header.
type netDiscoverParser struct {
	t        *Topology
	src      string
	firstBad error
	cur      *TopoNode
	pend     struct {
		vend, dev uint32
		sys, guid uint64
	}
}

// line reads input line n: a blank or comment line, a port line of the
// current node, a key=value line, an ibhosts line or a node header.
func (p *netDiscoverParser) line(n int, raw string) error {
	line := strings.TrimSpace(raw)
	switch {
	case line == "" || line[0] == '#':
		if line == "" {
			p.cur = nil
		}
		return nil
	case line[0] == '[':
		return p.port(n, raw, line)
	}
	if k, v, ok := strings.Cut(line, "="); ok && k != "" && !strings.ContainsAny(k, " \t\"") {
		if !p.keyValue(k, v) {
			return perr(p.src, n, raw, "bad %s value", k)
		}
		return nil
	}
	if nd, ok := parseHostsLine(line); ok {
		// ibhosts / ibswitches: one node per line, no ports.
		nd.Line = n
		p.t.Nodes = append(p.t.Nodes, nd)
		p.cur = nil
		return nil
	}
	return p.header(n, raw, line)
}

// port adds a port line to the current node record, refusing one outside
// a record, listed twice, or above the node's port count.
func (p *netDiscoverParser) port(n int, raw, line string) error {
	src, cur := p.src, p.cur
	if cur == nil {
		return perr(src, n, raw, "port line outside a node record")
	}
	tp, err := parseTopoPort(line)
	if err != nil {
		return perr(src, n, raw, "%v", err)
	}
	tp.Line = n
	for _, q := range cur.Ports {
		if q.Port == tp.Port {
			return perr(src, n, raw, "port %d listed twice in node %q", tp.Port, cur.ID)
		}
	}
	if cur.NumPorts > 0 && tp.Port > cur.NumPorts {
		return perr(src, n, raw, "port %d above the node's %d ports", tp.Port, cur.NumPorts)
	}
	cur.Ports = append(cur.Ports, tp)
	return nil
}

// keyValue keeps the IDs and GUIDs of a key=value line for the next node
// header; it says whether the value is well formed.
func (p *netDiscoverParser) keyValue(k, v string) bool {
	var ok bool
	switch k {
	case "vendid", "devid":
		var x uint64
		x, ok = parseHexGUID(v)
		if ok && x > 0xffffffff {
			ok = false
		}
		if k == "vendid" {
			p.pend.vend = uint32(x)
		} else {
			p.pend.dev = uint32(x)
		}
	case "sysimgguid":
		p.pend.sys, ok = parseHexGUID(v)
	case "switchguid", "caguid", "routerguid":
		g, _, _ := strings.Cut(v, "(")
		p.pend.guid, ok = parseHexGUID(g)
	default:
		// Other key=value lines (ibsim's extensions) carry nothing
		// the model needs.
		ok = true
	}
	return ok
}

// header starts a node record from a header line, with the pending
// key=value IDs; a line that is no node header at all is skipped.
func (p *netDiscoverParser) header(n int, raw, line string) error {
	nd, err := parseTopoHeader(line)
	if err != nil && !topoHeaderWord(line) {
		// Not a node header at all: a terminal log's banner or the
		// prompt after the output. An error only when no node is read.
		if p.firstBad == nil {
			p.firstBad = perr(p.src, n, raw, "%v", err)
		}
		p.t.Skipped = append(p.t.Skipped, Note{n, "not a topology line"})
		p.cur = nil
		return nil
	}
	if err != nil {
		return perr(p.src, n, raw, "%v", err)
	}
	nd.Line = n
	nd.VendorID, nd.DeviceID, nd.SysImgGUID = p.pend.vend, p.pend.dev, p.pend.sys
	if p.pend.guid != 0 {
		nd.GUID = p.pend.guid
	}
	p.pend.vend, p.pend.dev, p.pend.sys, p.pend.guid = 0, 0, 0, 0
	p.t.Nodes = append(p.t.Nodes, nd)
	p.cur = &p.t.Nodes[len(p.t.Nodes)-1]
	return nil
}

// HostsLine says whether a line is ibhosts' or ibswitches' ("Ca\t: 0x…
// ports 2 \"node1 HCA-1\"").
func HostsLine(t string) bool {
	_, ok := parseHostsLine(t)
	return ok
}

// parseHostsLine reads one line of ibhosts, ibswitches or ibrouters:
// `Ca	: 0x0002c9020023c6a4 ports 2 "node1 HCA-1"`, `Switch	: 0x… ports 36
// "desc" enhanced port 0 lid 3 lmc 0`.
func parseHostsLine(line string) (TopoNode, bool) {
	nd := TopoNode{LID: -1}
	kind, rest, ok := strings.Cut(line, ":")
	if !ok {
		return nd, false
	}
	typ, known := topoTypes[strings.TrimSpace(kind)]
	f := strings.Fields(rest)
	if !known || len(f) < 4 || f[1] != "ports" {
		return nd, false
	}
	g, ok := parseHexGUID(f[0])
	np, ok2 := parseUint(f[2], 255)
	if !ok || !ok2 || !strings.HasPrefix(f[0], "0x") {
		return nd, false
	}
	_, after, _ := strings.Cut(rest, " ports "+f[2])
	d, tr, ok := cutDesc(strings.TrimSpace(after))
	if !ok {
		return nd, false
	}
	prefix := map[NodeType]string{Switch: "S-", CA: "H-", Router: "R-"}[typ]
	nd.Type, nd.GUID, nd.NumPorts, nd.Desc = typ, g, int(np), d
	nd.ID = fmt.Sprintf("%s%016x", prefix, g)
	tf := strings.Fields(tr)
	for i := 0; i+1 < len(tf); i++ {
		if tf[i] == "lid" {
			if v, ok := parseUint(tf[i+1], 0xffff); ok {
				nd.LID = int(v)
			}
		}
	}
	return nd, true
}

// topoTypes are the node types of a header line.
var topoTypes = map[string]NodeType{"Switch": Switch, "Ca": CA, "Hca": CA, "CA": CA, "Rt": Router, "Router": Router}

// topoHeaderWord says whether a line starts with a node type, alone or
// glued to its port count ("Switch41": a capture that dropped the tab).
func topoHeaderWord(line string) bool {
	k, _, _ := cutField(line)
	_, ok := topoTypes[strings.TrimRight(k, "0123456789")]
	return ok
}

// guidFromID returns the GUID in an ibnetdiscover node ID ("S-<16 hex>",
// "H-…", "R-…").
func guidFromID(id string) uint64 {
	if len(id) == 18 && id[1] == '-' && (id[0] == 'S' || id[0] == 'H' || id[0] == 'R') {
		if g, ok := parseHexGUID(id[2:]); ok {
			return g
		}
	}
	return 0
}

func parseTopoHeader(line string) (TopoNode, error) {
	nd := TopoNode{LID: -1}
	kind, rest, ok := cutField(line)
	if !ok {
		return nd, errf("want a node header (Switch|Ca|Rt <ports> \"id\")")
	}
	if k := strings.TrimRight(kind, "0123456789"); k != kind && topoTypes[k] != "" {
		// "Switch41": the tab between type and port count was dropped.
		kind, rest = k, kind[len(k):]+" "+rest
	}
	switch kind {
	case "Switch":
		nd.Type = Switch
	case "Ca", "Hca", "CA":
		nd.Type = CA
	case "Rt", "Router":
		nd.Type = Router
	default:
		return nd, errf("unknown node type %q (want Switch, Ca or Rt)", kind)
	}
	ports, rest, ok := cutField(rest)
	np, ok2 := parseUint(ports, 255)
	if !ok || !ok2 || np == 0 {
		return nd, errf("bad port count %q (1-255)", ports)
	}
	nd.NumPorts = int(np)
	id, rest, ok := cutQuoted(strings.TrimSpace(rest))
	if !ok || id == "" {
		return nd, errf("want the quoted node id")
	}
	nd.ID = id
	nd.GUID = guidFromID(id)
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return nd, nil
	}
	tr, ok := strings.CutPrefix(rest, "#")
	if !ok {
		return nd, errf("unexpected %q after the node id", rest)
	}
	tr = strings.TrimSpace(tr)
	if strings.HasPrefix(tr, `"`) {
		d, r2, ok := cutDesc(tr)
		if !ok {
			return nd, errf("unterminated node description")
		}
		nd.Desc, tr = d, strings.TrimSpace(r2)
	}
	f := strings.Fields(tr)
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "enhanced":
			nd.EnhancedPort0 = true
		case "base", "port", "0":
		case "lid", "lmc":
			if i+1 >= len(f) {
				return nd, errf("%s without a value", f[i])
			}
			v, ok := parseUint(f[i+1], 0xffff)
			if !ok {
				return nd, errf("bad %s %q", f[i], f[i+1])
			}
			if f[i] == "lid" {
				nd.LID = int(v)
			} else {
				nd.LMC = int(v)
			}
			i++
		default:
			return nd, errf("unexpected %q in the node trailer", f[i])
		}
	}
	return nd, nil
}

func parseTopoPort(line string) (TopoPort, error) {
	p := TopoPort{LID: -1, RemoteLID: -1}
	var err error
	var rest string
	if p.Port, p.PortGUID, rest, err = parsePortRef(line); err != nil {
		return p, err
	}
	rest = strings.TrimSpace(rest)
	id, rest, ok := cutQuoted(rest)
	if !ok || id == "" {
		return p, errf("want the quoted remote node id")
	}
	p.RemoteID = id
	if p.RemotePort, p.RemotePortGUID, rest, err = parsePortRef(rest); err != nil {
		return p, err
	}
	rest = strings.TrimSpace(rest)
	// ibsim net-file attributes.
	for rest != "" && rest[0] != '#' {
		tok, r2, _ := cutField(rest)
		k, v, ok := strings.Cut(tok, "=")
		n, ok2 := parseUint(v, 255)
		if !ok || !ok2 || (k != "w" && k != "s" && k != "e") {
			return p, errf("unexpected %q after the remote port", tok)
		}
		switch k {
		case "w":
			p.NetWidth = int(n)
		case "s":
			p.NetSpeed = int(n)
		}
		rest = strings.TrimSpace(r2)
	}
	if rest == "" {
		return p, nil
	}
	tr := strings.TrimSpace(rest[1:])
	// CA ports start with their own "lid N lmc M".
	if strings.HasPrefix(tr, "lid ") {
		f := strings.Fields(tr)
		if len(f) >= 4 && f[2] == "lmc" {
			v, ok := parseUint(f[1], 0xffff)
			if _, ok2 := parseUint(f[3], 7); !ok || !ok2 {
				return p, errf("bad port lid/lmc")
			}
			p.LID = int(v)
			tr = strings.TrimSpace(strings.Join(f[4:], " "))
			if i := strings.Index(rest, `"`); i >= 0 && strings.Count(tr, `"`) > 0 {
				// Keep the description's own spacing.
				tr = strings.TrimSpace(rest[i:])
			}
		}
	}
	if strings.HasPrefix(tr, `"`) {
		d, r2, ok := cutDesc(tr)
		if !ok {
			return p, errf("unterminated remote description")
		}
		p.RemoteDesc, tr = d, strings.TrimSpace(r2)
	}
	f := strings.Fields(tr)
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == "lid" && i+1 < len(f):
			v, ok := parseUint(f[i+1], 0xffff)
			if !ok {
				return p, errf("bad remote lid %q", f[i+1])
			}
			p.RemoteLID = int(v)
			i++
		default:
			w, sp, ok := parseWidthSpeed(f[i])
			if !ok {
				return p, errf("unexpected %q in the port trailer (want lid N and a rate like 4xHDR)", f[i])
			}
			p.Width, p.Speed = w, sp
		}
	}
	return p, nil
}

// parsePortRef parses "[N]" with an optional "(guid)" and returns the rest.
func parsePortRef(s string) (int, uint64, string, error) {
	if !strings.HasPrefix(s, "[") {
		return 0, 0, s, errf("want [port]")
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, 0, s, errf("unterminated [port]")
	}
	n, ok := parseUint(s[1:end], 255)
	if !ok {
		return 0, 0, s, errf("bad port number %q", s[1:end])
	}
	rest := s[end+1:]
	var guid uint64
	if strings.HasPrefix(rest, "(") {
		e := strings.IndexByte(rest, ')')
		if e < 0 {
			return 0, 0, s, errf("unterminated (port guid)")
		}
		if guid, ok = parseHexGUID(rest[1:e]); !ok {
			return 0, 0, s, errf("bad port guid %q", rest[1:e])
		}
		rest = rest[e+1:]
	}
	return int(n), guid, rest, nil
}

// cutField splits off the first whitespace-separated field.
func cutField(s string) (string, string, bool) {
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return "", "", false
	}
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, "", true
	}
	return s[:i], s[i:], true
}

// cutQuoted splits a leading "quoted" string (no escapes, as the tools print).
func cutQuoted(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	i := strings.IndexByte(s[1:], '"')
	if i < 0 {
		return "", s, false
	}
	return s[1 : 1+i], s[2+i:], true
}

// cutDesc splits a leading quoted node description. Node descriptions may
// themselves hold quotes, so the description ends at the last quote that is
// followed by the end or by a space and a known trailer word.
func cutDesc(s string) (string, string, bool) {
	best := -1
	for i := 1; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		after := s[i+1:]
		t := strings.TrimLeft(after, " \t")
		if after == "" || (t != after && (strings.HasPrefix(t, "lid ") || strings.HasPrefix(t, "base port") ||
			strings.HasPrefix(t, "enhanced port") || t == "")) {
			best = i
			break
		}
	}
	if best < 0 {
		return cutQuoted(s)
	}
	return s[1:best], s[best+1:], true
}

func errf(format string, a ...any) error { return fmt.Errorf(format, a...) }
