package rootfs

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Limits on an unpacked bundle. A real node's bundle holds a few thousand
// small files (about 10 MiB for an 8-HCA node with saved command outputs);
// the limits are an order of magnitude above that.
const (
	// MaxBundleFiles caps the number of tar entries.
	MaxBundleFiles = 100_000
	// MaxBundleBytes caps the total uncompressed size of regular files.
	MaxBundleBytes = 256 << 20
	// MaxBundleFileBytes caps one regular file (a saved dmesg is the
	// largest expected).
	MaxBundleFileBytes = 32 << 20
)

// maxPathLen is PATH_MAX: no real path or link target is longer, and the
// bound keeps symlink resolution cheap.
const maxPathLen = 4096

// ErrLimit is wrapped when a bundle exceeds one of the limits.
var ErrLimit = errors.New("bundle limit exceeded")

// ErrUnsafe is wrapped for a tar entry that could write or point outside the
// root, or that is not a regular file, directory or symlink.
var ErrUnsafe = errors.New("unsafe tar entry")

// EntryError names the tar entry (and its position) a bundle error is about.
type EntryError struct {
	Bundle string // bundle file name
	Index  int    // 1-based position in the archive
	Entry  string // name as stored in the header
	Err    error
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("%s: tar entry %d %q: %v", e.Bundle, e.Index, e.Entry, e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

// ReadBundle unpacks a gzip-compressed tar stream into memory and returns it
// as a file system. name is used in errors. Every entry is checked: only
// regular files, directories and symlinks are accepted; names must be
// relative, without ".."; no name may appear twice or below a file; symlink
// targets must be relative and resolve inside the root; the limits
// MaxBundleFiles, MaxBundleBytes and MaxBundleFileBytes hold.
func ReadBundle(r io.Reader, name string) (fs.FS, error) {
	return readBundle(r, name, limits{MaxBundleFiles, MaxBundleBytes, MaxBundleFileBytes})
}

// limits are the bundle limits; tests shrink them to stay fast.
type limits struct {
	files       int
	total, file int64
}

func readBundle(r io.Reader, name string, lim limits) (fs.FS, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: not a gzip-compressed bundle: %w", name, err)
	}
	defer zr.Close()
	m := newMemFS()
	explicit := map[string]bool{}
	tr := tar.NewReader(zr)
	var total int64
	for i := 1; ; i++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: after tar entry %d: %w", name, i-1, err)
		}
		fail := func(format string, a ...any) error {
			return &EntryError{Bundle: name, Index: i, Entry: hdr.Name, Err: fmt.Errorf(format, a...)}
		}
		if i > lim.files {
			return nil, fail("%w: more than %d entries (MaxBundleFiles)", ErrLimit, lim.files)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if len(hdr.Name) > maxPathLen || len(hdr.Linkname) > maxPathLen {
			return nil, fail("%w: name or link target longer than %d bytes", ErrUnsafe, maxPathLen)
		}
		p, err := entryPath(hdr.Name)
		if err != nil {
			return nil, fail("%w", err)
		}
		if explicit[p] {
			return nil, fail("%w: duplicate entry %q", ErrUnsafe, p)
		}
		explicit[p] = true
		n := &memNode{name: path.Base(p), modTime: hdr.ModTime}
		switch hdr.Typeflag {
		case tar.TypeReg:
			if hdr.Size > lim.file {
				return nil, fail("%w: file of %d bytes exceeds %d (MaxBundleFileBytes)", ErrLimit, hdr.Size, lim.file)
			}
			if total+hdr.Size > lim.total {
				return nil, fail("%w: more than %d bytes uncompressed (MaxBundleBytes)", ErrLimit, lim.total)
			}
			data, err := io.ReadAll(io.LimitReader(tr, hdr.Size+1))
			if err != nil {
				return nil, fail("%w", err)
			}
			if int64(len(data)) != hdr.Size {
				return nil, fail("size %d does not match header size %d", len(data), hdr.Size)
			}
			total += hdr.Size
			n.mode = fs.FileMode(hdr.Mode).Perm() | 0o444
			n.data = data
		case tar.TypeDir:
			n.mode = fs.ModeDir | 0o555
		case tar.TypeSymlink:
			if _, err := JoinLink(path.Dir(p), hdr.Linkname); err != nil {
				return nil, fail("%w: symlink to %q: %w", ErrUnsafe, hdr.Linkname, err)
			}
			n.mode = fs.ModeSymlink | 0o777
			n.target = hdr.Linkname
		case tar.TypeLink:
			return nil, fail("%w: hard link to %q (bundles hold no hard links)", ErrUnsafe, hdr.Linkname)
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			return nil, fail("%w: device or fifo", ErrUnsafe)
		default:
			return nil, fail("%w: tar type %q", ErrUnsafe, hdr.Typeflag)
		}
		if err := m.add(p, n); err != nil {
			return nil, fail("%w", err)
		}
	}
	// A symlink chain may still leave the root (a -> b/.., b -> ..): resolve
	// every link once, now that all entries are known.
	for p, n := range m.nodes {
		if n.mode&fs.ModeSymlink == 0 {
			continue
		}
		if _, _, err := m.resolve("open", p, true); errors.Is(err, ErrEscapes) || errors.Is(err, ErrSymlinkLoop) {
			return nil, fmt.Errorf("%s: symlink %q -> %q: %w", name, p, n.target, err)
		}
	}
	return m, nil
}

// entryPath validates and cleans a tar entry name: relative, no "..", no
// empty or odd elements once "./" prefixes and trailing slashes are gone.
func entryPath(name string) (string, error) {
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%w: absolute path", ErrUnsafe)
	}
	if strings.ContainsRune(name, '\\') || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%w: backslash or NUL in name", ErrUnsafe)
	}
	for _, e := range strings.Split(name, "/") {
		if e == ".." {
			return "", fmt.Errorf("%w: \"..\" in path", ErrUnsafe)
		}
	}
	p := path.Clean(name)
	if p == "." || !fs.ValidPath(p) {
		return "", fmt.Errorf("%w: invalid path", ErrUnsafe)
	}
	return p, nil
}

// add inserts a node, creating missing parent directories. A parent that
// exists as a file or symlink is an error: a symlinked directory must not
// let a later entry write through it.
func (m *memFS) add(p string, n *memNode) error {
	dir := path.Dir(p)
	parent, ok := m.nodes[dir]
	if !ok {
		if err := m.add(dir, &memNode{name: path.Base(dir), mode: fs.ModeDir | 0o555}); err != nil {
			return err
		}
		parent = m.nodes[dir]
	}
	if !parent.mode.IsDir() {
		return fmt.Errorf("%w: parent %q is not a directory", ErrUnsafe, dir)
	}
	if old, ok := m.nodes[p]; ok {
		// An implicit directory made for an earlier child may be declared
		// explicitly later; anything else is a conflict.
		if old.mode.IsDir() && n.mode.IsDir() {
			old.modTime = n.modTime
			return nil
		}
		return fmt.Errorf("%w: %q already exists", ErrUnsafe, p)
	}
	m.nodes[p] = n
	i, _ := slices.BinarySearch(parent.kids, n.name)
	parent.kids = slices.Insert(parent.kids, i, n.name)
	return nil
}
