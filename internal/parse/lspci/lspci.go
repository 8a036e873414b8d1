package lspci

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrMalformed is wrapped by every ParseError.
var ErrMalformed = errors.New("malformed lspci output")

// ErrNoDevice is returned for input without a single device line.
var ErrNoDevice = errors.New("no lspci device line (\"0000:17:00.0 PCI bridge: …\")")

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// maxDevices bounds one listing: a host has at most 256 buses × 32
// devices × 8 functions per domain, and a paste of more is not lspci's.
const maxDevices = 1 << 16

// Port types of the PCI Express capability, as lspci names them
// ("Capabilities: [40] Express (v2) Downstream Port (Slot+), MSI 00").
const (
	RootPort       = "Root Port"
	UpstreamPort   = "Upstream Port"
	DownstreamPort = "Downstream Port"
	Endpoint       = "Endpoint"
)

// Bus is a bridge's "Bus: primary=17, secondary=18, subordinate=18".
type Bus struct {
	Primary, Secondary, Subordinate int
}

// Device is one function of the listing.
type Device struct {
	// Address is the function's address with its domain ("0000:17:00.0";
	// lspci without -D leaves out domain 0000).
	Address pcie.Address `json:"address"`
	// Line is the line of the device's header.
	Line int `json:"line"`
	// Class is the class name ("PCI bridge", "3D controller",
	// "Infiniband controller"); Name the rest of the header line.
	Class string `json:"class"`
	Name  string `json:"name"`
	// Rev is the revision lspci prints after the name ("a1" of "(rev
	// a1)"), "" without one. pciutils lspci.c show_terse prints the
	// Revision ID byte read from config space (nothing when it is 0): a
	// function that no longer answers on the bus reads all ones, "(rev
	// ff)", while the kernel's cached class and IDs still name it.
	Rev string `json:"rev,omitempty"`
	// PortType is the PCI Express port type ("Downstream Port"; see the
	// constants), "" when the paste has no Express capability line.
	PortType string `json:"port_type,omitempty"`
	// PortTypeLine and PortTypeText are the Express capability line that
	// gave PortType ("Capabilities: [68] Express (v2) Downstream Port
	// (Slot+), MSI 00"), 0 and "" without one.
	PortTypeLine int    `json:"port_type_line,omitempty"`
	PortTypeText string `json:"port_type_text,omitempty"`
	// Bus is the bridge's bus range, nil for a function that is no bridge
	// or whose Bus line is not in the paste.
	Bus *Bus `json:"bus,omitempty"`
	// ACS holds the ACS registers as printed, nil when the paste has no
	// ACSCtl line for the function. Offset is the capability's position
	// from "Capabilities: [148 v1] Access Control Services", 0 when that
	// line is not in the paste.
	ACS *pcie.ACS `json:"acs,omitempty"`
	// ACSLine is the line of ACSCtl.
	ACSLine int `json:"acs_line,omitempty"`
	// ACSText is the ACSCtl line's flags as printed.
	ACSText string `json:"acs_text,omitempty"`
	// Denied says lspci printed "Capabilities: <access denied>": it ran
	// without root, and the extended capabilities (ACS among them) are
	// not shown.
	Denied bool `json:"denied,omitempty"`
	// LinkCap and LinkSta are the Express capability's LnkCap (what the
	// port can train to) and LnkSta (what it trained to), nil when not in
	// the paste.
	LinkCap *Link `json:"link_cap,omitempty"`
	LinkSta *Link `json:"link_sta,omitempty"`
}

// Link is a LnkCap or LnkSta line: "Port #8, Speed 8GT/s, Width x4, ASPM
// L1, …", "Speed 2.5GT/s (downgraded), Width x16 (ok)".
type Link struct {
	// Speed is in GT/s (2.5, 5, 8, 16, 32, 64), 0 when not printed or
	// "unknown"; Width the lane count, 0 when not printed.
	Speed float64 `json:"speed_gts,omitempty"`
	Width int     `json:"width,omitempty"`
	// SpeedDowngraded and WidthDowngraded are lspci's own marks (since
	// pciutils 3.6: LnkSta compared with LnkCap, "(downgraded)").
	SpeedDowngraded bool   `json:"speed_downgraded,omitempty"`
	WidthDowngraded bool   `json:"width_downgraded,omitempty"`
	Line            int    `json:"line"`
	Text            string `json:"text"`
}

