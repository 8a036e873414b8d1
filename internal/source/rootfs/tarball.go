package rootfs

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
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
	// MaxBundleFiles caps the number of files, directories and symlinks,
	// counting the directories a deep path creates without an entry of
	// its own.
	MaxBundleFiles = 100_000
	// MaxBundleDepth caps the path elements of one name (a sysfs path to a
	// port counter behind three PCIe switches has about 20).
	MaxBundleDepth = 64
	// MaxBundleNameBytes caps the length of all paths (again counting the
	// implied directories) and symlink targets together; a real node's
	// bundle needs well under 1 MiB.
	MaxBundleNameBytes = 16 << 20
	// MaxBundleLinkSteps caps the path elements walked, all together, to
	// check that every symlink resolves inside the bundle (a real node:
	// about a thousand links of a few dozen steps each).
	MaxBundleLinkSteps = 1 << 20
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
	return fmt.Sprintf("%s: tar entry %d %q: %v", e.Bundle, e.Index, clip(e.Entry), e.Err)
}

// clip shortens a name for an error message: a hostile name can be
// thousands of bytes long.
func clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	return s[:100] + "…" + s[len(s)-19:]
}

func (e *EntryError) Unwrap() error { return e.Err }

// ReadBundle unpacks a gzip-compressed tar stream into memory and returns it
// as a file system. name is used in errors. Every entry is checked: only
// regular files, directories and symlinks are accepted; names must be
// relative, without ".."; no name may appear twice or below a file; symlink
// targets must be relative and resolve inside the root; the limits
// MaxBundleFiles, MaxBundleBytes and MaxBundleFileBytes hold.
func ReadBundle(r io.Reader, name string) (fs.FS, error) {
	return readBundle(r, name, defaultLimits)
}

// limits are the bundle limits; tests shrink them to stay fast.
type limits struct {
	files       int
	total, file int64
	depth       int
	names       int64
	linkSteps   int
}

var defaultLimits = limits{files: MaxBundleFiles, total: MaxBundleBytes, file: MaxBundleFileBytes,
	depth: MaxBundleDepth, names: MaxBundleNameBytes, linkSteps: MaxBundleLinkSteps}

// readBundle is ReadBundle with the given limits.
func readBundle(r io.Reader, name string, lim limits) (fs.FS, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: not a gzip-compressed bundle: %w", name, err)
	}
	defer zr.Close()
	b := &bundleReader{name: name, lim: lim, tr: tar.NewReader(zr), m: newMemFS(), explicit: map[string]bool{}}
	for i := 1; ; i++ {
		hdr, err := b.tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: after tar entry %d: %w", name, i-1, err)
		}
		b.index, b.hdr = i, hdr
		if err := b.entry(); err != nil {
			return nil, err
		}
	}
	if err := b.m.checkManifest(name, b.entries, b.fileBytes); err != nil {
		return nil, err
	}
	if err := b.m.resolveLinks(name, lim); err != nil {
		return nil, err
	}
	return b.m, nil
}

// bundleReader holds what reading the entries of a bundle shares: the
// archive, the file system being filled, and what was read so far.
type bundleReader struct {
	name string
	lim  limits
	tr   *tar.Reader
	m    *memFS
	// explicit are the paths the archive named (implied directories are
	// not).
	explicit map[string]bool
	// total is the bytes of the files read so far.
	total int64
	// What the archive holds besides meta.json, to check against the
	// manifest meta.json carries.
	entries   int
	fileBytes int64
	// index (from 1) and hdr are the entry being read.
	index int
	hdr   *tar.Header
}

// fail returns an EntryError for the entry being read.
func (b *bundleReader) fail(format string, a ...any) error {
	return &EntryError{Bundle: b.name, Index: b.index, Entry: b.hdr.Name, Err: fmt.Errorf(format, a...)}
}

