package sysfs_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// TestRefresh changes a simulated node between reads: after changes to
// what varies (port state, rate, counters, hw_counters, carrier, PCIe
// link, AER, an unreadable counter) Refresh of the earlier snapshot equals
// a full Read; a change to a static attribute (firmware version) is not
// seen until the next Read, and Inventory tells a device that went.
func TestRefresh(t *testing.T) {
	steps := []struct {
		name      string
		faults    []string
		same      bool // Refresh equals Read
		inventory bool // Inventory changes
		config    bool // Refresh with Options.Config
	}{
		{name: "nothing", same: true},
		{name: "dynamic", faults: []string{"down:mlx5_3/1", "width:mlx5_2/1=2", "counter:mlx5_1/1/symbol_error=1234",
			"hw-counter:mlx5_0/1/out_of_buffer=5000", "pcie-width:mlx5_4=8", "aer:mlx5_2/correctable/RxErr=12", "flap:mlx5_8/1=3",
			"unreadable:mlx5_0/1/counters/port_rcv_data"}, same: true},
		{name: "static", faults: []string{"fw:mlx5_5=28.36.1010"}},
		// With Options.Config the identities, GID and P_Key tables are
		// read again too: only the PCI chain and the lists stay.
		{name: "config", faults: []string{"fw:mlx5_4=28.36.1010", "no-gid-v2:mlx5_8/1", "pkeys:mlx5_3/1=0x7fff,0x8001"}, same: true, config: true},
		{name: "device gone", faults: []string{"missing:mlx5_7"}, inventory: true},
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	opts := sysfs.Options{Now: func() time.Time { return at }}
	ctx := context.Background()
	n, err := simnode.Build(simnode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := n.Write(dir); err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The open files are kept across steps: the simulator renames new
	// files over them, which Refresh must notice.
	h := sysfs.NewHandles()
	defer h.Close()
	hopts := opts
	hopts.Handles = h
	for _, tt := range steps {
		prev, err := sysfs.Read(ctx, r.FS(), opts)
		if err != nil {
			t.Fatal(err)
		}
		inv := sysfs.Inventory(r.FS())
		for _, f := range simnode.MustParseFaults(tt.faults...) {
			if err := n.Apply(f); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := n.Update(dir); err != nil {
			t.Fatal(err)
		}
		if got := sysfs.Inventory(r.FS()) != inv; got != tt.inventory {
			t.Errorf("%s: inventory changed %v, want %v", tt.name, got, tt.inventory)
		}
		if tt.inventory {
			continue
		}
		full, err := sysfs.Read(ctx, r.FS(), opts)
		if err != nil {
			t.Fatal(err)
		}
		ropts := hopts
		ropts.Config = tt.config
		ref, err := sysfs.Refresh(ctx, r.FS(), prev, ropts)
		if err != nil {
			t.Fatal(err)
		}
		if tt.config {
			// Without Config the same changes are not seen.
			if plain, err := sysfs.Refresh(ctx, r.FS(), prev, hopts); err != nil || cmp.Diff(full, plain) == "" {
				t.Errorf("%s: Refresh without Config saw the changes too (%v)", tt.name, err)
			}
		}
		if h.Len() == 0 {
			t.Errorf("%s: no file kept open", tt.name)
		}
		d := cmp.Diff(full, ref)
		if tt.same && d != "" {
			t.Errorf("%s: Refresh differs from Read (-read +refresh):\n%s", tt.name, d)
		}
		if !tt.same && d == "" {
			t.Errorf("%s: Refresh saw a static change", tt.name)
		}
		if tt.same && len(tt.faults) > 0 && cmp.Diff(prev, ref) == "" {
			t.Errorf("%s: Refresh returned the previous snapshot", tt.name)
		}
	}
}

// TestRefreshKeepsPrev checks that Refresh leaves the snapshot it starts
// from as it was (the agent's published view still points at it).
func TestRefreshKeepsPrev(t *testing.T) {
	dir := writeSim(t, simnode.Options{})
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	prev, err := sysfs.Read(context.Background(), r.FS(), sysfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	val := func(s *snapshot.Snapshot) uint64 {
		c, _ := s.Device("mlx5_0").Ports[0].Counter("symbol_error")
		return c.Value
	}
	before := val(prev)
	p := filepath.Join(dir, "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error")
	if err := os.WriteFile(p, []byte("77\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, err := sysfs.Refresh(context.Background(), r.FS(), prev, sysfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if val(prev) != before || val(ref) != 77 {
		t.Errorf("symbol_error: prev %d (was %d), refreshed %d (want 77)", val(prev), before, val(ref))
	}
}

// TestRefreshQuasiStatic: with Options.QuasiStatic = 4, a PCIe link that
// trains down, a net device MTU or a port's LID is seen within 4
// consecutive refreshes — at the one whose Pass plus the function's,
// device's or port's position is a multiple of 4, not before — and at the
// first refresh when its change signal fires (AER counts, carrier_changes,
// port state).
func TestRefreshQuasiStatic(t *testing.T) {
	const every = 4
	pciOf := func(s *snapshot.Snapshot, dev string) (int, *snapshot.PCIDevice) {
		for i := range s.PCI {
			if s.PCI[i].Address == s.Device(dev).PCI {
				return i, &s.PCI[i]
			}
		}
		t.Fatalf("no PCI function for %s", dev)
		return 0, nil
	}
	netOf := func(s *snapshot.Snapshot, name string) (int, *snapshot.NetDev) {
		for i := range s.NetDevs {
			if s.NetDevs[i].Name == name {
				return i, &s.NetDevs[i]
			}
		}
		t.Fatalf("no net device %s", name)
		return 0, nil
	}
	portOf := func(s *snapshot.Snapshot, dev string) (int, *snapshot.Port) {
		n := 0
		for i := range s.Devices {
			for j := range s.Devices[i].Ports {
				if s.Devices[i].Name == dev {
					return n, &s.Devices[i].Ports[j]
				}
				n++
			}
		}
		t.Fatalf("no port on %s", dev)
		return 0, nil
	}
	str := func(v any) string { return fmt.Sprint(v) }
	for _, tc := range []struct {
		name   string
		faults []string
		// attr is the attribute under test and the position that decides
		// when it is due.
		attr   func(s *snapshot.Snapshot) (int, string)
		signal bool // seen at the first refresh
	}{
		{"PCIe width drop", []string{"pcie-width:mlx5_4=8"}, func(s *snapshot.Snapshot) (int, string) {
			i, d := pciOf(s, "mlx5_4")
			return i, str(*d.CurrentLinkWidth)
		}, false},
		{"PCIe speed drop", []string{"pcie-speed:mlx5_1=3"}, func(s *snapshot.Snapshot) (int, string) {
			i, d := pciOf(s, "mlx5_1")
			return i, str(*d.CurrentLinkSpeed)
		}, false},
		{"PCIe width drop with an AER error", []string{"pcie-width:mlx5_2=8", "aer:mlx5_2/correctable/RxErr=12"}, func(s *snapshot.Snapshot) (int, string) {
			i, d := pciOf(s, "mlx5_2")
			return i, str(*d.CurrentLinkWidth)
		}, true},
		{"MTU", []string{"mtu:ens1f1np1=1500"}, func(s *snapshot.Snapshot) (int, string) {
			i, d := netOf(s, "ens1f1np1")
			return i, str(*d.MTU)
		}, false},
		{"MTU with a flap", []string{"mtu:ens1f1np1=1500", "flap:mlx5_9/1=1"}, func(s *snapshot.Snapshot) (int, string) {
			i, d := netOf(s, "ens1f1np1")
			return i, str(*d.MTU)
		}, true},
		{"LID reassigned", []string{"lid:mlx5_4/1=0x99"}, func(s *snapshot.Snapshot) (int, string) {
			i, p := portOf(s, "mlx5_4")
			return i, str(*p.LID)
		}, false},
		{"LID of a port that went down and up", []string{"lid:mlx5_4/1=0x99", "down:mlx5_4/1"}, func(s *snapshot.Snapshot) (int, string) {
			i, p := portOf(s, "mlx5_4")
			return i, str(*p.LID)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			n, err := simnode.Build(simnode.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// The node before and after the change, rendered into memory
			// as bundles: Refresh reads the second from the first's
			// snapshot.
			render := func() fs.FS { return renderBundle(t, n) }
			prev, err := sysfs.Read(ctx, render(), sysfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pos, before := tc.attr(prev)
			var over fstest.MapFS // the simulator has no fault for a LID
			for _, f := range tc.faults {
				if v, ok := strings.CutPrefix(f, "lid:mlx5_4/1="); ok {
					over = fstest.MapFS{"sys/class/infiniband/mlx5_4/ports/1/lid": {Data: []byte(v + "\n")}}
					continue
				}
				for _, f := range simnode.MustParseFaults(f) {
					if err := n.Apply(f); err != nil {
						t.Fatal(err)
					}
				}
			}
			after := render()
			if over != nil {
				after = overlay{after, over}
			}
			full, err := sysfs.Read(ctx, after, sysfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, want := tc.attr(full)
			if want == before {
				t.Fatalf("the fault did not change the attribute (%s)", want)
			}
			due := 1
			for (due+pos)%every != 0 {
				due++
			}
			if tc.signal {
				due = 1
			}
			if !tc.signal && due == 1 {
				t.Fatalf("position %d is due at the first refresh: the case shows no cadence", pos)
			}
			s := prev
			for pass := 1; pass <= every; pass++ {
				s, err = sysfs.Refresh(ctx, after, s, sysfs.Options{QuasiStatic: every, Pass: pass})
				if err != nil {
					t.Fatal(err)
				}
				_, got := tc.attr(s)
				if seen := got == want; seen != (pass >= due) {
					t.Errorf("refresh %d: %s, want %s from refresh %d on (was %s)", pass, got, want, due, before)
				}
			}
		})
	}
}

// overlay is a file system with some files replaced.
type overlay struct {
	fs.FS
	files fstest.MapFS
}

func (o overlay) Open(name string) (fs.File, error) {
	if _, ok := o.files[name]; ok {
		return o.files.Open(name)
	}
	return o.FS.Open(name)
}

// TestRefreshAEREvery: with Options.AEREvery = 4 a PCI function's new AER
// counts are seen at the refresh whose Pass plus its position is a
// multiple of 4, not before; with AERNow, or without AEREvery, at the first.
func TestRefreshAEREvery(t *testing.T) {
	ctx := context.Background()
	n, err := simnode.Build(simnode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	render := func() fs.FS { return renderBundle(t, n) }
	prev, err := sysfs.Read(ctx, render(), sysfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pos := -1
	for i := range prev.PCI {
		if prev.PCI[i].Address == prev.Device("mlx5_2").PCI {
			pos = i
		}
	}
	if pos < 0 || prev.PCI[pos].AER == nil || prev.PCI[pos].AER.Correctable != 0 {
		t.Fatalf("mlx5_2's PCI function: position %d, AER %+v", pos, prev.PCI)
	}
	for _, f := range simnode.MustParseFaults("aer:mlx5_2/correctable/RxErr=12") {
		if err := n.Apply(f); err != nil {
			t.Fatal(err)
		}
	}
	after := render()
	const every = 4
	due := 1
	for (due+pos)%every != 0 {
		due++
	}
	if due == 1 {
		t.Fatalf("position %d is due at the first refresh: the case shows no cadence", pos)
	}
	for _, tc := range []struct {
		name string
		opts func(pass int) sysfs.Options
		due  int
	}{
		{"spread", func(pass int) sysfs.Options { return sysfs.Options{AEREvery: every, Pass: pass} }, due},
		{"kernel log reported AER", func(pass int) sysfs.Options { return sysfs.Options{AEREvery: every, Pass: pass, AERNow: pass == 1} }, 1},
		{"every call", func(pass int) sysfs.Options { return sysfs.Options{Pass: pass} }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := prev
			for pass := 1; pass <= every; pass++ {
				if s, err = sysfs.Refresh(ctx, after, s, tc.opts(pass)); err != nil {
					t.Fatal(err)
				}
				got := s.PCI[pos].AER.Correctable
				if seen := got == 12; seen != (pass >= tc.due) {
					t.Errorf("refresh %d: %d correctable errors, want 12 from refresh %d on", pass, got, tc.due)
				}
			}
		})
	}
}

// renderBundle renders the node as a bundle read into memory.
func renderBundle(t *testing.T, n *simnode.Node) fs.FS {
	t.Helper()
	var buf bytes.Buffer
	if err := n.WriteTarGz(&buf); err != nil {
		t.Fatal(err)
	}
	fsys, err := rootfs.ReadBundle(&buf, "node.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}
