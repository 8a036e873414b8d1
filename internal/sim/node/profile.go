package node

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// Profile is a named node layout.
type Profile struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	build       func(b *builder)
}

// DefaultProfile is the profile Build uses when none is named.
const DefaultProfile = "h100-ndr"

// DefaultHost is the host name Build uses when none is given.
const DefaultHost = "gpu001"

var profiles = []Profile{
	{
		Name: "h100-ndr",
		Description: "8x H100 SXM + 8x ConnectX-7 NDR InfiniBand (mlx5_0..7, 400 Gb/sec 4X NDR, PCIe Gen5 x16) " +
			"behind 4 PCIe switches (2 GPUs + 2 HCAs each, 2 switches per socket), " +
			"plus a dual-port ConnectX-6 Dx 100G RoCE frontend (mlx5_8/mlx5_9, ens1f0np0/ens1f1np1)",
		build: buildH100,
	},
	{
		Name: "a100-hdr",
		Description: "8x A100 SXM4 + 8x ConnectX-6 HDR InfiniBand (mlx5_0..7, 200 Gb/sec 4X HDR, PCIe Gen4 x16) " +
			"behind 4 PCIe switches (2 GPUs + 2 HCAs each)",
		build: buildA100,
	},
	{
		Name: "roce-400g",
		Description: "RoCE-only node: 8x H100 SXM + 8x ConnectX-7 Ethernet 400G (mlx5_0..7, 400 Gb/sec 4X NDR, " +
			"netdevs enp<bus>s0np0) behind 4 PCIe switches",
		build: buildRoCE400,
	},
}

// Profiles lists the profiles, default first.
func Profiles() []Profile { return append([]Profile(nil), profiles...) }

// Options say what Build makes.
type Options struct {
	// Profile names the layout (DefaultProfile when empty).
	Profile string
	// Host is the host name; it seeds GUIDs, MACs, LIDs and addresses
	// (DefaultHost when empty).
	Host string
	// Faults are applied in order after the node is built.
	Faults []Fault
}

// bootUptime is the node's uptime when the snapshot is taken; boot log
// lines sit in the first seconds, fault log lines at this time.
const bootUptime = 26*time.Hour + 17*time.Minute + 3*time.Second

// Build makes a node from a profile and applies the faults. The same
// options always give the same node.
func Build(o Options) (*Node, error) {
	name := o.Profile
	if name == "" {
		name = DefaultProfile
	}
	host := o.Host
	if host == "" {
		host = DefaultHost
	}
	if err := validHost(host); err != nil {
		return nil, err
	}
	var prof *Profile
	for i := range profiles {
		if profiles[i].Name == name {
			prof = &profiles[i]
		}
	}
	if prof == nil {
		var names []string
		for _, p := range profiles {
			names = append(names, p.Name)
		}
		return nil, fmt.Errorf("unknown profile %q (have %s)", name, strings.Join(names, ", "))
	}
	h := fnv.New64a()
	h.Write([]byte(host))
	b := &builder{
		n: &Node{
			Host: host, Profile: prof.Name, Kernel: "6.8.0-52-generic",
			RdmaCM: true, Unreadable: map[string]bool{}, Files: map[string][]byte{},
			// GPUDirect RDMA on bare metal: the IOMMU on, in passthrough.
			Cmdline: []string{"BOOT_IMAGE=/boot/vmlinuz-6.8.0-52-generic", "root=UUID=6b1f0c52-3a8e-4d0c-9a57-1f2e3d4c5b6a", "ro", "intel_iommu=on", "iommu=pt"},
			IOMMUs:  []string{"dmar0", "dmar1"},
			// An MLNX_OFED/DOCA driver matching firmware 28.39.
			Mlx5Version: "24.10-1.1.4", Mlx5SrcVersion: "6A2D5B6E7C1F0A3B4C5D6E7",
		},
		seed: h.Sum64(),
	}
	prof.build(b)
	b.finish()
	n := b.n
	n.Uptime = bootUptime
	// The boot log shows the links that came up at boot; faults happen
	// later and log their own lines.
	var upAtBoot []*NetDev
	for _, nd := range n.NetDevs {
		if nd.Type == 1 && nd.Carrier {
			upAtBoot = append(upAtBoot, nd)
		}
	}
	// The kernel is chosen first: other faults log in its formats.
	faults := make([]Fault, 0, len(o.Faults))
	for _, f := range o.Faults {
		if f.Kind == "old-kernel" {
			faults = append([]Fault{f}, faults...)
		} else {
			faults = append(faults, f)
		}
	}
	for _, f := range faults {
		if err := n.Apply(f); err != nil {
			return nil, fmt.Errorf("fault %q: %w", f.String(), err)
		}
	}
	n.Kmsg = append(b.bootLog(upAtBoot), n.Kmsg...)
	return n, nil
}

