package node

import (
	"fmt"
	"sort"
	"strings"
)

// pciComponents are the path components of a function below sys/devices:
// [pciDDDD:BB, root port, (switch up, switch down)*, function].
func pciComponents(f *PCIFunc) []string {
	return strings.Split(strings.TrimPrefix(f.Path(), "sys/devices/"), "/")
}

// Distance is the nvidia-smi topology relation of two PCI functions ("PIX",
// "PXB", "PHB", "NODE", "SYS"), computed from the PCI tree as the nvidia-smi legend
// §3.3 describes: different host bridges are NODE on the same NUMA node
// and SYS across; the same host bridge is PHB when the paths meet at the
// root port or above (PIX for functions on the root port's own bus), PIX
// when each side is at most a downstream port and the device below the
// meeting switch, PXB otherwise.
func Distance(a, b *PCIFunc) string {
	ca, cb := pciComponents(a), pciComponents(b)
	if ca[0] != cb[0] {
		if a.NUMA == b.NUMA && a.NUMA >= 0 {
			return "NODE"
		}
		return "SYS"
	}
	i := 0
	for i < len(ca) && i < len(cb) && ca[i] == cb[i] {
		i++
	}
	// i components are shared; the deepest common one is ca[i-1].
	switch {
	case i == 2 && len(ca) == 3 && len(cb) == 3:
		// Functions on the root port's own bus (two ports of one
		// adapter): nvidia-smi says PIX.
		return "PIX"
	case i <= 2:
		return "PHB"
	}
	if len(ca)-i <= 2 && len(cb)-i <= 2 {
		return "PIX"
	}
	return "PXB"
}

// nvidiaSMITopo renders `nvidia-smi topo -m` for the node's GPUs and
// present RDMA devices, in the tab-separated layout of recent drivers
// (header "\tGPU0…\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID", GPU rows
// ending "\t<cpus>\t<numa>\t\tN/A", NIC rows with four empty trailing
// cells, then the legends). GPUs of an HGX board see each other over 18
// NVLinks (NV18). The underline escape codes nvidia-smi puts around the
// header on a terminal are left out.
func (n *Node) nvidiaSMITopo() string {
	gpus := n.GPUs()
	var nics []*Device
	for _, d := range n.Devices {
		if d.present() {
			nics = append(nics, d)
		}
	}
	sort.Slice(nics, func(i, j int) bool { return devLess(nics[i].Name, nics[j].Name) })
	var b strings.Builder
	for i := range gpus {
		fmt.Fprintf(&b, "\tGPU%d", i)
	}
	for i := range nics {
		fmt.Fprintf(&b, "\tNIC%d", i)
	}
	b.WriteString("\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n")
	cols := make([]*PCIFunc, 0, len(gpus)+len(nics))
	cols = append(cols, gpus...)
	for _, d := range nics {
		cols = append(cols, d.PCI)
	}
	cell := func(r, c int) string {
		switch {
		case r == c:
			return " X "
		case r < len(gpus) && c < len(gpus):
			return "NV18"
		}
		return Distance(cols[r], cols[c])
	}
	for r := range cols {
		if r < len(gpus) {
			fmt.Fprintf(&b, "GPU%d", r)
		} else {
			fmt.Fprintf(&b, "NIC%d", r-len(gpus))
		}
		for c := range cols {
			b.WriteString("\t" + cell(r, c))
		}
		if r < len(gpus) {
			fmt.Fprintf(&b, "\t%s\t%d\t\tN/A\n", cols[r].CPUList, cols[r].NUMA)
		} else {
			b.WriteString("\t\t\t\t\n")
		}
	}
	b.WriteString(`
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks

NIC Legend:

`)
	for i, d := range nics {
		fmt.Fprintf(&b, "  NIC%d: %s\n", i, d.Name)
	}
	b.WriteString("\n")
	return b.String()
}

// devLess orders mlx5_2 before mlx5_10.
func devLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
