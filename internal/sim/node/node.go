package node

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// Node is the in-memory model of one simulated node. Build makes one;
// fields may be changed directly or through the mutation methods, and
// Write/Update render it.
type Node struct {
	Host string
	// Profile is the profile name the node was built from.
	Profile string
	// Kernel is /proc/sys/kernel/osrelease.
	Kernel string
	// Legacy renders the formats of an older kernel (LegacyKernel; see
	// legacy.go) where they differ from current ones.
	Legacy bool
	// PCI holds every PCI function (root ports, switch ports, endpoints),
	// parents before children.
	PCI []*PCIFunc
	// Devices are the RDMA devices, in name order.
	Devices []*Device
	// NetDevs are the network interfaces, in creation order.
	NetDevs []*NetDev
	// Modules is /proc/modules, in the kernel's order (newest first).
	Modules []Module
	// Kmsg is the kernel log, written to cmd/dmesg.txt.
	Kmsg []LogLine
	// Uptime is the monotonic time of the node: log lines appended by
	// faults and the live simulator are stamped with it.
	Uptime time.Duration
	// Job is the training process (proc/<pid>/…, proc/self); nil for none.
	Job *Process
	// RdmaCM says whether dev/infiniband/rdma_cm exists.
	RdmaCM bool
	// Cmdline is the kernel command line (proc/cmdline), its parameters
	// in order.
	Cmdline []string
	// IOMMUs are the IOMMU units the kernel enabled (sys/class/iommu).
	IOMMUs []string
	// ConfigHeaderOnly renders the bridges' config files as a reader
	// without CAP_SYS_ADMIN sees them: the 64-byte header only.
	ConfigHeaderOnly bool
	// Mlx5Version and Mlx5SrcVersion are sys/module/mlx5_core/version and
	// srcversion; "" leaves the file out (an inbox driver has no version).
	Mlx5Version, Mlx5SrcVersion string
	// Files holds extra files by root-relative path (tool outputs under
	// cmd/, an environment under env/), written verbatim.
	Files map[string][]byte
	// Unreadable holds root-relative paths rendered as unreadable (see the
	// package doc); normally filled by the "unreadable" fault.
	Unreadable map[string]bool

	written map[string]Entry
}

// PCIFunc is one PCI function: a root port, a switch port or an endpoint.
type PCIFunc struct {
	// Addr is "dddd:bb:dd.f".
	Addr pcie.Address
	// Parent is the upstream bridge, nil for a root port (whose parent is
	// the host bridge directory pciDDDD:BB named by Root).
	Parent *PCIFunc
	// Root is the host bridge directory name, "pci0000:17".
	Root string
	// Name is the simulator's label: "gpu3", "mlx5_2", "sw1-up", "rp0".
	Name                          string
	Vendor, Device                uint16
	SubVendor, SubDevice          uint16
	Class                         uint32
	Revision                      uint8
	NUMA                          int
	CPUList                       string
	CurSpeed, MaxSpeed            pcie.Speed
	CurWidth, MaxWidth            int
	Driver                        string
	AERCor, AERNonFatal, AERFatal AERCounts
	// RootCor, RootNonFatal and RootFatal are a root port's
	// aer_rootport_total_err_* (messages received from below).
	RootCor, RootNonFatal, RootFatal uint64
	// SecondaryBus is the bus a bridge creates ("0000:18"), empty for
	// endpoints.
	SecondaryBus string
	// ACSCap and ACSCtl are a bridge's ACS Capability and Control
	// registers (pcie.ACS* bits); ACSCap 0 leaves the capability out of
	// its config space (a switch upstream port).
	ACSCap, ACSCtl uint16
	// Removed marks a function that has disappeared from the bus (a
	// "missing" device): it and its children are not rendered.
	Removed bool
}

// AERCounts are a device's AER counters by bit (0–31) and the TOTAL_ERR_*
// message count.
type AERCounts struct {
	Bits  [32]uint64
	Total uint64
}

// Bridge reports whether the function is a PCI-to-PCI bridge.
func (p *PCIFunc) Bridge() bool { return pcie.IsBridge(p.Class) }

