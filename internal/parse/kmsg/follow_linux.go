//go:build linux

package kmsg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Follower reads a kernel log device (/dev/kmsg) incrementally: it keeps
// the file open between reads, so each Read returns only the records
// logged since the one before, and never re-reads the ring buffer. It
// also follows a regular file of /dev/kmsg records ("cat /dev/kmsg" as it
// grows): a partial last line waits for the next Read, and a file that
// shrank (rewritten) is read again from its start.
type Follower struct {
	path    string
	fd      int
	regular bool
	read    func([]byte) (int, error)

	pending []byte  // a regular file's incomplete last line
	held    *Record // the last record, until its dictionary lines are in
	lastSeq uint64
	haveSeq bool
	n       int // records read, the Line of each
}

// FollowStats describe one Read.
type FollowStats struct {
	// Lost counts records the ring buffer overwrote before they were read
	// (the gap in sequence numbers after an EPIPE).
	Lost uint64
	// Overrun is set when the kernel reported EPIPE: reading went on at
	// the oldest record still in the buffer.
	Overrun bool
	// Restarted is set when a regular file shrank and was read again from
	// its start.
	Restarted bool
}

// maxFollowLine bounds a regular file's incomplete line: a longer one is
// dropped rather than buffered without end.
const maxFollowLine = 64 << 10

// Follow opens path for incremental reading. The read position starts at
// the oldest record in the ring buffer (or the start of a regular file).
func Follow(path string) (*Follower, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open kernel log: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("open kernel log: %w", &os.PathError{Op: "fstat", Path: path, Err: err})
	}
	f := &Follower{path: path, fd: fd, regular: st.Mode&syscall.S_IFMT == syscall.S_IFREG}
	f.read = func(b []byte) (int, error) { return syscall.Read(f.fd, b) }
	return f, nil
}

// Path is the file the follower reads.
func (f *Follower) Path() string { return f.path }

// Close closes the file.
func (f *Follower) Close() error { return syscall.Close(f.fd) }

// Read returns the records logged since the last Read; it stops reading
// once it holds max (the rest wait for the next Read; max ≤ 0 means
// 1<<20). It does not block: it
// returns at the end of the buffer or when ctx is done. Records that do
// not parse are returned as errors in errs (each names its record number)
// and skipped.
func (f *Follower) Read(ctx context.Context, max int) (recs []Record, errs []*ParseError, st FollowStats, err error) {
	if max <= 0 {
		max = maxLiveRecords
	}
	b := &followBatch{f: f}
	b.st.Restarted = f.restartIfShrunk()
	buf := make([]byte, recordBuf)
	for len(b.recs) < max {
		if err := ctx.Err(); err != nil {
			return b.recs, b.errs, b.st, err
		}
		k, rerr := f.read(buf)
		switch {
		case errors.Is(rerr, syscall.EINTR):
			continue
		case errors.Is(rerr, syscall.EPIPE):
			// The ring buffer overwrote records not read yet; the
			// position moved to the oldest one still there. The gap in
			// sequence numbers counts them.
			b.st.Overrun = true
			continue
		case errors.Is(rerr, syscall.EAGAIN), rerr == nil && k == 0:
			b.flush()
			return b.recs, b.errs, b.st, nil
		case rerr != nil:
			b.flush()
			return b.recs, b.errs, b.st, fmt.Errorf("read %s: %w", f.path, rerr)
		}
		b.data(buf[:k])
	}
	b.flush()
	return b.recs, b.errs, b.st, nil
}

// restartIfShrunk rewinds a regular file that is now shorter than the
// read position (it was rewritten), forgetting what was read of it; it
// says whether it did.
func (f *Follower) restartIfShrunk() bool {
	if !f.regular {
		return false
	}
	var fi syscall.Stat_t
	if syscall.Fstat(f.fd, &fi) != nil {
		return false
	}
	if pos, e := syscall.Seek(f.fd, 0, 1); e == nil && fi.Size < pos {
		_, _ = syscall.Seek(f.fd, 0, 0)
		f.pending, f.held, f.haveSeq = nil, nil, false
		return true
	}
	return false
}

// followBatch is what one Read has gathered so far.
type followBatch struct {
	f    *Follower
	recs []Record
	errs []*ParseError
	st   FollowStats
}

// emit returns record r unless an earlier Read returned it, counting the
// records lost in a gap of sequence numbers before it.
func (b *followBatch) emit(r Record) {
	f := b.f
	if f.haveSeq && r.Seq <= f.lastSeq {
		return // already returned (a rewritten file)
	}
	if f.haveSeq && r.Seq > f.lastSeq+1 {
		b.st.Lost += r.Seq - f.lastSeq - 1
	}
	f.lastSeq, f.haveSeq = r.Seq, true
	b.recs = append(b.recs, r)
}

// flush emits the held record, if any.
func (b *followBatch) flush() {
	if b.f.held != nil {
		b.emit(*b.f.held)
		b.f.held = nil
	}
}

// data splits one read's bytes into lines, keeping a regular file's
// incomplete last line for the next read.
func (b *followBatch) data(data []byte) {
	f := b.f
	if len(f.pending) > 0 {
		data = append(f.pending, data...)
		f.pending = nil
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if f.regular {
				// Incomplete: the writer is mid-line.
				if len(data) <= maxFollowLine {
					f.pending = append([]byte(nil), data...)
				}
				break
			}
			i = len(data) // a device read is whole records
		}
		b.line(data[:i])
		if i >= len(data) {
			break
		}
		data = data[i+1:]
	}
}

// line reads one line: a dictionary line (" DEVICE=…") of the held
// record, a continuation of it, or a new record, which is held until its
// dictionary lines are in.
func (b *followBatch) line(l []byte) {
	f := b.f
	if len(bytes.TrimSpace(l)) == 0 {
		return
	}
	if l[0] == ' ' {
		if f.held != nil {
			if k, v, ok := bytes.Cut(l[1:], []byte{'='}); ok && string(k) == "DEVICE" {
				f.held.Device = unescape(string(v))
			}
		}
		return
	}
	f.n++
	r, perr := ParseRecord(l)
	if perr != nil {
		b.flush()
		b.errs = append(b.errs, &ParseError{Source: f.path, Line: f.n, Input: string(l), Err: perr})
		return
	}
	if r.Cont && f.held != nil {
		f.held.Text += r.Text
		return
	}
	b.flush()
	r.Line, r.Cont = f.n, false
	f.held = &r
}