func validHost(h string) error {
	if len(h) > 64 {
		return fmt.Errorf("host name %q: longer than 64 characters", h)
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return fmt.Errorf("host name %q: only letters, digits, '-', '.' and '_' are allowed", h)
		}
	}
	return nil
}

// builder assembles a node. Every number it invents comes from seed, so
// a host name always gives the same GUIDs, MACs, LIDs and counters.
type builder struct {
	n    *Node
	seed uint64
	ctr  uint64
	// hca counts RDMA devices, gpu GPUs.
	hca, gpu int
}

// rnd is a deterministic splitmix64 stream over the seed.
func (b *builder) rnd() uint64 {
	b.ctr++
	z := b.seed + b.ctr*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func addr(bus, dev, fn int) pcie.Address {
	return pcie.Address(fmt.Sprintf("0000:%02x:%02x.%x", bus, dev, fn))
}

// hw describes a PCI part.
type hw struct {
	vendor, device, subVendor, subDevice uint16
	class                                uint32
	rev                                  uint8
	speed                                pcie.Speed
	width                                int
	driver                               string
}

var (
	intelRootPort = hw{0x8086, 0x352a, 0x8086, 0x0000, 0x060400, 0x04, pcie.Gen5, 16, "pcieport"}
	amdRootPort   = hw{0x1022, 0x1483, 0x1022, 0x1453, 0x060400, 0x00, pcie.Gen4, 16, "pcieport"}
	// Broadcom PEX89000 (Gen5) and PEX88000 (Gen4) switch ports.
	pex89000 = hw{0x1000, 0xc030, 0x1000, 0x0000, 0x060400, 0xb0, pcie.Gen5, 16, "pcieport"}
	pex88000 = hw{0x1000, 0xc010, 0x1000, 0x0000, 0x060400, 0xb0, pcie.Gen4, 16, "pcieport"}
	h100SXM  = hw{0x10de, 0x2330, 0x10de, 0x16c1, 0x030200, 0xa1, pcie.Gen5, 16, "nvidia"}
	a100SXM  = hw{0x10de, 0x20b2, 0x10de, 0x1463, 0x030200, 0xa1, pcie.Gen4, 16, "nvidia"}
	// ConnectX-7 (0x1021 → hca_type MT4129), ConnectX-6 (0x101b → MT4123),
	// ConnectX-6 Dx (0x101d → MT4125). Class 0x020700 in InfiniBand mode,
	// 0x020000 in Ethernet mode.
	cx7IB  = hw{0x15b3, 0x1021, 0x15b3, 0x0041, 0x020700, 0x00, pcie.Gen5, 16, "mlx5_core"}
	cx7Eth = hw{0x15b3, 0x1021, 0x15b3, 0x0043, 0x020000, 0x00, pcie.Gen5, 16, "mlx5_core"}
	cx6IB  = hw{0x15b3, 0x101b, 0x15b3, 0x0006, 0x020700, 0x00, pcie.Gen4, 16, "mlx5_core"}
	cx6Dx  = hw{0x15b3, 0x101d, 0x15b3, 0x0016, 0x020000, 0x00, pcie.Gen4, 16, "mlx5_core"}
)

// ACS capabilities (lspci -vvv ACSCap) of the root ports and the switch
// downstream ports; ACS Control starts all off, as on a GPU server whose
// BIOS disables ACS for peer-to-peer traffic. Upstream ports have none.
const (
	rootPortACS   = pcie.ACSSrcValid | pcie.ACSReqRedir | pcie.ACSCmpltRedir | pcie.ACSUpstreamFwd
	switchPortACS = rootPortACS | pcie.ACSTransBlk | pcie.ACSDirectTrans
)

func (b *builder) fn(a pcie.Address, parent *PCIFunc, root, name string, h hw, numa int, cpus string) *PCIFunc {
	p := &PCIFunc{
		Addr: a, Parent: parent, Root: root, Name: name,
		Vendor: h.vendor, Device: h.device, SubVendor: h.subVendor, SubDevice: h.subDevice,
		Class: h.class, Revision: h.rev, NUMA: numa, CPUList: cpus,
		CurSpeed: h.speed, MaxSpeed: h.speed, CurWidth: h.width, MaxWidth: h.width,
		Driver: h.driver,
	}
	b.n.PCI = append(b.n.PCI, p)
	return p
}

// socket describes one CPU socket / NUMA node.
type socket struct {
	numa int
	cpus string
}

// switchGroup adds a root complex pci0000:<bus> with a root port, a PCIe
// switch and endpoints below its downstream ports, and returns the
// downstream ports.
func (b *builder) switchGroup(bus int, s socket, rp, sw hw, n int, idx int) []*PCIFunc {
	root := fmt.Sprintf("pci0000:%02x", bus)
	r := b.fn(addr(bus, 1, 0), nil, root, fmt.Sprintf("rp%d", idx), rp, s.numa, s.cpus)
	r.SecondaryBus = fmt.Sprintf("0000:%02x", bus+1)
	r.ACSCap = rootPortACS
	up := b.fn(addr(bus+1, 0, 0), r, "", fmt.Sprintf("sw%d-up", idx), sw, s.numa, s.cpus)
	up.SecondaryBus = fmt.Sprintf("0000:%02x", bus+2)
	var downs []*PCIFunc
	for k := 0; k < n; k++ {
		d := b.fn(addr(bus+2, k, 0), up, "", fmt.Sprintf("sw%d-down%d", idx, k), sw, s.numa, s.cpus)
		d.SecondaryBus = fmt.Sprintf("0000:%02x", bus+3+k)
		d.ACSCap = switchPortACS
		downs = append(downs, d)
	}
	return downs
}

// endpoint adds the function below a downstream port and trains the link
// at the slower of the two ends.
func (b *builder) endpoint(down *PCIFunc, fnum int, name string, h hw) *PCIFunc {
	var bus int
	fmt.Sscanf(down.SecondaryBus, "0000:%x", &bus)
	p := b.fn(addr(bus, 0, fnum), down, "", name, h, down.NUMA, down.CPUList)
	sp := min(h.speed, down.MaxSpeed)
	w := min(h.width, down.MaxWidth)
	p.CurSpeed, p.CurWidth = sp, w
	down.CurSpeed, down.CurWidth = sp, w
	return p
}

func (b *builder) addGPU(down *PCIFunc, h hw) *PCIFunc {
	p := b.endpoint(down, 0, fmt.Sprintf("gpu%d", b.gpu), h)
	b.gpu++
	return p
}

// hca describes an adapter model.
type hca struct {
	hw      hw
	fw      string
	boardID string
	oui     uint64
	ll      ib.LinkLayer
	width   int
	speed   ib.Speed
}

var (
	hcaCX7NDR = hca{cx7IB, "28.39.2048", "MT_0000000838", 0xb83fd2, ib.LinkLayerInfiniBand, 4, ib.SpeedNDR}
	hcaCX7Eth = hca{cx7Eth, "28.39.2048", "MT_0000000844", 0xb83fd2, ib.LinkLayerEthernet, 4, ib.SpeedNDR}
	hcaCX6HDR = hca{cx6IB, "20.39.1002", "MT_0000000223", 0x043f72, ib.LinkLayerInfiniBand, 4, ib.SpeedHDR}
	// ConnectX-6 Dx at 100GbE CAUI-4: "100 Gb/sec (4X EDR)".
	hcaCX6Dx = hca{cx6Dx, "22.39.2048", "MT_0000000359", 0x0c42a1, ib.LinkLayerEthernet, 4, ib.SpeedEDR}
)

// Port counters start from values a node that has been up for a day could
// show: data in the tens of TB, no errors.
func (b *builder) counters() map[string]uint64 {
	m := map[string]uint64{}
	for _, s := range ib.PortCounterSpecs {
		m[s.Name] = 0
	}
	words := 2_000_000_000_000 + b.rnd()%1_000_000_000_000
	m["port_xmit_data"] = words
	m["port_rcv_data"] = words - words/50
	m["port_xmit_packets"] = words / 1024
	m["port_rcv_packets"] = (words - words/50) / 1024
	m["unicast_xmit_packets"] = words/1024 - 1200
	m["unicast_rcv_packets"] = (words-words/50)/1024 - 1100
	m["multicast_xmit_packets"] = 1200
	m["multicast_rcv_packets"] = 1100
	m["port_xmit_wait"] = b.rnd() % 100_000
	return m
}

// hwCounterNames are the mlx5 per-port hw_counters
// (drivers/infiniband/hw/mlx5/counters.c), by capability group.
var (
	hwBasic    = []string{"rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect", "out_of_buffer"}
	hwOOS      = []string{"out_of_sequence"}
	hwRetrans  = []string{"duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err"}
	hwExtended = []string{"resp_local_length_error", "resp_cqe_error", "req_cqe_error", "req_remote_invalid_request",
		"req_remote_access_errors", "resp_remote_access_errors", "resp_cqe_flush_error", "req_cqe_flush_error",
		"req_transport_retries_exceeded", "req_rnr_retries_exceeded"}
	hwRoCEAccel = []string{"roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans"}
	hwCong      = []string{"rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent"}
	hwPPCNT     = []string{"rx_icrc_encapsulated"}
)

func (b *builder) hwCounters(ll ib.LinkLayer) map[string]uint64 {
	m := map[string]uint64{}
	groups := [][]string{hwBasic, hwOOS, hwRetrans, hwExtended}
	if ll == ib.LinkLayerEthernet {
		groups = append(groups, hwRoCEAccel, hwCong, hwPPCNT)
	}
	for _, g := range groups {
		for _, n := range g {
			m[n] = 0
		}
	}
	m["rx_write_requests"] = b.rnd() % 3_000_000_000
	m["rx_read_requests"] = b.rnd() % 300_000_000
	m["rx_atomic_requests"] = b.rnd() % 1000
	return m
}

// ethtoolStats is the `ethtool -S` set of an mlx5 Ethernet port, in the
// driver's group order (en_stats.c: sw, vport, 802.3/2863/2819 phy,
// statistical phy, per-priority, pause storm, module, PCIe), trimmed to
// the statistics ibdoctor reads; per-ring statistics are left out.
func ethtoolStats(pfcPrio int, seed uint64) []Stat {
	names := []string{
		"rx_packets", "rx_bytes", "tx_packets", "tx_bytes",
		"rx_out_of_buffer",
		"rx_vport_rdma_unicast_packets", "rx_vport_rdma_unicast_bytes",
		"tx_vport_rdma_unicast_packets", "tx_vport_rdma_unicast_bytes",
		"rx_packets_phy", "rx_bytes_phy", "tx_packets_phy", "tx_bytes_phy",
		"rx_crc_errors_phy", "rx_symbol_err_phy", "rx_in_range_len_errors_phy", "rx_out_of_range_len_phy",
		"rx_oversize_pkts_phy", "rx_undersize_pkts_phy", "rx_fragments_phy", "rx_jabbers_phy",
		"rx_discards_phy", "tx_discards_phy", "tx_errors_phy",
		"rx_pause_ctrl_phy", "tx_pause_ctrl_phy",
		"link_down_events_phy",
		"rx_pcs_symbol_err_phy", "rx_corrected_bits_phy", "rx_bits_phy",
		"rx_buffer_passed_thres_phy",
	}
	p := fmt.Sprintf("prio%d", pfcPrio)
	names = append(names,
		"rx_"+p+"_bytes", "rx_"+p+"_packets", "rx_"+p+"_discards",
		"tx_"+p+"_bytes", "tx_"+p+"_packets",
		"rx_"+p+"_pause", "rx_"+p+"_pause_duration", "tx_"+p+"_pause", "tx_"+p+"_pause_duration",
		"rx_"+p+"_pause_transition",
		"rx_"+p+"_buf_discard", "rx_"+p+"_cong_discard", "rx_"+p+"_marked",
		"tx_pause_storm_warning_events", "tx_pause_storm_error_events",
		"module_unplug", "module_bus_stuck", "module_high_temp", "module_bad_shorted",
		"rx_pci_signal_integrity", "tx_pci_signal_integrity",
		"outbound_pci_buffer_overflow", "outbound_pci_stalled_rd", "outbound_pci_stalled_wr",
		"outbound_pci_stalled_rd_events", "outbound_pci_stalled_wr_events",
	)
	out := make([]Stat, len(names))
	base := 1_000_000_000 + seed%1_000_000_000
	for i, n := range names {
		out[i] = Stat{Name: n}
		switch n {
		case "rx_packets", "tx_packets":
			out[i].Value = base / 1000
		case "rx_bytes", "tx_bytes":
			out[i].Value = base
		case "rx_packets_phy", "tx_packets_phy", "rx_" + p + "_packets", "tx_" + p + "_packets":
			out[i].Value = base * 4
		case "rx_bytes_phy", "tx_bytes_phy", "rx_" + p + "_bytes", "tx_" + p + "_bytes":
			out[i].Value = base * 4096
		case "rx_bits_phy":
			out[i].Value = base * 4096 * 8
		}
	}
	return out
}

// addHCA adds one RDMA device with one port on PCI function f. netdev
// names the Ethernet or IPoIB interface.
func (b *builder) addHCA(f *PCIFunc, m hca, netdev string, sysImage uint64) *Device {
	name := fmt.Sprintf("mlx5_%d", b.hca)
	f.Name = name
	low := b.rnd() & 0xffffff
	mac := []byte{byte(m.oui >> 16), byte(m.oui >> 8), byte(m.oui), byte(low >> 16), byte(low >> 8), byte(low)}
	guid := m.oui<<40 | 0x0300<<24 | low
	if sysImage == 0 {
		sysImage = guid
	}
	d := &Device{
		Name: name, PCI: f, NodeGUID: guid, SysImageGUID: sysImage,
		FW: m.fw, HCAType: fmt.Sprintf("MT%d", m.hw.device), HWRev: "0", BoardID: m.boardID,
		NodeDesc: b.n.Host + " " + name, Uverbs: b.hca, Lifespan: 10,
	}
	p := &Port{
		Num: 1, LinkLayer: m.ll, State: ib.StateActive, Phys: ib.PhysLinkUp,
		Width: m.width, Speed: m.speed, WidthMax: m.width, SpeedMax: m.speed,
		Counters: b.counters(), HWCounters: b.hwCounters(m.ll),
	}
	nd := &NetDev{Name: netdev, PCI: f, Carrier: true, OperState: "up", CarrierChanges: 2, Port: p}
	if m.ll == ib.LinkLayerInfiniBand {
		lid := uint16(1 + (b.seed%1500)*8 + uint64(b.hca))
		p.LID, p.AssignedLID = lid, lid
		p.SMLID, p.AssignedSMLID = 1, 1
		p.CapMask = 0x2651e848
		p.GIDs = make([]GIDEntry, 8)
		var g ib.GID
		g[0], g[1] = 0xfe, 0x80
		for i := 0; i < 8; i++ {
			g[8+i] = byte(guid >> (56 - 8*i))
		}
		p.GIDs[0] = GIDEntry{GID: g, Type: ib.GIDTypeIBRoCEv1}
		p.PKeys = make([]uint16, 128)
		p.PKeys[0] = 0xffff
		nd.Type = 32
		nd.MTU = 4092
		// IPoIB hardware address: 4 bytes of flags and QPN, then the
		// port GID.
		qpn := 0x1000 + uint32(b.rnd()&0x7ff)
		nd.Addr = append([]byte{0, byte(qpn >> 16), byte(qpn >> 8), byte(qpn)}, g[:]...)
	} else {
		p.CapMask = 0x04010000
		p.GIDs = make([]GIDEntry, 255)
		eui := []byte{mac[0] ^ 2, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]}
		var ll6 ib.GID
		ll6[0], ll6[1] = 0xfe, 0x80
		copy(ll6[8:], eui)
		ip := [4]byte{10, byte(100 + b.hca), byte(b.seed >> 8), byte(1 + b.seed%250)}
		var v4 ib.GID
		v4[10], v4[11] = 0xff, 0xff
		copy(v4[12:], ip[:])
		p.GIDs[0] = GIDEntry{ll6, ib.GIDTypeIBRoCEv1, netdev}
		p.GIDs[1] = GIDEntry{ll6, ib.GIDTypeRoCEv2, netdev}
		p.GIDs[2] = GIDEntry{v4, ib.GIDTypeIBRoCEv1, netdev}
		p.GIDs[3] = GIDEntry{v4, ib.GIDTypeRoCEv2, netdev}
		p.PKeys = []uint16{0xffff}
		nd.Type = 1
		nd.MTU = 9000
		nd.Addr = mac
		nd.IPv4 = ip
		nd.Ethtool = ethtoolStats(3, b.rnd())
	}
	nd.SpeedMbps = p.Rate().DeciGbps * 100
	p.NetDev = nd
	d.Ports = []*Port{p}
	b.n.Devices = append(b.n.Devices, d)
	b.n.NetDevs = append(b.n.NetDevs, nd)
	b.hca++
	return d
}

