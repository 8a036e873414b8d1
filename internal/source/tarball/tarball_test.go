package tarball

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"testing"
	"time"
)

// A stream reads back with the entries, kinds, modes and time written,
// and the same input gives the same bytes.
func TestRoundTrip(t *testing.T) {
	stamp := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	write := func() []byte {
		var b bytes.Buffer
		w := NewWriter(&b, stamp)
		if err := w.Dir("sys"); err != nil {
			t.Fatal(err)
		}
		if err := w.File("sys/a", []byte("x\n"), 0o444); err != nil {
			t.Fatal(err)
		}
		if err := w.Symlink("sys/l", "a"); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	one, two := write(), write()
	if !bytes.Equal(one, two) {
		t.Error("two writes of the same entries differ")
	}
	zr, err := gzip.NewReader(bytes.NewReader(one))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	want := []struct {
		name string
		typ  byte
		mode int64
	}{{"sys/", tar.TypeDir, 0o755}, {"sys/a", tar.TypeReg, 0o444}, {"sys/l", tar.TypeSymlink, 0o777}}
	for _, w := range want {
		h, err := tr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != w.name || h.Typeflag != w.typ || h.Mode != w.mode || !h.ModTime.Equal(stamp) {
			t.Errorf("header %+v, want %+v", h, w)
		}
		if w.typ == tar.TypeReg {
			if b, _ := io.ReadAll(tr); string(b) != "x\n" {
				t.Errorf("data %q", b)
			}
		}
		if w.typ == tar.TypeSymlink && h.Linkname != "a" {
			t.Errorf("link %q", h.Linkname)
		}
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("after the entries: %v", err)
	}
}
