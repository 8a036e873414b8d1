// Package node builds simulated node roots: directory trees holding sys/,
// proc/, dev/ and cmd/ that reproduce what the Linux kernel shows on a GPU
// node with InfiniBand and RoCE adapters, byte for byte, so node-level code
// (the sysfs reader, status, check, doctor, the agent) runs without RDMA
// hardware.
//
// A Node is an in-memory model of the node: its PCI tree (root complexes,
// root ports, PCIe switches, GPUs, HCAs), its RDMA devices with their ports,
// GID tables and counters, its net devices, kernel modules, kernel log and
// ethtool statistics. Build makes one from a named profile, Apply injects a
// Fault ("down:mlx5_3/1", see Faults), mutation methods change it over time
// (traffic, errors, flaps, resets) and Write/Update render it to a
// directory. Every file uses the kernel's own format string; the sources are
// named next to each renderer.
//
// Things a directory tree cannot show exactly are represented as follows:
//   - A file whose read fails (gid_attrs of an empty GID slot returns EINVAL
//     on a real kernel; an "unreadable" fault) is an empty directory with the
//     file's name: reading it fails with EISDIR even for root (chmod 000
//     would not stop root), and it survives a tar bundle unchanged.
//   - Character devices (dev/infiniband/uverbsN, dev/infiniband/rdma_cm) are
//     empty regular files; presence is what the checks look at.
//
// Live drives a node through a Scenario deterministically: the same
// sequence of Step durations yields the same files.
//
// Formats and their sources (checked byte for byte by the tests):
//   - sys/class/infiniband: drivers/infiniband/core/sysfs.c (node_type,
//     node_guid, state, phys_state, rate_show, lid, gids "%pI6",
//     gid_attrs EINVAL, PMA counters "%llu", hw_counters, lifespan) and
//     the mlx5 attributes hca_type "MT%d" (decimal device id), hw_rev,
//     board_id; RoCE state and rate from mlx5 main.c
//     mlx5_query_port_roce; cap_mask values as ibstat shows them on
//     ConnectX IB (0x2651e848) and Ethernet (0x04010000) ports.
//   - PCI: drivers/pci/pci-sysfs.c (vendor, class "0x%06x", link speed
//     "32.0 GT/s PCIe", width "%u", numa_node, local_cpulist) and
//     drivers/pci/pcie/aer.c (aer_dev_* "name count" lines and TOTAL_ERR_*,
//     aer_rootport_total_err_*, the AER log lines); kernfs relative
//     symlinks (kernfs_get_target_path).
//   - net: net/core/net-sysfs.c; IPoIB speed as ipoib_get_link_ksettings
//     computes it, type 32 and 20-byte hardware address.
//   - proc: /proc/modules (kernel/module/procfs.c m_show),
//     proc/<pid>/limits (fs/proc/base.c proc_pid_limits), proc/uptime.
//   - cmd/: dmesg "[%5d.%06d] " lines (mlx5 probe, pcie_print_link_status,
//     link up/down, AER, NVRM Xid as kernel_rc.c prints it), `ethtool -S`
//     ("NIC statistics:" then "     name: value"), `nvidia-smi topo -m`
//     (tab-separated matrix and legends of recent drivers).
package node
