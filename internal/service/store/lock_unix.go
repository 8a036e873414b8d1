//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockFile takes the exclusive flock bbolt holds on an open database,
// waiting up to timeout, so that a file another agent has open is never
// checked half-written or moved aside. It returns errLocked on timeout, and
// a release func (which closes the file: flock locks belong to the open
// file, and bbolt takes its own).
func lockFile(path string, timeout time.Duration) (func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Since(start) > timeout {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, errLocked
			}
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
