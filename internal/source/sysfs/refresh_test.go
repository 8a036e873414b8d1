package sysfs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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
	}{
		{name: "nothing", same: true},
		{name: "dynamic", faults: []string{"down:mlx5_3/1", "width:mlx5_2/1=2", "counter:mlx5_1/1/symbol_error=1234",
			"hw-counter:mlx5_0/1/out_of_buffer=5000", "pcie-width:mlx5_4=8", "aer:mlx5_2/correctable/RxErr=12", "flap:mlx5_8/1=3",
			"unreadable:mlx5_0/1/counters/port_rcv_data"}, same: true},
		{name: "static", faults: []string{"fw:mlx5_5=28.36.1010"}},
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
		ref, err := sysfs.Refresh(ctx, r.FS(), prev, hopts)
		if err != nil {
			t.Fatal(err)
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
