package sysfs_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// TestHandlesDirectoryRoot follows one counter of a directory root through
// the ways a file changes under a kept handle: written in place (the kept
// file reads the new value, nothing is opened again), a new file renamed
// over it (its directory's time changes: the directory's files are opened
// again), a rename in the same clock tick as the last look (the look was
// too close to the change to be trusted: opened again anyway), removed and
// made again. Directory times are set explicitly, so the steps do not
// depend on the file system's clock granularity.
func TestHandlesDirectoryRoot(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kept directories are checked by link count on Linux only")
	}
	t.Run("inotify", func(t *testing.T) { testHandlesDirectoryRoot(t, sysfs.NewHandles(), true) })
	t.Run("fstat", func(t *testing.T) { testHandlesDirectoryRoot(t, sysfs.NewHandlesLooking(), false) })
}

// testHandlesDirectoryRoot runs the steps with h; notify says h learns of
// changes from inotify, which needs no settling after a change in the
// same clock tick.
func testHandlesDirectoryRoot(t *testing.T, h *sysfs.Handles, notify bool) {
	dir := writeSim(t, simnode.Options{})
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	prev, err := sysfs.Read(ctx, r.FS(), sysfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	counters := filepath.Join(dir, "sys/class/infiniband/mlx5_0/ports/1/counters")
	file := filepath.Join(counters, "symbol_error")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	setTime := func(m time.Time) {
		t.Helper()
		if err := os.Chtimes(counters, m, m); err != nil {
			t.Fatal(err)
		}
	}
	renameOver := func(v string) {
		t.Helper()
		tmp := filepath.Join(dir, "staged")
		if err := os.WriteFile(tmp, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	}
	// The simulator just wrote every directory: date them all an hour
	// back, or each would be too recent to trust at the first looks.
	err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		change func()
		want   string // "" = absent
		reopen bool   // the directory's files are opened again
	}{
		{name: "first refresh opens", change: func() {}, want: "0", reopen: true},
		{name: "written in place", change: func() {
			if err := os.WriteFile(file, []byte("7\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			setTime(old)
		}, want: "7"},
		{name: "unchanged", change: func() {}, want: "7"},
		{name: "renamed over", change: func() { renameOver("8"); setTime(old.Add(time.Minute)) }, want: "8", reopen: true},
		{name: "unchanged after rename", change: func() {}, want: "8"},
		{name: "renamed over, directory time now", change: func() { renameOver("9"); setTime(time.Now()) }, want: "9", reopen: true},
		{name: "renamed over in the same tick", change: func() {
			fi, err := os.Stat(counters)
			if err != nil {
				t.Fatal(err)
			}
			renameOver("10")
			setTime(fi.ModTime())
		}, want: "10", reopen: true},
		// A look too close to the change is not trusted: opened again
		// once more. inotify said what changed: nothing to open.
		{name: "settled", change: func() { setTime(old.Add(2 * time.Minute)) }, want: "10", reopen: !notify},
		{name: "settled, unchanged", change: func() {}, want: "10"},
		{name: "removed", change: func() {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			setTime(old.Add(3 * time.Minute))
		}, want: "", reopen: true},
		{name: "made again", change: func() {
			if err := os.WriteFile(file, []byte("11\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			setTime(old.Add(4 * time.Minute))
		}, want: "11", reopen: true},
	}
	for _, s := range steps {
		s.change()
		before := h.Opens()
		snap, err := sysfs.Refresh(ctx, r.FS(), prev, sysfs.Options{Handles: h})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if c, ok := snap.Port("mlx5_0", 1).Counter("symbol_error"); ok {
			got = strconv.FormatUint(c.Value, 10)
		}
		if got != s.want {
			t.Errorf("%s: symbol_error %q, want %q", s.name, got, s.want)
		}
		// 21 counters/ files and the rest of the node's kept files.
		reopened := h.Opens()-before >= 21
		if reopened != s.reopen {
			t.Errorf("%s: %d files opened, want reopen %v", s.name, h.Opens()-before, s.reopen)
		}
	}
}

// TestHandlesOneReadPerFile: a Refresh that opens nothing new reads every
// kept file with one system call (a pread from offset 0), not the two of
// io.ReaderAt, which reads again to find the end of the file.
func TestHandlesOneReadPerFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kept files are read with pread on Linux only")
	}
	dir := writeSim(t, simnode.Options{})
	// Directories changed within the last second are looked at again:
	// date them back.
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	h := sysfs.NewHandles()
	defer h.Close()
	prev, err := sysfs.Read(ctx, r.FS(), sysfs.Options{Handles: h})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sysfs.Refresh(ctx, r.FS(), prev, sysfs.Options{Handles: h}); err != nil {
		t.Fatal(err)
	}
	opens, reads := h.Opens(), h.Reads()
	if _, err := sysfs.Refresh(ctx, r.FS(), prev, sysfs.Options{Handles: h}); err != nil {
		t.Fatal(err)
	}
	if h.Opens() != opens {
		t.Fatalf("an unchanged refresh opened %d files", h.Opens()-opens)
	}
	if got, kept := h.Reads()-reads, h.Kept(false); got != kept || kept < 500 {
		t.Errorf("an unchanged refresh made %d reads of %d kept files, want one each", got, kept)
	}
	// inotify tells which directories changed: none is looked at.
	looks := h.Looks()
	if _, err := sysfs.Refresh(ctx, r.FS(), prev, sysfs.Options{Handles: h}); err != nil {
		t.Fatal(err)
	}
	if n := h.Looks() - looks; n != 0 {
		t.Errorf("an unchanged refresh looked at %d directories, want none (inotify)", n)
	}
	lh := sysfs.NewHandlesLooking()
	defer lh.Close()
	for range 2 {
		if _, err := sysfs.Refresh(ctx, r.FS(), prev, sysfs.Options{Handles: lh}); err != nil {
			t.Fatal(err)
		}
	}
	looks = lh.Looks()
	if _, err := sysfs.Refresh(ctx, r.FS(), prev, sysfs.Options{Handles: lh}); err != nil {
		t.Fatal(err)
	}
	if n := lh.Looks() - looks; n < 20 {
		t.Errorf("without inotify an unchanged refresh looked at %d directories, want one per kept directory", n)
	}
}

// TestHandlesFullRead: a full Read through a Handles keeps the files only
// full reads read (GID tables, P_Keys, identities) open too, so the next
// full read opens nothing and reads each kept file with one pread, and
// gives the same snapshot as a Read without a Handles.
func TestHandlesFullRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kept files are read with pread on Linux only")
	}
	dir := writeSim(t, simnode.Options{})
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	at := func() time.Time { return old }
	want, err := sysfs.Read(ctx, r.FS(), sysfs.Options{Now: at})
	if err != nil {
		t.Fatal(err)
	}
	h := sysfs.NewHandles()
	defer h.Close()
	if _, err := sysfs.Read(ctx, r.FS(), sysfs.Options{Now: at, Handles: h}); err != nil {
		t.Fatal(err)
	}
	if h.Kept(true) < 1000 {
		t.Fatalf("a full read kept %d of the files only full reads read open", h.Kept(true))
	}
	opens, reads := h.Opens(), h.Reads()
	got, err := sysfs.Read(ctx, r.FS(), sysfs.Options{Now: at, Handles: h})
	if err != nil {
		t.Fatal(err)
	}
	if h.Opens() != opens {
		t.Errorf("the second full read opened %d files", h.Opens()-opens)
	}
	if n, kept := h.Reads()-reads, h.Kept(true)+h.Kept(false); n != kept {
		t.Errorf("the second full read made %d reads of %d kept files", n, kept)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a full read through kept files differs (-without +with):\n%s", d)
	}
}

// TestHandlesDirectoryRemade: a kept directory renamed away and made again
// under its name (with and without inotify) is opened again, and its files
// read from the new one.
func TestHandlesDirectoryRemade(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kept directories are checked by link count on Linux only")
	}
	for _, mode := range []struct {
		name string
		h    func() *sysfs.Handles
	}{{"inotify", sysfs.NewHandles}, {"fstat", sysfs.NewHandlesLooking}} {
		t.Run(mode.name, func(t *testing.T) {
			dir := writeSim(t, simnode.Options{})
			r, err := rootfs.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ctx := context.Background()
			h := mode.h()
			defer h.Close()
			prev, err := sysfs.Read(ctx, r.FS(), sysfs.Options{Handles: h})
			if err != nil {
				t.Fatal(err)
			}
			read := func() string {
				t.Helper()
				s, err := sysfs.Refresh(ctx, r.FS(), prev, sysfs.Options{Handles: h})
				if err != nil {
					t.Fatal(err)
				}
				c, ok := s.Port("mlx5_0", 1).Counter("symbol_error")
				if !ok {
					return ""
				}
				return strconv.FormatUint(c.Value, 10)
			}
			if got := read(); got != "0" {
				t.Fatalf("symbol_error %q, want 0", got)
			}
			counters := filepath.Join(dir, "sys/class/infiniband/mlx5_0/ports/1/counters")
			if err := os.Rename(counters, counters+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(counters, os.DirFS(counters+".old")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(counters, "symbol_error"), []byte("42\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := read(); got != "42" {
				t.Errorf("after the directory was made again: symbol_error %q, want 42", got)
			}
			if err := os.WriteFile(filepath.Join(counters, "symbol_error"), []byte("43\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := read(); got != "43" {
				t.Errorf("written in place in the new directory: symbol_error %q, want 43", got)
			}
		})
	}
}
