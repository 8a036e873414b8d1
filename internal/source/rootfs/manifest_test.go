package rootfs_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/source/bundle"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// nodeBundle collects the sysfs fixture node and returns the bundle's
// uncompressed tar stream.
func nodeBundle(t *testing.T) []byte {
	t.Helper()
	rt, err := rootfs.Open("../sysfs/testdata/node1")
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var buf bytes.Buffer
	if _, err := bundle.Collect(context.Background(), rt.FS(), &buf, bundle.Options{}); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// TestTruncatedBundle cuts the inner tar of a real bundle at every block
// boundary and at offsets inside blocks, as `gzip -dc b.tar.gz | head -c N
// | gzip` does, and re-compresses it. Go's tar reader takes a cut at an
// entry boundary or in an entry's padding as a clean end, so without the
// manifest most of these read as complete bundles; every one must be
// refused, except cuts in the end-of-archive blocks, which lose nothing.
func TestTruncatedBundle(t *testing.T) {
	raw := nodeBundle(t)
	if _, err := rootfs.ReadBundle(bytes.NewReader(gz(raw)), "whole.tar.gz"); err != nil {
		t.Fatalf("whole bundle: %v", err)
	}
	// The end of the last entry: everything after it is the two zero
	// blocks (and tar.Writer's padding to a record).
	end := len(raw)
	for end > 0 && raw[end-1] == 0 {
		end--
	}
	// About 150 cuts spread over the archive, on block boundaries (where
	// the old reader saw a clean end) and inside blocks.
	step := max(512, (end/150+511)/512*512)
	cuts := 0
	for n := 512; n < end; n += step {
		for _, cut := range []int{n, n + 100} {
			if cut >= end {
				continue
			}
			cuts++
			if _, err := rootfs.ReadBundle(bytes.NewReader(gz(raw[:cut])), "cut.tar.gz"); err == nil {
				t.Fatalf("bundle cut at %d of %d bytes read as complete", cut, len(raw))
			}
		}
	}
	if cuts < 100 {
		t.Fatalf("only %d cuts tried", cuts)
	}
	// The classic: a cut in the padding after a file's data.
	off := paddingOffset(t, raw)
	_, err := rootfs.ReadBundle(bytes.NewReader(gz(raw[:off+1])), "padding.tar.gz")
	if !errors.Is(err, rootfs.ErrTruncated) {
		t.Fatalf("cut in an entry's padding: err = %v, want ErrTruncated", err)
	}
}

// paddingOffset returns the offset just past the data of the first
// regular file (other than meta.json) whose size is not a multiple of 512.
func paddingOffset(t *testing.T, raw []byte) int {
	t.Helper()
	pos := 0
	for pos+512 <= len(raw) {
		// PAX headers take extra blocks: the data starts where the
		// reader stopped consuming.
		r := &countReader{r: bytes.NewReader(raw[pos:])}
		hdr, err := tar.NewReader(r).Next()
		if err != nil {
			t.Fatal(err)
		}
		dataStart := pos + r.n
		size := int(hdr.Size)
		if hdr.Typeflag == tar.TypeReg && size%512 != 0 && hdr.Name != "meta.json" {
			return dataStart + size
		}
		pos = dataStart + (size+511)/512*512
	}
	t.Fatal("no padded file")
	return 0
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// TestBundleWithoutManifest: a bundle written before the manifest existed
// still reads, and the reader says that its completeness is unchecked.
func TestBundleWithoutManifest(t *testing.T) {
	raw := nodeBundle(t)
	var out bytes.Buffer
	tr := tar.NewReader(bytes.NewReader(raw))
	tw := tar.NewWriter(&out)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if h.Name == "meta.json" {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			if m["manifest"] == nil {
				t.Fatal("a new bundle has no manifest")
			}
			delete(m, "manifest")
			data, _ = json.Marshal(m)
			h.Size = int64(len(data))
		}
		tw.WriteHeader(h)
		tw.Write(data)
	}
	tw.Close()
	fsys, err := rootfs.ReadBundle(bytes.NewReader(gz(out.Bytes())), "old.tar.gz")
	if err != nil {
		t.Fatalf("old bundle refused: %v", err)
	}
	if note := rootfs.BundleNote(fsys); !strings.Contains(note, "no manifest") {
		t.Fatalf("note = %q", note)
	}
	s, err := sysfs.Read(context.Background(), fsys, sysfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range s.Gaps {
		found = found || g.Path == "meta.json" && strings.Contains(g.Err, "no manifest")
	}
	if !found {
		t.Errorf("no note among the gaps: %+v", s.Gaps)
	}
}
