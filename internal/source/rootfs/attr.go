package rootfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// MaxAttrBytes caps one attribute read. sysfs attributes are at most a page
// (4 KiB); the cap leaves room for saved tool outputs' small files while
// keeping a garbled or hostile file from exhausting memory.
const MaxAttrBytes = 64 << 10

// ErrTooLarge is wrapped when a file exceeds a read limit.
var ErrTooLarge = errors.New("file too large")

// ReadAttr reads a whole attribute file of at most MaxAttrBytes. Errors are
// *fs.PathError naming the file, so callers can tell "absent"
// (errors.Is(err, fs.ErrNotExist)) from "unreadable".
func ReadAttr(fsys fs.FS, name string) ([]byte, error) {
	return ReadLimited(fsys, name, MaxAttrBytes)
}

// ReadLimited reads a whole file of at most limit bytes; a longer file gives
// an error wrapping ErrTooLarge rather than a truncated value.
func ReadLimited(fsys fs.FS, name string, limit int64) ([]byte, error) {
	if c, ok := fsys.(*Cached); ok {
		if b, done, err := c.readLimited(name, limit); done {
			return b, err
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(name, limit)
	}
	return b, nil
}

func tooLarge(name string, limit int64) error {
	return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)}
}