// Path is the function's directory below the root:
// "sys/devices/pci0000:17/0000:17:01.0/…/0000:1a:00.0".
func (p *PCIFunc) Path() string {
	var parts []string
	for q := p; q != nil; q = q.Parent {
		parts = append(parts, string(q.Addr))
	}
	root := p
	for root.Parent != nil {
		root = root.Parent
	}
	parts = append(parts, root.Root, "sys/devices")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}

// gone reports whether the function or one of its ancestors was removed.
func (p *PCIFunc) gone() bool {
	for q := p; q != nil; q = q.Parent {
		if q.Removed {
			return true
		}
	}
	return false
}

// Device is one RDMA device (/sys/class/infiniband/<Name>).
type Device struct {
	Name         string
	PCI          *PCIFunc
	NodeGUID     uint64
	SysImageGUID uint64
	FW           string
	HCAType      string
	HWRev        string
	BoardID      string
	NodeDesc     string
	Ports        []*Port
	// HWCounters, when set, are the device-level hw_counters (without
	// lifespan), which mlx5 shows only in switchdev mode; nil renders no
	// device-level hw_counters directory, as mlx5 does outside it.
	HWCounters map[string]uint64
	// NoCounters drops every ports/<n>/counters/ directory, as drivers
	// without process_mad show.
	NoCounters bool
	// Unbound means the PCI function is present but no driver is bound:
	// no infiniband, net or uverbs directories.
	Unbound bool
	// Uverbs is the N of uverbsN; UverbsMissing hides dev/infiniband/uverbsN
	// (a container without the device mapped).
	Uverbs        int
	UverbsMissing bool
	// Lifespan is hw_counters/lifespan in ms.
	Lifespan int
}

// present reports whether the device shows up in sysfs.
func (d *Device) present() bool { return !d.Unbound && !d.PCI.gone() }

// Dir is the device's real directory below the root.
func (d *Device) Dir() string { return d.PCI.Path() + "/infiniband/" + d.Name }

// Port returns port n or nil.
func (d *Device) Port(n int) *Port {
	for _, p := range d.Ports {
		if p.Num == n {
			return p
		}
	}
	return nil
}

// GIDEntry is one slot of a port's GID table.
type GIDEntry struct {
	GID ib.GID
	// Type and NDev are the gid_attrs; an empty Type marks an empty slot
	// (the kernel answers EINVAL for its attributes).
	Type ib.GIDType
	NDev string
}

// Port is one port of an RDMA device.
type Port struct {
	Num       int
	LinkLayer ib.LinkLayer
	State     ib.PortState
	Phys      ib.PhysState
	// Width and Speed are the active link; for a down RoCE port the kernel
	// shows 4X QDR regardless (see RoCE below).
	Width int
	Speed ib.Speed
	// SpeedMax and WidthMax are what the cable and HCA support (the
	// healthy link); faults lower Width/Speed below them.
	WidthMax   int
	SpeedMax   ib.Speed
	LID, SMLID uint16
	// AssignedLID and AssignedSMLID are what the subnet manager gave the
	// port; SetLink restores them when the port becomes ARMED or ACTIVE.
	AssignedLID, AssignedSMLID uint16
	SMSL, LMC                  uint8
	CapMask                    uint32
	GIDs                       []GIDEntry
	PKeys                      []uint16
	// Counters are the counters/ files (PMA PortCounters/Ext).
	Counters map[string]uint64
	// ClassicPMA marks a PMA without PortCountersExtended: the kernel
	// shows the 32-bit PortCounters table (data and packet counters
	// saturate at 2^32-1, no unicast/multicast files).
	ClassicPMA bool
	// HWCounters are the per-port hw_counters (without lifespan).
	HWCounters map[string]uint64
	// NetDev is the port's netdev (IPoIB for IB, the Ethernet interface
	// for RoCE), or nil.
	NetDev *NetDev
}

// Rate is what the port's rate file shows.
func (p *Port) Rate() ib.Rate {
	if p.LinkLayer == ib.LinkLayerEthernet && !p.up() {
		// mlx5_query_port_roce: width/speed default to 4X QDR and an
		// unknown (down) eth_proto_oper leaves them.
		return ib.NewRate(4, ib.SpeedQDR)
	}
	if p.LinkLayer == ib.LinkLayerInfiniBand && p.Phys != ib.PhysLinkUp {
		// mlx5 reports 4X SDR for an IB port without a link ("Rate: 10"
		// in ibstat of a down ConnectX port).
		return ib.NewRate(4, ib.SpeedSDR)
	}
	return ib.NewRate(p.Width, p.Speed)
}

