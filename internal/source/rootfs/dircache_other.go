//go:build !linux

package rootfs

import (
	"errors"
	"io/fs"
)

// Without openat, Cached opens every file through the root.
const fastOpen = false

var errNoOpenat = errors.New("openat not available")

func openAt(int, string) (int, error)       { return -1, errNoOpenat }
func readFD(int, []byte, bool) (int, error) { return 0, errNoOpenat }
func closeFD(int)                           {}
func openDirAt(int, string) (int, error)    { return -1, errNoOpenat }

func readDirFD(int, func(string) (fs.FileInfo, error)) ([]dirEntry, error) { return nil, errNoOpenat }

func lstatAt(int, string) (fs.FileInfo, error) { return nil, errNoOpenat }
func readlinkAt(int, string) (string, error)   { return "", errNoOpenat }
