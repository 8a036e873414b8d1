// Package tarball writes the gzip-compressed tar streams ibdoctor produces
// — support bundles, simulated node roots, fabric collections — in one
// deterministic form: entries in the order given, one modification time
// for all, PAX headers, modes by kind (directories 0755, symlinks 0777,
// files as the caller says). Reading is done where the limits of each
// format live (internal/source/rootfs for node roots and bundles,
// internal/source/fabric for collections).
package tarball

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Writer writes one .tar.gz stream.
type Writer struct {
	zw    *gzip.Writer
	tw    *tar.Writer
	mtime time.Time
}

// NewWriter starts a stream on w whose entries all carry mtime.
func NewWriter(w io.Writer, mtime time.Time) *Writer {
	zw := gzip.NewWriter(w)
	return &Writer{zw: zw, tw: tar.NewWriter(zw), mtime: mtime}
}

func (w *Writer) header(h *tar.Header) error {
	h.ModTime, h.Format = w.mtime, tar.FormatPAX
	if err := w.tw.WriteHeader(h); err != nil {
		return fmt.Errorf("%s: %w", h.Name, err)
	}
	return nil
}

// File adds a regular file with the given permission bits.
func (w *Writer) File(name string, data []byte, mode int64) error {
	if err := w.header(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(data))}); err != nil {
		return err
	}
	if _, err := w.tw.Write(data); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Dir adds a directory ("name/" in the archive).
func (w *Writer) Dir(name string) error {
	if !strings.HasSuffix(name, "/") {
		name += "/"
	}
	return w.header(&tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755})
}

// Symlink adds a symbolic link to target.
func (w *Writer) Symlink(name, target string) error {
	return w.header(&tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target, Mode: 0o777})
}

// Close ends the tar stream and the gzip stream.
func (w *Writer) Close() error {
	return errors.Join(w.tw.Close(), w.zw.Close())
}