func (p *Port) up() bool { return p.State == ib.StateActive && p.Phys == ib.PhysLinkUp }

// NetDev is one network interface (/sys/class/net/<Name>).
type NetDev struct {
	Name string
	PCI  *PCIFunc
	// Type is ARPHRD: 1 Ethernet, 32 InfiniBand (IPoIB).
	Type int
	// Addr is the hardware address (6 bytes Ethernet, 20 bytes IPoIB).
	Addr           []byte
	MTU            int
	OperState      string
	Carrier        bool
	CarrierChanges uint64
	// SpeedMbps is the link speed; -1 when unknown (link down).
	SpeedMbps int
	// Port is the RDMA port this netdev belongs to.
	Port *Port
	// IPv4 is the interface address, used for RoCE v2 GIDs.
	IPv4 [4]byte
	// Ethtool are the `ethtool -S` statistics in driver order; nil for no
	// cmd/ethtool-S file.
	Ethtool []Stat
}

// Stat is one named statistic.
type Stat struct {
	Name  string
	Value uint64
}

// Module is one line of /proc/modules.
type Module struct {
	Name string
	Size int
	// Users are the modules that depend on this one (the fourth field).
	Users []string
	// Taint is the "(OE)" style flags, empty when untainted.
	Taint string
	Addr  uint64
}

// LogLine is one kernel log record.
type LogLine struct {
	// At is the monotonic timestamp since boot.
	At time.Duration
	// Level is the syslog priority (3 err, 4 warning, 6 info).
	Level int
	Text  string
}

