package topo

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
)

func u32(v uint32) *uint32 { return &v }
func intp(v int) *int      { return &v }

// pci builds a function from its sys/devices path; the last element is the
// address.
func pci(path string, class uint32, numaNode int) snapshot.PCIDevice {
	parts := strings.Split(path, "/")
	d := snapshot.PCIDevice{Address: pcie.Address(parts[len(parts)-1]), Path: path, Class: u32(class), NUMANode: intp(numaNode)}
	if len(parts) > 2 {
		d.Parent = pcie.Address(parts[len(parts)-2])
	}
	switch class {
	case pcie.Class3D:
		d.Vendor = u32(pcie.VendorNVIDIA)
	case pcie.ClassNetIB:
		d.Vendor = u32(pcie.VendorMellanox)
	}
	return d
}

// node is a two-socket host: socket 0 has a PCIe switch with GPU0 and
// mlx5_0 side by side (PIX), GPU1 one switch deeper (PXB), GPU2 on
// another root complex (NODE); socket 1 has mlx5_1 and GPU3 on one root
// complex without a switch (PHB).
func node() *snapshot.Snapshot {
	active := ib.StateActive
	s := &snapshot.Snapshot{
		PCI: []snapshot.PCIDevice{
			pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0", pcie.Class3D, 0),
			pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0", pcie.ClassNetIB, 0),
			pci("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/0000:05:00.0/0000:06:00.0/0000:07:00.0", pcie.Class3D, 0),
			pci("pci0000:40/0000:40:01.0/0000:41:00.0", pcie.Class3D, 0),
			pci("pci0000:80/0000:80:01.0/0000:81:00.0", pcie.ClassNetIB, 1),
			pci("pci0000:80/0000:80:02.0/0000:82:00.0", pcie.Class3D, 1),
		},
		Devices: []snapshot.Device{
			{Name: "mlx5_0", PCI: "0000:04:00.0", Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, State: &active}}},
			{Name: "mlx5_1", PCI: "0000:81:00.0", Ports: []snapshot.Port{{Device: "mlx5_1", Number: 1, State: &active}}},
			{Name: "rxe0"},
		},
	}
	s.Sort()
	return s
}

func TestBuild(t *testing.T) {
	m := Build(node())
	wantGPUs := []GPU{{0, "0000:03:00.0"}, {1, "0000:07:00.0"}, {2, "0000:41:00.0"}, {3, "0000:82:00.0"}}
	if diff := cmp.Diff(wantGPUs, m.GPUs); diff != "" {
		t.Errorf("GPUs (-want +got):\n%s", diff)
	}
	if len(m.NICs) != 2 {
		t.Fatalf("NICs = %v, want mlx5_0 and mlx5_1 (rxe0 has no PCI function)", m.NICs)
	}
	want := [][]Level{
		{PIX, SYS},
		{PXB, SYS},
		{NODE, SYS},
		{SYS, PHB},
	}
	if diff := cmp.Diff(want, m.Dist); diff != "" {
		t.Errorf("matrix (-want +got):\n%s", diff)
	}
	if got := m.SuggestHCA(); got != "=mlx5_0,mlx5_1" {
		t.Errorf("SuggestHCA = %q", got)
	}
	if nics, lvl := m.Nearest(3, true); len(nics) != 1 || nics[0] != 1 || lvl != PHB {
		t.Errorf("Nearest(GPU3) = %v %v", nics, lvl)
	}
	if !strings.Contains(m.Table(), "GPU1   PXB      SYS      mlx5_0 (PXB)") {
		t.Errorf("table:\n%s", m.Table())
	}
}

