//go:build linux

package sysfs

import (
	"io/fs"
	"syscall"
)

// replaced reports whether an open file has no links left: something was
// renamed over it (or it was removed), so its content is not the path's.
func replaced(f fs.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return true
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0
}
