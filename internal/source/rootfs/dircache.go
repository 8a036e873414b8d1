package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// dirFS is a directory root as Open returns it: the file system it reads
// through (os.Root's, or os.DirFS for the live host) and how to open one of
// its directories as an *os.File, so Cache can open the files in it with
// one openat each.
type dirFS struct {
	fs.FS
	openDir func(name string) (*os.File, error)
	// stable: sys/ is the kernel's sysfs, whose attribute files are never
	// replaced by others (a file that goes away fails its reads).
	stable bool
}

var (
	_ fs.ReadLinkFS = (*dirFS)(nil)
	_ fs.ReadDirFS  = (*dirFS)(nil)
	_ fs.ReadFileFS = (*dirFS)(nil)
	_ fs.StatFS     = (*dirFS)(nil)
)

func (d *dirFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(d.FS, name) }
func (d *dirFS) ReadFile(name string) ([]byte, error)       { return fs.ReadFile(d.FS, name) }
func (d *dirFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(d.FS, name) }
func (d *dirFS) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(d.FS, name) }
func (d *dirFS) ReadLink(name string) (string, error)       { return fs.ReadLink(d.FS, name) }

func newDirFS(name string, root *os.Root, stable bool) *dirFS {
	if root != nil {
		return &dirFS{FS: root.FS(), openDir: func(dir string) (*os.File, error) { return root.Open(dir) }}
	}
	return &dirFS{FS: os.DirFS(name), stable: stable, openDir: func(dir string) (*os.File, error) {
		return os.Open(filepath.Join(name, filepath.FromSlash(dir)))
	}}
}

// Stable reports whether the files of fsys keep their content's identity:
// a bundle never changes, and a live sysfs regenerates an attribute on
// every read from offset 0 of the same open file. Elsewhere (a directory
// a simulator rewrites) a file may be replaced by another one renamed over
// it, so a file kept open must be checked before it is trusted.
func Stable(fsys fs.FS) bool {
	switch f := fsys.(type) {
	case *memFS:
		return true
	case *Cached:
		return Stable(f.fsys)
	case *dirFS:
		return f.stable
	}
	return false
}

// Cached is a file system that keeps open each directory it opened a file
// in or listed, until Close: a file is then opened with one openat relative
// to its directory (O_NOFOLLOW, so it cannot leave it; a symlink is opened
// through the root's own file system) instead of walking its whole path —
// through a confined directory root that is an openat per path component.
// A listing rewinds the kept directory. Nothing is cached for file systems
// that are not directory roots. Paths are root-relative as everywhere; a
// directory replaced while it is kept open is not seen until Close, so a
// Cached lives for one read of the tree.
type Cached struct {
	fsys fs.FS
	dir  *dirFS // nil: no fast path
	mu   sync.Mutex
	dirs map[string]*cachedDir
	buf  []byte
}

type cachedDir struct {
	f   *os.File
	fd  int
	err error
}

// Cache wraps fsys in a Cached; Close releases what it keeps open.
func Cache(fsys fs.FS) *Cached {
	c := &Cached{fsys: fsys, dirs: map[string]*cachedDir{}}
	if d, ok := fsys.(*dirFS); ok && fastOpen {
		c.dir = d
	}
	return c
}

var (
	_ fs.ReadLinkFS = (*Cached)(nil)
	_ fs.ReadDirFS  = (*Cached)(nil)
	_ fs.StatFS     = (*Cached)(nil)
)

// Close closes the kept directories; the Cached stays usable.
func (c *Cached) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.dirs {
		if d.f != nil {
			d.f.Close()
		}
	}
	clear(c.dirs)
}

// Len is how many directories are kept open.
func (c *Cached) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, d := range c.dirs {
		if d.f != nil {
			n++
		}
	}
	return n
}

// maxCachedDirs bounds the directories a Cached keeps open; past it, files
// are opened through the root.
const maxCachedDirs = 1024

// dirFD returns the kept descriptor of directory name, opening it on first
// use; ok is false when there is none (not a directory root, or the
// directory could not be opened: the caller goes through the root, which
// reports why).
func (c *Cached) dirFD(name string) (*cachedDir, bool) {
	if c.dir == nil {
		return nil, false
	}
	d, ok := c.dirs[name]
	if !ok {
		if len(c.dirs) >= maxCachedDirs {
			return nil, false
		}
		d = &cachedDir{}
		d.f, d.err = c.openDir(name)
		if d.err == nil {
			d.fd = int(d.f.Fd())
		}
		c.dirs[name] = d
	}
	return d, d.err == nil
}

// openDir opens directory name relative to its kept parent (one openat,
// O_NOFOLLOW: it cannot leave the parent), the parent kept open too, and
// through the root (which walks every component of the path) when that
// cannot be done: the root, a symlink, anything unusual.
func (c *Cached) openDir(name string) (*os.File, error) {
	if name != "." {
		dir, base := split(name)
		if p, ok := c.dirFD(dir); ok {
			fd, err := openDirAt(p.fd, base)
			switch {
			case err == nil:
				return os.NewFile(uintptr(fd), name), nil
			case errors.Is(err, fs.ErrNotExist):
				return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
			}
		}
	}
	return c.dir.openDir(name)
}

