//go:build !linux

package sysfs

import (
	"errors"
	"io/fs"
	"syscall"
)

// removed cannot tell a removed directory without Linux's link count: it
// is opened again at every look.
func removed(fs.FileInfo) bool { return true }

// rawConn is nil: kept files are read through io.ReaderAt.
func rawConn(fs.File) syscall.RawConn { return nil }

type preader struct{}

func (preader) pread(syscall.RawConn, []byte) (int, error) { return 0, errors.ErrUnsupported }

// noFileLimit is unknown: the files only a full read reads are not kept.
func noFileLimit() uint64 { return 0 }
