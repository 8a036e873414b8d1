//go:build unix

package rootfs

import (
	"syscall"

	"golang.org/x/sys/unix"
)

const fastOpen = true

// openAt opens base, one path component, relative to directory dirfd
// without following a symlink.
func openAt(dirfd int, base string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, base, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// readFD reads fd from its start until EOF or a full buf; with short, a
// first read of less than a page is taken as the whole file.
func readFD(fd int, buf []byte, short bool) (int, error) {
	n := 0
	for n < len(buf) {
		if short && n > 0 && n < 4096 {
			break
		}
		m, err := unix.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

func closeFD(fd int) { _ = unix.Close(fd) }
