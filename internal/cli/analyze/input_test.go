//go:build unix

package analyze

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/diagnose/analyze"
)

// Inputs that are not regular files are refused before they are opened:
// /dev/zero never ends and a FIFO without a writer would block the open.
func TestAnalyzeRefusesNonFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, name := range []string{"/dev/zero", fifo} {
		done := make(chan struct{})
		var in analyze.Input
		go func() { in = readInput(&Options{}, name); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5 s", name)
		}
		if in.Err == nil || !strings.Contains(in.Err.Error(), "not a regular file") {
			t.Errorf("%s: %v", name, in.Err)
		}
	}
}
