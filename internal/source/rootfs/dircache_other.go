//go:build !unix

package rootfs

import "errors"

// Without openat, Cached opens every file through the root.
const fastOpen = false

var errNoOpenat = errors.New("openat not available")

func openAt(int, string) (int, error)       { return -1, errNoOpenat }
func readFD(int, []byte, bool) (int, error) { return 0, errNoOpenat }
func closeFD(int)                           {}