func ibName(f *PCIFunc) string {
	var bus int
	fmt.Sscanf(string(f.Addr), "0000:%x:", &bus)
	return fmt.Sprintf("ibp%ds0", bus)
}

func ethName(f *PCIFunc) string {
	var bus int
	fmt.Sscanf(string(f.Addr), "0000:%x:", &bus)
	return fmt.Sprintf("enp%ds0np0", bus)
}

var (
	sprSockets  = []socket{{0, "0-55,112-167"}, {1, "56-111,168-223"}}
	romeSockets = []socket{{0, "0-63,128-191"}, {1, "64-127,192-255"}}
)

// gpuHCASwitches adds four switches, two per socket, each with an HCA, a
// GPU, an HCA and a GPU on its four downstream ports.
func (b *builder) gpuHCASwitches(buses []int, sockets []socket, rp, sw, gpu hw, m hca) {
	for i, bus := range buses {
		downs := b.switchGroup(bus, sockets[i/2], rp, sw, 4, i)
		for k := 0; k < 2; k++ {
			f := b.endpoint(downs[2*k], 0, "", m.hw)
			nd := ibName(f)
			if m.ll == ib.LinkLayerEthernet {
				nd = ethName(f)
			}
			b.addHCA(f, m, nd, 0)
			b.addGPU(downs[2*k+1], gpu)
		}
	}
}

