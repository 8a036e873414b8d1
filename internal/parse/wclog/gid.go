package wclog

import (
	"net/netip"
	"strconv"
	"strings"
)

// GIDKind is what a GID line of a program says.
type GIDKind string

// The kinds of GID lines.
const (
	// GIDDevice: the device opened, with its LID and the GID it uses.
	GIDDevice GIDKind = "device"
	// GIDChoice: the GID index chosen (by the user or by the program).
	GIDChoice GIDKind = "choice"
	// GIDNull: the GID at the chosen index is all zeros.
	GIDNull GIDKind = "null"
)

// GIDUse is a program's line saying which RDMA device, LID and GID index
// (and GID) it opened for its RDMA transport: an INFO line, read to judge
// the GID it uses.
type GIDUse struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	Kind GIDKind
	// Device is the RDMA device ("" when the line names none, as
	// GIDNull's); Port its port, 0 when not printed.
	Device string
	Port   int
	// Index is the GID index, -1 when the line names none.
	Index int
	// LID is the port's LID (GIDDevice), -1 when not printed; 0 is a
	// RoCE port (Ethernet has no LID) or an InfiniBand port without one.
	LID int
	// GID is the GID as printed ("00:00:…:ff:ff:0a:00:00:01"), Addr it
	// read as an IPv6 address (invalid when it did not parse).
	GID  string
	Addr netip.Addr
	// User: the index was set by the user (Mooncake's MC_GID_INDEX);
	// Netdev: the GID entry has a network device ("with network device"),
	// NetdevKnown when the line says either way.
	User, Netdev, NetdevKnown bool
}

// gidHint is GIDLine's cheap gate.
func gidHint(l string) bool {
	return strings.Contains(l, "GID_Index ") || strings.Contains(l, "GID index: ") || strings.Contains(l, "gid index: ") || strings.Contains(l, "GID is NULL")
}

// GIDLine reads Mooncake's transfer-engine lines (glog) that say which
// GID an RDMA device uses (Line left 0); the formats are those of
// mooncake-transfer-engine/src/transport/rdma_transport/rdma_context.cpp:
//
//   - RdmaContext::construct: "RDMA device: mlx5_3, LID: 0, GID:
//     (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:21:06:1e:14"
//     (", num_lag_ports: 1" after it when built with mlx5dv), the GID as
//     gidBytesToString prints it: 16 bytes in hex joined by colons;
//   - RdmaContext::openRdmaDevice: "Using user-specified GID index: 3 on
//     mlx5_3/1 (with network device)" (older builds printed the port as
//     a raw byte, which pastes drop: "mlx5_3/ (with network device)") and
//     "Find best gid index: 3 on mlx5_3/1 (network state: with network
//     device)";
//   - openRdmaDevice's "GID is NULL, please check your GID index by
//     specifying MC_GID_INDEX" (the device is then not used).
func GIDLine(l string) (GIDUse, bool) {
	if !gidHint(l) {
		return GIDUse{}, false
	}
	g := GIDUse{Text: l, Index: -1, LID: -1}
	if _, rest, ok := strings.Cut(l, "RDMA device: "); ok {
		dev, rest, ok := strings.Cut(rest, ", LID: ")
		if !ok || !nicName(dev) {
			return GIDUse{}, false
		}
		lid, rest, ok := strings.Cut(rest, ", GID: (GID_Index ")
		if !ok {
			return GIDUse{}, false
		}
		idx, gid, ok := strings.Cut(rest, ") ")
		if !ok {
			return GIDUse{}, false
		}
		gid, _, _ = strings.Cut(strings.TrimSpace(gid), ",")
		a, ok := parseGID(gid)
		if !ok {
			return GIDUse{}, false
		}
		g.Kind, g.Device, g.GID, g.Addr = GIDDevice, dev, gid, a
		if g.LID, ok = smallInt(lid); !ok {
			return GIDUse{}, false
		}
		if g.Index, ok = smallInt(idx); !ok {
			return GIDUse{}, false
		}
		return g, true
	}
	for _, p := range []string{"Using user-specified GID index: ", "Find best gid index: "} {
		_, rest, ok := strings.Cut(l, p)
		if !ok {
			continue
		}
		idx, rest, ok := strings.Cut(rest, " on ")
		if !ok {
			return GIDUse{}, false
		}
		where, state, _ := strings.Cut(rest, " (")
		dev, port, _ := strings.Cut(where, "/")
		if !nicName(dev) {
			return GIDUse{}, false
		}
		if g.Index, ok = smallInt(idx); !ok {
			return GIDUse{}, false
		}
		g.Port, _ = smallInt(port)
		g.Port = max(g.Port, 0)
		g.Kind, g.Device, g.User = GIDChoice, dev, p[0] == 'U'
		switch {
		case strings.Contains(state, "without network device"):
			g.NetdevKnown = true
		case strings.Contains(state, "with network device"):
			g.NetdevKnown, g.Netdev = true, true
		}
		return g, true
	}
	if strings.Contains(l, "GID is NULL, please check your GID index") {
		g.Kind = GIDNull
		return g, true
	}
	return GIDUse{}, false
}

// nicName says whether s is one RDMA device name and nothing else.
func nicName(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t") && reNIC.FindString(s) == s
}

// smallInt reads a decimal number of up to 5 digits.
func smallInt(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 5 {
		return -1, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1, false
	}
	return n, true
}

// parseGID reads a GID printed as 16 hex bytes joined by colons.
func parseGID(s string) (netip.Addr, bool) {
	if len(s) != 16*3-1 {
		return netip.Addr{}, false
	}
	var b [16]byte
	for i := range b {
		if i > 0 && s[i*3-1] != ':' {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(s[i*3:i*3+2], 16, 8)
		if err != nil {
			return netip.Addr{}, false
		}
		b[i] = byte(v)
	}
	return netip.AddrFrom16(b), true
}
