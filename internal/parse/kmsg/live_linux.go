//go:build linux

package kmsg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// recordBuf is the read buffer: a /dev/kmsg read smaller than the record
// fails with EINVAL (printk.c devkmsg_read); records are at most ~8 KiB.
const recordBuf = 16 << 10

// maxLiveRecords bounds a live read (the ring buffer holds far fewer).
const maxLiveRecords = 1 << 20

// ReadLive reads every record currently in the kernel ring buffer from path
// (normally /dev/kmsg) without blocking, and returns when it reaches the
// end or ctx is done. Records overwritten while reading (EPIPE) are skipped
// and reading goes on. A record that does not parse becomes a Log.Errors
// entry naming its sequence position. Reading needs CAP_SYSLOG where
// kernel.dmesg_restrict=1; that error is returned as is (errors.Is
// os.ErrPermission).
func ReadLive(ctx context.Context, path string) (*Log, error) {
	// Raw syscalls, not os.File: the runtime poller would turn EAGAIN
	// at the end of the buffer into a blocking wait for new messages.
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open kernel log: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	defer syscall.Close(fd)
	l := &Log{Source: path}
	buf := make([]byte, recordBuf)
	for n := 1; n <= maxLiveRecords; n++ {
		if err := ctx.Err(); err != nil {
			return l, err
		}
		k, err := syscall.Read(fd, buf)
		switch {
		case errors.Is(err, syscall.EINTR):
			n--
			continue
		case errors.Is(err, syscall.EPIPE):
			// The ring buffer overwrote records we had not read yet;
			// the position has moved to the oldest one still there.
			continue
		case errors.Is(err, syscall.EAGAIN), err == nil && k == 0:
			return l, nil
		case err != nil:
			return l, fmt.Errorf("read %s: %w", path, err)
		}
		rec, perr := ParseRecord(buf[:k])
		if perr != nil {
			l.Errors = append(l.Errors, &ParseError{Source: path, Line: n, Input: string(buf[:k]), Err: perr})
			continue
		}
		rec.Line = n
		l.appendRecord(rec)
	}
	return l, nil
}