// entry checks the entry being read and adds it to the file system, then
// checks the limits that count implied directories too.
func (b *bundleReader) entry() error {
	hdr, lim := b.hdr, b.lim
	if b.index > lim.files {
		return b.fail("%w: more than %d entries (MaxBundleFiles)", ErrLimit, lim.files)
	}
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		return nil
	}
	if len(hdr.Name) > maxPathLen || len(hdr.Linkname) > maxPathLen {
		return b.fail("%w: name or link target longer than %d bytes", ErrUnsafe, maxPathLen)
	}
	p, err := entryPath(hdr.Name)
	if err != nil {
		return b.fail("%w", err)
	}
	if d := strings.Count(p, "/") + 1; d > lim.depth {
		return b.fail("%w: %d path elements, more than %d (MaxBundleDepth)", ErrLimit, d, lim.depth)
	}
	if b.explicit[p] {
		return b.fail("%w: duplicate entry %q", ErrUnsafe, p)
	}
	b.explicit[p] = true
	n, err := b.node(p)
	if err != nil {
		return err
	}
	if err := b.m.add(p, n); err != nil {
		return b.fail("%w", err)
	}
	if p != manifestFile {
		b.entries++
		b.fileBytes += int64(len(n.data))
	}
	// One add creates at most lim.depth directories of at most
	// maxPathLen bytes, so checking after it keeps the work bounded.
	if len(b.m.nodes)-1 > lim.files {
		return b.fail("%w: more than %d entries, counting implied directories (MaxBundleFiles)", ErrLimit, lim.files)
	}
	if b.m.nameBytes > lim.names {
		return b.fail("%w: more than %d bytes of names and link targets, counting implied directories (MaxBundleNameBytes)", ErrLimit, lim.names)
	}
	return nil
}

// node makes the node of the entry being read, at path p: a regular file
// (read within the size limits), a directory or a symlink whose target
// stays inside the root. Every other type is refused.
func (b *bundleReader) node(p string) (*memNode, error) {
	hdr := b.hdr
	n := &memNode{name: path.Base(p), modTime: hdr.ModTime}
	switch hdr.Typeflag {
	case tar.TypeReg:
		data, err := b.file()
		if err != nil {
			return nil, err
		}
		n.mode = fs.FileMode(hdr.Mode).Perm() | 0o444
		n.data = data
	case tar.TypeDir:
		n.mode = fs.ModeDir | 0o555
	case tar.TypeSymlink:
		if _, err := JoinLink(path.Dir(p), hdr.Linkname); err != nil {
			return nil, b.fail("%w: symlink to %q: %w", ErrUnsafe, clip(hdr.Linkname), err)
		}
		n.mode = fs.ModeSymlink | 0o777
		n.target = hdr.Linkname
		b.m.nameBytes += int64(len(hdr.Linkname))
	case tar.TypeLink:
		return nil, b.fail("%w: hard link to %q (bundles hold no hard links)", ErrUnsafe, clip(hdr.Linkname))
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return nil, b.fail("%w: device or fifo", ErrUnsafe)
	default:
		return nil, b.fail("%w: tar type %q", ErrUnsafe, hdr.Typeflag)
	}
	return n, nil
}

// file reads the regular file being read, refusing one over the per-file
// or total limit or shorter than its header says.
func (b *bundleReader) file() ([]byte, error) {
	hdr, lim := b.hdr, b.lim
	if hdr.Size > lim.file {
		return nil, b.fail("%w: file of %d bytes exceeds %d (MaxBundleFileBytes)", ErrLimit, hdr.Size, lim.file)
	}
	if b.total+hdr.Size > lim.total {
		return nil, b.fail("%w: more than %d bytes uncompressed (MaxBundleBytes)", ErrLimit, lim.total)
	}
	data, err := io.ReadAll(io.LimitReader(b.tr, hdr.Size+1))
	if err != nil {
		return nil, b.fail("%w", err)
	}
	if int64(len(data)) != hdr.Size {
		return nil, b.fail("size %d does not match header size %d", len(data), hdr.Size)
	}
	b.total += hdr.Size
	return data, nil
}

