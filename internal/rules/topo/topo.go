package topo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
)

// Level is the PCIe distance between two devices (pcie.Level), named here
// so that callers of Build need one import.
type Level = pcie.Level

// The levels, from near to far.
const (
	LevelUnknown = pcie.LevelUnknown
	PIX          = pcie.PIX
	PXB          = pcie.PXB
	PHB          = pcie.PHB
	NODE         = pcie.NODE
	SYS          = pcie.SYS
)

// components splits a snapshot PCIDevice.Path ("pci0000:3a/0000:3a:00.0/…").
func components(p *snapshot.PCIDevice) []string {
	if p == nil || p.Path == "" {
		return nil
	}
	return strings.Split(strings.Trim(p.Path, "/"), "/")
}

func numa(p *snapshot.PCIDevice) int {
	if p == nil || p.NUMANode == nil {
		return -1
	}
	return *p.NUMANode
}

// Distance classifies the PCIe path between two functions from their
// sys/devices paths, as `nvidia-smi topo -m` does: under different root
// complexes NODE when both report the same NUMA node, else SYS; under one
// root complex PHB when they meet at the root or its root port, PIX when
// each hangs at most one bridge below the deepest shared switch port, PXB
// otherwise. LevelUnknown when a path is missing.
func Distance(a, b *snapshot.PCIDevice) Level {
	ca, cb := components(a), components(b)
	if len(ca) < 2 || len(cb) < 2 {
		return LevelUnknown
	}
	if ca[0] != cb[0] {
		if na, nb := numa(a), numa(b); na >= 0 && na == nb {
			return NODE
		}
		return SYS
	}
	k := 0
	for k < len(ca) && k < len(cb) && ca[k] == cb[k] {
		k++
	}
	if k == len(ca) || k == len(cb) {
		// One is a bridge above the other: the same path, nearest level.
		return PIX
	}
	if k <= 2 {
		return PHB
	}
	if len(ca)-k <= 2 && len(cb)-k <= 2 {
		return PIX
	}
	return PXB
}

// GPU is one GPU of the matrix; Index follows PCI bus order, as nvidia-smi
// and CUDA_DEVICE_ORDER=PCI_BUS_ID number them.
type GPU struct {
	Index int          `json:"index"`
	PCI   pcie.Address `json:"pci"`
}

// Name is "GPU<index>".
func (g GPU) Name() string { return fmt.Sprintf("GPU%d", g.Index) }

// NIC is one RDMA device with a PCI function.
type NIC struct {
	Name string       `json:"name"`
	PCI  pcie.Address `json:"pci"`
	// Active is true when at least one port is ACTIVE.
	Active bool `json:"active"`
}

// Matrix is the GPU×NIC distance matrix of a node.
type Matrix struct {
	GPUs []GPU `json:"gpus"`
	NICs []NIC `json:"nics"`
	// Dist[g][n] is the distance between GPUs[g] and NICs[n].
	Dist [][]Level `json:"dist"`
}

// Build computes the matrix from a snapshot's PCI tree: every NVIDIA GPU
// (by PCI address) against every RDMA device that has a PCI function (by
// name).
func Build(s *snapshot.Snapshot) *Matrix {
	m := &Matrix{}
	for i, g := range s.GPUs() {
		m.GPUs = append(m.GPUs, GPU{Index: i, PCI: g.Address})
	}
	for i := range s.Devices {
		d := &s.Devices[i]
		if d.PCI == "" {
			continue
		}
		n := NIC{Name: d.Name, PCI: d.PCI}
		for j := range d.Ports {
			if d.Ports[j].IsActive() {
				n.Active = true
			}
		}
		m.NICs = append(m.NICs, n)
	}
	slices.SortFunc(m.NICs, func(a, b NIC) int { return strings.Compare(a.Name, b.Name) })
	m.Dist = make([][]Level, len(m.GPUs))
	for gi, g := range m.GPUs {
		m.Dist[gi] = make([]Level, len(m.NICs))
		gp := s.PCIDevice(g.PCI)
		for ni, n := range m.NICs {
			m.Dist[gi][ni] = Distance(gp, s.PCIDevice(n.PCI))
		}
	}
	return m
}

