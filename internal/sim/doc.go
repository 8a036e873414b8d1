// Package sim builds simulated node roots: directory trees holding sys/,
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
// named next to each renderer and in DOMAIN.md §1–3.
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
package sim