func buildH100(b *builder) {
	b.gpuHCASwitches([]int{0x15, 0x35, 0x95, 0xb5}, sprSockets, intelRootPort, pex89000, h100SXM, hcaCX7NDR)
	// Frontend: dual-port ConnectX-6 Dx on its own root port, socket 0.
	root := fmt.Sprintf("pci0000:%02x", 0x50)
	rp := b.fn(addr(0x50, 1, 0), nil, root, "rp-fe", intelRootPort, 0, sprSockets[0].cpus)
	rp.SecondaryBus = "0000:51"
	f0 := b.endpoint(rp, 0, "", cx6Dx)
	f1 := b.endpoint(rp, 1, "", cx6Dx)
	d0 := b.addHCA(f0, hcaCX6Dx, "ens1f0np0", 0)
	b.addHCA(f1, hcaCX6Dx, "ens1f1np1", d0.NodeGUID)
}

func buildA100(b *builder) {
	b.gpuHCASwitches([]int{0x0f, 0x47, 0x87, 0xc7}, romeSockets, amdRootPort, pex88000, a100SXM, hcaCX6HDR)
}

func buildRoCE400(b *builder) {
	b.gpuHCASwitches([]int{0x15, 0x35, 0x95, 0xb5}, sprSockets, intelRootPort, pex89000, h100SXM, hcaCX7Eth)
}

