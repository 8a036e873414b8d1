package host

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	hostmodel "github.com/ibdoctor/ibdoctor/internal/model/host"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/topo"
)

func u32(v uint32) *uint32 { return &v }
func intp(v int) *int      { return &v }

func pci(path string, class uint32, numaNode int) snapshot.PCIDevice {
	parts := strings.Split(path, "/")
	d := snapshot.PCIDevice{Address: pcie.Address(parts[len(parts)-1]), Path: path, Class: u32(class), NUMANode: intp(numaNode)}
	if len(parts) > 2 {
		d.Parent = pcie.Address(parts[len(parts)-2])
	}
	switch class {
	case pcie.Class3D:
		d.Vendor = u32(pcie.VendorNVIDIA)
	case pcie.ClassNetIB, pcie.ClassNetEth:
		d.Vendor = u32(pcie.VendorMellanox)
	case pcie.ClassBridgePCI:
		d.Vendor = u32(0x1000)
	}
	return d
}

func gid(s string) ib.GID {
	g, err := ib.ParseGID(s)
	if err != nil {
		panic(err)
	}
	return g
}

// testNode is a healthy host "gpu01": GPU0 and mlx5_0 (IB) under one PCIe
// switch (PIX) on socket 0; GPU1 and mlx5_1 (RoCE, ens1f0np0) under another
// switch on socket 1; mlx5_10 (IB) next to GPU1's switch's root complex.
func testNode() *snapshot.Snapshot {
	active := ib.StateActive
	linkUp := ib.PhysLinkUp
	mtu := 9000
	up := true
	s := &snapshot.Snapshot{
		Host:  "gpu01",
		Taken: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		PCI: []snapshot.PCIDevice{
			pci("pci0000:00/0000:00:01.0", pcie.ClassBridgePCI, 0),
			pci("pci0000:00/0000:00:01.0/0000:01:00.0", pcie.ClassBridgePCI, 0),
			pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", pcie.ClassBridgePCI, 0),
			pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0", pcie.ClassBridgePCI, 0),
			pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0", pcie.Class3D, 0),
			pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0", pcie.ClassNetIB, 0),
			pci("pci0000:80/0000:80:01.0", pcie.ClassBridgePCI, 1),
			pci("pci0000:80/0000:80:01.0/0000:81:00.0", pcie.ClassBridgePCI, 1),
			pci("pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:00.0", pcie.ClassBridgePCI, 1),
			pci("pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:01.0", pcie.ClassBridgePCI, 1),
			pci("pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:00.0/0000:83:00.0", pcie.Class3D, 1),
			pci("pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:01.0/0000:84:00.0", pcie.ClassNetEth, 1),
			pci("pci0000:80/0000:80:02.0/0000:85:00.0", pcie.ClassNetIB, 1),
		},
		Devices: []snapshot.Device{
			{Name: "mlx5_0", PCI: "0000:04:00.0", Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &active, PhysState: &linkUp}}},
			{Name: "mlx5_1", PCI: "0000:84:00.0", Ports: []snapshot.Port{{Device: "mlx5_1", Number: 1, LinkLayer: ib.LinkLayerEthernet, State: &active, PhysState: &linkUp, NetDev: "ens1f0np0",
				GIDs: []snapshot.GIDEntry{
					{Index: 0, GID: gid("fe80:0000:0000:0000:0c42:a1ff:fe12:3456"), Type: ib.GIDTypeIBRoCEv1, NetDev: "ens1f0np0"},
					{Index: 1, GID: gid("fe80:0000:0000:0000:0c42:a1ff:fe12:3456"), Type: ib.GIDTypeRoCEv2, NetDev: "ens1f0np0"},
					{Index: 2, GID: gid("0000:0000:0000:0000:0000:ffff:0a00:0001"), Type: ib.GIDTypeIBRoCEv1, NetDev: "ens1f0np0"},
					{Index: 3, GID: gid("0000:0000:0000:0000:0000:ffff:0a00:0001"), Type: ib.GIDTypeRoCEv2, NetDev: "ens1f0np0"},
				},
				HWCounters: []snapshot.Counter{{Name: "np_ecn_marked_roce_packets", Value: 0}, {Name: "rp_cnp_handled", Value: 0}},
			}}},
			{Name: "mlx5_10", PCI: "0000:85:00.0", Ports: []snapshot.Port{{Device: "mlx5_10", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &active, PhysState: &linkUp}}},
		},
		NetDevs: []snapshot.NetDev{{Name: "ens1f0np0", PCI: "0000:84:00.0", OperState: "up", Carrier: &up, MTU: &mtu}},
	}
	s.Sort()
	return s
}

