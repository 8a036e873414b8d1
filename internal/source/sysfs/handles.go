package sysfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// maxHandles bounds the files a Handles keeps open for Refresh (counters,
// state, links); reads past it open and close the file as Read does.
const maxHandles = 4096

// maxStatic bounds the other files a full Read keeps open through a
// Handles (identities, GID tables, P_Keys), so that the next full read
// reads each with one pread instead of an open, a read and a close. They
// are kept only when the process may open at least minNoFile files, so
// that they can never crowd out the files Refresh needs.
const (
	maxStatic = 4096
	minNoFile = 16384
)

// racyWindow is how recent a directory's modification time may be for it
// to be trusted: a rename in the same clock tick as the last look leaves
// the time unchanged, so a directory changed this recently is looked at
// again, its files opened again, at the next Refresh.
var racyWindow = time.Second

// Handles keeps attribute files open between Refresh calls, so a counter
// is re-read with one pread at offset 0 (sysfs regenerates an attribute on
// every read from offset 0) instead of an open, a read and a close — and
// through a confined root, an open of every path component. On a live
// sysfs or a bundle (rootfs.Stable) a kept file is always the path's. In
// any other directory a simulator may rename a new file over a kept one:
// each Refresh looks once at every directory it reads from (one fstat of
// the kept directory), and when the directory changed since the last look
// (its modification time, which a rename or a removal updates, or it
// went), or had changed just before it, the files kept in it are opened
// again. A file found absent is remembered as absent until its directory
// changes (a live sysfs: until Close). A Handles is safe for one Refresh at
// a time, over one file system; Close releases every file.
type Handles struct {
	mu    sync.Mutex
	files map[string]*handle
	dirs  map[string]*dirWatch
	gen   uint64 // Refresh generation: a directory is looked at once per generation
	buf   []byte
	opens int // files opened, for tests
	reads int // read system calls on kept files, for tests
	looks int // directories looked at with fstat, for tests
	pr    preader
	// notify, on Linux, reports the directories whose entries changed
	// (inotify) so that they need no look; started at the first watch,
	// never when noNotify (tests of the looks).
	notify      *notifier
	notifyTried bool
	noNotify    bool
	// hot and static count the entries of files (kept or absent) that
	// Refresh reads and that only a full Read reads; staticCap is the
	// most static ones kept (0 where the file limit is low).
	hot, static, staticCap int
}

// handle is one kept file (nil f: absent) and the epoch of its directory
// it was opened in; raw, when the file has a descriptor, reads it with
// one pread (io.ReaderAt on an *os.File reads until the buffer is full or
// EOF: two system calls for every attribute).
type handle struct {
	f      fs.File
	static bool
	raw    syscall.RawConn
	dir    *dirWatch
	epoch  uint64
}

// dirWatch is a directory whose files are kept open: the directory itself
// kept open, its modification time at the last look and an epoch that
// grows every time it changed.
type dirWatch struct {
	f     fs.File
	mtime time.Time
	racy  bool
	gen   uint64
	epoch uint64
	// wd is its inotify watch (-1: looked at with fstat instead);
	// notified says an event came for it since its last look, gone that
	// the directory itself went.
	wd             int
	notified, gone bool
	fi             fs.FileInfo // at the last look
}

// NewHandles returns an empty cache of open files.
func NewHandles() *Handles {
	h := &Handles{files: map[string]*handle{}, dirs: map[string]*dirWatch{}}
	if noFileLimit() >= minNoFile {
		h.staticCap = maxStatic
	}
	return h
}

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
	for _, k := range h.files {
		if k.f != nil {
			k.f.Close()
		}
	}
	for _, d := range h.dirs {
		if d.f != nil {
			d.f.Close()
		}
	}
	if h.notify != nil {
		h.notify.close()
		h.notify, h.notifyTried = nil, false
	}
	clear(h.files)
	clear(h.dirs)
	h.hot, h.static = 0, 0
}

// next starts a Refresh: every directory is looked at again.
func (h *Handles) next() {
	h.mu.Lock()
	h.gen++
	if h.notify != nil {
		h.notify.drain()
	}
	h.mu.Unlock()
}

// watch returns the directory of path, looked at in this generation; nil
// on a stable file system, where kept files need no look.
func (h *Handles) watch(fsys fs.FS, path string) *dirWatch {
	if rootfs.Stable(fsys) {
		return nil
	}
	dir := "."
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir = path[:i]
	}
	d := h.dirs[dir]
	if d == nil {
		d = &dirWatch{gen: h.gen, wd: -1}
		h.dirs[dir] = d
		d.f, _ = fsys.Open(dir)
		if !h.watchNotified(d) {
			h.looks++
			d.look()
		}
		return d
	}
	if d.gen != h.gen && d.wd >= 0 {
		// Watched: changed only if an event said so.
		d.gen = h.gen
		if d.notified {
			d.notified = false
			d.epoch++
			if d.gone {
				d.gone = false
				h.notify.remove(d)
				if d.f != nil {
					d.f.Close()
				}
				d.f, _ = fsys.Open(dir)
				if !h.watchNotified(d) {
					h.looks++
					d.look()
				}
			}
		}
		return d
	}
	if d.gen != h.gen {
		d.gen = h.gen
		h.looks++
		wasRacy := d.racy
		changed, gone := d.look()
		if !gone && !d.isAt(fsys, dir) {
			gone = true // renamed away, another directory in its place
		}
		if gone {
			// Removed (or renamed away) and perhaps made again: watch
			// what the path names now.
			if d.f != nil {
				d.f.Close()
			}
			d.f, _ = fsys.Open(dir)
			d.look()
		}
		if changed || gone || wasRacy {
			d.epoch++
		}
	}
	return d
}

