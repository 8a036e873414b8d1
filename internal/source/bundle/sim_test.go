package bundle_test

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/bundle"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// simFS renders a simulated node in memory (unreadable files as empty
// directories, as simnode.Write makes them).
func simFS(t testing.TB, o simnode.Options) fs.FS {
	t.Helper()
	n, err := simnode.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := n.WriteTarGz(&buf); err != nil {
		t.Fatal(err)
	}
	fsys, err := rootfs.ReadBundle(&buf, "simnode.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestRoundTripSim: collect a simulated node (every profile, healthy and
// with faults), read the bundle back, and compare with reading the node.
func TestRoundTripSim(t *testing.T) {
	cases := []simnode.Options{
		{Profile: "h100-ndr"},
		{Profile: "a100-hdr"},
		{Profile: "roce-400g"},
		{Profile: "h100-ndr", Faults: simnode.MustParseFaults(
			"down:mlx5_3/1", "width:mlx5_2/1=2", "pcie-speed:mlx5_4=3",
			"saturate:mlx5_1/1/symbol_error", "unreadable:mlx5_0/1/counters/port_rcv_data",
			"no-counters:mlx5_6", "missing:mlx5_7", "aer:mlx5_2/correctable/RxErr=12",
			"no-gid-v2:mlx5_8/1", "mtu:ens1f1np1=1500",
		)},
	}
	stamp := time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)
	for _, o := range cases {
		name := o.Profile
		if len(o.Faults) > 0 {
			name += "+faults"
		}
		t.Run(name, func(t *testing.T) {
			src := simFS(t, o)
			live, err := sysfs.Read(context.Background(), src, sysfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			meta, err := bundle.Collect(context.Background(), src, &buf, bundle.Options{Now: func() time.Time { return stamp }})
			if err != nil {
				t.Fatal(err)
			}
			back, err := rootfs.ReadBundle(bytes.NewReader(buf.Bytes()), "node.tar.gz")
			if err != nil {
				t.Fatal(err)
			}
			got, err := sysfs.Read(context.Background(), back, sysfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(live, got, cmpopts.IgnoreFields(snapshot.Snapshot{}, "Root", "Taken")); d != "" {
				t.Errorf("bundle differs from the node (-node +bundle):\n%s", d)
			}
			// What the node triage reads besides the snapshot comes along:
			// uverbs mapping, device markers, saved tool outputs, the kernel
			// command line and IOMMU units.
			for _, p := range []string{"sys/class/infiniband_verbs/abi_version", "sys/class/infiniband_verbs/uverbs0/ibdev", "dev/infiniband/uverbs0", "dev/infiniband/rdma_cm", "cmd/dmesg.txt", "proc/cmdline", "sys/class/iommu/dmar0/uevent"} {
				want, werr := fs.ReadFile(src, p)
				have, herr := fs.ReadFile(back, p)
				if werr != nil || herr != nil || !bytes.Equal(want, have) {
					t.Errorf("%s: node %q (%v), bundle %q (%v)", p, want, werr, have, herr)
				}
			}
			if meta.Collected.GPUs != 8 || meta.Collected.Devices != len(live.Devices) {
				t.Errorf("collected = %+v", meta.Collected)
			}
			if len(o.Faults) > 0 && len(got.Gaps) == 0 {
				t.Error("the unreadable counter's gap was lost")
			}
		})
	}
}

// TestBundleKeepsACS: a bundle holds the config space of the bridges
// between GPUs and NICs that share a switch, so the doctor judges PCIe ACS
// from it as from the node; a non-root collection (64 bytes) stays a gap
// that names the fix instead of reading as "no ACS".
func TestBundleKeepsACS(t *testing.T) {
	for _, tt := range []struct {
		fault             string
		blocking, withACS int // bridges read with ACS redirecting, with ACS at all
		gaps              int // config files readable only in part
		configBytes       int
	}{
		{"acs=off", 0, 16, 0, 4096},
		{"acs=on", 16, 16, 0, 4096},
		{"acs=header-only", 0, 0, 20, 64},
	} {
		t.Run(tt.fault, func(t *testing.T) {
			src := simFS(t, simnode.Options{Profile: "h100-ndr", Faults: simnode.MustParseFaults(tt.fault)})
			var buf bytes.Buffer
			if _, err := bundle.Collect(context.Background(), src, &buf, bundle.Options{}); err != nil {
				t.Fatal(err)
			}
			back, err := rootfs.ReadBundle(bytes.NewReader(buf.Bytes()), "node.tar.gz")
			if err != nil {
				t.Fatal(err)
			}
			for name, fsys := range map[string]fs.FS{"node": src, "bundle": back} {
				s, err := sysfs.Read(context.Background(), fsys, sysfs.Options{ReadACS: true})
				if err != nil {
					t.Fatal(err)
				}
				bridges := s.P2PBridges()
				if len(bridges) != 20 {
					t.Fatalf("%s: %d bridges on GPU–NIC paths, want 20 (4 switches: up port and 4 down ports each)", name, len(bridges))
				}
				blocking, withACS := 0, 0
				for _, a := range bridges {
					if d := s.PCIDevice(a); d.ACS != nil && d.ACS.Present() {
						withACS++
						if d.ACS.Blocking() != 0 {
							blocking++
						}
					}
				}
				gaps := 0
				for _, g := range s.Gaps {
					if strings.HasSuffix(g.Path, "/config") && strings.Contains(g.Err, "run as root") {
						gaps++
					}
				}
				if blocking != tt.blocking || withACS != tt.withACS || gaps != tt.gaps {
					t.Errorf("%s: %d bridges redirect, %d have ACS, %d gaps; want %d, %d, %d", name, blocking, withACS, gaps, tt.blocking, tt.withACS, tt.gaps)
				}
				d := s.PCIDevice(bridges[0])
				if b, err := fs.ReadFile(fsys, "sys/devices/"+d.Path+"/config"); err != nil || len(b) != tt.configBytes {
					t.Errorf("%s: config of %s: %d bytes (%v), want %d", name, d.Address, len(b), err, tt.configBytes)
				}
			}
		})
	}
}
