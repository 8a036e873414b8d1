package sysfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// maxHandles bounds the files a Handles keeps open; reads past it open and
// close the file as Read does.
const maxHandles = 4096

// Handles keeps attribute files open between Refresh calls, so a counter
// is re-read with one pread at offset 0 (sysfs regenerates an attribute on
// every read from offset 0) instead of an open, a read and a close — and
// through a confined root, an open of every path component. A file that
// was replaced (a simulator renames a new file over it: the open one has
// no links left) is opened again; a file found absent is remembered as
// absent until Close. A Handles is safe for one Refresh at a
// time, over one file system; Close releases every file.
type Handles struct {
	mu    sync.Mutex
	files map[string]fs.File
	buf   []byte
}

// NewHandles returns an empty cache of open files.
func NewHandles() *Handles { return &Handles{files: map[string]fs.File{}} }

// Len is the number of files kept open or known absent.
func (h *Handles) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.files)
}

// Close closes every kept file.
func (h *Handles) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.files {
		if f != nil {
			f.Close()
		}
	}
	clear(h.files)
}

// read returns the content of path, from its kept file when it has one.
func (h *Handles) read(fsys fs.FS, path string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.files[path]
	if ok && f == nil {
		// Absent at the last look; files do not appear while the
		// inventory stays the same, and a full read clears the cache.
		return "", &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	if ok && replaced(f) {
		f.Close()
		delete(h.files, path)
		ok = false
	}
	if !ok {
		nf, err := fsys.Open(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && len(h.files) < maxHandles {
				h.files[path] = nil
			}
			return "", err
		}
		if _, isRA := nf.(io.ReaderAt); !isRA || len(h.files) >= maxHandles {
			nf.Close()
			b, err := rootfs.ReadAttr(fsys, path)
			return string(b), err
		}
		f = nf
		h.files[path] = f
	}
	if h.buf == nil {
		h.buf = make([]byte, rootfs.MaxAttrBytes+1)
	}
	n, err := f.(io.ReaderAt).ReadAt(h.buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		f.Close()
		delete(h.files, path)
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			err = &fs.PathError{Op: "read", Path: path, Err: err}
		}
		return "", err
	}
	if n > rootfs.MaxAttrBytes {
		return "", &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %d bytes", rootfs.ErrTooLarge, rootfs.MaxAttrBytes)}
	}
	return string(h.buf[:n]), nil
}