// watchNotified has the notifier watch d, starting it at the first
// directory; false when d is to be looked at instead. A watch added now
// reports what changes from now on, which is what a first look does too.
func (h *Handles) watchNotified(d *dirWatch) bool {
	if d.f == nil || h.noNotify {
		return false
	}
	if h.notify == nil {
		if h.notifyTried {
			return false // tried, and inotify is not there
		}
		h.notifyTried = true
		if h.notify = newNotifier(); h.notify == nil {
			return false
		}
	}
	return h.notify.add(d)
}

// look reads the directory's modification time: changed reports whether
// it differs from the last look, gone whether the directory kept open was
// removed or cannot be looked at.
func (d *dirWatch) look() (changed, gone bool) {
	if d.f == nil {
		d.racy = true
		return true, true
	}
	now := time.Now()
	fi, err := d.f.Stat()
	if err != nil || removed(fi) {
		d.racy = true
		return true, true
	}
	d.fi = fi
	m := fi.ModTime()
	changed = !m.Equal(d.mtime)
	d.mtime = m
	d.racy = !m.Before(now.Add(-racyWindow))
	return changed, false
}

// isAt reports whether the directory kept open is still the one at its
// path: a directory renamed away keeps its links and its time, and only
// its path tells (inotify reports the rename itself).
func (d *dirWatch) isAt(fsys fs.FS, dir string) bool {
	if d.fi == nil {
		return true
	}
	fi, err := fs.Stat(fsys, dir)
	return err == nil && os.SameFile(d.fi, fi)
}

// room reports whether one more file of the class may be kept.
func (h *Handles) room(static bool) bool {
	if static {
		return h.static < h.staticCap
	}
	return h.hot < maxHandles
}

// keep records a kept (or absent) file.
func (h *Handles) keep(path string, k *handle) {
	h.files[path] = k
	if k.static {
		h.static++
	} else {
		h.hot++
	}
}

// read returns the content of path, from its kept file when it has one.
// A kept file whose read fails is opened again once before the failure
// counts: on a live sysfs a device that went and came back between two
// reads leaves kept files that fail (ENODEV) while the path is fine.
// static says that only a full Read reads the file (it is kept while
// there is room for such files).
func (h *Handles) read(fsys fs.FS, path string, static bool) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.watch(fsys, path)
	k, ok := h.files[path]
	if ok && k.dir != nil && k.epoch != k.dir.epoch {
		// Its directory changed: the file may be another one now.
		h.drop(path, k)
		ok = false
	}
	if ok && k.static && !static && h.hot < maxHandles {
		// Kept by a full read and read by Refresh too: one of Refresh's.
		k.static = false
		h.static--
		h.hot++
	}
	if ok && k.f == nil {
		// Absent at the last look, and its directory has not changed
		// since (on a stable file system, files do not appear while the
		// inventory stays the same; ForgetAbsent and Close forget).
		return "", &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	if ok {
		s, err := h.readKept(path, k)
		if err == nil {
			return s, nil
		}
		h.drop(path, k)
	}
	nf, err := fsys.Open(path)
	h.opens++
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && h.room(static) {
			h.keep(path, &handle{dir: d, epoch: epochOf(d), static: static})
		}
		return "", err
	}
	if _, isRA := nf.(io.ReaderAt); !isRA || !h.room(static) {
		nf.Close()
		b, err := rootfs.ReadAttr(fsys, path)
		return string(b), err
	}
	k = &handle{f: nf, raw: rawConn(nf), dir: d, epoch: epochOf(d), static: static}
	h.keep(path, k)
	s, err := h.readKept(path, k)
	if err != nil {
		h.drop(path, k)
	}
	return s, err
}

// drop closes a kept file and forgets it.
func (h *Handles) drop(path string, k *handle) {
	if k.f != nil {
		k.f.Close()
	}
	delete(h.files, path)
	if k.static {
		h.static--
	} else {
		h.hot--
	}
}

// readKept reads a kept file from offset 0.
func (h *Handles) readKept(path string, k *handle) (string, error) {
	if h.buf == nil {
		h.buf = make([]byte, rootfs.MaxAttrBytes+1)
	}
	var n int
	var err error
	if k.raw != nil {
		n, err = h.pr.pread(k.raw, h.buf)
		h.reads++
	} else {
		n, err = k.f.(io.ReaderAt).ReadAt(h.buf, 0)
		h.reads += 2
	}
	if err != nil && !errors.Is(err, io.EOF) {
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

// ForgetAbsent forgets the files found absent, so the next read looks for
// them again.
func (h *Handles) ForgetAbsent() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for p, k := range h.files {
		if k.f == nil {
			h.drop(p, k)
		}
	}
}

func epochOf(d *dirWatch) uint64 {
	if d == nil {
		return 0
	}
	return d.epoch
}
