package agent

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// TestSavedEthtoolReparsesOnlyChanges reads a saved `ethtool -S` file
// sample after sample: an unchanged file gives the map parsed before, a
// changed one its new values, a malformed one an error (and the next good
// one its values again).
func TestSavedEthtoolReparsesOnlyChanges(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, filepath.FromSlash(layout.Ethtool("eth9")))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	read := SavedEthtool(r)
	var last map[string]uint64
	for _, s := range []struct {
		name, text string
		want       uint64 // rx_packets; 0: an error
		same       bool   // the map of the step before
	}{
		{"first", "NIC statistics:\n     rx_packets: 5\n", 5, false},
		{"unchanged", "NIC statistics:\n     rx_packets: 5\n", 5, true},
		{"changed", "NIC statistics:\n     rx_packets: 6\n", 6, false},
		{"malformed", "NIC statistics:\n     rx_packets: many\n", 0, false},
		{"good again", "NIC statistics:\n     rx_packets: 6\n", 6, false},
	} {
		if err := os.WriteFile(file, []byte(s.text), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := read(context.Background(), "eth9")
		if s.want == 0 {
			if err == nil {
				t.Errorf("%s: no error, stats %v", s.name, m)
			}
			last = nil
			continue
		}
		if err != nil || m["rx_packets"] != s.want {
			t.Errorf("%s: rx_packets %d, %v; want %d", s.name, m["rx_packets"], err, s.want)
		}
		if same := last != nil && reflect.ValueOf(m).Pointer() == reflect.ValueOf(last).Pointer(); same != s.same {
			t.Errorf("%s: map reused %v, want %v", s.name, same, s.same)
		}
		last = m
	}
}