// Nearest returns the indexes of the NICs nearest to GPU g and their level;
// with activeOnly only NICs with an ACTIVE port count. nil and
// LevelUnknown when there is none.
func (m *Matrix) Nearest(g int, activeOnly bool) ([]int, Level) {
	best := LevelUnknown
	var out []int
	for ni, n := range m.NICs {
		l := m.Dist[g][ni]
		if l == LevelUnknown || (activeOnly && !n.Active) {
			continue
		}
		switch {
		case best == LevelUnknown || l < best:
			best, out = l, []int{ni}
		case l == best:
			out = append(out, ni)
		}
	}
	return out, best
}

// SuggestHCA returns an NCCL_IB_HCA value naming, exactly ('=' prefix, so
// mlx5_1 does not also select mlx5_10…), the active NICs nearest to some
// GPU, in name order; "" when there are no GPUs or no active NICs.
func (m *Matrix) SuggestHCA() string {
	use := make([]bool, len(m.NICs))
	any := false
	for g := range m.GPUs {
		nics, _ := m.Nearest(g, true)
		for _, n := range nics {
			use[n] = true
			any = true
		}
	}
	if !any {
		return ""
	}
	var names []string
	for i, u := range use {
		if u {
			names = append(names, m.NICs[i].Name)
		}
	}
	return "=" + strings.Join(names, ",")
}

// NICIndex returns the index of a NIC by RDMA device name, -1 if absent.
func (m *Matrix) NICIndex(name string) int {
	for i, n := range m.NICs {
		if n.Name == name {
			return i
		}
	}
	return -1
}

// Table renders the matrix like nvidia-smi (GPU rows, NIC columns, a
// nearest-NIC column), for text reports.
func (m *Matrix) Table() string {
	var b strings.Builder
	b.WriteString("      ")
	for _, n := range m.NICs {
		fmt.Fprintf(&b, " %-8s", n.Name)
	}
	b.WriteString(" nearest\n")
	for gi, g := range m.GPUs {
		fmt.Fprintf(&b, "%-6s", g.Name())
		for ni := range m.NICs {
			fmt.Fprintf(&b, " %-8s", m.Dist[gi][ni])
		}
		nics, lvl := m.Nearest(gi, false)
		var names []string
		for _, n := range nics {
			names = append(names, m.NICs[n].Name)
		}
		fmt.Fprintf(&b, " %s (%s)\n", strings.Join(names, ","), lvl)
	}
	return b.String()
}

// Disagreement is one GPU×NIC pair where nvidia-smi and sysfs differ.
type Disagreement struct {
	GPU    string `json:"gpu"`
	NIC    string `json:"nic"`
	SMI    Level  `json:"nvidia_smi"`
	Sysfs  Level  `json:"sysfs"`
	Severe bool   `json:"severe"`
}

// Compare lists the GPU×NIC pairs, matched by GPU index and NIC name,
// whose levels differ. NODE and PHB are treated as equal (NCCL has no NODE
// level and some drivers print one where the PCI tree suggests the other).
// Severe marks a switch-local pair (PIX/PXB) on one side that is
// cross-socket (SYS) on the other.
func Compare(m *Matrix, smi *nvsmi.Matrix) []Disagreement {
	var out []Disagreement
	for gi, gname := range smi.GPUs {
		idx, err := strconv.Atoi(strings.TrimPrefix(gname, "GPU"))
		if err != nil || idx >= len(m.GPUs) {
			continue
		}
		for ni, nname := range smi.NICs {
			j := m.NICIndex(nname)
			if j < 0 {
				continue
			}
			a, b := smi.Dist[gi][ni], m.Dist[idx][j]
			if a == b || a == LevelUnknown || b == LevelUnknown || (a >= PHB && a <= NODE && b >= PHB && b <= NODE) {
				continue
			}
			severe := (a <= PXB && b == SYS) || (b <= PXB && a == SYS)
			out = append(out, Disagreement{GPU: gname, NIC: nname, SMI: a, Sysfs: b, Severe: severe})
		}
	}
	return out
}
