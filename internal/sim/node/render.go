package node

import (
	"encoding/binary"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
)

// EntryKind is what an Entry is on disk.
type EntryKind uint8

// Entry kinds.
const (
	// KindFile is a regular file with Data.
	KindFile EntryKind = iota
	// KindSymlink is a relative symbolic link to Target.
	KindSymlink
	// KindDir is an (otherwise empty) directory.
	KindDir
	// KindUnreadable is a file whose read fails; it is written as an empty
	// directory (EISDIR on read, for root too).
	KindUnreadable
)

// Entry is one path of the rendered root.
type Entry struct {
	// Path is relative to the root, slash-separated: "sys/class/…".
	Path   string
	Kind   EntryKind
	Data   []byte
	Target string
}

func (e Entry) equal(o Entry) bool {
	return e.Kind == o.Kind && e.Target == o.Target && string(e.Data) == string(o.Data)
}

// renderer collects entries by path.
type renderer struct {
	m          map[string]Entry
	unreadable map[string]bool
}

func (r *renderer) file(p, data string) {
	if r.unreadable[p] {
		r.m[p] = Entry{Path: p, Kind: KindUnreadable}
		return
	}
	r.m[p] = Entry{Path: p, Kind: KindFile, Data: []byte(data)}
}

func (r *renderer) fail(p string) { r.m[p] = Entry{Path: p, Kind: KindUnreadable} }

func (r *renderer) dir(p string) { r.m[p] = Entry{Path: p, Kind: KindDir} }

// link makes a symlink at p pointing at the root-relative target, with the
// relative path the kernel's kernfs_get_target_path builds: climb from the
// link's directory to the first ancestor of the target's parent, then down.
func (r *renderer) link(p, target string) {
	r.m[p] = Entry{Path: p, Kind: KindSymlink, Target: relLink(path.Dir(p), target)}
}

func relLink(linkDir, target string) string {
	tparent := path.Dir(target)
	base, ups := linkDir, 0
	for base != "." && base != tparent && !strings.HasPrefix(tparent, base+"/") {
		base = path.Dir(base)
		ups++
	}
	rest := target
	if base != "." {
		rest = strings.TrimPrefix(target, base+"/")
	}
	return strings.Repeat("../", ups) + rest
}

