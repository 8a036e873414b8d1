package analyze

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// interleaved is n kernel lines and n NCCL lines, alternating: every line
// starts a new segment.
func interleaved(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[%6d.%06d] mlx5_core 0000:3b:00.0 ens1f0np0: Link up\n", i, i)
		fmt.Fprintf(&b, "gpu1:123:456 [0] NCCL INFO Channel %02d : 0[3b000] -> 1[5e000] via P2P/IPC\n", i%32)
	}
	return b.String()
}

// Analysing a paste whose kinds alternate line by line grows with the
// paste, not with its square: four times the lines may cost at most about
// four times the memory (a quadratic cost, e.g. padding every segment
// with the lines before it, would cost sixteen). Memory, not time, is
// measured: it does not depend on the machine's load.
func TestInterleavedKindsScaleLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses 10,000 segments")
	}
	alloc := func(n int) uint64 {
		text := interleaved(n)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		r := Run([]Input{{Name: "p", Text: text}}, Options{})
		runtime.ReadMemStats(&m1)
		if got := len(r.Files[0].Segments); got != 2*n {
			t.Fatalf("%d segments, want %d", got, 2*n)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	small, large := alloc(1250), alloc(5000)
	ratio := float64(large) / float64(small)
	t.Logf("4x the interleaved lines: %.1fx the memory (%d → %d MiB)", ratio, small>>20, large>>20)
	if ratio > 8 {
		t.Errorf("4x the interleaved lines cost %.1fx the memory: superlinear", ratio)
	}
}
