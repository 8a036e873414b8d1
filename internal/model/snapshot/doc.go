// Package snapshot is the typed model of one node at one moment: its RDMA
// devices and ports with their counters, the PCI functions they and the GPUs
// hang off (with every bridge up to the root complex), the net devices, and
// the gaps — files that could not be read, each naming its path.
//
// Sources (package sysfs, bundles, the simulator) fill a Snapshot; rules
// only read it. Every field names the sysfs file it comes from. Optional
// values are pointers: a value that could not be read is nil, never zero.
package snapshot
