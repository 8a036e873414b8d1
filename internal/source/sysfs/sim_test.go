package sysfs_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/bundle"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// writeSim writes a simulated node root and returns its directory.
func writeSim(t testing.TB, o simnode.Options) string {
	t.Helper()
	n, err := simnode.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := n.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// simFS renders a simulated node into memory as a bundle would hold it
// (an unreadable file becomes an empty directory, as simnode.Write makes it), so
// profile tests skip writing thousands of files to disk.
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
	fsys, err := rootfs.ReadBundle(&buf, o.Profile+".tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestReadSimProfiles reads every simulator profile end to end: the same
// layout real hosts have, with PCIe switches shared by GPUs and HCAs.
func TestReadSimProfiles(t *testing.T) {
	for _, p := range simnode.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			s, err := sysfs.Read(context.Background(), simFS(t, simnode.Options{Profile: p.Name}), sysfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Gaps) != 0 {
				t.Errorf("healthy node has gaps: %+v", s.Gaps)
			}
			if len(s.Devices) < 8 || len(s.GPUs()) != 8 {
				t.Fatalf("%d devices, %d GPUs", len(s.Devices), len(s.GPUs()))
			}
			for _, d := range s.Devices {
				pci := s.PCIDevice(d.PCI)
				if pci == nil || pci.Vendor == nil || *pci.Vendor != 0x15b3 {
					t.Errorf("%s: PCI function %q not read", d.Name, d.PCI)
					continue
				}
				up := s.Upstream(d.PCI)
				if len(up) == 0 || !strings.HasPrefix(up[len(up)-1].Path, "pci") || up[len(up)-1].Parent != "" {
					t.Errorf("%s: upstream chain %v does not reach a root port", d.Name, up)
				}
				for _, port := range d.Ports {
					if !port.IsActive() || port.Rate == nil || !port.HasCounters {
						t.Errorf("%s/%d: %+v", d.Name, port.Number, port)
					}
					if port.NetDev == "" && port.LinkLayer == ib.LinkLayerEthernet {
						t.Errorf("%s/%d: RoCE port without netdev", d.Name, port.Number)
					}
					if port.NetDev != "" && s.NetDev(port.NetDev) == nil {
						t.Errorf("%s/%d: netdev %s not read", d.Name, port.Number, port.NetDev)
					}
				}
			}
		})
	}
}

func TestReadSimFaults(t *testing.T) {
	// On disk, through os.Root, as on a live host.
	dir := writeSim(t, simnode.Options{Faults: simnode.MustParseFaults(
		"unreadable:mlx5_0/1/counters/port_rcv_data",
		"no-counters:mlx5_6",
		"missing:mlx5_7",
		"pcie-width:mlx5_4=8",
		"pkeys:mlx5_3/1=0x7fff,0x8001",
		"pkeys:mlx5_2/1=none",
	)})
	s, err := sysfs.ReadRoot(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Gaps) != 1 || s.Gaps[0].Path != "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data" {
		t.Errorf("gaps = %+v, want only the unreadable counter", s.Gaps)
	}
	p := s.Port("mlx5_0", 1)
	if _, ok := p.Counter("port_rcv_data"); ok || !p.HasCounters {
		t.Error("unreadable counter must be absent while the others stay")
	}
	if _, ok := p.Counter("port_xmit_data"); !ok {
		t.Error("port_xmit_data lost with its neighbour")
	}
	if p6 := s.Port("mlx5_6", 1); p6 == nil || p6.HasCounters || len(p6.Counters) != 0 {
		t.Errorf("no-counters: %+v", p6)
	}
	if s.Device("mlx5_7") != nil {
		t.Error("missing device listed")
	}
	if f := s.PCIDevice(s.Device("mlx5_4").PCI); f == nil || *f.CurrentLinkWidth != 8 || *f.MaxLinkWidth != 16 {
		t.Errorf("pcie-width fault not read: %+v", f)
	}
	// The P_Key table: non-zero slots in index order; an all-zero table is
	// listed but empty.
	if p3 := s.Port("mlx5_3", 1); !p3.HasPKeys || !slices.Equal(p3.PKeys, []uint16{0x7fff, 0x8001}) {
		t.Errorf("mlx5_3 pkeys = %v (listed %v), want [0x7fff 0x8001]", p3.PKeys, p3.HasPKeys)
	}
	if p2 := s.Port("mlx5_2", 1); !p2.HasPKeys || len(p2.PKeys) != 0 {
		t.Errorf("mlx5_2 pkeys = %v (listed %v), want listed and empty", p2.PKeys, p2.HasPKeys)
	}
}

// BenchmarkReadH100 reads the full h100-ndr node (8 NDR HCAs + 2 RoCE
// ports, 8 GPUs, 4 PCIe switches) from a directory and from a bundle in
// memory.
func BenchmarkReadH100(b *testing.B) {
	dir := writeSim(b, simnode.Options{})
	rt, err := rootfs.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	b.Run("dir", func(b *testing.B) { benchRead(b, rt.FS()) })
	// What the live "/" costs: rootfs.Open("/") reads through os.DirFS,
	// without os.Root's openat per path component.
	b.Run("dirfs", func(b *testing.B) { benchRead(b, os.DirFS(dir)) })
	var buf bytes.Buffer
	if _, err := bundle.Collect(context.Background(), rt.FS(), &buf, bundle.Options{}); err != nil {
		b.Fatal(err)
	}
	mem, err := rootfs.ReadBundle(bytes.NewReader(buf.Bytes()), "h100.tar.gz")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("bundle", func(b *testing.B) { benchRead(b, mem) })
}

