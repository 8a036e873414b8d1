//go:build linux

package kmsg

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestReadLive reads this machine's ring buffer where the test may
// (CAP_SYSLOG or dmesg_restrict=0); it must end without blocking and parse
// every record.
func TestReadLive(t *testing.T) {
	if _, err := os.Stat("/dev/kmsg"); err != nil {
		t.Skip("no /dev/kmsg")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := ReadLive(ctx, "/dev/kmsg")
	if errors.Is(err, os.ErrPermission) {
		t.Skip("no permission to read /dev/kmsg")
	}
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("ReadLive did not return at the end of the buffer")
	}
	if len(l.Errors) > 0 {
		t.Errorf("%d unparsable records, first: %v", len(l.Errors), l.Errors[0])
	}
	for i, r := range l.Records {
		if !r.HasMono || r.Priority < 0 || r.Priority > 7 || (i > 0 && r.Seq <= l.Records[i-1].Seq) {
			t.Fatalf("record %d out of order or incomplete: %+v", i, r)
		}
	}
}

func TestReadLiveMissing(t *testing.T) {
	_, err := ReadLive(context.Background(), "/nonexistent/kmsg")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want ErrNotExist", err)
	}
}
