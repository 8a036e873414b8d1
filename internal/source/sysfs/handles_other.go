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

// notifier is Linux's inotify; elsewhere directories are looked at.
type notifier struct{}

func newNotifier() *notifier         { return nil }
func (*notifier) add(*dirWatch) bool { return false }
func (*notifier) remove(*dirWatch)   {}
func (*notifier) drain()             {}
func (*notifier) close()             {}