// healthyInput has every source present and nothing wrong.
func healthyInput() *Input {
	return &Input{
		Snap:       testNode(),
		Kernel:     &kmsg.Log{Source: "cmd/dmesg.txt", Records: []kmsg.Record{{Line: 1, Text: "mlx5_core 0000:04:00.0: firmware version: 28.39.2048"}}},
		Ethtool:    []*ethtool.Stats{ethtool.New("ens1f0np0", "cmd/ethtool-S-ens1f0np0.txt", map[string]uint64{"rx_packets_phy": 1e9, "tx_packets_phy": 1e9, "rx_prio3_pause": 100, "rx_prio3_packets": 1e9})},
		Env:        ncclenv.FromList("job.env", []string{"NCCL_IB_HCA==mlx5_0,mlx5_1", "NCCL_SOCKET_IFNAME=ens", "NCCL_IB_GID_INDEX=3"}),
		Interfaces: []hostmodel.Interface{{Name: "lo", OperState: "unknown", Flags: 0x9}, {Name: "ens1f0np0", OperState: "up", Flags: 0x1003}, {Name: "docker0", OperState: "up", Flags: 0x1003}},
		Memlock:    &hostmodel.Limit{Source: "proc/self/limits", SoftUnlimited: true, HardUnlimited: true},
		Modules:    []string{"nvidia_peermem", "nvidia", "mlx5_ib", "ib_uverbs"},
		Uverbs:     map[string]string{"uverbs0": "mlx5_0", "uverbs1": "mlx5_1", "uverbs2": "mlx5_10"},
		Dev: []hostmodel.DevEntry{
			{Path: "dev/infiniband/uverbs0", Exists: true, Openable: true},
			{Path: "dev/infiniband/uverbs1", Exists: true, Openable: true},
			{Path: "dev/infiniband/uverbs2", Exists: true, Openable: true},
			{Path: "dev/infiniband/rdma_cm", Exists: true, Openable: true},
		},
	}
}

func logOf(lines ...string) *kmsg.Log {
	l, err := kmsg.ParseText(strings.NewReader(strings.Join(lines, "\n")+"\n"), "cmd/dmesg.txt", kmsg.TextOptions{Year: 2026})
	if err != nil {
		panic(err)
	}
	return l
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	return out
}

