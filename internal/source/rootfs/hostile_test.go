package rootfs

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hostileBundles are small archives built to make unpacking expensive. Each
// must be rejected with ErrLimit (or read, when ok) quickly and without
// allocating much: before the limits counted implied directories and
// symlink steps, "deep" took 26 s and 477 MB, "link-steps" 53 s.
func hostileBundles(t testing.TB) []struct {
	name  string
	tgz   []byte
	ok    bool
	limit string // the limit named in the error
} {
	deepName := func(i, depth int, elem string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "e%06d", i)
		for range depth {
			b.WriteString("/" + elem)
		}
		return b.String() + "/f"
	}
	body := strings.Repeat("x", 4096)
	var deep, long, dirs []entry
	for i := range 1000 {
		// 2,000 elements: 2,000 implied directories per entry.
		deep = append(deep, file(deepName(i, 2040, "a"), body))
		// Within the depth limit, but 62 implied directories of up to 4 KiB
		// names each.
		long = append(long, file(deepName(i, 62, strings.Repeat("b", 60)), body))
	}
	for i := range 2000 {
		// 60 implied directories of short names each: 120,000 in all.
		dirs = append(dirs, file(deepName(i, 60, "c"), "1\n"))
	}
	// A wide directory in reverse order: inserting each name in sorted
	// position would move the whole listing every time.
	var wide []entry
	for i := 60_000; i > 0; i-- {
		wide = append(wide, file(fmt.Sprintf("w/%06d", i), ""))
	}
	// Links whose targets walk back and forth: each resolution is long.
	var steps, chain []entry
	steps = append(steps, dir("x/"), file("t", "1\n"))
	for i := range 3000 {
		steps = append(steps, link(fmt.Sprintf("l%05d", i), strings.Repeat("x/../", 800)+"t"))
	}
	// Under the per-lookup bound: 10,000 links of 300 steps each.
	chain = append(chain, dir("x/"), file("t", "1\n"))
	for i := range 10_000 {
		chain = append(chain, link(fmt.Sprintf("c%05d", i), strings.Repeat("x/../", 150)+"t"))
	}
	return []struct {
		name  string
		tgz   []byte
		ok    bool
		limit string
	}{
		{"deep", makeBundle(t, deep...), false, "MaxBundleDepth"},
		{"long-names", makeBundle(t, long...), false, "MaxBundleNameBytes"},
		{"implied-dirs", makeBundle(t, dirs...), false, "MaxBundleFiles"},
		{"wide-reversed", makeBundle(t, wide...), true, ""},
		{"link-steps", makeBundle(t, steps...), false, "MaxResolveSteps"},
		{"link-chain", makeBundle(t, chain...), false, "MaxBundleLinkSteps"},
	}
}

func TestHostileBundlesAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds large archives")
	}
	for _, tt := range hostileBundles(t) {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := ReadBundle(bytes.NewReader(tt.tgz), tt.name+".tar.gz")
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d KiB compressed: %v, %d MiB allocated: %v", len(tt.tgz)>>10, took, alloc>>20, err)
			if tt.ok && err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !tt.ok && (err == nil || !strings.Contains(err.Error(), tt.limit)) {
				t.Fatalf("err = %v, want the %s limit", err, tt.limit)
			}
			if !tt.ok && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrResolveSteps) {
				t.Fatalf("err = %v, want ErrLimit or ErrResolveSteps", err)
			}
			// Generous: a loaded 2-core machine does each in well under a
			// second.
			if took > 8*time.Second {
				t.Errorf("took %v", took)
			}
			if alloc > 128<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

func BenchmarkHostileBundles(b *testing.B) {
	for _, tt := range hostileBundles(b) {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, err := ReadBundle(bytes.NewReader(tt.tgz), tt.name)
				if (err == nil) != tt.ok {
					b.Fatal(err)
				}
			}
		})
	}
}
