// Package doctor implements `ibdoctor doctor`: full node triage in the
// runbook's fixed order (ports and counters, PCIe and GPU topology, kernel
// log, memory and registration limits, NCCL configuration, container device
// access), with ranked findings and what to do next.
package doctor
