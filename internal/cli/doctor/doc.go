// Package doctor implements `ibdoctor doctor`: its flags, the files they
// name, and the text and JSON reports. The runbook itself — full node
// triage in a fixed order (ports and counters, PCIe and GPU topology, kernel
// log, memory and registration limits, NCCL configuration, container device
// access), ranked findings and what to do next — is internal/diagnose/doctor.
package doctor
