//go:build !linux

package sysfs

import "io/fs"

// replaced cannot tell a replaced file without Linux's link count: files
// are opened again on every read.
func replaced(fs.File) bool { return true }