func TestHealthyNodeHasNoFindings(t *testing.T) {
	if fs := Check(healthyInput()); len(fs) != 0 {
		for _, f := range fs {
			t.Errorf("unexpected %s: %s", f.ID, f.Summary)
		}
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(in *Input)
		want   []string // ID/severity, in Run order
		// summary must contain this (first finding)
		summary string
	}{
		// Kernel log.
		{"xid 48 critical", func(in *Input) {
			in.Kernel = logOf("[ 9051.331270] NVRM: Xid (PCI:0000:03:00): 48, pid=20816, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1, subpartition 0.")
		}, []string{"gpu.xid/critical"}, "Xid 48 (ROBUST_CHANNEL_GPU_ECC_DBE) on GPU0 (0000:03:00.0), 1 time"},
		{"xid 63 info", func(in *Input) {
			in.Kernel = logOf("[  812.004113] NVRM: Xid (PCI:0000:83:00): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.")
		}, []string{"gpu.xid/info"}, "on GPU1"},
		// An Xid 79 and the same GPU's "fallen off the bus" line are one
		// gpu.xid (the lines of a ThinkPad T450s journal pasted to a
		// GitHub issue: Xid 79 then "NVRM: GPU 0000:01:00.0: GPU has
		// fallen off the bus.").
		{"xid 79 is one gpu.xid with the fallen line", func(in *Input) {
			in.Kernel = logOf("[12000.000000] NVRM: Xid (PCI:0000:83:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", "[12000.000010] NVRM: GPU 0000:83:00.0: GPU has fallen off the bus.")
		}, []string{"gpu.xid/critical"}, "Xid 79 on GPU1 (0000:83:00.0): the GPU has fallen off the PCIe bus (2 messages"},
		{"xid 79 alone is gpu.xid", func(in *Input) {
			in.Kernel = logOf("[12000.000000] NVRM: Xid (PCI:0000:83:00): 79, GPU has fallen off the bus.")
		}, []string{"gpu.xid/critical"}, "the GPU has fallen off the PCIe bus (1 message"},
		// One GPU with an Xid 79, another lost without one: one finding each.
		{"xid 79 on one GPU, fallen line alone on another", func(in *Input) {
			in.Kernel = logOf("[12000.000000] NVRM: Xid (PCI:0000:83:00): 79, GPU has fallen off the bus.", "[12000.000010] NVRM: GPU at 0000:03:00.0 has fallen off the bus.")
		}, []string{"gpu.fallen_off_bus/critical", "gpu.xid/critical"}, "GPU0 (0000:03:00.0) has fallen off the PCIe bus (1 message"},
		// NVIDIA/k8s-device-plugin#189: the plugin's own Xid line names
		// the GPU by UUID.
		{"device plugin xid by uuid", func(in *Input) {
			in.Kernel = logOf("[12000.000000] nvidia-device-plugin: XidCriticalError: Xid=48 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.")
		}, []string{"gpu.xid/critical"}, "Xid 48 (ROBUST_CHANNEL_GPU_ECC_DBE) on GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, 1 time"},
		{"device plugin marks the gpu unhealthy", func(in *Input) {
			in.Kernel = logOf("[12000.000000] nvidia-device-plugin: XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.")
		}, []string{"gpu.xid/warning"}, "the NVIDIA device plugin marked the GPU unhealthy"},
		{"fallen off the bus without an Xid", func(in *Input) {
			in.Kernel = logOf("[12000.000010] NVRM: GPU at 0000:83:00.0 has fallen off the bus.")
		}, []string{"gpu.fallen_off_bus/critical"}, "GPU1 (0000:83:00.0) has fallen off the PCIe bus (1 message in"},
		// NV_ERR_GPU_IS_LOST with no "fallen off the bus" line: the GSP
		// RPCs and an assert of a DGX Station A100's journal
		// (NVIDIA/open-gpu-kernel-modules#688, analyze
		// testdata/realworld-fresh40); they name no GPU.
		{"gpu lost from the bus without an address", func(in *Input) {
			in.Kernel = logOf("[12000.000000] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!",
				"[12000.000010] NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106")
		}, []string{"gpu.fallen_off_bus/critical"}, "An NVIDIA GPU (the lines name no PCI address: nvidia-smi -L and lspci -d 10de: show which one is missing) has fallen off the PCIe bus (2 messages in the kernel log: GSP RPC failed with NV_ERR_GPU_IS_LOST (0x0F): GPU lost from the bus; GPU lost from the bus (NV_ERR_GPU_IS_LOST))"},
		// The poster elided the address (NVIDIA/nccl#2241, analyze
		// testdata/realworld-fresh65): the Xid is still judged.
		{"xid with its address elided", func(in *Input) {
			in.Kernel = logOf("[12000.000000] NVRM: Xid (PCI:...): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 11 (...)")
		}, []string{"gpu.xid/warning"}, "Xid 145 (NVLINK_RLW_ERROR) on an NVIDIA GPU (its PCI address is elided in the lines: dmesg on the host names it), 1 time"},
		{"gpu lost from the bus with its address", func(in *Input) {
			in.Kernel = logOf("[12000.000000] NVRM: GPU 0000:83:00.0: GPU is lost, skipping nvidia_poll")
		}, []string{"gpu.fallen_off_bus/critical"}, "GPU1 (0000:83:00.0) has fallen off the PCIe bus (1 message"},
		{"xid outside the window", func(in *Input) {
			in.Kernel = logOf("[Sat Nov 28 09:00:00 2026] NVRM: Xid (PCI:0000:03:00): 48, pid=1, name=x, DBE")
			in.Since = in.Snap.Taken.Add(-2 * time.Hour)
		}, nil, ""},
		{"aer log on the HCA's switch port maps to the HCA", func(in *Input) {
			in.Kernel = logOf("[10033.500112] pcieport 0000:01:00.0: AER: Uncorrectable (Non-Fatal) error received: 0000:02:01.0",
				"[10033.500140] pcieport 0000:02:01.0: AER: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer, (Requester ID)")
		}, []string{"pcie.aer_errors/critical"}, "PCIe errors on the link of PCIe port 0000:02:01.0 above mlx5_0: 1 uncorrectable report in"},
		{"aer on the HCA itself", func(in *Input) {
			in.Snap.PCIDevice("0000:04:00.0").AER = &snapshot.AER{NonFatal: 1, Bits: map[string]uint64{"CmpltTO": 1}}
		}, []string{"pcie.aer_errors/critical"}, "PCIe errors on the link of mlx5_0 (0000:04:00.0): AER counters: 0 correctable, 1 non-fatal, 0 fatal"},
		{"aer at a switch above a GPU and an HCA is reported once", func(in *Input) {
			in.Snap.PCIDevice("0000:01:00.0").AER = &snapshot.AER{Correctable: 40}
		}, []string{"pcie.aer_errors/warning"}, "PCIe port 0000:01:00.0 above GPU0, mlx5_0: AER counters: 40 correctable"},
		{"few correctable log lines do not fire", func(in *Input) {
			in.Kernel = logOf("[1.0] pcieport 0000:00:01.0: AER: Correctable error received: 0000:04:00.0",
				"[1.1] mlx5_core 0000:04:00.0: AER: PCIe Bus Error: severity=Correctable, type=Physical Layer, (Receiver ID)")
		}, nil, ""},
		{"aer counters of the upstream port", func(in *Input) {
			p := in.Snap.PCIDevice("0000:82:00.0")
			p.AER = &snapshot.AER{Correctable: 250, Bits: map[string]uint64{"RxErr": 250}}
		}, []string{"pcie.aer_errors/warning"}, "PCIe port 0000:82:00.0 above GPU1: AER counters: 250 correctable"},
		{"aer counters of an unrelated device are ignored", func(in *Input) {
			in.Snap.PCI = append(in.Snap.PCI, pci("pci0000:40/0000:40:01.0", pcie.ClassBridgePCI, 0))
			in.Snap.Sort()
			in.Snap.PCIDevice("0000:40:01.0").AER = &snapshot.AER{Fatal: 3}
		}, nil, ""},
		{"link flaps", func(in *Input) {
			var l []string
			for i := 0; i < 3; i++ {
				l = append(l, "[11000.1] mlx5_core 0000:84:00.0 ens1f0np0: Link down", "[11002.3] mlx5_core 0000:84:00.0 ens1f0np0: Link up")
			}
			in.Kernel = logOf(l...)
		}, []string{"kmsg.link_flap/warning"}, "link of ens1f0np0 went down 3 times"},
		{"many link flaps critical", func(in *Input) {
			var l []string
			for i := 0; i < 6; i++ {
				l = append(l, "[1.0] mlx5_core 0000:04:00.0 mlx5_0: Port: 1 Link DOWN", "[2.0] mlx5_core 0000:04:00.0 mlx5_0: Port: 1 Link ACTIVE")
			}
			in.Kernel = logOf(l...)
		}, []string{"kmsg.link_flap/critical"}, "mlx5_0/1 went down 6 times"},
		{"one link down is no flap", func(in *Input) {
			in.Kernel = logOf("[1.0] mlx5_core 0000:84:00.0 ens1f0np0: Link down", "[2.0] mlx5_core 0000:84:00.0 ens1f0np0: Link up")
		}, nil, ""},
		{"bond failover is a warning", func(in *Input) {
			in.Kernel = logOf("[1202.718785] bond0: link status definitely down for interface eno50, disabling it",
				"[1202.740897] bond0: making interface eno49 the new active one")
		}, []string{"kmsg.bond_degraded/warning"}, "bond0: slave link definitely down 1 time (eno50); eno49 took over"},
		{"bond without any active slave is critical", func(in *Input) {
			in.Kernel = logOf("[1.0] bond1: (slave ens3f1): link status definitely down, disabling slave",
				"[1.1] bond1: (slave ens3f0): link status definitely down, disabling slave",
				"[1.2] bond1: now running without any active interface!")
		}, []string{"kmsg.bond_degraded/critical"}, "bond1: running without any active interface: every slave is down"},
		{"bond given an active slave back is a warning", func(in *Input) {
			in.Kernel = logOf("[1.0] bond1: (slave ens3f0): link status definitely down, disabling slave",
				"[1.2] bond1: now running without any active interface!",
				"[9.0] bond1: (slave ens3f0): link status definitely up, 100000 Mbps full duplex",
				"[9.1] bond1: active interface up!")
		}, []string{"kmsg.bond_degraded/warning"}, "bond1: slave link definitely down 1 time (ens3f0)"},
		{"bond coming up at boot is no finding", func(in *Input) {
			in.Kernel = logOf("[5.0] bond0: now running without any active interface!",
				"[6.0] bond0: (slave eth0): link status definitely up, 25000 Mbps full duplex",
				"[6.0] bond0: (slave eth0): making interface the new active one",
				"[6.0] bond0: first active interface up!")
		}, nil, ""},
		{"bond without LACP partner", func(in *Input) {
			in.Kernel = logOf("[30.0] bond0: Warning: No 802.3ad response from the link partner for any adapters in the bond")
		}, []string{"kmsg.bond_degraded/warning"}, "no 802.3ad (LACP) partner"},
		{"module error", func(in *Input) {
			in.Kernel = logOf("[1.0] mlx5_core 0000:84:00.0: mlx5_port_module_event:1101:(pid 0): Port module event[error]: module 0, Cable error, High Temperature")
		}, []string{"kmsg.module_event/critical"}, "port module of mlx5_1: High Temperature"},
		// A quoted line without its PCI address (realworld-fresh30
		// dmesg-gx10glm-aoc-module-high-temp-link-down.txt).
		{"module error, no address", func(in *Input) {
			in.Kernel = logOf("mlx5_core: Port module event[error]: module 0, Cable error, High Temperature")
		}, []string{"kmsg.module_event/critical"}, "port module of an mlx5 port (the line names no PCI address): High Temperature"},
		{"cable unplugged", func(in *Input) {
			in.Kernel = logOf("[1.0] mlx5_core 0000:84:00.0: Port module event: module 0, Cable unplugged")
		}, []string{"kmsg.module_event/warning"}, "Cable unplugged"},
		{"cable plugged is no finding", func(in *Input) {
			in.Kernel = logOf("[1.0] mlx5_core 0000:84:00.0: Port module event: module 0, Cable plugged")
		}, nil, ""},
		{"mlx5 health", func(in *Input) {
			in.Kernel = logOf("[1.0] mlx5_core 0000:04:00.0: poll_health:800:(pid 0): device's health compromised - reached miss count",
				"[1.1] mlx5_core 0000:04:00.0: wait_func:1171:(pid 12): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource")
		}, []string{"kmsg.mlx5_health/critical"}, "mlx5_0 firmware health: device's health compromised - reached miss count; firmware command timeout"},
		// cmd.c's other timeout wordings (a ConnectX-7 quoted on netdev, analyze testdata/realworld-fresh20,
		// dmesg-netdevlist-cx7-multihost-access-reg-cmd-timeout-quoted.txt) are the one command timeout.
		{"mlx5 command timeout in cmd.c's three wordings", func(in *Input) {
			in.Kernel = logOf("[257.1] mlx5_core 0000:04:00.0: wait_func_handle_exec_timeout:1159:(pid 72061): cmd[0]: ACCESS_REG(0x805) No done completion",
				"[257.2] mlx5_core 0000:04:00.0: wait_func:1189:(pid 72061): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource",
				"[270.8] mlx5_core 0000:04:00.0: mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived after timeout (entry idx = 0).")
		}, []string{"kmsg.mlx5_health/critical"}, "mlx5_0 firmware health: firmware command timeout (3 messages"},

		// Topology.
		{"GPU far from every active NIC while others are PIX", func(in *Input) {
			down := ib.StateDown
			in.Snap.Devices[1].Ports[0].State = &down // mlx5_1, GPU1's switch neighbour
			in.Env = nil
		}, []string{"topo.gpu_nic_far/warning"}, "GPU1 (0000:83:00.0): nearest active RDMA NIC mlx5_10 is PHB, while mlx5_1 sits PIX from it but has no active port"},
		{"all PHB layout does not fire", func(in *Input) {
			for i := range in.Snap.PCI {
				p := &in.Snap.PCI[i]
				if p.Address == "0000:04:00.0" || p.Address == "0000:84:00.0" {
					p.Path = "pci0000:00/0000:00:09.0/" + string(p.Address)
					p.NUMANode = intp(0)
				}
			}
		}, nil, ""},
		{"nvidia-smi disagrees", func(in *Input) {
			in.SMI = &nvsmi.Matrix{GPUs: []string{"GPU0", "GPU1"}, NICs: []string{"mlx5_0", "mlx5_1"}, Dist: [][]topo.Level{{topo.SYS, topo.SYS}, {topo.SYS, topo.PIX}}}
		}, []string{"topo.nvidia_smi_disagrees/warning"}, "disagree on 1 GPU–NIC pair"},
		{"nvidia-smi agrees", func(in *Input) {
			in.SMI = &nvsmi.Matrix{GPUs: []string{"GPU0", "GPU1"}, NICs: []string{"mlx5_0", "mlx5_1"}, Dist: [][]topo.Level{{topo.PIX, topo.SYS}, {topo.SYS, topo.PIX}}}
		}, nil, ""},

		// RoCE.
		{"no RoCE v2 GID", func(in *Input) {
			p := &in.Snap.Devices[1].Ports[0]
			p.GIDs = slices.DeleteFunc(p.GIDs, func(g snapshot.GIDEntry) bool { return g.Type == ib.GIDTypeRoCEv2 })
			in.Env = nil
		}, []string{"roce.gid_missing_v2/critical"}, "mlx5_1 port 1 (ens1f0np0) has 2 GIDs but no RoCE v2 GID"},
		{"GIDs without types are not judged", func(in *Input) {
			p := &in.Snap.Devices[1].Ports[0]
			for i := range p.GIDs {
				p.GIDs[i].Type = ""
			}
			in.Env = nil
		}, nil, ""},
		{"MTU caps RDMA MTU", func(in *Input) {
			*in.Snap.NetDevs[0].MTU = 1500
		}, []string{"roce.mtu_mismatch/warning"}, "ens1f0np0 MTU 1500 (mlx5_1 port 1) caps the RDMA MTU at 1024"},
		{"MTU 4200 is enough", func(in *Input) {
			*in.Snap.NetDevs[0].MTU = 4200
		}, nil, ""},
		{"pause storm", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"tx_pause_storm_warning_events": 2, "tx_pause_storm_error_events": 1})
		}, []string{"roce.pfc_storm/critical"}, "PFC pause storm detected (2 warning, 1 error events"},
		{"pause storm warning only", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"tx_pause_storm_warning_events": 2, "tx_pause_storm_error_events": 0})
		}, []string{"roce.pfc_storm/warning"}, ""},
		{"heavy pause without ECN", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"rx_prio3_pause": 5e6, "rx_prio3_packets": 1e8, "tx_prio3_packets": 1e8})
		}, []string{"roce.ecn_not_effective/warning", "roce.pause_heavy/warning"}, "ens1f0np0 pauses (5000000 PFC frames) but no ECN mark or CNP"},
		{"heavy pause with ECN working", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"rx_prio3_pause": 5e6, "rx_prio3_packets": 1e8, "tx_prio3_packets": 1e8})
			in.Snap.Devices[1].Ports[0].HWCounters[1].Value = 12345 // rp_cnp_handled
		}, []string{"roce.pause_heavy/warning"}, ""},
		{"paused a large share of the uptime", func(in *Input) {
			in.Boot = in.Snap.Taken.Add(-10 * time.Hour)
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"rx_prio3_pause": 500, "rx_prio3_packets": 1e9,
				"rx_prio3_pause_duration": uint64((3 * time.Hour).Microseconds())})
			in.Snap.Devices[1].Ports[0].HWCounters[1].Value = 1 // ECN works
		}, []string{"roce.pause_heavy/warning"}, "paused 30% of the 10h since boot"},
		{"pauses under the ratio", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"rx_prio3_pause": 20000, "rx_prio3_packets": 1e9})
		}, []string{"roce.ecn_not_effective/warning"}, ""},
		{"phy errors post-FEC", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"rx_crc_errors_phy": 48213, "rx_pcs_symbol_err_phy": 37, "rx_packets_phy": 1e9})
		}, []string{"roce.phy_errors/critical"}, "48213 FCS and 0 symbol errors, 37 uncorrected (post-FEC) symbol errors"},
		{"rx discards", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"rx_discards_phy": 500000, "rx_packets_phy": 1e9})
		}, []string{"host.nic_rx_drops/warning"}, "dropped 500000 received frames for lack of host buffers, 0.05% of 1000000000"}, // no PHY fault: the host's
		{"ixgbe missed packets", func(in *Input) {
			// A real ixgbe ethtool -S (pastebin): the NIC missed 0.49% of
			// what it received; rx_fifo_errors counts some of the same.
			in.Ethtool[0] = ethtool.New("eth4", "x", map[string]uint64{"rx_packets": 64205742385, "rx_missed_errors": 317522851, "rx_fifo_errors": 1000, "tx_flow_control_xoff": 1201936})
		}, []string{"host.nic_rx_drops/warning"}, "eth4 dropped 317522851 received frames for lack of host buffers, 0.49% of 64205742385 received (rx_packets)"},
		{"be2net drops per queue", func(in *Input) {
			// A real be2net ethtool -S (netutils-linux issue 208): one
			// queue dropped 1% of its frames for want of posted buffers.
			in.Ethtool[0] = ethtool.New("eth0", "x", map[string]uint64{"rxq0: rx_pkts": 388868940376, "rxq0: rx_drops_no_frags": 3885606854, "rxq1: rx_pkts": 1000, "rxq1: rx_drops_no_frags": 0})
		}, []string{"host.nic_rx_drops/warning"}, "eth0 dropped 3885606854 received frames for lack of host buffers, 1% of 388868941376 received (rx_pkts)"},
		{"igb fifo errors a few per million", func(in *Input) {
			in.Ethtool[0] = ethtool.New("eno2", "x", map[string]uint64{"rx_packets": 2600000000, "rx_fifo_errors": 6917})
		}, nil, ""},
		{"drops without received packets are not weighed", func(in *Input) {
			in.Ethtool[0] = ethtool.New("eth4", "x", map[string]uint64{"rx_missed_errors": 317522851})
		}, nil, ""},
		{"few discards", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"rx_discards_phy": 5000, "rx_packets_phy": 1e10})
		}, nil, ""},
		{"discards beside FCS errors", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"rx_crc_errors_phy": 10, "rx_discards_phy": 500000, "rx_packets_phy": 1e9})
		}, []string{"host.nic_rx_drops/warning", "roce.phy_errors/warning"}, "dropped 500000 received frames"}, // two causes, two findings
		{"global pause heavy vs traffic", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"tx_pause_ctrl_phy": 5e7, "rx_pause_ctrl_phy": 0, "rx_packets_phy": 1e9, "tx_packets_phy": 1e9})
			in.Snap.Devices[1].Ports[0].HWCounters[1].Value = 1 // ECN works
		}, []string{"roce.pause_heavy/warning"}, "global: 50000000 pause frames"},
		{"ice xoff totals without packets", func(in *Input) {
			in.Ethtool[0] = ethtool.New("ens1f0np0", "x", map[string]uint64{"tx_priority_2_xoff.nic": 14864, "rx_priority_2_xoff.nic": 0})
			in.Snap.Devices[1].Ports[0].HWCounters[1].Value = 1 // ECN works
		}, nil, ""},

		// Host.
		{"memlock 64 KiB", func(in *Input) {
			in.Memlock = &hostmodel.Limit{Source: "proc/4242/limits", Soft: 65536, Hard: 65536}
		}, []string{"host.memlock_limited/critical"}, "max locked memory is 64 KiB (hard 64 KiB)"},
		{"memlock 1 GiB", func(in *Input) {
			in.Memlock = &hostmodel.Limit{Source: "proc/4242/limits", Soft: 1 << 30, HardUnlimited: true}
		}, []string{"host.memlock_limited/warning"}, "1024 MiB (hard unlimited)"},
		{"peermem missing", func(in *Input) {
			in.Modules = []string{"nvidia", "mlx5_ib"}
		}, []string{"nccl.peermem_missing/warning"}, "2 GPUs and 3 RDMA devices but nvidia_peermem is not loaded"},
		{"legacy nv_peer_mem is fine", func(in *Input) {
			in.Modules = []string{"nv_peer_mem", "nvidia"}
		}, nil, ""},

		// NCCL environment.
		{"IB disabled", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_DISABLE=1"})
		}, []string{"nccl.ib_disabled/critical"}, "NCCL_IB_DISABLE=1 turns off 3 active RDMA ports"},
		{"IB disable 0", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_DISABLE=0"})
		}, nil, ""},
		{"unknown HCA", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_HCA=mlx5_0,mlx4_0"})
		}, []string{"nccl.ib_hca_unknown/critical"}, `NCCL_IB_HCA entry "mlx4_0" matches no RDMA device`},
		{"unknown port", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_HCA==mlx5_0:2"})
		}, []string{"nccl.ib_hca_unknown/critical"}, `"mlx5_0:2" matches no port of mlx5_0`},
		{"prefix ambiguous", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_HCA=mlx5_1"})
		}, []string{"nccl.ib_hca_prefix_ambiguous/warning"}, `"mlx5_1" also selects mlx5_10`},
		{"exact list is not ambiguous", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_HCA==mlx5_1"})
		}, nil, ""},
		{"selected port down", func(in *Input) {
			down := ib.StateDown
			in.Snap.Devices[0].Ports[0].State = &down
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_HCA==mlx5_0:1,mlx5_1:1"})
			in.Snap.PCI = nil // no topology finding
		}, []string{"nccl.ib_hca_port_down/critical"}, "NCCL_IB_HCA selects mlx5_0 port 1, which is DOWN"},
		{"socket ifname only docker", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_SOCKET_IFNAME=docker,lo"})
		}, []string{"nccl.socket_ifname_missing/warning"}, "NCCL_SOCKET_IFNAME=docker,lo matches only lo,docker0"},
		{"socket ifname missing", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_SOCKET_IFNAME==eth0"})
		}, []string{"nccl.socket_ifname_missing/warning"}, "matches no interface"},
		{"partial listing: unknown name is not judged", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_SOCKET_IFNAME==bond0"})
			in.Interfaces = in.Interfaces[1:2]
			in.InterfacesPartial = true
		}, nil, ""},
		{"partial listing: lo is always there", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_SOCKET_IFNAME==lo"})
			in.Interfaces = in.Interfaces[1:2]
			in.InterfacesPartial = true
		}, []string{"nccl.socket_ifname_missing/warning"}, "matches only lo"},
		{"socket ifname exclusion leaves ens", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_SOCKET_IFNAME=^docker,lo"})
		}, nil, ""},
		{"gid index v1", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_GID_INDEX=2"})
		}, []string{"nccl.gid_index_wrong/critical"}, "NCCL_IB_GID_INDEX=2 on mlx5_1 port 1 is a RoCE v1 GID (not routable, no ECN); use the routable RoCE v2 GID 0000:0000:0000:0000:0000:ffff:0a00:0001 at index 3"},
		{"gid index at the link-local v2 GID", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_GID_INDEX=1"})
		}, []string{"nccl.gid_index_wrong/warning"}, "NCCL_IB_GID_INDEX=1 on mlx5_1 port 1 is the link-local RoCE v2 GID fe80:0000:0000:0000:0c42:a1ff:fe12:3456, which no router forwards: on a routed (L3) RoCE fabric NCCL reaches no peer beyond this port's L2 segment; use the routable RoCE v2 GID 0000:0000:0000:0000:0000:ffff:0a00:0001 at index 3"},
		{"gid index at the link-local v2 GID, no IP on the netdev", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_GID_INDEX=1"})
			p := in.Snap.Port("mlx5_1", 1)
			p.GIDs = p.GIDs[:2]
		}, []string{"nccl.gid_index_wrong/warning"}, "fe12:3456, which no router forwards: on a routed (L3) RoCE fabric NCCL reaches no peer beyond this port's L2 segment; the port has no routable RoCE v2 GID (no IP address on ens1f0np0?)"},
		{"gid index at the IPv4 v2 GID", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_GID_INDEX=3"})
		}, nil, ""},
		{"gid index empty", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_GID_INDEX=7"})
		}, []string{"nccl.gid_index_wrong/critical"}, "is empty"},
		{"gid index on a port NCCL does not use", func(in *Input) {
			in.Env = ncclenv.FromList("job.env", []string{"NCCL_IB_GID_INDEX=7", "NCCL_IB_HCA==mlx5_0"})
		}, nil, ""},

		// Containers.
		{"uverbs missing", func(in *Input) {
			in.Dev = slices.DeleteFunc(in.Dev, func(e hostmodel.DevEntry) bool { return e.Path == "dev/infiniband/uverbs1" })
		}, []string{"container.uverbs_missing/critical"}, "/dev/infiniband/uverbs1 (mlx5_1) is missing"},
		{"uverbs not openable", func(in *Input) {
			in.Dev[0] = hostmodel.DevEntry{Path: "dev/infiniband/uverbs0", Exists: true, Err: "permission denied"}
		}, []string{"container.uverbs_missing/critical"}, "cannot be opened: permission denied"},
		{"no uverbs class entry", func(in *Input) {
			delete(in.Uverbs, "uverbs2")
		}, []string{"container.uverbs_missing/critical"}, "mlx5_10 has no uverbs device"},
		{"rdma_cm missing", func(in *Input) {
			in.Dev = in.Dev[:3]
		}, []string{"container.rdma_cm_missing/warning"}, "/dev/infiniband/rdma_cm is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := healthyInput()
			tt.mutate(in)
			fs := Check(in)
			got := ids(fs)
			if !slices.Equal(got, tt.want) {
				for _, f := range fs {
					t.Logf("%s %s: %s", f.ID, f.Severity, f.Summary)
				}
				t.Fatalf("findings = %v, want %v", got, tt.want)
			}
			if tt.summary != "" && !strings.Contains(fs[0].Summary, tt.summary) {
				t.Errorf("summary %q does not contain %q", fs[0].Summary, tt.summary)
			}
			for _, f := range fs {
				if len(f.Evidence) == 0 || len(f.Causes) == 0 || len(f.Remedy) == 0 || f.Subject.Host != "gpu01" {
					t.Errorf("%s lacks evidence, causes, remedy or host: %+v", f.ID, f)
				}
			}
		})
	}
}

