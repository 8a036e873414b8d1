package sysfs

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

var update = flag.Bool("update", false, "rewrite golden files")

var taken = time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return taken }

func readFixture(t testing.TB, name string) *snapshot.Snapshot {
	t.Helper()
	rt, err := rootfs.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	s, err := Read(context.Background(), rt.FS(), Options{Root: name, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadGolden(t *testing.T) {
	s := readFixture(t, "node1")
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "node1.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("snapshot differs from %s (-want +got; go test -update rewrites it):\n%s", golden, d)
	}
}

// TestReadFixture spells out what the golden file holds, so a reviewer sees
// the facts the reader must get right without reading JSON.
func TestReadFixture(t *testing.T) {
	s := readFixture(t, "node1")
	if s.Host != "gpu-node-017" || s.Kernel != "6.8.0-45-generic" || !s.Taken.Equal(taken) {
		t.Errorf("host/kernel/taken = %q %q %v", s.Host, s.Kernel, s.Taken)
	}
	if len(s.Devices) != 3 {
		t.Fatalf("devices = %d, want 3", len(s.Devices))
	}
	ib0 := s.Port("mlx5_0", 1)
	if ib0 == nil || !ib0.IsActive() || ib0.Rate == nil || *ib0.Rate != ib.NewRate(4, ib.SpeedNDR) || *ib0.LID != 0x1a {
		t.Fatalf("mlx5_0/1 = %+v", ib0)
	}
	if ib0.NetDev != "ibp61s0" {
		t.Errorf("IPoIB netdev = %q, want ibp61s0 (type 32 under the same function)", ib0.NetDev)
	}
	xd, _ := ib0.Counter("port_xmit_data")
	if b, ok := xd.Bytes(); !ok || b != 46317204848127*4 || xd.Spec.Bits != 64 {
		t.Errorf("port_xmit_data bytes=%d bits=%d, want ×4 and 64-bit (ext table)", b, xd.Spec.Bits)
	}
	if _, ok := ib0.HWCounter("lifespan"); ok {
		t.Error("lifespan is a setting and must not be a counter")
	}
	if c, ok := ib0.HWCounter("local_ack_timeout_err"); !ok || c.Value != 3 || c.Spec.Bits != 32 {
		t.Errorf("local_ack_timeout_err = %+v", c)
	}

	bad := s.Port("mlx5_2", 1)
	if bad == nil || bad.Rate != nil || bad.State == nil {
		t.Fatalf("malformed rate must leave Rate nil and keep the port: %+v", bad)
	}
	if _, ok := bad.Counter("port_rcv_errors"); ok {
		t.Error("unreadable counter present")
	}
	if se, _ := bad.Counter("symbol_error"); !se.Saturated() {
		t.Error("symbol_error 65535 should read as saturated")
	}
	wantGaps := []string{
		"sys/class/infiniband/mlx5_2/ports/1/counters/port_rcv_errors",
		"sys/class/infiniband/mlx5_2/ports/1/rate",
	}
	var gotGaps []string
	for _, g := range s.Gaps {
		gotGaps = append(gotGaps, g.Path)
	}
	if d := cmp.Diff(wantGaps, gotGaps); d != "" {
		t.Errorf("gaps (-want +got):\n%s", d)
	}

	roce := s.Port("mlx5_1", 1)
	if roce.LinkLayer != ib.LinkLayerEthernet || roce.NetDev != "ens2f0np0" || len(roce.GIDs) != 4 {
		t.Fatalf("RoCE port = %+v", roce)
	}
	if g := roce.GIDs[3]; g.Type != ib.GIDTypeRoCEv2 || g.NetDev != "ens2f0np0" {
		t.Errorf("GID 3 = %+v", g)
	}
	if v4, ok := roce.GIDs[3].GID.IPv4(); !ok || v4.String() != "10.0.0.5" {
		t.Errorf("GID 3 IPv4 = %v", v4)
	}
	if d := s.Device("mlx5_1"); len(d.HWCounters) == 0 {
		t.Error("device-level hw_counters missing")
	}

	// PCI: the NIC's chain up to the root port, the GPU and the virtio NIC.
	up := s.Upstream("0000:3d:00.1")
	var chain []pcie.Address
	for _, p := range up {
		chain = append(chain, p.Address)
	}
	if d := cmp.Diff([]pcie.Address{"0000:3c:00.0", "0000:3b:00.0", "0000:3a:00.0"}, chain); d != "" {
		t.Errorf("upstream of 0000:3d:00.1 (-want +got):\n%s", d)
	}
	nic2 := s.PCIDevice("0000:3d:00.1")
	if *nic2.CurrentLinkWidth != 8 || *nic2.MaxLinkWidth != 16 || nic2.CurrentLinkSpeed.Gen() != 4 || nic2.Driver != "mlx5_core" {
		t.Errorf("downtrained NIC = %+v", nic2)
	}
	if nic2.AER == nil || nic2.AER.Correctable != 2 || nic2.AER.NonFatal != 1 || nic2.AER.Bits["nonfatal:Poisoned TLP"] != 1 {
		t.Errorf("AER (long names) = %+v", nic2.AER)
	}
	if gpus := s.GPUs(); len(gpus) != 1 || gpus[0].Address != "0000:3e:00.0" || gpus[0].Parent != "0000:3c:01.0" {
		t.Errorf("GPUs = %+v", gpus)
	}
	virtio := s.PCIDevice("0000:00:03.0")
	if virtio == nil || *virtio.NUMANode != -1 || virtio.CurrentLinkSpeed != nil {
		t.Errorf("virtio function = %+v (Unknown speed is no value and no gap)", virtio)
	}
	if nd := s.NetDev("eth0"); nd == nil || nd.PCI != "0000:00:03.0" || nd.Carrier != nil || nd.Speed != nil {
		t.Errorf("eth0 = %+v", nd)
	}
	if s.NetDev("lo") != nil {
		t.Error("lo has no device and no port: it must not be listed")
	}
}

// faultFS injects read errors into an fs.FS, as sysfs does (EIO from a
// failed MAD, EINVAL from an empty GID slot).
type faultFS struct {
	fs.FS
	fail map[string]error
}

func (f faultFS) Open(name string) (fs.File, error) {
	if err, ok := f.fail[name]; ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.FS.Open(name)
}

func TestReadIsolation(t *testing.T) {
	const p = "sys/class/infiniband/mlx5_0/ports/1/"
	base := fstest.MapFS{
		"sys/class/infiniband/mlx5_0/fw_ver":        {Data: []byte("28.39.2048\n")},
		p + "state":                                 {Data: []byte("4: ACTIVE\n")},
		p + "phys_state":                            {Data: []byte("5: LinkUp\n")},
		p + "rate":                                  {Data: []byte("400 Gb/sec (4X NDR)\n")},
		p + "link_layer":                            {Data: []byte("InfiniBand\n")},
		p + "lid":                                   {Data: []byte("0xzz\n")},
		p + "counters/symbol_error":                 {Data: []byte("7\n")},
		p + "counters/link_downed":                  {Data: []byte("N/A (no PMA)\n")},
		p + "counters/port_xmit_data":               {Data: []byte("4294967295\n")},
		p + "gids/0":                                {Data: []byte("fe80:0000:0000:0000:a088:c203:0045:1a2c\n")},
		p + "gids/1":                                {Data: []byte("0000:0000:0000:0000:0000:0000:0000:0000\n")},
		p + "gid_attrs/types/0":                     {Data: []byte("IB/RoCE v1\n")},
		p + "gid_attrs/types/1":                     {Data: []byte("IB/RoCE v1\n")},
		"sys/class/infiniband/mlx5_1/ports/1/state": {Data: []byte("1: DOWN\n")},
	}
	fsys := faultFS{FS: base, fail: map[string]error{
		p + "phys_state":           syscall.EIO,
		p + "gid_attrs/ndevs/0":    syscall.EINVAL,
		"sys/bus/pci/devices":      syscall.EACCES,
		"proc/sys/kernel/hostname": syscall.EIO,
	}}
	s, err := Read(context.Background(), fsys, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	port := s.Port("mlx5_0", 1)
	if port == nil || !port.IsActive() || port.PhysState != nil || port.LID != nil || port.Rate == nil {
		t.Fatalf("port = %+v: only phys_state and lid may be missing", port)
	}
	if !port.HasCounters || len(port.Counters) != 2 {
		t.Errorf("counters = %+v, want symbol_error and port_xmit_data", port.Counters)
	}
	if xd, _ := port.Counter("port_xmit_data"); xd.Spec.Bits != 32 || !xd.Saturated() {
		t.Errorf("without unicast_* and below 2^32 the 32-bit table applies: %+v", xd)
	}
	if len(port.GIDs) != 1 || port.GIDs[0].NetDev != "" {
		t.Errorf("GIDs = %+v, want only slot 0 and EINVAL ndevs as absent", port.GIDs)
	}
	if s.Port("mlx5_1", 1) == nil {
		t.Error("a second device with a single readable file must still be listed")
	}
	if d := s.Port("mlx5_1", 1); d.HasCounters {
		t.Error("no counters/ directory means HasCounters=false")
	}
	want := map[string]string{
		p + "phys_state":           "input/output error",
		p + "lid":                  `malformed value: "0xzz\n" (want 32-bit 0x<hex>)`,
		p + "counters/link_downed": "counter not available: N/A (no PMA)",
		"sys/bus/pci/devices":      "permission denied",
		"proc/sys/kernel/hostname": "input/output error",
		// A port with only its state: the attributes every port has are
		// gaps, so the port is not taken as judged.
		"sys/class/infiniband/mlx5_1/ports/1/phys_state": "missing: the kernel creates it for every port",
		"sys/class/infiniband/mlx5_1/ports/1/rate":       "missing: the kernel creates it for every port",
	}
	got := map[string]string{}
	for _, g := range s.Gaps {
		got[g.Path] = g.Err
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("gaps (-want +got):\n%s", d)
	}
}

func TestReadNoSys(t *testing.T) {
	_, err := Read(context.Background(), fstest.MapFS{"proc/x": {}}, Options{Root: "/tmp/empty"})
	if !errors.Is(err, ErrNoSys) || !strings.Contains(err.Error(), "/tmp/empty") {
		t.Fatalf("err = %v, want ErrNoSys naming the root", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, os.DirFS("testdata/node1"), Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled read err = %v", err)
	}
}

func TestReadRoot(t *testing.T) {
	s, err := ReadRoot(context.Background(), "testdata/node1")
	if err != nil || s.Root != "testdata/node1" || len(s.Devices) != 3 {
		t.Fatalf("ReadRoot = %v, %v", s, err)
	}
	if _, err := ReadRoot(context.Background(), "testdata/missing"); err == nil {
		t.Fatal("missing root accepted")
	}
}

func TestHostFallback(t *testing.T) {
	meta := `{"host":"from-meta","kernel":"5.15.0","errors":[{"path":"sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error","error":"input/output error"}]}`
	port := func(m fstest.MapFS) fstest.MapFS {
		const p = "sys/class/infiniband/mlx5_0/ports/1/"
		m[p+"counters/link_downed"] = &fstest.MapFile{Data: []byte("0\n")}
		m[p+"state"] = &fstest.MapFile{Data: []byte("4: ACTIVE\n")}
		m[p+"phys_state"] = &fstest.MapFile{Data: []byte("5: LinkUp\n")}
		m[p+"rate"] = &fstest.MapFile{Data: []byte("400 Gb/sec (4X NDR)\n")}
		return m
	}
	for _, tc := range []struct {
		fsys fstest.MapFS
		host string
	}{
		{port(fstest.MapFS{"etc/hostname": {Data: []byte("from-etc\n")}, "meta.json": {Data: []byte(meta)}}), "from-etc"},
		{port(fstest.MapFS{"meta.json": {Data: []byte(meta)}}), "from-meta"},
	} {
		s, err := Read(context.Background(), tc.fsys, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Host != tc.host || s.Kernel != "5.15.0" {
			t.Errorf("host, kernel = %q, %q; want %q", s.Host, s.Kernel, tc.host)
		}
		if len(s.Gaps) != 1 || s.Gaps[0].Err != "input/output error" {
			t.Errorf("meta.json errors must become gaps: %+v", s.Gaps)
		}
	}
	s, _ := Read(context.Background(), fstest.MapFS{"sys": {Mode: fs.ModeDir}, "meta.json": {Data: []byte("{")}}, Options{})
	if len(s.Gaps) != 1 || s.Gaps[0].Path != "meta.json" {
		t.Errorf("malformed meta.json: gaps %+v", s.Gaps)
	}
}
