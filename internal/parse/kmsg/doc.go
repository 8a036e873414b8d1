// Package kmsg reads the kernel log and recognises the messages that matter
// for GPU/RDMA triage: NVIDIA Xid events and "fallen off the bus", PCIe AER
// reports (and firmware-first CPER PCIe errors), mlx5 and other netdevs'
// link changes, port module (cable/transceiver) events, mlx5 firmware
// health errors, processes killed by a segfault, and EDAC memory errors.
//
// Sources are parsed without interpretation into Records: /dev/kmsg records
// (ParseRecord, ParseKmsg; ReadLive on Linux), and the text of dmesg
// (plain, "[ seconds]", "-T" and ISO timestamps) or `journalctl -k`
// (ParseText). Classify then turns records into typed Events with the
// Patterns table (message pattern, event kind, error or not, fields
// captured by named groups); the triage rules count and map them to
// devices. A new driver message is one row of Patterns and one sample line
// in patterns_test.go, which checks that every row has one.
package kmsg
