package rootfs_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/source/bundle"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// BenchmarkReadBundle unpacks and checks a bundle of the sysfs fixture
// node (3 HCAs, a PCIe switch, a GPU; about 330 entries).
func BenchmarkReadBundle(b *testing.B) {
	rt, err := rootfs.Open("../sysfs/testdata/node1")
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	var buf bytes.Buffer
	if _, err := bundle.Collect(context.Background(), rt.FS(), &buf, bundle.Options{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rootfs.ReadBundle(bytes.NewReader(buf.Bytes()), "node1.tar.gz"); err != nil {
			b.Fatal(err)
		}
	}
}
