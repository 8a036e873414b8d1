package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// TestCachedRootSource changes a static attribute (fw_ver) and a counter
// between samples: counters are read every sample, the static attribute
// only at the Nth sample or at once when a net device appears.
func TestCachedRootSource(t *testing.T) {
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
	read := CachedRootSource(r, func() time.Time { return t0 }, 3)
	dev := filepath.Join(dir, "sys/class/infiniband/mlx5_0")
	write := func(rel, v string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dev, rel), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name     string
		change   func()
		fw       string
		symbolEr uint64
	}{
		{name: "first sample is full", change: func() { write("ports/1/counters/symbol_error", "1") }, fw: "28.39.2048", symbolEr: 1},
		{name: "refresh: counter new, fw kept", change: func() { write("fw_ver", "28.40.1000"); write("ports/1/counters/symbol_error", "2") }, fw: "28.39.2048", symbolEr: 2},
		{name: "refresh again", change: func() { write("ports/1/counters/symbol_error", "3") }, fw: "28.39.2048", symbolEr: 3},
		{name: "third after the full one: full", fw: "28.40.1000", symbolEr: 3},
		{name: "refresh", change: func() { write("fw_ver", "28.41.1000") }, fw: "28.40.1000", symbolEr: 3},
		{name: "a net device appears: full", change: func() {
			if err := os.Mkdir(filepath.Join(dir, "sys/class/net/veth9"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, fw: "28.41.1000", symbolEr: 3},
	}
	for _, s := range steps {
		if s.change != nil {
			s.change()
		}
		snap, err := read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		d := snap.Device("mlx5_0")
		c, _ := d.Ports[0].Counter("symbol_error")
		if d.FWVersion != s.fw || c.Value != s.symbolEr {
			t.Errorf("%s: fw %s symbol_error %d, want %s %d", s.name, d.FWVersion, c.Value, s.fw, s.symbolEr)
		}
	}
}
