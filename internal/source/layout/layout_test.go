package layout_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

func TestEthtoolNetDevs(t *testing.T) {
	port := func(ll ib.LinkLayer, nd string) snapshot.Port { return snapshot.Port{LinkLayer: ll, NetDev: nd} }
	s := &snapshot.Snapshot{Devices: []snapshot.Device{
		{Name: "mlx5_1", Ports: []snapshot.Port{port(ib.LinkLayerEthernet, "enp2s0"), port(ib.LinkLayerEthernet, "")}},
		{Name: "mlx5_0", Ports: []snapshot.Port{port(ib.LinkLayerInfiniBand, "ib0"), port(ib.LinkLayerEthernet, "enp1s0")}},
		// A bond's slaves: two RDMA ports, one netdev.
		{Name: "mlx5_bond_0", Ports: []snapshot.Port{port(ib.LinkLayerEthernet, "bond0")}},
		{Name: "mlx5_2", Ports: []snapshot.Port{port(ib.LinkLayerEthernet, "bond0")}},
	}}
	want := []string{"bond0", "enp1s0", "enp2s0"}
	if d := cmp.Diff(want, layout.EthtoolNetDevs(s)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := layout.EthtoolNetDevs(&snapshot.Snapshot{}); len(got) != 0 {
		t.Errorf("no devices: %v", got)
	}
}

// TestSimulatedRootHasTheLayout: what the simulator writes is what the
// sources read — the saved outputs, the ethtool statistics of every netdev
// EthtoolNetDevs picks from the root's own snapshot, and the proc and /dev
// files of the job.
func TestSimulatedRootHasTheLayout(t *testing.T) {
	for _, profile := range []string{"h100-ndr", "roce-400g"} {
		t.Run(profile, func(t *testing.T) {
			n, err := simnode.Build(simnode.Options{Profile: profile, Host: "gpu017"})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := n.WriteTarGz(&buf); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "root.tar.gz")
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			rt, err := rootfs.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			snap, err := sysfs.Read(context.Background(), rt.FS(), sysfs.Options{Root: p})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{layout.Dmesg, layout.Modules, layout.Uptime, layout.Hostname, layout.RdmaCM,
				layout.JobDir(0) + "/" + layout.LimitsFile, layout.JobDir(0) + "/" + layout.EnvironFile}
			if len(snap.GPUs()) > 0 {
				want = append(want, layout.NvidiaSMITopo)
			}
			nds := layout.EthtoolNetDevs(snap)
			if profile == "roce-400g" && len(nds) == 0 {
				t.Fatal("a RoCE node without netdevs to read ethtool statistics of")
			}
			for _, nd := range nds {
				want = append(want, layout.Ethtool(nd))
			}
			for _, f := range want {
				if _, err := fs.Stat(rt.FS(), f); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			ents, err := fs.ReadDir(rt.FS(), layout.ClassVerbs)
			if err != nil || !slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return e.Name() == "uverbs0" }) {
				t.Fatalf("%s: %v", layout.ClassVerbs, err)
			}
			if _, err := fs.Stat(rt.FS(), layout.VerbsIBDev("uverbs0")); err != nil {
				t.Error(err)
			}
			if _, err := fs.Stat(rt.FS(), layout.Uverbs("uverbs0")); err != nil {
				t.Error(err)
			}
		})
	}
}
