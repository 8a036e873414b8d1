//go:build linux

package rootfs

import (
	"bytes"
	"io/fs"
	"syscall"
	"time"

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

// openDirAt opens directory base, one path component, relative to
// directory dirfd without following a symlink.
func openDirAt(dirfd int, base string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, base, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_DIRECTORY, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// readDirFD lists directory fd from its start (getdents64), without "."
// and "..", with the types the listing gives; an entry whose type it does
// not give is looked at with lstat.
func readDirFD(fd int, lstat func(base string) (fs.FileInfo, error)) ([]dirEntry, error) {
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return nil, err
	}
	var out []dirEntry
	buf := make([]byte, 16<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16,
			// d_type u8, d_name NUL-terminated.
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return nil, syscall.EIO
			}
			typ, name := b[18], b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			e := dirEntry{name: string(name)}
			switch typ {
			case unix.DT_REG:
			case unix.DT_DIR:
				e.typ = fs.ModeDir
			case unix.DT_LNK:
				e.typ = fs.ModeSymlink
			case unix.DT_FIFO:
				e.typ = fs.ModeNamedPipe
			case unix.DT_SOCK:
				e.typ = fs.ModeSocket
			case unix.DT_CHR:
				e.typ = fs.ModeDevice | fs.ModeCharDevice
			case unix.DT_BLK:
				e.typ = fs.ModeDevice
			default:
				fi, err := lstat(e.name)
				if err != nil {
					continue // gone since the listing
				}
				e.typ = fi.Mode().Type()
			}
			out = append(out, e)
		}
	}
}

// lstatAt is lstat of base, one path component, relative to dirfd.
func lstatAt(dirfd int, base string) (fs.FileInfo, error) {
	st := &unix.Stat_t{}
	for {
		err := unix.Fstatat(dirfd, base, st, unix.AT_SYMLINK_NOFOLLOW)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &statInfo{name: base, st: st}, nil
	}
}

// readlinkAt reads the target of symlink base relative to dirfd.
func readlinkAt(dirfd int, base string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, base, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// statInfo is the fs.FileInfo of a unix.Stat_t, as os builds it.
type statInfo struct {
	name string
	st   *unix.Stat_t
}

func (i *statInfo) Name() string       { return i.name }
func (i *statInfo) Size() int64        { return i.st.Size }
func (i *statInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i *statInfo) IsDir() bool        { return i.Mode().IsDir() }
func (i *statInfo) Sys() any           { return i.st }
func (i *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if i.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if i.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if i.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
