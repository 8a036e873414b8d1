package snapshot

import (
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// Snapshot is one node's RDMA-relevant state.
type Snapshot struct {
	// Host is the node's name: proc/sys/kernel/hostname, or meta.json of a
	// bundle.
	Host string `json:"host"`
	// Taken is when the snapshot was read; rules use it instead of a clock.
	Taken time.Time `json:"taken"`
	// Root is the directory or bundle the snapshot was read from.
	Root string `json:"root"`
	// Kernel is proc/sys/kernel/osrelease when readable.
	Kernel string `json:"kernel,omitempty"`
	// DriverVersion is sys/module/mlx5_core/version, DriverSrcVersion its
	// srcversion; "" when absent (inbox drivers have no version).
	DriverVersion    string `json:"driver_version,omitempty"`
	DriverSrcVersion string `json:"driver_srcversion,omitempty"`
	// Devices are the entries of sys/class/infiniband, sorted by name.
	Devices []Device `json:"devices"`
	// PCI holds the PCI functions of the RDMA devices, the GPUs and the net
	// devices plus every bridge above them, sorted by address.
	PCI []PCIDevice `json:"pci"`
	// NetDevs are the entries of sys/class/net that belong to a PCI device
	// or an RDMA port, sorted by name.
	NetDevs []NetDev `json:"netdevs"`
	// Gaps are files that could not be read or parsed.
	Gaps []Gap `json:"gaps"`
}

// Gap records a file that could not be read or parsed and what it degrades.
type Gap struct {
	// Path is relative to the root, e.g.
	// "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error".
	Path string `json:"path"`
	Err  string `json:"error"`
}

// Device is one RDMA device, /sys/class/infiniband/<Name>.
type Device struct {
	Name string `json:"name"`
	// NodeType is node_type ("1: CA" → "CA").
	NodeType string `json:"node_type,omitempty"`
	// NodeGUID and SysImageGUID are node_guid / sys_image_guid as printed.
	NodeGUID     string `json:"node_guid,omitempty"`
	SysImageGUID string `json:"sys_image_guid,omitempty"`
	// FWVersion is fw_ver ("28.39.2048").
	FWVersion string `json:"fw_ver,omitempty"`
	// HCAType is hca_type ("MT4129"), BoardID board_id (PSID), HWRev hw_rev.
	HCAType  string `json:"hca_type,omitempty"`
	BoardID  string `json:"board_id,omitempty"`
	HWRev    string `json:"hw_rev,omitempty"`
	NodeDesc string `json:"node_desc,omitempty"`
	// PCI is the address of the function the device symlink points to, ""
	// for software devices (rxe, siw).
	PCI pcie.Address `json:"pci,omitempty"`
	// HWCounters are the device-level hw_counters/ (mlx5: port 0 counters).
	HWCounters []Counter `json:"hw_counters,omitempty"`
	Ports      []Port    `json:"ports"`
}

// Model returns a name for the HCA model used to group ports that should
// run alike: hca_type, else the PCI vendor:device, else "unknown".
func (d *Device) Model(s *Snapshot) string {
	if d.HCAType != "" {
		return d.HCAType
	}
	if p := s.PCIDevice(d.PCI); p != nil && p.Vendor != nil && p.DeviceID != nil {
		return pciID(*p.Vendor, *p.DeviceID)
	}
	return "unknown"
}

func pciID(v, d uint32) string {
	const hex = "0123456789abcdef"
	b := []byte("0000:0000")
	for i := 0; i < 4; i++ {
		b[3-i] = hex[(v>>(4*i))&15]
		b[8-i] = hex[(d>>(4*i))&15]
	}
	return string(b)
}

// Port is one port, /sys/class/infiniband/<dev>/ports/<Number>.
type Port struct {
	Device string `json:"device"`
	Number int    `json:"port"`
	// LinkLayer is link_layer; "" when unreadable.
	LinkLayer ib.LinkLayer `json:"link_layer"`
	// State and PhysState are state / phys_state keyed on their numbers.
	State     *ib.PortState `json:"state"`
	PhysState *ib.PhysState `json:"phys_state"`
	// Rate is rate. On RoCE a down port reads "40 Gb/sec (4X QDR)", which
	// means nothing: judge Rate only when State is ACTIVE.
	Rate *ib.Rate `json:"rate"`
	// LID, SMLID (lid, sm_lid), SMSL (sm_sl), LMC (lid_mask_count), CapMask
	// (cap_mask). RoCE ports read 0 for LIDs.
	LID     *uint32 `json:"lid,omitempty"`
	SMLID   *uint32 `json:"sm_lid,omitempty"`
	SMSL    *uint8  `json:"sm_sl,omitempty"`
	LMC     *uint8  `json:"lmc,omitempty"`
	CapMask *uint32 `json:"cap_mask,omitempty"`
	// GIDs are the non-zero entries of gids/ with gid_attrs/types and
	// gid_attrs/ndevs where the kernel has them, sorted by index.
	GIDs []GIDEntry `json:"gids,omitempty"`
	// PKeys are the non-zero entries of pkeys/ (the partition key table
	// the subnet manager programs) in index order; bit 15 set is full
	// membership, clear is limited. HasPKeys is false when pkeys/ could
	// not be listed: then PKeys says nothing.
	PKeys    []uint16 `json:"pkeys,omitempty"`
	HasPKeys bool     `json:"has_pkeys,omitempty"`
	// ActiveMTU and MaxMTU are the port's MTU in bytes as ibv_query_port
	// reports them (ibv_devinfo active_mtu, max_mtu); sysfs has no such
	// attribute, so only pasted tool output fills them.
	ActiveMTU *int `json:"active_mtu,omitempty"`
	MaxMTU    *int `json:"max_mtu,omitempty"`
	// NetDev is the Ethernet netdev of a RoCE port (from gid_attrs/ndevs or
	// the PCI function's net/ directory), or the IPoIB interface.
	NetDev string `json:"netdev,omitempty"`
	// HasCounters is false when counters/ does not exist (drivers without
	// process_mad); then Counters is empty by design, not by error.
	HasCounters bool      `json:"has_counters"`
	Counters    []Counter `json:"counters,omitempty"`
	// HWCounters are hw_counters/ files, names discovered at run time.
	HWCounters []Counter `json:"hw_counters,omitempty"`
}

// IsActive reports whether the logical state is ACTIVE.
func (p *Port) IsActive() bool { return p.State != nil && *p.State == ib.StateActive }

// Counter returns a counters/ value by file name.
func (p *Port) Counter(name string) (Counter, bool) { return findCounter(p.Counters, name) }

// HWCounter returns a hw_counters/ value by file name.
func (p *Port) HWCounter(name string) (Counter, bool) { return findCounter(p.HWCounters, name) }

func findCounter(cs []Counter, name string) (Counter, bool) {
	i, ok := slices.BinarySearchFunc(cs, name, func(c Counter, n string) int { return strings.Compare(c.Name, n) })
	if !ok {
		return Counter{}, false
	}
	return cs[i], true
}

// GIDEntry is one populated GID table slot.
type GIDEntry struct {
	Index int        `json:"index"`
	GID   ib.GID     `json:"gid"`
	Type  ib.GIDType `json:"type,omitempty"`
	// NetDev is gid_attrs/ndevs/<i> (RoCE).
	NetDev string `json:"netdev,omitempty"`
}

// Counter is one counter file's value with the spec that says its width,
// unit and whether it saturates.
type Counter struct {
	Name  string         `json:"name"`
	Value uint64         `json:"value"`
	Spec  ib.CounterSpec `json:"-"`
}

// Bytes converts a data counter to bytes (port_xmit_data × 4); ok is false
// for counters that are not data volumes.
func (c Counter) Bytes() (uint64, bool) {
	m := c.Spec.BytesPerUnit()
	if m == 0 {
		return 0, false
	}
	return c.Value * m, true
}

// Saturated reports whether the counter sits at its maximum.
func (c Counter) Saturated() bool { return c.Spec.IsSaturated(c.Value) }

// SortCounters sorts counters by name, as Port.Counter expects.
func SortCounters(cs []Counter) {
	slices.SortFunc(cs, func(a, b Counter) int { return strings.Compare(a.Name, b.Name) })
}

// PCIDevice is one PCI function, /sys/bus/pci/devices/<Address>.
type PCIDevice struct {
	Address pcie.Address `json:"address"`
	// Path is the device's directory below sys/devices, e.g.
	// "pci0000:3a/0000:3a:00.0/0000:3b:00.0"; its first element names the
	// root complex, the others the bridges on the way down.
	Path string `json:"path"`
	// Parent is the address of the bridge above, "" below a root complex.
	Parent pcie.Address `json:"parent,omitempty"`
	// Vendor, DeviceID and Class are vendor, device, class.
	Vendor   *uint32 `json:"vendor,omitempty"`
	DeviceID *uint32 `json:"device,omitempty"`
	Class    *uint32 `json:"class,omitempty"`
	// NUMANode is numa_node; -1 means unknown, as the kernel prints it.
	NUMANode *int `json:"numa_node,omitempty"`
	// Current/MaxLinkSpeed and Current/MaxLinkWidth are the link attributes.
	CurrentLinkSpeed *pcie.Speed `json:"current_link_speed,omitempty"`
	MaxLinkSpeed     *pcie.Speed `json:"max_link_speed,omitempty"`
	CurrentLinkWidth *int        `json:"current_link_width,omitempty"`
	MaxLinkWidth     *int        `json:"max_link_width,omitempty"`
	// Driver is the basename of the driver symlink ("mlx5_core", "nvidia").
	Driver string `json:"driver,omitempty"`
	// AER holds aer_dev_correctable/_nonfatal/_fatal totals where present.
	AER *AER `json:"aer,omitempty"`
	// ACS is the Access Control Services capability from config space,
	// read only for the bridges of P2PPaths and only when asked
	// (sysfs.Options.ReadACS); nil when not read (other functions, or
	// config readable only in part: see Gaps).
	ACS *pcie.ACS `json:"acs,omitempty"`
}

// AER are the totals of the aer_dev_* files (kernel 4.19+), with every named
// bit's count.
type AER struct {
	Correctable uint64            `json:"correctable"`
	NonFatal    uint64            `json:"nonfatal"`
	Fatal       uint64            `json:"fatal"`
	Bits        map[string]uint64 `json:"bits,omitempty"`
}

// IsGPU reports whether the function is an NVIDIA display/3D controller.
func (p *PCIDevice) IsGPU() bool {
	return p.Vendor != nil && *p.Vendor == pcie.VendorNVIDIA && p.Class != nil && pcie.IsGPU(*p.Class)
}

// IsBridge reports whether the function is a PCI bridge.
func (p *PCIDevice) IsBridge() bool { return p.Class != nil && pcie.IsBridge(*p.Class) }

// NetDev is one network interface, /sys/class/net/<Name>.
type NetDev struct {
	Name string `json:"name"`
	// PCI is the function the device symlink points to.
	PCI pcie.Address `json:"pci,omitempty"`
	// OperState is operstate ("up", "down", "lowerlayerdown", …).
	OperState string `json:"operstate,omitempty"`
	// Carrier is carrier (unreadable while the interface is down).
	Carrier *bool `json:"carrier,omitempty"`
	// CarrierChanges is carrier_changes.
	CarrierChanges *uint64 `json:"carrier_changes,omitempty"`
	MTU            *int    `json:"mtu,omitempty"`
	// Speed is speed in Mb/s (-1 or unreadable when down).
	Speed *int `json:"speed,omitempty"`
	// Type is the ARPHRD type: 1 Ethernet, 32 InfiniBand (IPoIB).
	Type    *int   `json:"type,omitempty"`
	Address string `json:"address,omitempty"`
}

// Driver is the mlx5_core version to compare nodes by: the module's
// version when it has one, else its srcversion; "" when neither is known.
func (s *Snapshot) Driver() string {
	if s.DriverVersion != "" {
		return s.DriverVersion
	}
	return s.DriverSrcVersion
}

// Device returns the RDMA device of that name, or nil.
func (s *Snapshot) Device(name string) *Device {
	for i := range s.Devices {
		if s.Devices[i].Name == name {
			return &s.Devices[i]
		}
	}
	return nil
}

// Port returns a device's port, or nil.
func (s *Snapshot) Port(dev string, n int) *Port {
	d := s.Device(dev)
	if d == nil {
		return nil
	}
	for i := range d.Ports {
		if d.Ports[i].Number == n {
			return &d.Ports[i]
		}
	}
	return nil
}

// PCIDevice returns the PCI function at an address, or nil.
func (s *Snapshot) PCIDevice(a pcie.Address) *PCIDevice {
	if a == "" {
		return nil
	}
	i, ok := slices.BinarySearchFunc(s.PCI, a, func(p PCIDevice, a pcie.Address) int { return strings.Compare(string(p.Address), string(a)) })
	if !ok {
		return nil
	}
	return &s.PCI[i]
}

// Upstream returns the bridges above a function, nearest first.
func (s *Snapshot) Upstream(a pcie.Address) []*PCIDevice {
	var out []*PCIDevice
	seen := map[pcie.Address]bool{}
	for p := s.PCIDevice(a); p != nil && p.Parent != "" && !seen[p.Parent]; {
		seen[p.Parent] = true
		parent := s.PCIDevice(p.Parent)
		if parent == nil {
			break
		}
		out = append(out, parent)
		p = parent
	}
	return out
}

// GPUs returns the NVIDIA GPUs among the PCI functions.
func (s *Snapshot) GPUs() []*PCIDevice {
	var out []*PCIDevice
	for i := range s.PCI {
		if s.PCI[i].IsGPU() {
			out = append(out, &s.PCI[i])
		}
	}
	return out
}

// NetDev returns the net device of that name, or nil.
func (s *Snapshot) NetDev(name string) *NetDev {
	for i := range s.NetDevs {
		if s.NetDevs[i].Name == name {
			return &s.NetDevs[i]
		}
	}
	return nil
}

// GapsUnder returns the gaps whose path starts with prefix.
func (s *Snapshot) GapsUnder(prefix string) []Gap {
	var out []Gap
	for _, g := range s.Gaps {
		if strings.HasPrefix(g.Path, prefix) {
			out = append(out, g)
		}
	}
	return out
}

// Sort puts every slice in its documented order, so sources can append in
// any order and output stays deterministic.
func (s *Snapshot) Sort() {
	slices.SortFunc(s.Devices, func(a, b Device) int { return strings.Compare(a.Name, b.Name) })
	for i := range s.Devices {
		d := &s.Devices[i]
		SortCounters(d.HWCounters)
		slices.SortFunc(d.Ports, func(a, b Port) int { return a.Number - b.Number })
		for j := range d.Ports {
			SortCounters(d.Ports[j].Counters)
			SortCounters(d.Ports[j].HWCounters)
			slices.SortFunc(d.Ports[j].GIDs, func(a, b GIDEntry) int { return a.Index - b.Index })
		}
	}
	slices.SortFunc(s.PCI, func(a, b PCIDevice) int { return strings.Compare(string(a.Address), string(b.Address)) })
	slices.SortFunc(s.NetDevs, func(a, b NetDev) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Gaps, func(a, b Gap) int { return strings.Compare(a.Path, b.Path) })
}
