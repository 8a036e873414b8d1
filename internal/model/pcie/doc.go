// Package pcie holds PCI Express domain types: link speeds with their
// generation, link widths, PCI addresses and class codes, parsed from the
// attributes drivers/pci/pci-sysfs.c prints.
package pcie
