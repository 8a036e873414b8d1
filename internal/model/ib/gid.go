package ib

import (
	"fmt"
	"net/netip"
	"strings"
)

// GID is a 128-bit port GID as /sys/…/ports/<n>/gids/<i> prints it with
// "%pI6": eight uncompressed groups of four hex digits. The kernel returns the
// zero GID for unused indexes.
type GID [16]byte

// ParseGID parses a GID in the kernel's uncompressed form or any IPv6 text
// form (ibv_devinfo and `rdma` print compressed forms).
func ParseGID(in string) (GID, error) {
	t := strings.TrimSpace(in)
	a, err := netip.ParseAddr(t)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return GID{}, malformed("GID (8 groups of 4 hex digits)", in)
	}
	return GID(a.As16()), nil
}

// IsZero reports whether this is the all-zero GID of an unused slot.
func (g GID) IsZero() bool { return g == GID{} }

// String renders the kernel's uncompressed form.
func (g GID) String() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 39)
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hex[g[i]>>4], hex[g[i]&15], hex[g[i+1]>>4], hex[g[i+1]&15])
	}
	return string(b)
}

// IPv4 returns the IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d), the
// form RoCE v2 GIDs take for IPv4 netdev addresses.
func (g GID) IPv4() (netip.Addr, bool) {
	a := netip.AddrFrom16(g)
	if a.Is4In6() {
		return a.Unmap(), true
	}
	return netip.Addr{}, false
}

// IsLinkLocal reports whether the GID is in fe80::/64, the default GID 0.
func (g GID) IsLinkLocal() bool { return netip.AddrFrom16(g).IsLinkLocalUnicast() }

// MarshalText renders the kernel form.
func (g GID) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText accepts anything ParseGID does.
func (g *GID) UnmarshalText(b []byte) error {
	v, err := ParseGID(string(b))
	if err != nil {
		return err
	}
	*g = v
	return nil
}

// GIDType is the RoCE type of a GID entry,
// /sys/…/ports/<n>/gid_attrs/types/<i>.
type GIDType string

// GID types as the kernel prints them.
const (
	GIDTypeIBRoCEv1 GIDType = "IB/RoCE v1"
	GIDTypeRoCEv2   GIDType = "RoCE v2"
)

// ParseGIDType parses gid_attrs/types/<i>; "v1"/"v2" shorthands are accepted.
func ParseGIDType(in string) (GIDType, error) {
	switch t := strings.TrimSpace(in); {
	case t == string(GIDTypeIBRoCEv1), strings.EqualFold(t, "v1"), strings.EqualFold(t, "RoCE v1"), strings.EqualFold(t, "IB"):
		return GIDTypeIBRoCEv1, nil
	case t == string(GIDTypeRoCEv2), strings.EqualFold(t, "v2"):
		return GIDTypeRoCEv2, nil
	}
	return "", malformed(`GID type ("IB/RoCE v1" or "RoCE v2")`, in)
}

// ParseGUID parses a node or port GUID in the kernel's "%04x:%04x:%04x:%04x"
// form or the tools' "0x0c42a10300123456" form, returning the 64-bit value.
func ParseGUID(in string) (uint64, error) {
	t := strings.TrimSpace(in)
	var hexs string
	switch {
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		hexs = t[2:]
	case len(t) == 19 && t[4] == ':' && t[9] == ':' && t[14] == ':':
		hexs = t[0:4] + t[5:9] + t[10:14] + t[15:19]
	default:
		return 0, malformed(`GUID ("0c42:a103:0012:3456" or "0x0c42a10300123456")`, in)
	}
	if len(hexs) == 0 || len(hexs) > 16 {
		return 0, malformed("GUID", in)
	}
	var v uint64
	for _, c := range []byte(hexs) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, malformed("GUID", in)
		}
		v = v<<4 | uint64(d)
	}
	return v, nil
}

// GUIDString renders a GUID in the one form ibdoctor prints everywhere
// (JSON, text, metric labels, fabric findings): "0x" and 16 lowercase hex
// digits, as ibnetdiscover and ibstat print it, so a host port can be
// joined to its switch port across commands.
func GUIDString(v uint64) string { return fmt.Sprintf("0x%016x", v) }

// NormalizeGUID parses either GUID form (see ParseGUID) and renders it with
// GUIDString.
func NormalizeGUID(in string) (string, error) {
	v, err := ParseGUID(in)
	if err != nil {
		return "", err
	}
	return GUIDString(v), nil
}

// FormatGUID renders a GUID in the kernel's sysfs form; only the simulator
// writes it (node_guid files), output uses GUIDString.
func FormatGUID(v uint64) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 19)
	for i := 15; i >= 0; i-- {
		b = append(b, hex[(v>>(uint(i)*4))&15])
		if i%4 == 0 && i > 0 {
			b = append(b, ':')
		}
	}
	return string(b)
}