// Entries renders the node: every file, symlink and directory of its root,
// sorted by path.
func (n *Node) Entries() []Entry {
	r := &renderer{m: map[string]Entry{}, unreadable: n.Unreadable}
	n.render(r)
	out := make([]Entry, 0, len(r.m))
	for _, e := range r.m {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func (n *Node) render(r *renderer) {
	r.file(layout.Hostname, n.Host+"\n")
	r.file(layout.OSRelease, n.Kernel+"\n")
	r.file(layout.Modules, n.modules())
	n.renderProc(r)
	r.dir(layout.ClassInfiniband)
	r.dir(layout.ClassNet)
	r.dir(layout.ClassVerbs)
	r.dir(layout.PCIDevices)
	r.dir(layout.DevInfiniband)
	// IB_USER_VERBS_ABI_VERSION (include/uapi/rdma/ib_user_verbs.h).
	r.file(layout.ClassVerbs+"/abi_version", "6\n")
	if n.RdmaCM {
		r.file(layout.RdmaCM, "")
	}
	if len(n.Cmdline) > 0 {
		r.file(layout.Cmdline, strings.Join(n.Cmdline, " ")+"\n")
	}
	if n.Mlx5Version != "" {
		r.file(layout.Mlx5Version, n.Mlx5Version+"\n")
	}
	if n.Mlx5SrcVersion != "" {
		r.file(layout.Mlx5SrcVersion, n.Mlx5SrcVersion+"\n")
	}
	r.dir(layout.ClassIOMMU)
	for _, u := range n.IOMMUs {
		dir := "sys/devices/virtual/iommu/" + u
		r.link(layout.ClassIOMMU+"/"+u, dir)
		r.file(dir+"/uevent", "")
	}
	for _, f := range n.PCI {
		if !f.gone() {
			n.renderPCI(r, f)
		}
	}
	for _, d := range n.Devices {
		if d.present() {
			n.renderDevice(r, d)
		}
	}
	for _, nd := range n.NetDevs {
		if !nd.PCI.gone() && n.netdevBound(nd) {
			renderNetDev(r, nd)
		}
	}
	renderVirtualNetDevs(r)
	r.file(layout.Dmesg, n.dmesg())
	if len(n.GPUs()) > 0 {
		r.file(layout.NvidiaSMITopo, n.nvidiaSMITopo())
	}
	for _, nd := range n.NetDevs {
		if nd.Ethtool != nil && !nd.PCI.gone() && n.netdevBound(nd) {
			r.file(layout.Ethtool(nd.Name), ethtoolText(nd.Ethtool))
		}
	}
	for p, data := range n.Files {
		r.file(p, string(data))
	}
}

func (n *Node) netdevBound(nd *NetDev) bool {
	for _, d := range n.Devices {
		if d.PCI == nd.PCI {
			return !d.Unbound
		}
	}
	return true
}

// renderPCI writes a PCI function's attributes (drivers/pci/pci-sysfs.c,
// drivers/pci/pcie/aer.c) and its bus links.
func (n *Node) renderPCI(r *renderer, f *PCIFunc) {
	dir := f.Path()
	r.file(dir+"/vendor", fmt.Sprintf("0x%04x\n", f.Vendor))
	r.file(dir+"/device", fmt.Sprintf("0x%04x\n", f.Device))
	r.file(dir+"/subsystem_vendor", fmt.Sprintf("0x%04x\n", f.SubVendor))
	r.file(dir+"/subsystem_device", fmt.Sprintf("0x%04x\n", f.SubDevice))
	r.file(dir+"/class", fmt.Sprintf("0x%06x\n", f.Class))
	r.file(dir+"/revision", fmt.Sprintf("0x%02x\n", f.Revision))
	r.file(dir+"/numa_node", fmt.Sprintf("%d\n", f.NUMA))
	r.file(dir+"/local_cpulist", f.CPUList+"\n")
	r.file(dir+"/current_link_speed", n.speedString(f.CurSpeed)+"\n")
	r.file(dir+"/max_link_speed", n.speedString(f.MaxSpeed)+"\n")
	r.file(dir+"/current_link_width", fmt.Sprintf("%d\n", f.CurWidth))
	r.file(dir+"/max_link_width", fmt.Sprintf("%d\n", f.MaxWidth))
	corNames, uncorNames := n.aerNames()
	r.file(dir+"/aer_dev_correctable", aerText(corNames, "dev_cor_errs", "ERR_COR", f.AERCor))
	r.file(dir+"/aer_dev_nonfatal", aerText(uncorNames, "dev_nonfatal_errs", "ERR_NONFATAL", f.AERNonFatal))
	r.file(dir+"/aer_dev_fatal", aerText(uncorNames, "dev_fatal_errs", "ERR_FATAL", f.AERFatal))
	if f.Parent == nil {
		// Root ports count the messages they received
		// (aer_rootport_total_err_*, "%llu\n").
		r.file(dir+"/aer_rootport_total_err_cor", fmt.Sprintf("%d\n", f.RootCor))
		r.file(dir+"/aer_rootport_total_err_fatal", fmt.Sprintf("%d\n", f.RootFatal))
		r.file(dir+"/aer_rootport_total_err_nonfatal", fmt.Sprintf("%d\n", f.RootNonFatal))
		rootDir := path.Dir(dir)
		rootBus := strings.TrimPrefix(f.Root, "pci")
		r.dir(rootDir + "/pci_bus/" + rootBus)
		r.link(layout.ClassPCIBus+"/"+rootBus, rootDir+"/pci_bus/"+rootBus)
	}
	if f.Bridge() {
		r.file(dir+"/config", string(n.configSpace(f)))
	}
	if f.SecondaryBus != "" {
		r.dir(dir + "/pci_bus/" + f.SecondaryBus)
		r.link(layout.ClassPCIBus+"/"+f.SecondaryBus, dir+"/pci_bus/"+f.SecondaryBus)
	}
	unbound := false
	for _, d := range n.Devices {
		if d.PCI == f && d.Unbound {
			unbound = true
		}
	}
	if f.Driver != "" && !unbound {
		drv := layout.PCIDrivers + "/" + f.Driver
		r.dir(drv)
		r.link(dir+"/driver", drv)
		r.link(drv+"/"+string(f.Addr), dir)
	}
	r.link(layout.PCIDevices+"/"+string(f.Addr), dir)
}

// configSpace renders a bridge's config file (drivers/pci/pci-sysfs.c
// pci_read_config, little-endian): the type 1 header, then the extended
// capabilities AER at 0x100 and, where the bridge has one, ACS at 0x148
// (include/uapi/linux/pci_regs.h). With ConfigHeaderOnly only the 64
// bytes a reader without CAP_SYS_ADMIN gets.
func (n *Node) configSpace(f *PCIFunc) []byte {
	b := make([]byte, pcie.ConfigSize)
	le := binary.LittleEndian
	le.PutUint16(b[0x00:], f.Vendor)
	le.PutUint16(b[0x02:], f.Device)
	le.PutUint32(b[0x08:], f.Class<<8|uint32(f.Revision))
	b[0x0e] = 0x01 // header type 1: PCI-to-PCI bridge
	var sec uint32
	fmt.Sscanf(f.SecondaryBus, "0000:%x", &sec)
	b[0x19], b[0x1a] = byte(sec), byte(sec)
	const aer, acs = 0x100, 0x148
	next := uint32(0)
	if f.ACSCap != 0 {
		next = acs
		le.PutUint32(b[acs:], 1<<16|pcie.ExtCapACS)
		le.PutUint16(b[acs+pcie.ACSCapReg:], f.ACSCap)
		le.PutUint16(b[acs+pcie.ACSCtrlReg:], f.ACSCtl)
	}
	le.PutUint32(b[aer:], next<<20|2<<16|0x0001)
	if n.ConfigHeaderOnly {
		return b[:pcie.ConfigHeaderSize]
	}
	return b
}

// AER bit names of current kernels (drivers/pci/pcie/aer.c
// aer_correctable_error_string / aer_uncorrectable_error_string); "" is an
// unnamed bit, printed only when non-zero.
var (
	aerCorNames = [32]string{0: "RxErr", 6: "BadTLP", 7: "BadDLLP", 8: "Rollover", 12: "Timeout",
		13: "NonFatalErr", 14: "CorrIntErr", 15: "HeaderOF"}
	aerUncorNames = [32]string{0: "Undefined", 4: "DLP", 5: "SDES", 12: "TLP", 13: "FCP", 14: "CmpltTO",
		15: "CmpltAbrt", 16: "UnxCmplt", 17: "RxOF", 18: "MalfTLP", 19: "ECRC", 20: "UnsupReq", 21: "ACSViol",
		22: "UncorrIntErr", 23: "BlockedTLP", 24: "AtomicOpBlocked", 25: "TLPBlockedErr", 26: "PoisonTLPBlocked"}
)

// aerText renders aer_dev_* as aer_stats_dev_attr does: "%s %llu\n" per
// named bit, "%s_bit[%d] %llu\n" for non-zero unnamed bits, then
// "TOTAL_%s %llu\n".
func aerText(names [32]string, errType, total string, c AERCounts) string {
	var b strings.Builder
	for i, name := range names {
		switch {
		case name != "":
			fmt.Fprintf(&b, "%s %d\n", name, c.Bits[i])
		case c.Bits[i] != 0:
			fmt.Fprintf(&b, "%s_bit[%d] %d\n", errType, i, c.Bits[i])
		}
	}
	fmt.Fprintf(&b, "TOTAL_%s %d\n", total, c.Total)
	return b.String()
}

// renderDevice writes /sys/class/infiniband/<dev> (drivers/infiniband/
// core/sysfs.c and the mlx5 driver attributes).
func (n *Node) renderDevice(r *renderer, d *Device) {
	dir := d.Dir()
	r.link(layout.ClassInfiniband+"/"+d.Name, dir)
	r.link(dir+"/device", d.PCI.Path())
	r.file(dir+"/node_type", "1: CA\n")
	r.file(dir+"/node_guid", ib.FormatGUID(d.NodeGUID)+"\n")
	r.file(dir+"/sys_image_guid", ib.FormatGUID(d.SysImageGUID)+"\n")
	r.file(dir+"/fw_ver", d.FW+"\n")
	r.file(dir+"/hca_type", d.HCAType+"\n")
	r.file(dir+"/hw_rev", d.HWRev+"\n")
	r.file(dir+"/board_id", d.BoardID+"\n")
	desc := d.NodeDesc
	if len(desc) > 64 {
		desc = desc[:64]
	}
	r.file(dir+"/node_desc", desc+"\n")
	// mlx5 registers device-level hw_counters only in switchdev mode, and
	// port-level ones otherwise (drivers/infiniband/hw/mlx5/counters.c,
	// mlx5_ib_counters_init: hw_stats_ops has no alloc_hw_device_stats).
	if d.HWCounters != nil {
		r.file(dir+"/hw_counters/lifespan", fmt.Sprintf("%d\n", d.Lifespan))
		for k, v := range d.HWCounters {
			r.file(dir+"/hw_counters/"+k, strconv.FormatUint(v, 10)+"\n")
		}
	}
	for _, p := range d.Ports {
		n.renderPort(r, d, p)
	}
	// uverbs (drivers/infiniband/core/uverbs_main.c): class device
	// below the PCI function, ibdev and abi_version attributes, major 231.
	uv := fmt.Sprintf("uverbs%d", d.Uverbs)
	udir := d.PCI.Path() + "/infiniband_verbs/" + uv
	r.link(layout.ClassVerbs+"/"+uv, udir)
	r.link(udir+"/device", d.PCI.Path())
	r.file(udir+"/ibdev", d.Name+"\n")
	r.file(udir+"/abi_version", "1\n")
	r.file(udir+"/dev", fmt.Sprintf("231:%d\n", 192+d.Uverbs))
	if !d.UverbsMissing {
		r.file(layout.Uverbs(uv), "")
	}
}

func (n *Node) renderPort(r *renderer, d *Device, p *Port) {
	dir := fmt.Sprintf("%s/ports/%d", d.Dir(), p.Num)
	r.file(dir+"/state", fmt.Sprintf("%d: %s\n", p.State, p.State))
	r.file(dir+"/phys_state", fmt.Sprintf("%d: %s\n", p.Phys, p.Phys))
	r.file(dir+"/rate", n.rateString(p.Rate())+"\n")
	r.file(dir+"/lid", fmt.Sprintf("0x%x\n", p.LID))
	r.file(dir+"/sm_lid", fmt.Sprintf("0x%x\n", p.SMLID))
	r.file(dir+"/sm_sl", fmt.Sprintf("%d\n", p.SMSL))
	r.file(dir+"/lid_mask_count", fmt.Sprintf("%d\n", p.LMC))
	r.file(dir+"/cap_mask", fmt.Sprintf("0x%08x\n", p.CapMask))
	r.file(dir+"/link_layer", string(p.LinkLayer)+"\n")
	for i, g := range p.GIDs {
		// show_port_gid: "%pI6\n"; an empty slot reads as the zero GID.
		r.file(fmt.Sprintf("%s/gids/%d", dir, i), g.GID.String()+"\n")
		// _show_port_gid_attr: EINVAL for an empty slot or no netdev.
		tp := fmt.Sprintf("%s/gid_attrs/types/%d", dir, i)
		if g.Type == "" {
			r.fail(tp)
		} else {
			r.file(tp, string(g.Type)+"\n")
		}
		np := fmt.Sprintf("%s/gid_attrs/ndevs/%d", dir, i)
		if g.NDev == "" || g.Type == "" {
			r.fail(np)
		} else {
			r.file(np, g.NDev+"\n")
		}
	}
	for i, k := range p.PKeys {
		r.file(fmt.Sprintf("%s/pkeys/%d", dir, i), fmt.Sprintf("0x%04x\n", k))
	}
	if !d.NoCounters {
		for k, v := range p.Counters {
			if !p.ClassicPMA || !extOnly[k] {
				r.file(dir+"/counters/"+k, strconv.FormatUint(v, 10)+"\n")
			}
		}
	}
	r.file(dir+"/hw_counters/lifespan", fmt.Sprintf("%d\n", d.Lifespan))
	for k, v := range p.HWCounters {
		r.file(dir+"/hw_counters/"+k, strconv.FormatUint(v, 10)+"\n")
	}
}

// renderNetDev writes /sys/class/net/<if> (net/core/net-sysfs.c).
func renderNetDev(r *renderer, nd *NetDev) {
	dir := nd.PCI.Path() + "/net/" + nd.Name
	r.link(layout.ClassNet+"/"+nd.Name, dir)
	r.link(dir+"/device", nd.PCI.Path())
	r.file(dir+"/operstate", nd.OperState+"\n")
	carrier := "0\n"
	if nd.Carrier {
		carrier = "1\n"
	}
	r.file(dir+"/carrier", carrier)
	r.file(dir+"/carrier_changes", fmt.Sprintf("%d\n", nd.CarrierChanges))
	r.file(dir+"/mtu", fmt.Sprintf("%d\n", nd.MTU))
	r.file(dir+"/speed", fmt.Sprintf("%d\n", nd.SpeedMbps))
	r.file(dir+"/type", fmt.Sprintf("%d\n", nd.Type))
	hex := make([]string, len(nd.Addr))
	for i, c := range nd.Addr {
		hex[i] = fmt.Sprintf("%02x", c)
	}
	r.file(dir+"/address", strings.Join(hex, ":")+"\n")
	// flags is "%#x" of dev->flags: IFF_UP|IFF_BROADCAST|IFF_MULTICAST.
	// IFF_UP is the administrative state, which a lost carrier leaves set:
	// operstate says "down", flags still 0x1003.
	r.file(dir+"/flags", "0x1003\n")
}

// renderVirtualNetDevs writes the interfaces every GPU node has besides its
// NICs, under sys/devices/virtual/net: lo (UP|LOOPBACK, operstate
// "unknown") and a docker0 bridge without containers (UP but no carrier,
// operstate "down"). Without them a list of sys/class/net would not show
// that NCCL_SOCKET_IFNAME=lo or =docker names something other nodes cannot
// reach.
func renderVirtualNetDevs(r *renderer) {
	for _, v := range []struct {
		name, oper, flags, addr string
		mtu, typ                int
		carrier                 string
	}{
		{"lo", "unknown", "0x9", "00:00:00:00:00:00", 65536, 772, "1"},
		{"docker0", "down", "0x1003", "02:42:8c:1e:55:0a", 1500, 1, "0"},
	} {
		dir := "sys/devices/virtual/net/" + v.name
		r.link(layout.ClassNet+"/"+v.name, dir)
		r.file(dir+"/operstate", v.oper+"\n")
		r.file(dir+"/flags", v.flags+"\n")
		r.file(dir+"/mtu", fmt.Sprintf("%d\n", v.mtu))
		r.file(dir+"/type", fmt.Sprintf("%d\n", v.typ))
		r.file(dir+"/address", v.addr+"\n")
		r.file(dir+"/carrier", v.carrier+"\n")
	}
}

// modules renders /proc/modules as m_show (kernel/module/procfs.c) does:
// "name size refcount users state address [taint]", users as "a,b," or
// "-".
func (n *Node) modules() string {
	var b strings.Builder
	for _, m := range n.Modules {
		users := "-"
		if len(m.Users) > 0 {
			users = strings.Join(m.Users, ",") + ","
		}
		fmt.Fprintf(&b, "%s %d %d %s Live 0x%016x", m.Name, m.Size, len(m.Users), users, m.Addr)
		if m.Taint != "" {
			b.WriteString(" " + m.Taint)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// dmesg renders the kernel log as `dmesg` prints it: "[%5d.%06d] text".
func (n *Node) dmesg() string {
	var b strings.Builder
	for _, l := range n.Kmsg {
		us := l.At.Microseconds()
		fmt.Fprintf(&b, "[%5d.%06d] %s\n", us/1_000_000, us%1_000_000, l.Text)
	}
	return b.String()
}

// ethtoolText renders `ethtool -S` output: "NIC statistics:" then
// "     name: value" per statistic (ethtool.c dump_stats).
func ethtoolText(stats []Stat) string {
	var b strings.Builder
	b.WriteString("NIC statistics:\n")
	for _, s := range stats {
		fmt.Fprintf(&b, "     %s: %d\n", s.Name, s.Value)
	}
	return b.String()
}
