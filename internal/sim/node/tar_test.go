package node

import (
	"bytes"
	"io/fs"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// The bundle form holds exactly the entries of the directory form.
func TestWriteTarGz(t *testing.T) {
	f, _ := ParseFault("unreadable:mlx5_0/1/counters/port_rcv_data")
	n, err := Build(Options{Faults: []Fault{f}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := n.WriteTarGz(&buf); err != nil {
		t.Fatal(err)
	}
	fsys, err := rootfs.ReadBundle(&buf, "node.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range n.Entries() {
		switch e.Kind {
		case KindFile:
			b, err := fs.ReadFile(fsys, e.Path)
			if err != nil || !bytes.Equal(b, e.Data) {
				t.Fatalf("%s: %q, %v", e.Path, b, err)
			}
		case KindSymlink:
			if l, err := fs.ReadLink(fsys, e.Path); err != nil || l != e.Target {
				t.Fatalf("%s -> %q, %v; want %q", e.Path, l, err, e.Target)
			}
		default:
			if st, err := fs.Stat(fsys, e.Path); err != nil || !st.IsDir() {
				t.Fatalf("%s: want a directory (%v)", e.Path, err)
			}
		}
	}
	if _, err := fs.ReadFile(fsys, "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data"); err == nil {
		t.Error("the unreadable file reads in the bundle")
	}
}
