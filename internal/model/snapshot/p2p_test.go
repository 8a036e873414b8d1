package snapshot

import (
	"slices"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

func TestP2PPaths(t *testing.T) {
	nv, mlx := uint32(pcie.VendorNVIDIA), uint32(pcie.VendorMellanox)
	gpuClass, ibClass, ethClass, bridge := uint32(pcie.Class3D), uint32(pcie.ClassNetIB), uint32(pcie.ClassNetEth), uint32(pcie.ClassBridgePCI)
	fn := func(path string, vendor, class *uint32) PCIDevice {
		return PCIDevice{Address: pcie.Address(path[len(path)-12:]), Path: path, Vendor: vendor, Class: class}
	}
	br := func(path string) PCIDevice { return fn(path, &mlx, &bridge) }
	// An HGX H100 quarter: root port 17:01.0, switch up 18:00.0, down
	// ports 19:00.0 (GPU) and 19:01.0 (NIC); a second switch nested below
	// 19:02.0 with a GPU under it; a NIC on another root port.
	const (
		rp, up, dg, dn, dx = "pci0000:17/0000:17:01.0", "/0000:18:00.0", "/0000:19:00.0", "/0000:19:01.0", "/0000:19:02.0"
	)
	tree := []PCIDevice{
		br(rp), br(rp + up), br(rp + up + dg), br(rp + up + dn), br(rp + up + dx),
		fn(rp+up+dg+"/0000:1a:00.0", &nv, &gpuClass),
		fn(rp+up+dn+"/0000:1b:00.0", &mlx, &ibClass),
		br(rp + up + dx + "/0000:1c:00.0"), br(rp + up + dx + "/0000:1c:00.0/0000:1d:00.0"),
		fn(rp+up+dx+"/0000:1c:00.0/0000:1d:00.0/0000:1e:00.0", &nv, &gpuClass),
		br("pci0000:17/0000:17:02.0"),
		fn("pci0000:17/0000:17:02.0/0000:20:00.0", &mlx, &ethClass),
		fn("pci0000:40/0000:40:01.0/0000:41:00.0", &nv, &gpuClass),
	}
	for _, tt := range []struct {
		name string
		pci  []PCIDevice
		want []P2PPath
	}{
		{"one switch (PIX) and a nested one (PXB); other root ports and complexes left out", tree, []P2PPath{
			{GPU: "0000:1a:00.0", NIC: "0000:1b:00.0", Bridges: []pcie.Address{"0000:19:00.0", "0000:18:00.0", "0000:19:01.0"}},
			{GPU: "0000:1e:00.0", NIC: "0000:1b:00.0", Bridges: []pcie.Address{"0000:1d:00.0", "0000:1c:00.0", "0000:19:02.0", "0000:18:00.0", "0000:19:01.0"}},
		}},
		{"no GPU", tree[:5], nil},
		{"GPU and NIC meeting at the root port", []PCIDevice{br(rp), fn(rp+"/0000:18:00.0", &nv, &gpuClass), fn(rp+"/0000:18:00.1", &mlx, &ibClass)}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Snapshot{PCI: tt.pci}
			s.Sort()
			got := s.P2PPaths()
			if !slices.EqualFunc(got, tt.want, func(a, b P2PPath) bool {
				return a.GPU == b.GPU && a.NIC == b.NIC && slices.Equal(a.Bridges, b.Bridges)
			}) {
				t.Errorf("P2PPaths = %+v\nwant %+v", got, tt.want)
			}
		})
	}
	s := &Snapshot{PCI: tree}
	s.Sort()
	want := []pcie.Address{"0000:18:00.0", "0000:19:00.0", "0000:19:01.0", "0000:19:02.0", "0000:1c:00.0", "0000:1d:00.0"}
	if got := s.P2PBridges(); !slices.Equal(got, want) {
		t.Errorf("P2PBridges = %v, want %v", got, want)
	}
}
