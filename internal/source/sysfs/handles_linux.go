//go:build linux

package sysfs

import (
	"io/fs"
	"syscall"
)

// removed reports whether an open directory has no links left: it was
// removed, so its path names another directory or none.
func removed(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0
}
