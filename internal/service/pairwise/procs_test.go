package pairwise

import (
	"runtime"
	"testing"
)

// TestWiden: a tcp test runs on every CPU however few the process
// runs on otherwise, overlapping tests share the widening, and the
// last one restores the process's own setting.
func TestWiden(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: nothing to widen")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	a := widen()
	if got := runtime.GOMAXPROCS(0); got != runtime.NumCPU() {
		t.Fatalf("during a test: GOMAXPROCS %d, want %d", got, runtime.NumCPU())
	}
	b := widen()
	a()
	a() // a second call changes nothing
	if got := runtime.GOMAXPROCS(0); got != runtime.NumCPU() {
		t.Fatalf("one test still running: GOMAXPROCS %d, want %d", got, runtime.NumCPU())
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("after the tests: GOMAXPROCS %d, want 1", got)
	}
}
