// Package pcie holds PCI Express domain types: link speeds with their
// generation, link widths, PCI addresses and class codes, parsed from the
// attributes drivers/pci/pci-sysfs.c prints, and the distance levels
// between two devices (PIX … SYS) as `nvidia-smi topo -m` names them.
package pcie
