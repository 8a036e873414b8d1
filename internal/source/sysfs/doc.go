// Package sysfs reads a node's RDMA-relevant state from a root's sys/ (and a
// few proc/ files) into a snapshot.Snapshot: the RDMA devices of
// sys/class/infiniband with their ports, PMA counters, hw_counters and GID
// tables; the PCI function of every device and every PCI bridge above it up
// to the root complex; the GPUs; the network interfaces that belong to a PCI
// device or an RDMA port, and which port each one serves.
//
// The reader works on any fs.FS (rootfs gives one for a live host and for a
// bundle) and degrades per file: an unreadable or malformed attribute
// becomes a snapshot.Gap naming the root-relative path and leaves only the
// value that depends on it unset; an optional file that does not exist is
// not a gap; only a root without sys/ is an error.
//
// Parsers of the attribute formats live in internal/ib and internal/pcie;
// this package adds the AER file parser (ParseAER) and the walk.
package sysfs
