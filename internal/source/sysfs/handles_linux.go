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

// rawConn is the descriptor of a kept file that has one (an *os.File),
// nil otherwise.
func rawConn(f fs.File) syscall.RawConn {
	c, ok := f.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := c.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// preader reads a kept file from offset 0 with one pread(2): a sysfs
// attribute is printed whole by a read from offset 0 (at most a page), and
// a regular file is returned whole by one read into a buffer larger than
// the attribute limit. Its read function is built once, so a read
// allocates nothing.
type preader struct {
	fn  func(fd uintptr) bool
	buf []byte
	n   int
	err error
}

func (p *preader) pread(rc syscall.RawConn, buf []byte) (int, error) {
	if p.fn == nil {
		p.fn = func(fd uintptr) bool {
			for {
				p.n, p.err = syscall.Pread(int(fd), p.buf, 0)
				if p.err != syscall.EINTR {
					return true
				}
			}
		}
	}
	p.buf = buf
	if err := rc.Read(p.fn); err != nil {
		return 0, err
	}
	n, err := max(p.n, 0), p.err
	p.buf, p.err = nil, nil
	return n, err
}

// noFileLimit is the process's limit on open files (RLIMIT_NOFILE, which
// Go raises to the hard limit at start).
func noFileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return l.Cur
}