// TestRuleIDsCatalogued checks every rule's IDs exist and every triage ID
// has a rule here or in another package's rule set.
func TestRuleIDsCatalogued(t *testing.T) {
	mine := map[string]bool{}
	for _, r := range Rules {
		for _, id := range r.IDs {
			if _, ok := catalog.Default.Lookup(id); !ok {
				t.Errorf("rule %q reports %s, which is not catalogued", r.Name, id)
			}
			mine[id] = true
		}
	}
	for _, id := range []string{"pcie.aer_errors", "topo.gpu_nic_far", "topo.nvidia_smi_disagrees", "gpu.xid", "gpu.fallen_off_bus",
		"kmsg.link_flap", "kmsg.module_event", "kmsg.mlx5_health", "host.memlock_limited", "nccl.peermem_missing", "nccl.ib_disabled",
		"nccl.ib_hca_unknown", "nccl.ib_hca_prefix_ambiguous", "nccl.ib_hca_port_down", "nccl.socket_ifname_missing", "nccl.gid_index_wrong",
		"roce.gid_missing_v2", "roce.mtu_mismatch", "roce.pfc_storm", "roce.pause_heavy", "roce.ecn_not_effective", "roce.phy_errors",
		"container.uverbs_missing", "container.rdma_cm_missing"} {
		if !mine[id] {
			t.Errorf("%s has no triage rule", id)
		}
	}
}