// resolveLinks sorts every directory's children and checks the symlinks
// as chains. A chain may still leave the root (a -> b/.., b -> ..):
// every link is resolved once, now that all entries are known, within a
// budget of steps for all of them together. Sorted, so the error is the
// same on every run.
func (m *memFS) resolveLinks(name string, lim limits) error {
	var links []string
	for p, n := range m.nodes {
		if n.mode.IsDir() {
			slices.Sort(n.kids)
		}
		if n.mode&fs.ModeSymlink != 0 {
			links = append(links, p)
		}
	}
	slices.Sort(links)
	budget := lim.linkSteps
	for _, p := range links {
		steps := min(budget, MaxResolveSteps)
		_, _, err := m.walk("open", p, true, &steps)
		budget -= min(budget, MaxResolveSteps) - max(steps, 0)
		if errors.Is(err, ErrResolveSteps) && budget <= 0 {
			return fmt.Errorf("%s: %w: resolving the symlinks takes more than %d steps (MaxBundleLinkSteps)", name, ErrLimit, lim.linkSteps)
		}
		if errors.Is(err, ErrEscapes) || errors.Is(err, ErrSymlinkLoop) || errors.Is(err, ErrResolveSteps) {
			return fmt.Errorf("%s: symlink %q -> %q: %w", name, clip(p), clip(m.nodes[p].target), err)
		}
	}
	return nil
}

// manifestFile is the bundle's meta.json; its "manifest" (written by
// internal/source/bundle) counts the other entries and their bytes.
const manifestFile = "meta.json"

// Manifest is what a bundle's meta.json says the archive holds besides
// meta.json: tar entries (files, directories, symlinks) and the bytes of
// its files.
type Manifest struct {
	Entries int   `json:"entries"`
	Bytes   int64 `json:"bytes"`
}

// ErrTruncated is wrapped when a bundle holds less than its manifest says.
var ErrTruncated = errors.New("bundle truncated or altered")

// checkManifest compares what was read with meta.json's manifest. A cut in
// the last entry's padding reads as a clean end of the tar stream, so the
// manifest is what tells a cut archive from a whole one. A bundle without
// a manifest (written before it existed) is read, with a note.
func (m *memFS) checkManifest(name string, entries int, fileBytes int64) error {
	mf, ok := m.nodes[manifestFile]
	if !ok || !mf.mode.IsRegular() {
		return nil // not a collected bundle (a simulated or hand-made one)
	}
	var meta struct {
		Manifest *Manifest `json:"manifest"`
	}
	if err := json.Unmarshal(mf.data, &meta); err != nil {
		return fmt.Errorf("%s: %s: %w", name, manifestFile, err)
	}
	if meta.Manifest == nil {
		m.note = manifestFile + " has no manifest (bundle written by an older ibdoctor): a truncated archive cannot be told from a whole one"
		return nil
	}
	if meta.Manifest.Entries != entries || meta.Manifest.Bytes != fileBytes {
		return fmt.Errorf("%s: %w: %s lists %d entries of %d bytes, the archive holds %d of %d bytes",
			name, ErrTruncated, manifestFile, meta.Manifest.Entries, meta.Manifest.Bytes, entries, fileBytes)
	}
	return nil
}

// BundleNote is what a reader of fsys should know about it: set for a
// bundle whose completeness could not be checked, "" otherwise.
func BundleNote(fsys fs.FS) string {
	if m, ok := fsys.(*memFS); ok {
		return m.note
	}
	return ""
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

// add inserts a node, creating missing parent directories, and counts the
// length of every new path in m.nameBytes. A parent that exists as a file
// or symlink is an error: a symlinked directory must not let a later entry
// write through it. Directory listings are left unsorted (sorting on every
// insert is quadratic in a wide directory); readBundle sorts them once.
func (m *memFS) add(p string, n *memNode) error {
	if old, ok := m.nodes[p]; ok {
		// An implicit directory made for an earlier child may be declared
		// explicitly later; anything else is a conflict.
		if old.mode.IsDir() && n.mode.IsDir() {
			old.modTime = n.modTime
			return nil
		}
		return fmt.Errorf("%w: %q already exists", ErrUnsafe, p)
	}
	// Walk up to the closest existing ancestor, then create the missing
	// directories top-down.
	missing := []string{p}
	dir := path.Dir(p)
	for {
		if _, ok := m.nodes[dir]; ok {
			break
		}
		missing = append(missing, dir)
		dir = path.Dir(dir)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		q := missing[i]
		parent := m.nodes[path.Dir(q)]
		if !parent.mode.IsDir() {
			return fmt.Errorf("%w: parent %q is not a directory", ErrUnsafe, path.Dir(q))
		}
		nn := n
		if i > 0 {
			nn = &memNode{name: path.Base(q), mode: fs.ModeDir | 0o555}
		}
		m.nodes[q] = nn
		m.nameBytes += int64(len(q))
		parent.kids = append(parent.kids, nn.name)
	}
	return nil
}
