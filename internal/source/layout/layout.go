// Package layout names every path of a node root: the folders of sysfs,
// procfs and /dev that ibdoctor reads, and the saved tool outputs under
// cmd/ that a bundle and the node simulator write and the doctor and the
// agent read instead of running the tools. Paths are relative to the root
// and slash-separated, as fs.FS wants them. It also chooses, once, the
// netdevs whose `ethtool -S` statistics are saved and read.
package layout

import (
	"slices"
	"strconv"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// sysfs.
const (
	// ClassInfiniband holds one link per RDMA device (mlx5_0).
	ClassInfiniband = "sys/class/infiniband"
	// ClassNet holds one link per network interface.
	ClassNet = "sys/class/net"
	// ClassVerbs holds uverbsN → RDMA device (uverbsN/ibdev) and
	// abi_version.
	ClassVerbs = "sys/class/infiniband_verbs"
	// PCIDevices holds one link per PCI function, named by its address;
	// PCIDrivers one folder per driver; ClassPCIBus one link per bus.
	PCIDevices  = "sys/bus/pci/devices"
	PCIDrivers  = "sys/bus/pci/drivers"
	ClassPCIBus = "sys/class/pci_bus"
	// Devices is the device tree the class and bus links point into.
	Devices = "sys/devices"
	// ClassIOMMU holds one link per IOMMU unit the kernel enabled (dmar0
	// on Intel, ivhd0 on AMD); empty or absent when none is active.
	ClassIOMMU = "sys/class/iommu"
)

// VerbsIBDev is the file naming the RDMA device of uverbsN.
func VerbsIBDev(uverbs string) string { return ClassVerbs + "/" + uverbs + "/ibdev" }

// procfs and /etc.
const (
	Hostname    = "proc/sys/kernel/hostname"
	OSRelease   = "proc/sys/kernel/osrelease"
	EtcHostname = "etc/hostname"
	// Modules is the list of loaded kernel modules.
	Modules = "proc/modules"
	// Mlx5Version and Mlx5SrcVersion are the mlx5_core module's version
	// (set by out-of-tree drivers such as MLNX_OFED/DOCA; inbox kernels
	// have none) and the checksum of its sources.
	Mlx5Version    = "sys/module/mlx5_core/version"
	Mlx5SrcVersion = "sys/module/mlx5_core/srcversion"
	// Cmdline is the kernel command line the node booted with.
	Cmdline = "proc/cmdline"
	// Stat holds btime, the boot time; Uptime the seconds since boot.
	Stat   = "proc/stat"
	Uptime = "proc/uptime"
	// ProcSelf is the process the root's own readers see: in a bundle or
	// a simulated root, the job.
	ProcSelf = "proc/self"
)

// PIDDir is proc/<pid>.
func PIDDir(pid int) string { return "proc/" + strconv.Itoa(pid) }

// JobDir is the proc directory of the job: PIDDir(pid), or ProcSelf for
// pid 0.
func JobDir(pid int) string {
	if pid == 0 {
		return ProcSelf
	}
	return PIDDir(pid)
}

// Files of a process directory: its resource limits, command line and
// environment.
const (
	LimitsFile  = "limits"
	CmdlineFile = "cmdline"
	EnvironFile = "environ"
)

// /dev.
const (
	Dev = "dev"
	// DevInfiniband holds the RDMA character devices (uverbsN, rdma_cm).
	DevInfiniband = "dev/infiniband"
	RdmaCM        = DevInfiniband + "/rdma_cm"
)

// Uverbs is the character device of uverbsN.
func Uverbs(uverbs string) string { return DevInfiniband + "/" + uverbs }

// Saved tool outputs.
const (
	// CmdDir holds the saved outputs of the tools below.
	CmdDir = "cmd"
	// Dmesg, JournalKernel and Kmsg are the kernel log as `dmesg`,
	// `journalctl -k` and a copy of /dev/kmsg print it.
	Dmesg         = CmdDir + "/dmesg.txt"
	JournalKernel = CmdDir + "/journalctl-k.txt"
	Kmsg          = CmdDir + "/kmsg.txt"
	// NvidiaSMITopo is `nvidia-smi topo -m`.
	NvidiaSMITopo = CmdDir + "/nvidia-smi-topo-m.txt"
	// IBNetDiscoverPorts is `ibnetdiscover -p` from the node's first
	// ACTIVE InfiniBand port: which switch port each cable ends at.
	IBNetDiscoverPorts = CmdDir + "/ibnetdiscover-p.txt"
)

// KernelLogs are the saved kernel logs a root may hold, best first.
var KernelLogs = []string{Dmesg, JournalKernel, Kmsg}

// Ethtool is `ethtool -S <netdev>`.
func Ethtool(netdev string) string { return CmdDir + "/ethtool-S-" + netdev + ".txt" }

// EthtoolNetDevs are the netdevs whose `ethtool -S` statistics are saved
// and read: those of the Ethernet (RoCE) ports, each once, sorted.
func EthtoolNetDevs(s *snapshot.Snapshot) []string {
	var out []string
	for i := range s.Devices {
		for _, p := range s.Devices[i].Ports {
			if p.LinkLayer == ib.LinkLayerEthernet && p.NetDev != "" && !slices.Contains(out, p.NetDev) {
				out = append(out, p.NetDev)
			}
		}
	}
	slices.Sort(out)
	return out
}
