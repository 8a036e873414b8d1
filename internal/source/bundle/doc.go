// Package bundle writes support bundles: a deterministic .tar.gz of the
// sysfs subset a node's RDMA diagnosis needs, taken from a root (the live
// "/" by default), plus meta.json and the saved outputs of tools under cmd/.
//
// What goes in is decided by reading the root with sysfs.Read first: the
// RDMA devices' directories (ports, counters, hw_counters, GIDs), the PCI
// functions of the snapshot — the RDMA devices', the GPUs', the net
// devices' and every bridge above them — as their attribute files only, the
// net devices' attributes and statistics, the sys/class and sys/bus/pci
// symlinks that lead to them (kept as real relative symlinks), and
// proc/sys/kernel/{hostname,osrelease} and proc/modules,
// sys/class/infiniband_verbs (uverbsN → RDMA device), dev/infiniband's
// entries as empty marker files (device nodes are never stored), and any
// cmd/ files the root already holds. Symlinks are never
// followed into (driver, subsystem stay links). Files that cannot be read
// are listed in meta.json, not fatal, and sysfs.Read of the bundle reports
// them as the gaps the live node gave: reading the bundle yields the same
// snapshot as reading the node.
//
// Saved tool outputs go under cmd/: Options.Commands, and NodeCommands
// (cmd/dmesg.txt, cmd/ethtool-S-<netdev>.txt, cmd/nvidia-smi-topo-m.txt,
// the files the node triage reads) with Options.NodeCommands. Each runs
// with exec.CommandContext and a timeout, never a shell.
package bundle
