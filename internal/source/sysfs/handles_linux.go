//go:build linux

package sysfs

import (
	"io/fs"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
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

// notifier tells, with one read per Refresh, which kept directories had
// an entry created, removed or renamed since the last Refresh (inotify(7)),
// instead of one fstat per directory. A directory whose watch cannot be
// added is looked at with fstat as before.
type notifier struct {
	fd  int
	wds map[int]*dirWatch
	buf []byte
}

// notifyMask: a file renamed over a kept one (IN_MOVED_TO), made again
// (IN_CREATE), removed or renamed away, or the directory itself gone.
const notifyMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

func newNotifier() *notifier {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &notifier{fd: fd, wds: map[int]*dirWatch{}, buf: make([]byte, 64<<10)}
}

// add watches the directory d keeps open, through its /proc/self/fd link
// (the file system is confined; the descriptor is the directory's).
func (n *notifier) add(d *dirWatch) bool {
	rc := rawConn(d.f)
	if rc == nil {
		return false
	}
	wd := -1
	if err := rc.Control(func(fd uintptr) {
		wd, _ = unix.InotifyAddWatch(n.fd, "/proc/self/fd/"+strconv.Itoa(int(fd)), notifyMask)
	}); err != nil || wd < 0 {
		return false
	}
	d.wd = wd
	n.wds[wd] = d
	return true
}

// remove stops watching d.
func (n *notifier) remove(d *dirWatch) {
	if d.wd >= 0 {
		if n.wds[d.wd] == d {
			delete(n.wds, d.wd)
			_, _ = unix.InotifyRmWatch(n.fd, uint32(d.wd))
		}
		d.wd = -1
	}
}

// drain reads the events queued since the last drain and marks their
// directories changed (and gone); on a queue overflow, every one.
func (n *notifier) drain() {
	for {
		m, err := unix.Read(n.fd, n.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= m; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&n.buf[off]))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				for _, d := range n.wds {
					d.notified = true
				}
				continue
			}
			d := n.wds[int(ev.Wd)]
			if d == nil {
				continue
			}
			d.notified = true
			if ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 {
				d.gone = true
			}
		}
	}
}

func (n *notifier) close() {
	unix.Close(n.fd)
	clear(n.wds)
}
