package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/topo"
)

// checkTopology reports GPUs whose nearest active RDMA NIC is PHB or worse
// while the node offers better: another GPU has a NIC at PIX/PXB, or a NIC
// under this GPU's own PCIe switch is not active.
func checkTopology(in *Input) []finding.Finding {
	s := in.Snap
	m := topo.Build(s)
	if len(m.GPUs) == 0 || len(m.NICs) == 0 {
		return nil
	}
	best := topo.LevelUnknown
	for g := range m.GPUs {
		if _, l := m.Nearest(g, true); l != topo.LevelUnknown && (best == topo.LevelUnknown || l < best) {
			best = l
		}
	}
	var out []finding.Finding
	for gi, g := range m.GPUs {
		nics, lvl := m.Nearest(gi, true)
		anyNICs, anyLvl := m.Nearest(gi, false)
		if lvl != topo.LevelUnknown && lvl < topo.PHB {
			continue
		}
		var why string
		switch {
		case anyLvl != topo.LevelUnknown && anyLvl <= topo.PXB && (lvl == topo.LevelUnknown || anyLvl < lvl):
			why = fmt.Sprintf("%s sits %s from it but has no active port", names(m, anyNICs), anyLvl)
		case best != topo.LevelUnknown && best <= topo.PXB && lvl != topo.LevelUnknown:
			why = fmt.Sprintf("other GPUs of this node have a NIC at %s", best)
		default:
			continue
		}
		near := "no active RDMA NIC"
		if lvl != topo.LevelUnknown {
			near = fmt.Sprintf("nearest active RDMA NIC %s is %s", names(m, nics), lvl)
		}
		var row []string
		for ni, n := range m.NICs {
			row = append(row, fmt.Sprintf("%s=%s", n.Name, m.Dist[gi][ni]))
		}
		out = append(out, catalog.New("topo.gpu_nic_far",
			finding.Subject{Host: s.Host, GPU: fmt.Sprint(g.Index), PCI: string(g.PCI)},
			fmt.Sprintf("%s (%s): %s, while %s", g.Name(), g.PCI, near, why),
			finding.Evidence{Source: "sys/devices (PCI tree)", Value: g.Name() + ": " + strings.Join(row, " ")}))
	}
	return out
}

func names(m *topo.Matrix, idx []int) string {
	var n []string
	for _, i := range idx {
		n = append(n, m.NICs[i].Name)
	}
	return strings.Join(n, ",")
}

// checkSMI compares `nvidia-smi topo -m` with the sysfs view.
func checkSMI(in *Input) []finding.Finding {
	if in.SMI == nil {
		return nil
	}
	m := topo.Build(in.Snap)
	ds := topo.Compare(m, in.SMI)
	if len(ds) == 0 {
		return nil
	}
	severe := false
	var ev []finding.Evidence
	for _, d := range ds {
		severe = severe || d.Severe
		ev = append(ev, finding.Evidence{Source: "nvidia-smi topo -m", Value: fmt.Sprintf("%s–%s: nvidia-smi %s, sysfs %s", d.GPU, d.NIC, d.SMI, d.Sysfs)})
	}
	f := catalog.New("topo.nvidia_smi_disagrees", finding.Subject{Host: in.Snap.Host},
		fmt.Sprintf("nvidia-smi and the sysfs PCI tree disagree on %s", plural(len(ds), "GPU–NIC pair", "GPU–NIC pairs")), ev...)
	if severe {
		f.Severity = finding.Warning
	}
	return []finding.Finding{f}
}
