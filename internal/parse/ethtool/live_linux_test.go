//go:build linux

package ethtool

import (
	"errors"
	"net"
	"testing"
)

func TestReadLiveLoopback(t *testing.T) {
	// lo has no driver statistics: the call must fail cleanly, not panic.
	ifs, err := net.Interfaces()
	if err != nil {
		t.Skip(err)
	}
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback != 0 {
			if _, err := ReadLive(i.Name); err == nil {
				t.Logf("%s unexpectedly has statistics", i.Name)
			}
		}
	}
	if _, err := ReadLive("no-such-if0"); err == nil || errors.Is(err, ErrNoData) {
		t.Errorf("ReadLive(no-such-if0) err = %v, want an ioctl error", err)
	}
}