// finish adds what follows from the hardware: kernel modules and the
// training job.
func (b *builder) finish() {
	n := b.n
	n.Job = defaultJob(n)
	hasIPoIB, hasGPU := false, len(n.GPUs()) > 0
	for _, d := range n.Devices {
		if d.Ports[0].LinkLayer == ib.LinkLayerInfiniBand {
			hasIPoIB = true
		}
	}
	base := uint64(0xffffffffc0a00000) + (b.seed&0xff)<<16
	add := func(name string, size int, taint string, users ...string) {
		base -= uint64(size+0xfff) &^ 0xfff
		n.Modules = append(n.Modules, Module{Name: name, Size: size, Users: users, Taint: taint, Addr: base})
	}
	if hasGPU {
		add("nvidia_peermem", 16384, "(OE)")
		add("nvidia_uvm", 4956160, "(OE)")
		add("nvidia_modeset", 1523712, "(OE)", "nvidia_drm")
		add("nvidia_drm", 122880, "(OE)")
	}
	add("rdma_ucm", 28672, "")
	if hasIPoIB {
		add("ib_ipoib", 135168, "")
	}
	add("mlx5_ib", 462848, "")
	add("ib_uverbs", 184320, "", "rdma_ucm", "mlx5_ib")
	add("rdma_cm", 139264, "", "rdma_ucm")
	add("iw_cm", 53248, "", "rdma_cm")
	add("ib_cm", 135168, "", "rdma_cm", "ib_ipoib")
	core := []string{"rdma_ucm", "ib_ipoib", "mlx5_ib", "ib_uverbs", "rdma_cm", "iw_cm", "ib_cm"}
	if hasGPU {
		core = append([]string{"nvidia_peermem"}, core...)
	}
	if !hasIPoIB {
		n.RemoveModule("ib_ipoib")
		core = remove(core, "ib_ipoib")
		for i := range n.Modules {
			n.Modules[i].Users = remove(n.Modules[i].Users, "ib_ipoib")
		}
	}
	add("ib_core", 479232, "", core...)
	add("mlx5_core", 2428928, "", "mlx5_ib")
	add("mlxfw", 36864, "", "mlx5_core")
	if hasGPU {
		add("nvidia", 56807424, "(OE)", "nvidia_peermem", "nvidia_uvm", "nvidia_modeset")
	}
}