func BenchmarkRun(b *testing.B) {
	in := healthyInput()
	var lines []string
	for i := 0; i < 2000; i++ {
		lines = append(lines, "[1.0] mlx5_core 0000:84:00.0 ens1f0np0: Link down", "[1.0] systemd: something unrelated happened here", "[1.0] NVRM: Xid (PCI:0000:03:00): 63, pid=1, name=x, Row Remapper")
	}
	in.Kernel = logOf(lines...)
	b.ReportAllocs()
	for b.Loop() {
		in.evsDone = false // classify the log every time, as a fresh doctor run does
		Check(in)
	}
}

// TestMissingSources: a rule whose source is missing reports nothing (the
// doctor lists the source as not checked instead of guessing).
func TestMissingSources(t *testing.T) {
	in := healthyInput()
	// Faults every source-dependent rule would see...
	in.Snap.Devices[1].Ports[0].HWCounters = nil
	in.Kernel, in.Ethtool, in.SMI, in.Env = nil, nil, nil, nil
	in.Interfaces, in.Memlock, in.Modules, in.Uverbs, in.Dev = nil, nil, nil, nil, nil
	if fs := Check(in); len(fs) != 0 {
		t.Errorf("findings without their sources: %v", ids(fs))
	}
	// ...and the same rules fire once the sources are back.
	in = healthyInput()
	in.Memlock = &hostmodel.Limit{Source: "proc/self/limits", Soft: 65536, Hard: 65536}
	in.Modules = []string{"nvidia"}
	in.Dev = []hostmodel.DevEntry{}
	got := ids(Check(in))
	for _, want := range []string{"host.memlock_limited/critical", "nccl.peermem_missing/warning", "container.uverbs_missing/critical", "container.rdma_cm_missing/warning"} {
		if !slices.Contains(got, want) {
			t.Errorf("findings %v lack %s", got, want)
		}
	}
	if Check(&Input{}) != nil {
		t.Error("an input without a snapshot gave findings")
	}
}

// TestAERBeyondTheNode: an uncorrectable or fatal AER report is reported
// even when the device is no HCA or GPU of the node (named by the BDF of
// the log); corrected errors there are not this tool's business.
func TestAERBeyondTheNode(t *testing.T) {
	tests := []struct {
		name string
		log  *kmsg.Log
		want []string
		pci  string
	}{
		{"fatal on an NVMe", logOf(
			"[ 9.0] pcieport 0000:00:03.1: AER: Uncorrected (Fatal) error received: 0000:21:00.0",
			"[ 9.0] nvme 0000:21:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)"),
			[]string{"pcie.aer_errors/critical"}, "0000:21:00.0"},
		{"corrected flood on an NVMe", logOf(strings.Split(strings.Repeat(
			"[ 9.0] nvme 0000:21:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n", 20), "\n")[:20]...),
			nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := healthyInput()
			in.Kernel = tt.log
			fs := checkAER(in)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("findings = %v, want %v", got, tt.want)
			}
			if len(fs) > 0 && fs[0].Subject.PCI != tt.pci {
				t.Errorf("subject %+v, want PCI %s", fs[0].Subject, tt.pci)
			}
		})
	}
}