func TestDistanceEdgeCases(t *testing.T) {
	a := pci("pci0000:00/0000:00:01.0/0000:01:00.0", pcie.Class3D, -1)
	b := pci("pci0000:80/0000:80:01.0/0000:81:00.0", pcie.ClassNetIB, -1)
	if got := Distance(&a, &b); got != SYS {
		t.Errorf("unknown NUMA across roots = %v, want SYS", got)
	}
	f0 := pci("pci0000:00/0000:00:01.0/0000:01:00.0", pcie.ClassNetIB, 0)
	f1 := pci("pci0000:00/0000:00:01.0/0000:01:00.1", pcie.ClassNetIB, 0)
	if got := Distance(&f0, &f1); got != PHB {
		t.Errorf("two functions under a root port = %v, want PHB", got)
	}
	if got := Distance(&a, nil); got != LevelUnknown {
		t.Errorf("missing device = %v", got)
	}
	noPath := snapshot.PCIDevice{Address: "0000:09:00.0"}
	if got := Distance(&a, &noPath); got != LevelUnknown {
		t.Errorf("missing path = %v", got)
	}
}

func TestSuggestInactive(t *testing.T) {
	s := node()
	down := ib.StateDown
	s.Devices[0].Ports[0].State = &down
	m := Build(s)
	if got := m.SuggestHCA(); got != "=mlx5_1" {
		t.Errorf("SuggestHCA with mlx5_0 down = %q, want =mlx5_1", got)
	}
	if _, lvl := m.Nearest(0, true); lvl != SYS {
		t.Errorf("GPU0 nearest active = %v, want SYS", lvl)
	}
	if _, lvl := m.Nearest(0, false); lvl != PIX {
		t.Errorf("GPU0 nearest any = %v, want PIX", lvl)
	}
}

func TestCompare(t *testing.T) {
	m := Build(node())
	smi := &nvsmi.Matrix{
		GPUs: []string{"GPU0", "GPU1", "GPU2", "GPU3"},
		NICs: []string{"mlx5_0", "mlx5_1", "mlx5_9"},
		Dist: [][]Level{
			{PIX, SYS, PIX}, // agrees; mlx5_9 unknown to sysfs is ignored
			{SYS, SYS, PIX}, // PXB in sysfs: severe
			{PHB, SYS, PIX}, // NODE vs PHB: equivalent
			{SYS, PIX, PIX}, // PHB vs PIX: mild
		},
	}
	want := []Disagreement{
		{GPU: "GPU1", NIC: "mlx5_0", SMI: SYS, Sysfs: PXB, Severe: true},
		{GPU: "GPU3", NIC: "mlx5_1", SMI: PIX, Sysfs: PHB},
	}
	if diff := cmp.Diff(want, Compare(m, smi)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A matrix that matches itself has no disagreement.
	self := &nvsmi.Matrix{GPUs: []string{"GPU0", "GPU1", "GPU2", "GPU3"}, NICs: []string{"mlx5_0", "mlx5_1"}, Dist: m.Dist}
	if got := Compare(m, self); len(got) != 0 {
		t.Errorf("self comparison = %v", got)
	}
}

// bigNode is an 8-GPU, 8-NIC two-socket host like a DGX H100.
func bigNode() *snapshot.Snapshot {
	s := &snapshot.Snapshot{}
	for i := 0; i < 8; i++ {
		root := []string{"pci0000:00", "pci0000:40", "pci0000:80", "pci0000:c0"}[i/2]
		bus := []string{"00", "40", "80", "c0"}[i/2]
		sock := i / 4
		sw := "0000:" + bus + ":01.0/0000:" + hex2(i*16+1) + ":00.0/0000:" + hex2(i*16+2) + ":00.0"
		s.PCI = append(s.PCI,
			pci(root+"/"+sw+"/0000:"+hex2(i*16+3)+":00.0", pcie.Class3D, sock),
			pci(root+"/"+sw+"/0000:"+hex2(i*16+4)+":00.0", pcie.ClassNetIB, sock))
		st := ib.StateActive
		s.Devices = append(s.Devices, snapshot.Device{Name: "mlx5_" + string(rune('0'+i)), PCI: pcie.Address("0000:" + hex2(i*16+4) + ":00.0"),
			Ports: []snapshot.Port{{Number: 1, State: &st}}})
	}
	s.Sort()
	return s
}

func hex2(v int) string {
	const h = "0123456789abcdef"
	return string([]byte{h[(v>>4)&15], h[v&15]})
}

func BenchmarkBuild(b *testing.B) {
	s := bigNode()
	b.ReportAllocs()
	for b.Loop() {
		m := Build(s)
		_ = m.SuggestHCA()
	}
}