// Device returns the RDMA device with the name, or nil.
func (n *Node) Device(name string) *Device {
	for _, d := range n.Devices {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// NetDev returns the network interface with the name, or nil.
func (n *Node) NetDev(name string) *NetDev {
	for _, d := range n.NetDevs {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Func returns the PCI function with the label ("gpu3", "mlx5_2") or
// address ("0000:1a:00.0"), or nil.
func (n *Node) Func(nameOrAddr string) *PCIFunc {
	for _, p := range n.PCI {
		if p.Name == nameOrAddr || string(p.Addr) == nameOrAddr {
			return p
		}
	}
	return nil
}

// GPUs returns the GPU functions present on the bus, in address order.
func (n *Node) GPUs() []*PCIFunc {
	var out []*PCIFunc
	for _, p := range n.PCI {
		if pcie.IsGPU(p.Class) && !p.gone() {
			out = append(out, p)
		}
	}
	return out
}

// PortRef resolves "mlx5_3/1" to the port.
func (n *Node) PortRef(ref string) (*Device, *Port, error) {
	dn, ps, ok := strings.Cut(ref, "/")
	if !ok {
		return nil, nil, fmt.Errorf("port %q: want DEVICE/PORT, e.g. mlx5_3/1", ref)
	}
	d := n.Device(dn)
	if d == nil {
		return nil, nil, fmt.Errorf("port %q: no RDMA device %q (have %s)", ref, dn, n.deviceNames())
	}
	var num int
	if _, err := fmt.Sscanf(ps, "%d", &num); err != nil || fmt.Sprint(num) != ps {
		return nil, nil, fmt.Errorf("port %q: port number %q is not a number", ref, ps)
	}
	p := d.Port(num)
	if p == nil {
		return nil, nil, fmt.Errorf("port %q: %s has no port %d", ref, dn, num)
	}
	return d, p, nil
}

func (n *Node) deviceNames() string {
	var s []string
	for _, d := range n.Devices {
		s = append(s, d.Name)
	}
	return strings.Join(s, ", ")
}

// Log appends a kernel log line stamped with the node's uptime.
func (n *Node) Log(level int, format string, a ...any) {
	n.Kmsg = append(n.Kmsg, LogLine{At: n.Uptime, Level: level, Text: fmt.Sprintf(format, a...)})
}

// Advance moves the node's clock (used for log timestamps).
func (n *Node) Advance(d time.Duration) { n.Uptime += d }

// SetFile sets an extra file (a tool output under cmd/ or an environment
// under env/); nil data removes it.
func (n *Node) SetFile(path string, data []byte) {
	if n.Files == nil {
		n.Files = map[string][]byte{}
	}
	if data == nil {
		delete(n.Files, path)
		return
	}
	n.Files[path] = data
}

// RemoveModule drops a module from /proc/modules and from the users lists.
func (n *Node) RemoveModule(name string) bool {
	found := false
	out := n.Modules[:0]
	for _, m := range n.Modules {
		if m.Name == name {
			found = true
			continue
		}
		users := m.Users[:0:0]
		for _, u := range m.Users {
			if u != name {
				users = append(users, u)
			}
		}
		m.Users = users
		out = append(out, m)
	}
	n.Modules = out
	return found
}

// Spec is the counter spec of a counters/ file of this port: with
// PortCountersExtended (all profiles) the data and packet counters are 64
// bits; a ClassicPMA port has the 32-bit, saturating ones.
func (p *Port) Spec(name string) ib.CounterSpec { return ib.PortCounterSpec(name, !p.ClassicPMA) }

// extOnly are the counters/ files only the full PortCountersExt table has
// (drivers/infiniband/core/sysfs.c pma_group_ext).
var extOnly = map[string]bool{
	"unicast_xmit_packets": true, "unicast_rcv_packets": true,
	"multicast_xmit_packets": true, "multicast_rcv_packets": true,
}

// AddCounter adds delta to a counters/ file with the counter's hardware
// semantics: IBTA error counters stop at their maximum, the others wrap at
// their width.
func (p *Port) AddCounter(name string, delta uint64) {
	p.Counters[name] = addSem(p.Counters[name], delta, p.Spec(name))
}

// AddHWCounter adds delta to a per-port hw_counters file; mlx5 Q counters
// are 32 bits and wrap.
func (p *Port) AddHWCounter(name string, delta uint64) {
	p.HWCounters[name] = addSem(p.HWCounters[name], delta, ib.HWCounterSpec(name))
}

func addSem(v, delta uint64, s ib.CounterSpec) uint64 {
	m := s.Max()
	if s.Saturating {
		if delta > m || v > m-delta {
			return m
		}
		return v + delta
	}
	if m == ^uint64(0) {
		return v + delta
	}
	return (v + delta) & m
}

// SetCounter sets a counters/ file, e.g. near 2^32 for wrap tests. It
// refuses values above the counter's width.
func (p *Port) SetCounter(name string, v uint64) error {
	if _, ok := p.Counters[name]; !ok {
		return fmt.Errorf("no counter %q (have %s)", name, strings.Join(sortedKeys(p.Counters), ", "))
	}
	if s := p.Spec(name); v > s.Max() {
		return fmt.Errorf("counter %s is %d bits wide: %d exceeds its maximum %d", name, s.Bits, v, s.Max())
	}
	p.Counters[name] = v
	return nil
}

// SetHWCounter sets a hw_counters file.
func (p *Port) SetHWCounter(name string, v uint64) error {
	if _, ok := p.HWCounters[name]; !ok {
		return fmt.Errorf("no hw counter %q (have %s)", name, strings.Join(sortedKeys(p.HWCounters), ", "))
	}
	if s := ib.HWCounterSpec(name); v > s.Max() {
		return fmt.Errorf("hw counter %s is %d bits wide: %d exceeds its maximum %d", name, s.Bits, v, s.Max())
	}
	p.HWCounters[name] = v
	return nil
}

// ResetCounters zeroes counters/ and hw_counters, as a driver reload or
// `perfquery -R` does.
func (p *Port) ResetCounters() {
	for k := range p.Counters {
		p.Counters[k] = 0
	}
	for k := range p.HWCounters {
		p.HWCounters[k] = 0
	}
}

// AddTraffic accounts bytes sent and received on the port: the data
// counters in 4-octet words, packets at the given size, RDMA requests, and
// for RoCE the netdev's vport RDMA statistics.
func (p *Port) AddTraffic(txBytes, rxBytes uint64, packetSize uint64) {
	if packetSize == 0 {
		packetSize = 4096
	}
	txPk := (txBytes + packetSize - 1) / packetSize
	rxPk := (rxBytes + packetSize - 1) / packetSize
	p.AddCounter("port_xmit_data", txBytes/4)
	p.AddCounter("port_rcv_data", rxBytes/4)
	p.AddCounter("port_xmit_packets", txPk)
	p.AddCounter("port_rcv_packets", rxPk)
	if _, ok := p.Counters["unicast_xmit_packets"]; ok {
		p.AddCounter("unicast_xmit_packets", txPk)
		p.AddCounter("unicast_rcv_packets", rxPk)
	}
	p.AddHWCounter("rx_write_requests", rxPk)
	if p.NetDev != nil && p.NetDev.Ethtool != nil {
		nd := p.NetDev
		nd.AddStat("rx_vport_rdma_unicast_packets", rxPk)
		nd.AddStat("rx_vport_rdma_unicast_bytes", rxBytes)
		nd.AddStat("tx_vport_rdma_unicast_packets", txPk)
		nd.AddStat("tx_vport_rdma_unicast_bytes", txBytes)
		nd.AddStat("rx_bytes_phy", rxBytes)
		nd.AddStat("tx_bytes_phy", txBytes)
		nd.AddStat("rx_packets_phy", rxPk)
		nd.AddStat("tx_packets_phy", txPk)
		nd.AddStat("rx_bits_phy", rxBytes*8)
	}
}

// SetLink sets the logical and physical state, keeping what the kernel
// derives from them consistent: LIDs of an IB port, the netdev's carrier
// and operstate (a RoCE port's state is synthesised from its netdev), and
// the carrier_changes count.
func (p *Port) SetLink(s ib.PortState, ph ib.PhysState) {
	p.State, p.Phys = s, ph
	if p.LinkLayer == ib.LinkLayerInfiniBand {
		switch {
		case s == ib.StateActive || s == ib.StateArmed:
			p.LID, p.SMLID = p.AssignedLID, p.AssignedSMLID
		default:
			// ibstat on a ConnectX port that is down or initializing:
			// "Base lid: 65535", "SM lid: 0".
			p.LID, p.SMLID = 0xffff, 0
		}
	}
	if nd := p.NetDev; nd != nil {
		up := p.up()
		if up != nd.Carrier {
			nd.CarrierChanges++
		}
		nd.Carrier = up
		if up {
			nd.OperState = "up"
			nd.SpeedMbps = p.Rate().DeciGbps * 100
		} else {
			nd.OperState = "down"
			nd.SpeedMbps = -1
		}
	}
}

// SetWidth changes the active width (1, 2, 4, 8 or 12 lanes).
func (p *Port) SetWidth(w int) error {
	for _, v := range ib.Widths {
		if v == w {
			p.Width = w
			p.syncSpeed()
			return nil
		}
	}
	return fmt.Errorf("width %d: want one of 1, 2, 4, 8, 12", w)
}

// SetSpeed changes the active lane speed.
func (p *Port) SetSpeed(s ib.Speed) {
	p.Speed = s
	p.syncSpeed()
}

func (p *Port) syncSpeed() {
	if p.NetDev != nil && p.NetDev.Carrier {
		p.NetDev.SpeedMbps = p.Rate().DeciGbps * 100
	}
}

// AddStat adds to an ethtool statistic, appending it when new.
func (nd *NetDev) AddStat(name string, delta uint64) {
	for i := range nd.Ethtool {
		if nd.Ethtool[i].Name == name {
			nd.Ethtool[i].Value += delta
			return
		}
	}
	nd.Ethtool = append(nd.Ethtool, Stat{name, delta})
}

// SetStat sets an ethtool statistic, appending it when new.
func (nd *NetDev) SetStat(name string, v uint64) {
	for i := range nd.Ethtool {
		if nd.Ethtool[i].Name == name {
			nd.Ethtool[i].Value = v
			return
		}
	}
	nd.Ethtool = append(nd.Ethtool, Stat{name, v})
}

// Stat returns an ethtool statistic.
func (nd *NetDev) Stat(name string) (uint64, bool) {
	for _, s := range nd.Ethtool {
		if s.Name == name {
			return s.Value, true
		}
	}
	return 0, false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
