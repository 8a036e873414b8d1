// Package nvsmi parses nvidia-smi output. ParseTable reads the plain
// table (every driver generation, ERR! and N/A cells, the MIG and
// Processes boxes, the tool's own failure messages). ParseQuery reads the GPU memory
// error sections of `nvidia-smi -q` (Remapped Rows, Retired Pages). Parse
// reads the GPU×NIC part of `nvidia-smi topo -m`: tab- or
// space-separated matrices (pasted copies turn tabs into spaces), with or
// without the terminal's underline escapes, with the "NIC Legend" of newer
// drivers or the device-named columns and SOC level of old ones. Levels are
// pcie.Level values; comparing them with the PCI tree is
// internal/rules/topo's job.
package nvsmi
