package verbs

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// nullWithin bounds how many lines before Mooncake's "GID is NULL" line
// the GID index line naming its device is looked for.
const nullWithin = 8

// roceLinkLocal says whether g, a device's GID line, is a RoCE port's
// link-local GID: LID 0 (an Ethernet port has no LID) and an fe80::/64
// GID whose interface identifier is EUI-64 made from a MAC address
// (ff:fe in its middle, RFC 4291 appendix A), as the kernel builds the
// GID of the netdev's fe80:: address (drivers/infiniband/core/
// roce_gid_mgmt.c). An InfiniBand port's GID is fe80:: too, but with the
// port GUID after it and a LID set by the subnet manager.
func roceLinkLocal(g wclog.GIDUse) bool {
	if g.Kind != wclog.GIDDevice || g.LID != 0 || !g.Addr.IsLinkLocalUnicast() {
		return false
	}
	b := g.Addr.As16()
	return b[11] == 0xff && b[12] == 0xfe
}

// LinkLocalGIDs are the words naming, for a QP setup finding's summary,
// the devices of a log that use a RoCE link-local GID ("mlx5_0 uses GID
// index 1, the link-local GID fe80::9e63:c0ff:fe65:ab90"), "" when none.
func LinkLocalGIDs(gs []wclog.GIDUse) string {
	var parts []string
	seen := map[string]bool{}
	for _, g := range gs {
		if !roceLinkLocal(g) || seen[g.Device] {
			continue
		}
		seen[g.Device] = true
		parts = append(parts, fmt.Sprintf("%s uses GID index %d, the link-local GID %s", g.Device, g.Index, g.Addr))
	}
	return strings.Join(parts, "; ")
}

// CheckGIDs judges the GIDs a program's RDMA devices use, as Mooncake's
// transfer engine logs them (wclog.GIDLine), one finding per device and
// index: an all-zero GID (an empty slot of the port's GID table, which no
// connection can use) or Mooncake's "GID is NULL" is nccl.gid_index_wrong,
// critical; a RoCE port's link-local fe80:: GID is a warning with the
// same ID (no router forwards it: peers on another subnet are never
// reached), left out when qpFailed, the log's queue pair setup failure
// naming it instead. A RoCE port's IPv4-mapped or global GID, or an
// InfiniBand port with a LID, is healthy.
func CheckGIDs(source string, gs []wclog.GIDUse, qpFailed bool) []finding.Finding {
	type key struct {
		dev string
		idx int
	}
	seen := map[key]bool{}
	var fs []finding.Finding
	for i, g := range gs {
		var dev string
		idx := g.Index
		switch {
		case g.Kind == wclog.GIDNull:
			for j := i - 1; j >= 0 && g.Line-gs[j].Line <= nullWithin; j-- {
				if gs[j].Kind == wclog.GIDChoice {
					dev, idx = gs[j].Device, gs[j].Index
					break
				}
			}
		case g.Kind == wclog.GIDDevice && g.Addr.IsUnspecified():
			dev = g.Device
		case roceLinkLocal(g) && !qpFailed:
			dev = g.Device
		default:
			continue
		}
		k := key{dev, idx}
		if seen[k] {
			continue
		}
		seen[k] = true
		where := "an RDMA device"
		if dev != "" {
			where = dev
		}
		at := "its GID index"
		if idx >= 0 {
			at = fmt.Sprintf("GID index %d", idx)
		}
		var sum string
		sev := finding.Critical
		if g.Kind == wclog.GIDDevice && !g.Addr.IsUnspecified() {
			sev = finding.Warning
			sum = fmt.Sprintf("the application (Mooncake's transfer engine) uses %s of %s, the link-local RoCE GID %s: link-local addresses are not routed, so peers outside this port's L2 segment (another subnet) are never reached and their handshake times out", at, where, g.Addr)
		} else {
			sum = fmt.Sprintf("the application (Mooncake's transfer engine) reads an all-zero GID at %s of %s: that slot of the port's GID table is empty, so %s carries no RDMA connection", at, where, where)
		}
		subj := finding.Subject{File: source, Device: dev, Port: g.Port}
		f := catalog.New("nccl.gid_index_wrong", subj, sum, lineEvidence(source, g.Line, g.Text))
		f.Severity = sev
		f.Causes = []string{
			"MC_GID_INDEX (Mooncake's GID index) set to an index taken from another node or driver version: GID tables differ per port",
			"no IP address on the port's netdev, so its RoCE v2 GID with an IPv4-mapped address does not exist and only the fe80:: entries are left",
		}
		d, p := cmp.Or(dev, "DEV"), max(g.Port, 1)
		f.Remedy = []string{
			fmt.Sprintf("show_gids %s (or: grep . /sys/class/infiniband/%s/ports/%d/gids/* /sys/class/infiniband/%s/ports/%d/gid_attrs/types/* 2>/dev/null) and set MC_GID_INDEX to the index of the RoCE v2 GID of the port's IP address (::ffff:a.b.c.d)", d, d, p, d, p),
			"or unset MC_GID_INDEX so Mooncake picks a GID with a network device and a routable address itself",
			fmt.Sprintf("rdma link show %s/%d names the port's netdev: ip addr show it, since a RoCE v2 GID exists only for a configured address", d, p),
		}
		fs = append(fs, f)
	}
	return fs
}

// CheckQPSetupsGIDs is CheckQPSetups naming, in the summary, the RoCE
// link-local GIDs the same log shows its devices use: the likely reason
// a handshake with a peer on another subnet timed out.
func CheckQPSetupsGIDs(source string, qs []wclog.QPSetup, gs []wclog.GIDUse) []finding.Finding {
	fs := CheckQPSetups(source, qs)
	if ll := LinkLocalGIDs(gs); ll != "" {
		for i := range fs {
			fs[i].Summary += "; the log shows " + ll + ", which reaches only peers on the same L2 segment"
		}
	}
	return fs
}
