package rootfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCachedSameAsRoot reads the same paths of a directory root through
// Cache and through the root itself: contents, errors (absent or not,
// escapes refused) and listings must agree, and the directories read from
// are kept open (one each).
func TestCachedSameAsRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string]string{
		"sys/devices/pci0/dev0/attr":      "1\n",
		"sys/devices/pci0/dev0/other":     "2\n",
		"sys/devices/pci0/dev0/big":       strings.Repeat("x", MaxAttrBytes+1),
		"sys/devices/pci0/dev0/sub/inner": "3\n",
		"proc/stat":                       strings.Repeat("cpu 1 2 3\n", 1000),
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "sys/class/x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"sys/class/x/dev0":             "../../devices/pci0/dev0",
		"sys/devices/pci0/dev0/alias":  "attr",
		"sys/devices/pci0/dev0/escape": filepath.Join(outside, "secret"),
		"sys/devices/pci0/dev0/up":     "../../../../../" + filepath.Base(outside) + "/secret",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := Cache(r.FS())
	defer c.Close()
	for _, name := range []string{
		"sys/class/x/dev0/attr", "sys/class/x/dev0/other", "sys/devices/pci0/dev0/attr",
		"sys/class/x/dev0/alias", "sys/class/x/dev0/escape", "sys/class/x/dev0/up",
		"sys/class/x/dev0/big", "sys/class/x/dev0/missing", "sys/class/x/nodev/attr",
		"sys/class/x/dev0/sub", "sys/class/x/dev0/sub/inner", "proc/stat", "sys/class/x/dev0/attr/under",
	} {
		want, werr := ReadAttr(r.FS(), name)
		got, gerr := ReadAttr(c, name)
		if string(got) != string(want) || (werr == nil) != (gerr == nil) ||
			errors.Is(werr, fs.ErrNotExist) != errors.Is(gerr, fs.ErrNotExist) || errors.Is(werr, ErrTooLarge) != errors.Is(gerr, ErrTooLarge) {
			t.Errorf("%s: cached %q, %v; root %q, %v", name, got, gerr, want, werr)
		}
		if strings.Contains(string(got), "no") {
			t.Errorf("%s: read outside the root", name)
		}
		f, err := c.Open(name)
		if (err == nil) != (werr == nil || errors.Is(werr, ErrTooLarge) || strings.HasSuffix(name, "/sub")) {
			t.Errorf("%s: Open error %v, ReadAttr error %v", name, err, werr)
		}
		if err == nil {
			f.Close()
		}
	}
	for _, name := range []string{"sys/class/x/dev0", "sys/class/x/dev0/alias", "sys/class/x/dev0/escape", "sys/class/x/dev0/attr",
		"sys/class/x/dev0/missing", "sys/class/x/nodev", "sys/class/x/dev0/sub/inner", "sys/class/x/dev0/attr/under"} {
		wi, werr := fs.Lstat(r.FS(), name)
		gi, gerr := c.Lstat(name)
		if (werr == nil) != (gerr == nil) || errors.Is(werr, fs.ErrNotExist) != errors.Is(gerr, fs.ErrNotExist) ||
			(werr == nil && (wi.Mode() != gi.Mode() || wi.Size() != gi.Size() || !wi.ModTime().Equal(gi.ModTime()) || wi.Name() != gi.Name())) {
			t.Errorf("Lstat %s: cached %v, %v; root %v, %v", name, gi, gerr, wi, werr)
		}
		wl, werr := fs.ReadLink(r.FS(), name)
		gl, gerr := c.ReadLink(name)
		if wl != gl || (werr == nil) != (gerr == nil) {
			t.Errorf("ReadLink %s: cached %q, %v; root %q, %v", name, gl, gerr, wl, werr)
		}
		wr, werr := EvalSymlinks(r.FS(), name)
		gr, gerr := EvalSymlinks(c, name)
		if wr != gr || (werr == nil) != (gerr == nil) {
			t.Errorf("EvalSymlinks %s: cached %q, %v; root %q, %v", name, gr, gerr, wr, werr)
		}
	}
	for _, d := range []string{"sys/class/x/dev0", "sys/class/x", "sys/class/x/nodev", "."} {
		want, werr := fs.ReadDir(r.FS(), d)
		for range 2 { // the second listing rewinds the kept directory
			got, gerr := c.ReadDir(d)
			if (werr == nil) != (gerr == nil) || names(got) != names(want) {
				t.Errorf("ReadDir %s: cached %s, %v; root %s, %v", d, names(got), gerr, names(want), werr)
			}
		}
	}
	if n := c.Len(); n < 3 {
		t.Errorf("%d directories kept open, want the ones read from", n)
	}
	c.Close()
	if n := c.Len(); n != 0 {
		t.Errorf("%d directories kept open after Close", n)
	}
}

// names lists the entries with their types and their Info's mode, which
// a Cached listing must give as the root's does.
func names(ents []fs.DirEntry) string {
	var b strings.Builder
	for _, e := range ents {
		fi, err := e.Info()
		mode := "?"
		if err == nil {
			mode = fi.Mode().String()
		}
		fmt.Fprintf(&b, "%s:%v:%v:%s ", e.Name(), e.Type(), e.IsDir(), mode)
	}
	return b.String()
}