func remove(s []string, x string) []string {
	out := s[:0:0]
	for _, v := range s {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// pcieBW is the bandwidth pcie_print_link_status reports, in Mb/s:
// width × the per-lane rate after encoding overhead (PCIE_SPEED2MBS_ENC:
// 8b/10b up to Gen2, 128b/130b for Gen3–5, 1b/1b flit mode for Gen6).
func pcieBW(s pcie.Speed, width int) int {
	mt := int(s) * 100
	switch {
	case s <= pcie.Gen2:
		return width * mt * 8 / 10
	case s >= pcie.Gen6:
		return width * mt
	}
	return width * (mt * 128 / 130)
}

func bwString(mbps int) string { return fmt.Sprintf("%d.%03d Gb/s", mbps/1000, mbps%1000) }

// bootLog is the kernel log of the boot: driver probe lines for every
// HCA and GPU, reflecting the PCIe links as they trained, and link-up
// lines for the Ethernet ports that came up.
func (b *builder) bootLog(up []*NetDev) []LogLine {
	n := b.n
	var out []LogLine
	var t time.Duration
	log := func(level int, format string, a ...any) {
		out = append(out, LogLine{At: t, Level: level, Text: fmt.Sprintf(format, a...)})
		t += 13*time.Millisecond + 417*time.Microsecond
	}
	log(5, "Linux version %s (buildd@lcy02-amd64-046) (x86_64-linux-gnu-gcc-12 (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #53~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC", n.Kernel)
	t = 3*time.Second + 201*time.Millisecond
	devs := append([]*Device(nil), n.Devices...)
	sort.Slice(devs, func(i, j int) bool { return devs[i].PCI.Addr < devs[j].PCI.Addr })
	for _, d := range devs {
		if !d.present() {
			continue
		}
		f := d.PCI
		log(6, "mlx5_core %s: firmware version: %s", f.Addr, d.FW)
		cur, capable := pcieBW(f.CurSpeed, f.CurWidth), pcieBW(f.MaxSpeed, f.MaxWidth)
		if cur < capable {
			// pcie_print_link_status names the limiting device.
			log(6, "mlx5_core %s: %s available PCIe bandwidth, limited by %s x%d link at %s (capable of %s with %s x%d link)",
				f.Addr, bwString(cur), n.speedString(f.CurSpeed), f.CurWidth, f.Parent.Addr, bwString(capable), n.speedString(f.MaxSpeed), f.MaxWidth)
		} else {
			log(6, "mlx5_core %s: %s available PCIe bandwidth (%s x%d link)", f.Addr, bwString(cur), n.speedString(f.CurSpeed), f.CurWidth)
		}
	}
	if gpus := n.GPUs(); len(gpus) > 0 {
		log(5, "nvidia: module license 'NVIDIA' taints kernel.")
		log(6, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05  Tue Oct  8 03:22:07 UTC 2024")
	}
	t = 21*time.Second + 874*time.Millisecond
	for _, nd := range up {
		if !nd.PCI.gone() {
			log(6, "mlx5_core %s %s: Link up", nd.PCI.Addr, nd.Name)
		}
	}
	return out
}
