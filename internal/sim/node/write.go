package node

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// tmpDir is where Update stages files before renaming them into place, so
// that staging files never show up in a directory a reader lists.
const tmpDir = ".sim-tmp"

// Write renders the node into dir (created if needed) and remembers what it
// wrote, so Update can later rewrite only what changed. Existing files at
// the same paths are replaced; other existing files are left alone, so
// write into an empty directory (the CLI clears sys/, proc/, dev/ and
// cmd/ first with --force).
func (n *Node) Write(dir string) error {
	entries := n.Entries()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w := &writer{root: dir, direct: true, made: map[string]bool{}}
	for _, e := range entries {
		if err := w.put(e, false); err != nil {
			return err
		}
	}
	if err := w.cleanup(); err != nil {
		return err
	}
	n.written = make(map[string]Entry, len(entries))
	for _, e := range entries {
		n.written[e.Path] = e
	}
	return nil
}

// Update brings dir, last written by Write or Update, up to date with the
// node: changed files are replaced atomically (written to a staging file
// and renamed, so a concurrent reader sees the old or the new value, never
// half of one), new paths are created and vanished ones removed. It
// returns the number of paths it touched.
func (n *Node) Update(dir string) (int, error) {
	if n.written == nil {
		if err := n.Write(dir); err != nil {
			return 0, err
		}
		return len(n.written), nil
	}
	entries := n.Entries()
	now := make(map[string]Entry, len(entries))
	for _, e := range entries {
		now[e.Path] = e
	}
	w := &writer{root: dir, made: map[string]bool{}}
	touched := 0
	// Removals first, deepest path first, including directories that only
	// existed to hold removed entries.
	var gone []string
	for p := range n.written {
		if _, ok := now[p]; !ok {
			gone = append(gone, p)
		}
	}
	oldDirs, newDirs := impliedDirs(n.written), impliedDirs(now)
	for d := range oldDirs {
		if !newDirs[d] {
			if _, ok := now[d]; !ok {
				gone = append(gone, d)
			}
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i] > gone[j] })
	for _, p := range gone {
		if err := os.RemoveAll(w.abs(p)); err != nil {
			return touched, err
		}
		touched++
	}
	for _, e := range entries {
		old, ok := n.written[e.Path]
		if ok && old.equal(e) {
			continue
		}
		if err := w.put(e, ok && old.Kind != e.Kind); err != nil {
			return touched, err
		}
		touched++
	}
	if err := w.cleanup(); err != nil {
		return touched, err
	}
	n.written = now
	return touched, nil
}

func impliedDirs(m map[string]Entry) map[string]bool {
	out := map[string]bool{}
	for p := range m {
		for d := path.Dir(p); d != "." && !out[d]; d = path.Dir(d) {
			out[d] = true
		}
	}
	return out
}

type writer struct {
	root string
	// direct writes files in place (a first Write, nobody reads yet);
	// otherwise they are staged and renamed.
	direct  bool
	staging bool
	seq     int
	// made caches directories known to exist.
	made map[string]bool
}

func (w *writer) mkdirAll(d string) error {
	if w.made[d] {
		return nil
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	w.made[d] = true
	return nil
}

func (w *writer) abs(p string) string { return filepath.Join(w.root, filepath.FromSlash(p)) }

// put writes one entry; replace removes whatever is at the path first (a
// kind change, e.g. a file becoming unreadable).
func (w *writer) put(e Entry, replace bool) error {
	if strings.HasPrefix(e.Path, "/") || strings.Contains("/"+e.Path+"/", "/../") {
		return fmt.Errorf("sim: refusing to write %q outside the root", e.Path)
	}
	p := w.abs(e.Path)
	if replace {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	if err := w.mkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	switch e.Kind {
	case KindDir, KindUnreadable:
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
		return w.mkdirAll(p)
	case KindSymlink:
		if cur, err := os.Readlink(p); err == nil && cur == e.Target {
			return nil
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		return os.Symlink(e.Target, p)
	default:
		return w.writeFile(p, e.Data)
	}
}

// writeFile writes data to a staging file under the root and renames it
// over p: rename(2) within one file system is atomic.
func (w *writer) writeFile(p string, data []byte) error {
	if w.direct {
		err := os.WriteFile(p, data, 0o444)
		if err == nil || !errors.Is(err, syscall.EISDIR) && !errors.Is(err, os.ErrPermission) {
			return err
		}
	}
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		delete(w.made, p)
	}
	stage := filepath.Join(w.root, tmpDir)
	if !w.staging {
		if err := os.MkdirAll(stage, 0o755); err != nil {
			return err
		}
		w.staging = true
	}
	w.seq++
	tmp := filepath.Join(stage, fmt.Sprintf("f%d", w.seq))
	if err := os.WriteFile(tmp, data, 0o444); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func (w *writer) cleanup() error {
	if !w.staging {
		return nil
	}
	return os.RemoveAll(filepath.Join(w.root, tmpDir))
}
