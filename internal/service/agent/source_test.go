package agent

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

func TestEthtoolFor(t *testing.T) {
	// A root with cmd/ (bundle layout, simulator): saved `ethtool -S` text.
	saved := t.TempDir()
	if err := os.MkdirAll(filepath.Join(saved, "cmd"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "NIC statistics:\n     rx_prio3_pause: 42\n     tx_pause_storm_error_events: 0\n"
	if err := os.WriteFile(filepath.Join(saved, "cmd", "ethtool-S-ens1f0np0.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(saved)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := EthtoolFor(r)(context.Background(), "ens1f0np0")
	if err != nil || st["rx_prio3_pause"] != 42 || len(st) != 2 {
		t.Errorf("saved stats: %v, %v", st, err)
	}
	if _, err := EthtoolFor(r)(context.Background(), "ens9"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing saved file: %v", err)
	}

	// A host root without cmd/ (the DaemonSet's /host): the live ioctl, so a
	// missing file is never the error.
	host := t.TempDir()
	hr, err := rootfs.Open(host)
	if err != nil {
		t.Fatal(err)
	}
	defer hr.Close()
	if _, err := EthtoolFor(hr)(context.Background(), "ibdoctor-no-such-netdev0"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("live ethtool of a missing netdev: %v", err)
	}
}