func split(name string) (dir, base string) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ".", name
	}
	return name[:i], name[i+1:]
}

// Open opens name, relative to its kept directory when it can.
func (c *Cached) Open(name string) (fs.File, error) {
	if c.dir != nil && fs.ValidPath(name) && name != "." {
		c.mu.Lock()
		dir, base := split(name)
		d, ok := c.dirFD(dir)
		c.mu.Unlock()
		if ok {
			fd, err := openAt(d.fd, base)
			switch {
			case err == nil:
				return os.NewFile(uintptr(fd), name), nil
			case errors.Is(err, fs.ErrNotExist):
				return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
			}
			// A symlink or anything unusual: the root decides.
		}
	}
	return c.fsys.Open(name)
}

// readLimited is ReadLimited through the kept directory: openat, reads
// into a reused buffer, close — no *os.File.
func (c *Cached) readLimited(name string, limit int64) (b []byte, ok bool, err error) {
	if c.dir == nil || !fs.ValidPath(name) || name == "." || limit > MaxAttrBytes {
		return nil, false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	dir, base := split(name)
	d, ok := c.dirFD(dir)
	if !ok {
		return nil, false, nil
	}
	fd, err := openAt(d.fd, base)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, true, &fs.PathError{Op: "openat", Path: name, Err: err}
		}
		return nil, false, nil
	}
	if c.buf == nil {
		c.buf = make([]byte, MaxAttrBytes+1)
	}
	// A sysfs attribute is printed whole by its first read (at most a
	// page), and a regular file read short is read to its end: below
	// sys/, a first read shorter than a page needs no second one to see
	// the end.
	n, err := readFD(fd, c.buf[:limit+1], strings.HasPrefix(name, "sys/"))
	closeFD(fd)
	if err != nil {
		return nil, true, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(n) > limit {
		return nil, true, tooLarge(name, limit)
	}
	return slices.Clone(c.buf[:n]), true, nil
}

// ReadDir lists name through its kept directory when it can.
func (c *Cached) ReadDir(name string) ([]fs.DirEntry, error) {
	if ents, ok := c.readDirKept(name); ok {
		return ents, nil
	}
	return fs.ReadDir(c.fsys, name)
}

// readDirKept rewinds the kept directory name and lists it, sorted by
// name as fs.ReadDir does; ok is false when the root must do it.
func (c *Cached) readDirKept(name string) ([]fs.DirEntry, bool) {
	if c.dir == nil || !fs.ValidPath(name) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dirFD(name)
	if !ok {
		return nil, false
	}
	// The entries' types come from the listing (getdents): no lstat of
	// every entry, which os.File.ReadDir does for a directory opened in an
	// os.Root.
	ents, err := readDirFD(d.fd, func(base string) (fs.FileInfo, error) {
		return lstatAt(d.fd, base)
	})
	if err != nil {
		return nil, false
	}
	out := make([]fs.DirEntry, len(ents))
	for i := range ents {
		e := &ents[i]
		e.c, e.path = c, name+"/"+e.name
		if name == "." {
			e.path = e.name
		}
		out[i] = e
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, true
}

// dirEntry is an entry of a kept directory's listing: its type from the
// listing; Info looks at it through the Cached (relative to its kept
// directory while that is open, else through the root).
type dirEntry struct {
	name string
	typ  fs.FileMode
	c    *Cached
	path string
}

func (e *dirEntry) Name() string               { return e.name }
func (e *dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode          { return e.typ }
func (e *dirEntry) Info() (fs.FileInfo, error) { return e.c.Lstat(e.path) }
func (e *dirEntry) String() string             { return fs.FormatDirEntry(e) }

// Stat is the root's: it follows links, which only the root may.
func (c *Cached) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.fsys, name) }

// Lstat looks at name relative to its kept directory when it can.
func (c *Cached) Lstat(name string) (fs.FileInfo, error) {
	if d, base, ok := c.parent(name); ok {
		fi, err := lstatAt(d.fd, base)
		switch {
		case err == nil:
			return fi, nil
		case errors.Is(err, fs.ErrNotExist):
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
	}
	return fs.Lstat(c.fsys, name)
}

// ReadLink reads the link name relative to its kept directory when it can.
func (c *Cached) ReadLink(name string) (string, error) {
	if d, base, ok := c.parent(name); ok {
		if t, err := readlinkAt(d.fd, base); err == nil {
			return t, nil
		}
	}
	return fs.ReadLink(c.fsys, name)
}

// parent returns the kept directory of name and name's last element.
func (c *Cached) parent(name string) (*cachedDir, string, bool) {
	if c.dir == nil || !fs.ValidPath(name) || name == "." {
		return nil, "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	dir, base := split(name)
	d, ok := c.dirFD(dir)
	return d, base, ok
}