// Anonymous says the device's header line is not in the paste: its
// LnkCap/LnkSta lines were pasted alone (quoted, or `lspci -vvv | grep
// Lnk`).
func (d *Device) Anonymous() bool { return d.Address == "" }

// IsBridge says whether the function is a PCI-to-PCI bridge (a root,
// switch upstream or downstream port).
func (d *Device) IsBridge() bool {
	return d.Class == "PCI bridge" || d.Bus != nil || d.PortType == RootPort || d.PortType == UpstreamPort || d.PortType == DownstreamPort
}

// Listing is one `lspci -vvv` output.
type Listing struct {
	Devices []Device `json:"devices"`
}

// Parse reads `lspci -vvv` output. Lines before the first device line
// (a prompt, prose) and lines lspci prints that ACS does not need are
// skipped; a device line, a Bus line or an ACS register line that does
// not read is a ParseError naming the line.
func Parse(r io.Reader, source string) (*Listing, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	l := &Listing{}
	var cur *Device
	acsAt := 0 // the offset of the last "Access Control Services" capability line
	n := 0
	fail := func(line string, err error) error {
		return &ParseError{Source: source, Line: n, Input: line, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
	}
	for sc.Scan() {
		n++
		raw := sc.Text()
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		key, val, _ := strings.Cut(t, ":")
		val = strings.TrimSpace(val)
		if key == "LnkCap" || key == "LnkSta" {
			// Also pasted alone, unindented, without the device's
			// header: each LnkCap (or a second LnkSta) starts an
			// anonymous device.
			lk, err := parseLink(val)
			if err != nil {
				return nil, fail(raw, err)
			}
			lk.Line, lk.Text = n, t
			if cur == nil || cur.Anonymous() && (key == "LnkCap" && (cur.LinkCap != nil || cur.LinkSta != nil) || key == "LnkSta" && cur.LinkSta != nil) {
				if len(l.Devices) == maxDevices {
					return nil, fail(raw, fmt.Errorf("more than %d devices", maxDevices))
				}
				l.Devices = append(l.Devices, Device{Line: n})
				cur = &l.Devices[len(l.Devices)-1]
			}
			if key == "LnkCap" {
				cur.LinkCap = &lk
			} else {
				cur.LinkSta = &lk
			}
			continue
		}
		if (key == "ACSCtl" || key == "ACSCap") && (cur == nil || raw[0] != ' ' && raw[0] != '\t' && !cur.Anonymous() || cur.Anonymous() && cur.ACS != nil && (key == "ACSCap" || cur.ACSLine != 0)) {
			// `lspci -vvv | grep ACSCtl` (the check NCCL's
			// troubleshooting guide gives): the registers without
			// their device's header, each line one anonymous function.
			if len(l.Devices) == maxDevices {
				return nil, fail(raw, fmt.Errorf("more than %d devices", maxDevices))
			}
			l.Devices = append(l.Devices, Device{Line: n})
			cur = &l.Devices[len(l.Devices)-1]
			acsAt = 0
		}
		acsLine := key == "ACSCtl" || key == "ACSCap"
		if !acsLine && raw[0] != ' ' && raw[0] != '\t' {
			d, ok, err := header(t)
			if err != nil {
				return nil, fail(raw, err)
			}
			if !ok {
				// A prompt, prose, or the tail of a line a mail
				// client wrapped: the device's lines may go on.
				continue
			}
			if len(l.Devices) == maxDevices {
				return nil, fail(raw, fmt.Errorf("more than %d devices", maxDevices))
			}
			d.Line = n
			l.Devices = append(l.Devices, d)
			cur = &l.Devices[len(l.Devices)-1]
			acsAt = 0
			continue
		}
		if key == "Capabilities" && (cur == nil || cur.Anonymous() && cur.LinkSta != nil) {
			// "......" excerpts of `lspci -s ADDR -vvv` that start at
			// the Express capability: the port type names the function
			// its LnkCap/LnkSta lines belong to.
			if pt := portType(val); pt != "" {
				if len(l.Devices) == maxDevices {
					return nil, fail(raw, fmt.Errorf("more than %d devices", maxDevices))
				}
				l.Devices = append(l.Devices, Device{Line: n, PortType: pt, PortTypeLine: n, PortTypeText: strings.TrimSpace(raw)})
				cur = &l.Devices[len(l.Devices)-1]
				continue
			}
		}
		if cur == nil {
			continue
		}
		switch key {
		case "Bus":
			b, err := parseBus(val)
			if err != nil {
				return nil, fail(raw, err)
			}
			cur.Bus = &b
		case "Capabilities":
			switch {
			case val == "<access denied>":
				cur.Denied = true
			case strings.Contains(val, "Access Control Services"):
				acsAt = capOffset(val)
			default:
				if pt := portType(val); pt != "" {
					cur.PortType, cur.PortTypeLine, cur.PortTypeText = pt, n, strings.TrimSpace(raw)
				}
			}
		case "ACSCap", "ACSCtl":
			bits, err := parseACSBits(val)
			if err != nil {
				return nil, fail(raw, err)
			}
			if cur.ACS == nil {
				cur.ACS = &pcie.ACS{Offset: acsAt}
			}
			if key == "ACSCap" {
				cur.ACS.Cap = bits
			} else {
				cur.ACS.Ctl = bits
				cur.ACSLine = n
				cur.ACSText = strings.Join(strings.Fields(val), " ")
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
	}
	if len(l.Devices) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoDevice}
	}
	// An ACSCap without its ACSCtl (a cut paste) says nothing about the
	// control register.
	for i := range l.Devices {
		if d := &l.Devices[i]; d.ACS != nil && d.ACSLine == 0 {
			d.ACS = nil
		}
	}
	return l, nil
}

// IsHeader says whether a line (not indented) is lspci's device line:
// "17:00.0 PCI bridge: …", "0000:17:00.0 PCI bridge [0604]: …".
func IsHeader(t string) bool {
	_, ok, err := header(t)
	return ok && err == nil
}

// header reads a device line. ok is false for a line that does not start
// with an address; an address followed by no "class: name" is an error.
func header(t string) (Device, bool, error) {
	addr, rest, _ := strings.Cut(t, " ")
	if !looksLikeAddress(addr) {
		return Device{}, false, nil
	}
	a, err := pcie.ParseAddress(addr)
	if err != nil {
		return Device{}, false, err
	}
	if strings.TrimSpace(rest) == "" {
		// The address alone, as scripts print it above the lines they
		// grep from lspci -vv -s <address>.
		return Device{Address: a}, true, nil
	}
	class, name, ok := strings.Cut(rest, ": ")
	if !ok || strings.TrimSpace(class) == "" {
		return Device{}, false, fmt.Errorf("device %s has no \"class: name\"", addr)
	}
	// -nn: "PCI bridge [0604]"
	if i := strings.LastIndex(class, " ["); i > 0 && strings.HasSuffix(class, "]") {
		class = class[:i]
	}
	name = strings.TrimSpace(name)
	return Device{Address: a, Class: strings.TrimSpace(class), Name: name, Rev: revision(name)}, true, nil
}

// revision reads the "(rev a1)" of a device line's name, "" without one.
func revision(name string) string {
	_, after, ok := strings.Cut(name, " (rev ")
	if !ok {
		return ""
	}
	rev, _, ok := strings.Cut(after, ")")
	if !ok || len(rev) != 2 || !isHex(rev[0]) || !isHex(rev[1]) {
		return ""
	}
	return strings.ToLower(rev)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Model is the device's name without lspci's "(rev a1)" and "(prog-if
// …)" tails.
func (d *Device) Model() string {
	name := d.Name
	if i := strings.Index(name, " (rev "); i >= 0 {
		name = name[:i]
	}
	if i := strings.Index(name, " (prog-if "); i >= 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

// looksLikeAddress matches "bb:dd.f" and "dddd:bb:dd.f" by shape.
func looksLikeAddress(s string) bool {
	if len(s) != 7 && len(s) != 12 {
		return false
	}
	if len(s) == 12 {
		if s[4] != ':' {
			return false
		}
		s = s[5:]
	}
	if s[2] != ':' || s[5] != '.' {
		return false
	}
	for i, c := range []byte(s) {
		if i == 2 || i == 5 {
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// parseBus reads "primary=17, secondary=18, subordinate=18, sec-latency=0".
func parseBus(v string) (Bus, error) {
	var b Bus
	seen := 0
	for _, f := range strings.Split(v, ",") {
		k, x, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok {
			continue
		}
		var dst *int
		switch k {
		case "primary":
			dst = &b.Primary
		case "secondary":
			dst = &b.Secondary
		case "subordinate":
			dst = &b.Subordinate
		default:
			continue
		}
		u, err := strconv.ParseUint(x, 16, 8)
		if err != nil {
			return Bus{}, fmt.Errorf("bus number %q (want two hex digits)", x)
		}
		*dst = int(u)
		seen++
	}
	if seen != 3 {
		return Bus{}, errors.New("bus line without primary, secondary and subordinate")
	}
	return b, nil
}

// capOffset reads the offset of "[148 v1] Access Control Services", 0
// when it does not read.
func capOffset(v string) int {
	if !strings.HasPrefix(v, "[") {
		return 0
	}
	end := strings.IndexAny(v, " ]")
	if end < 0 {
		return 0
	}
	o, err := strconv.ParseUint(v[1:end], 16, 16)
	if err != nil {
		return 0
	}
	return int(o)
}

// portType reads the port type of "[40] Express (v2) Downstream Port
// (Slot+), MSI 00", "" for other capabilities.
func portType(v string) string {
	_, rest, ok := strings.Cut(v, "] Express ")
	if !ok {
		return ""
	}
	if strings.HasPrefix(rest, "(v") {
		if _, after, ok := strings.Cut(rest, ") "); ok {
			rest = after
		}
	}
	for _, pt := range []string{RootPort, UpstreamPort, DownstreamPort} {
		if strings.HasPrefix(rest, pt) {
			return pt
		}
	}
	if strings.HasPrefix(rest, Endpoint) || strings.HasPrefix(rest, "Legacy Endpoint") {
		return Endpoint
	}
	name, _, _ := strings.Cut(rest, ",")
	return strings.TrimSpace(name)
}

// acsBit maps lspci's ACS flag names to the register bits.
var acsBit = map[string]uint16{
	"SrcValid": pcie.ACSSrcValid, "TransBlk": pcie.ACSTransBlk, "ReqRedir": pcie.ACSReqRedir,
	"CmpltRedir": pcie.ACSCmpltRedir, "UpstreamFwd": pcie.ACSUpstreamFwd,
	"EgressCtrl": pcie.ACSEgressCtrl, "DirectTrans": pcie.ACSDirectTrans,
}

// parseACSBits reads "SrcValid+ TransBlk- ReqRedir+ …". Flags lspci may
// add later are skipped; a line with none of the known seven is an error,
// and so is a known flag without its + or -.
func parseACSBits(v string) (uint16, error) {
	var bits uint16
	known := 0
	for _, f := range strings.Fields(v) {
		if len(f) < 2 {
			continue
		}
		name, sign := f[:len(f)-1], f[len(f)-1]
		bit, ok := acsBit[name]
		if !ok {
			if _, bare := acsBit[f]; bare {
				return 0, fmt.Errorf("ACS flag %s without + or -", f)
			}
			continue
		}
		switch sign {
		case '+':
			bits |= bit
		case '-':
		default:
			return 0, fmt.Errorf("ACS flag %q (want %s+ or %s-)", f, name, name)
		}
		known++
	}
	if known == 0 {
		return 0, errors.New("no ACS flag (want \"SrcValid+ TransBlk- ReqRedir+ …\")")
	}
	return bits, nil
}

// parseLink reads the fields of a LnkCap or LnkSta line; fields it does
// not know (Port, ASPM, latencies, TrErr- …), a cut "..." and what a
// poster wrote after the line are skipped.
func parseLink(v string) (Link, error) {
	var lk Link
	for _, f := range strings.Split(v, ",") {
		w := strings.Fields(f)
		if len(w) < 2 {
			continue
		}
		mark := strings.Contains(f, "(downgraded)")
		switch w[0] {
		case "Speed":
			if w[1] == "unknown" {
				continue
			}
			x, err := strconv.ParseFloat(strings.TrimSuffix(w[1], "GT/s"), 64)
			if err != nil || !strings.HasSuffix(w[1], "GT/s") || x <= 0 || x > 256 {
				return Link{}, fmt.Errorf("link speed %q (want N GT/s)", w[1])
			}
			lk.Speed, lk.SpeedDowngraded = x, mark
		case "Width":
			n, ok := strings.CutPrefix(w[1], "x")
			x, err := strconv.Atoi(n)
			if !ok || err != nil || x < 0 || x > 32 {
				return Link{}, fmt.Errorf("link width %q (want xN)", w[1])
			}
			lk.Width, lk.WidthDowngraded = x, mark
		}
	}
	return lk, nil
}
