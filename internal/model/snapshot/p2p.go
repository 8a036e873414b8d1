package snapshot

import (
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// P2PPath is the PCIe path between a GPU and an RDMA NIC that hang below
// one PCIe switch: GPUDirect RDMA traffic between them turns around in the
// switch instead of crossing the root complex, unless a bridge on the way
// redirects it (ACS).
type P2PPath struct {
	GPU pcie.Address `json:"gpu"`
	NIC pcie.Address `json:"nic"`
	// Bridges are the bridges from the GPU up to the switch port where the
	// two paths meet and down to the NIC, that port included, in path
	// order.
	Bridges []pcie.Address `json:"bridges"`
}

// P2PPaths returns the path of every GPU and NIC (an RDMA device's PCI
// function or a Mellanox network function) that meet below a root port:
// under one switch, where nvidia-smi topo -m says PIX or PXB. Pairs that
// meet at the root complex or its root port, or under different root
// complexes, are not listed: their traffic crosses the host bridge anyway.
func (s *Snapshot) P2PPaths() []P2PPath {
	var gpus, nics []*PCIDevice
	nic := map[pcie.Address]bool{}
	for i := range s.Devices {
		if a := s.Devices[i].PCI; a != "" {
			nic[a] = true
		}
	}
	for i := range s.PCI {
		p := &s.PCI[i]
		switch {
		case p.IsGPU():
			gpus = append(gpus, p)
		case nic[p.Address] || p.Vendor != nil && *p.Vendor == pcie.VendorMellanox && p.Class != nil && pcie.IsNetwork(*p.Class):
			nics = append(nics, p)
		}
	}
	var out []P2PPath
	for _, g := range gpus {
		for _, n := range nics {
			if br := sharedSwitchPath(g.Path, n.Path); br != nil {
				out = append(out, P2PPath{GPU: g.Address, NIC: n.Address, Bridges: br})
			}
		}
	}
	return out
}

// P2PBridges returns the bridges of every P2PPath, sorted, once each.
func (s *Snapshot) P2PBridges() []pcie.Address {
	var out []pcie.Address
	for _, p := range s.P2PPaths() {
		out = append(out, p.Bridges...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sharedSwitchPath returns the bridges between two functions from their
// sys/devices paths ("pci0000:17/0000:17:01.0/0000:18:00.0/…"), nil unless
// they meet below the root port (components[1]) and neither is above the
// other.
func sharedSwitchPath(a, b string) []pcie.Address {
	ca, cb := strings.Split(strings.Trim(a, "/"), "/"), strings.Split(strings.Trim(b, "/"), "/")
	k := 0
	for k < len(ca) && k < len(cb) && ca[k] == cb[k] {
		k++
	}
	if k < 3 || k == len(ca) || k == len(cb) {
		return nil
	}
	var out []pcie.Address
	for i := len(ca) - 2; i >= k; i-- {
		out = append(out, pcie.Address(ca[i]))
	}
	out = append(out, pcie.Address(ca[k-1]))
	for i := k; i < len(cb)-1; i++ {
		out = append(out, pcie.Address(cb[i]))
	}
	return out
}
