// Package lspci parses `lspci -vvv` output (with or without -D, -nn or
// -s) as far as PCIe ACS needs it: each function's address and class, its
// PCI Express port type, a bridge's bus range, and the ACS Capability and
// Control registers as lspci prints them ("ACSCtl: SrcValid+ TransBlk-
// ReqRedir+ …"). Every other line is skipped: lspci prints hundreds of
// kinds, and a paste is often cut or filtered. Judging the bridges is
// internal/rules/host's job.
package lspci
