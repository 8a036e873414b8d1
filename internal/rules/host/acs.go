package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// maxACSPairs is how many GPU–NIC pairs the summary names.
const maxACSPairs = 4

// checkACS warns when a bridge on the path between a GPU and a NIC that
// share a PCIe switch redirects or blocks peer-to-peer traffic (ACS
// ReqRedir, CmpltRedir or EgressCtrl in its ACS Control register):
// GPUDirect RDMA then goes through the root complex. One finding per node
// (one cause), naming every such bridge and the GPU–NIC pairs behind it.
// Bridges whose config space was not readable are gaps of the snapshot,
// and are not judged here.
func checkACS(in *Input) []finding.Finding {
	s := in.Snap
	var bridges []pcie.Address
	seen := map[pcie.Address]bool{}
	var pairs []string
	for _, p := range s.P2PPaths() {
		hit := false
		for _, b := range p.Bridges {
			d := s.PCIDevice(b)
			if d == nil || d.ACS == nil || d.ACS.Blocking() == 0 {
				continue
			}
			hit = true
			if !seen[b] {
				seen[b] = true
				bridges = append(bridges, b)
			}
		}
		if hit {
			pairs = append(pairs, pciTarget(s, p.GPU).label()+"–"+pciTarget(s, p.NIC).label())
		}
	}
	if len(bridges) == 0 {
		return nil
	}
	slices.Sort(bridges)
	shown := pairs
	if len(pairs) > maxACSPairs {
		shown = append(slices.Clip(pairs[:maxACSPairs]), fmt.Sprintf("and %d more", len(pairs)-maxACSPairs))
	}
	var ev []finding.Evidence
	addrs := make([]string, len(bridges))
	for i, b := range bridges {
		d := s.PCIDevice(b)
		addrs[i] = string(b)
		ev = append(ev, finding.Evidence{
			Source: "sys/bus/pci/devices/" + string(b) + "/config",
			Value:  fmt.Sprintf("ACSCtl: %s (0x%04x, ACS capability at 0x%x)", pcie.ACSBits(d.ACS.Ctl), d.ACS.Ctl, d.ACS.Offset),
		})
	}
	f := catalog.New("pcie.acs_redirect", finding.Subject{Host: s.Host},
		fmt.Sprintf("PCIe ACS redirects peer-to-peer traffic on %s between %s that share a PCIe switch (%s): GPUDirect RDMA goes through the root complex",
			plural(len(bridges), "bridge", "bridges"), plural(len(pairs), "GPU–NIC pair", "GPU–NIC pairs"), strings.Join(shown, ", ")),
		ev...)
	catalog.Fill(&f, "bridges", strings.Join(addrs, " "))
	return []finding.Finding{f}
}