func benchRead(b *testing.B, fsys fs.FS) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := sysfs.Read(context.Background(), fsys, sysfs.Options{})
		if err != nil || len(s.Devices) != 10 {
			b.Fatalf("%v, %d devices", err, len(s.Devices))
		}
	}
}

// TestReadLiveHost reads this machine's own root: whatever it holds, the
// reader must not fail or panic on a real sysfs.
func TestReadLiveHost(t *testing.T) {
	if _, err := fs.Stat(osRoot, "sys/class"); err != nil {
		t.Skip("no /sys here")
	}
	s, err := sysfs.ReadRoot(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	if s.Root != "/" || s.Devices == nil || s.Gaps == nil {
		t.Errorf("snapshot = %+v", s)
	}
	for _, g := range s.Gaps {
		t.Logf("gap on this host: %s: %s", g.Path, g.Err)
	}
}

var osRoot = os.DirFS("/")

// FuzzReadBundle feeds arbitrary tar archives (compressed here, so the
// fuzzer mutates tar headers and file contents, not gzip) to the reader: it
// may report gaps or refuse the bundle, never panic.
func FuzzReadBundle(f *testing.F) {
	// A small node keeps the fuzz seed (and so each mutation) a few KiB.
	const dev = "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"
	const port = dev + "/infiniband/mlx5_0/ports/1/"
	small := fstest.MapFS{
		"proc/sys/kernel/hostname":                  {Data: []byte("n1\n")},
		"sys/class/infiniband/mlx5_0":               {Data: []byte("../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0"), Mode: fs.ModeSymlink},
		dev + "/infiniband/mlx5_0/device":           {Data: []byte("../../../0000:3b:00.0"), Mode: fs.ModeSymlink},
		dev + "/infiniband/mlx5_0/fw_ver":           {Data: []byte("28.39.2048\n")},
		dev + "/vendor":                             {Data: []byte("0x15b3\n")},
		dev + "/current_link_width":                 {Data: []byte("16\n")},
		dev + "/aer_dev_correctable":                {Data: []byte("RxErr 1\nTOTAL_ERR_COR 1\n")},
		"sys/devices/pci0000:3a/0000:3a:00.0/class": {Data: []byte("0x060400\n")},
		port + "state":                              {Data: []byte("4: ACTIVE\n")},
		port + "rate":                               {Data: []byte("400 Gb/sec (4X NDR)\n")},
		port + "counters/symbol_error":              {Data: []byte("65535\n")},
		port + "hw_counters/out_of_buffer":          {Data: []byte("3\n")},
		port + "gids/0":                             {Data: []byte("fe80:0000:0000:0000:a088:c203:0045:1a2c\n")},
		port + "gid_attrs/types/0":                  {Data: []byte("IB/RoCE v1\n")},
	}
	var buf bytes.Buffer
	if _, err := bundle.Collect(context.Background(), small, &buf, bundle.Options{}); err != nil {
		f.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		f.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Fuzz(func(t *testing.T, b []byte) {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		fsys, err := rootfs.ReadBundle(&z, "fuzz.tar.gz")
		if err != nil {
			return
		}
		s, err := sysfs.Read(context.Background(), fsys, sysfs.Options{})
		if err != nil {
			return
		}
		for _, g := range s.Gaps {
			if g.Path == "" || g.Err == "" {
				t.Fatalf("gap without path or error: %+v", g)
			}
		}
	})
}

// Config space is read only when asked (the doctor): a non-root reader
// gets 64 bytes per bridge, a gap that commands not judging ACS must not
// print. Asked, each bridge on a GPU–NIC path is read or is a gap.
func TestReadACSOnlyWhenAsked(t *testing.T) {
	for _, tt := range []struct {
		fault   string
		readACS bool
		acs     int // bridges with ACS read
		gaps    int // config gaps
	}{
		{"acs=on", false, 0, 0},
		{"acs=header-only", false, 0, 0},
		{"acs=on", true, 20, 0},
		{"acs=header-only", true, 0, 20},
	} {
		fsys := simFS(t, simnode.Options{Profile: "h100-ndr", Faults: simnode.MustParseFaults(tt.fault)})
		s, err := sysfs.Read(context.Background(), fsys, sysfs.Options{ReadACS: tt.readACS})
		if err != nil {
			t.Fatal(err)
		}
		acs, gaps := 0, 0
		for _, p := range s.PCI {
			if p.ACS != nil {
				acs++
			}
		}
		for _, g := range s.Gaps {
			if strings.HasSuffix(g.Path, "/config") {
				gaps++
			}
		}
		if acs != tt.acs || gaps != tt.gaps {
			t.Errorf("%s ReadACS=%v: %d bridges read, %d gaps; want %d, %d", tt.fault, tt.readACS, acs, gaps, tt.acs, tt.gaps)
		}
	}
}
