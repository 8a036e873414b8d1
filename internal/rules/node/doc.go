// Package node holds the single-snapshot node rules: pure functions from a
// snapshot (and an optional expectation) to findings. They do no I/O and
// read no clock. Without an expectation they judge against sane defaults:
// every cabled port ACTIVE/LinkUp, all ports of one HCA model and link layer
// at the same rate, firmware alike across one model, and no PCIe link below
// what both its ends support.
package node
