package rootfs

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// memFS is a read-only in-memory file system of regular files, directories
// and symlinks, built from a bundle. Open, Stat, ReadFile and ReadDir follow
// symlinks (bounded by MaxSymlinks and MaxResolveSteps, never outside the
// root); Lstat and ReadLink do not.
type memFS struct {
	nodes map[string]*memNode // by clean root-relative path; "." is the root
	// nameBytes is the length of every path in nodes and of every symlink
	// target: what building the tree cost, bounded by MaxBundleNameBytes.
	nameBytes int64
	// note is BundleNote's text.
	note string
}

type memNode struct {
	name    string // base name
	mode    fs.FileMode
	data    []byte
	target  string // symlink target
	modTime time.Time
	kids    []string // directory: base names, sorted once the tree is built
}

var (
	_ fs.ReadLinkFS = (*memFS)(nil)
	_ fs.ReadDirFS  = (*memFS)(nil)
	_ fs.ReadFileFS = (*memFS)(nil)
	_ fs.StatFS     = (*memFS)(nil)
)

func newMemFS() *memFS {
	return &memFS{nodes: map[string]*memNode{".": {name: ".", mode: fs.ModeDir | 0o555}}}
}

// resolve finds the node of name, following symlinks in every component
// and, when followLast, in the last one too. It returns the resolved path.
// One call walks at most MaxResolveSteps path elements.
func (m *memFS) resolve(op, name string, followLast bool) (string, *memNode, error) {
	steps := MaxResolveSteps
	return m.walk(op, name, followLast, &steps)
}

// walk is resolve with the budget of path elements in *steps, which it
// decrements; running out is ErrResolveSteps.
func (m *memFS) walk(op, name string, followLast bool, steps *int) (string, *memNode, error) {
	if !fs.ValidPath(name) {
		return "", nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	done, todo, links := ".", name, 0
	for todo != "" {
		if *steps--; *steps < 0 {
			return "", nil, &fs.PathError{Op: op, Path: name, Err: ErrResolveSteps}
		}
		var elem string
		elem, todo, _ = strings.Cut(todo, "/")
		if elem == "" || elem == "." {
			continue
		}
		if elem == ".." {
			if done == "." {
				return "", nil, &fs.PathError{Op: op, Path: name, Err: ErrEscapes}
			}
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, elem)
		n, ok := m.nodes[next]
		if !ok {
			return "", nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		if n.mode&fs.ModeSymlink == 0 || (todo == "" && !followLast) {
			if todo != "" && !n.mode.IsDir() {
				return "", nil, &fs.PathError{Op: op, Path: name, Err: errNotDir}
			}
			done = next
			continue
		}
		if links++; links > MaxSymlinks {
			return "", nil, &fs.PathError{Op: op, Path: name, Err: ErrSymlinkLoop}
		}
		// POSIX order: the target's own links and ".." are walked from the
		// link's directory (done), so "d/up/../.." with d/up -> ".." climbs
		// twice and is caught as an escape.
		if n.target == "" || strings.HasPrefix(n.target, "/") {
			return "", nil, &fs.PathError{Op: op, Path: name, Err: ErrEscapes}
		}
		if todo != "" {
			todo = n.target + "/" + todo
		} else {
			todo = n.target
		}
	}
	return done, m.nodes[done], nil
}

type notDirError struct{}

func (notDirError) Error() string { return "not a directory" }

var errNotDir error = notDirError{}

func (m *memFS) Open(name string) (fs.File, error) {
	p, n, err := m.resolve("open", name, true)
	if err != nil {
		return nil, err
	}
	if n.mode.IsDir() {
		return &memDir{fs: m, path: p, node: n}, nil
	}
	return &memFile{node: n, r: bytes.NewReader(n.data)}, nil
}

func (m *memFS) Stat(name string) (fs.FileInfo, error) {
	_, n, err := m.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	return memInfo{n}, nil
}

func (m *memFS) Lstat(name string) (fs.FileInfo, error) {
	_, n, err := m.resolve("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return memInfo{n}, nil
}

func (m *memFS) ReadLink(name string) (string, error) {
	_, n, err := m.resolve("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.mode&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return n.target, nil
}

func (m *memFS) ReadFile(name string) ([]byte, error) {
	_, n, err := m.resolve("read", name, true)
	if err != nil {
		return nil, err
	}
	if n.mode.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	return slices.Clone(n.data), nil
}

func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, n, err := m.resolve("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !n.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotDir}
	}
	return m.entries(p, n), nil
}

func (m *memFS) entries(p string, n *memNode) []fs.DirEntry {
	out := make([]fs.DirEntry, 0, len(n.kids))
	for _, k := range n.kids {
		out = append(out, fs.FileInfoToDirEntry(memInfo{m.nodes[path.Join(p, k)]}))
	}
	return out
}

type isDirError struct{}

func (isDirError) Error() string { return "is a directory" }

var errIsDir error = isDirError{}

type memInfo struct{ n *memNode }

func (i memInfo) Name() string       { return i.n.name }
func (i memInfo) Size() int64        { return int64(len(i.n.data)) }
func (i memInfo) Mode() fs.FileMode  { return i.n.mode }
func (i memInfo) ModTime() time.Time { return i.n.modTime }
func (i memInfo) IsDir() bool        { return i.n.mode.IsDir() }
func (i memInfo) Sys() any           { return nil }

type memFile struct {
	node *memNode
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.node}, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	fs   *memFS
	path string
	node *memNode
	off  int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{d.node}, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errIsDir}
}
func (d *memDir) Close() error { return nil }

func (d *memDir) ReadDir(count int) ([]fs.DirEntry, error) {
	all := d.fs.entries(d.path, d.node)[d.off:]
	if count <= 0 {
		d.off += len(all)
		return all, nil
	}
	if len(all) == 0 {
		return nil, io.EOF
	}
	all = all[:min(count, len(all))]
	d.off += len(all)
	return all, nil
}
