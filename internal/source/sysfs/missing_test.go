package sysfs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMissingDataIsAGap: files the kernel always creates, deleted from a
// copy of a real-layout root, are gaps, never silently healthy.
func TestMissingDataIsAGap(t *testing.T) {
	const dev = "sys/class/infiniband/"
	tests := []struct {
		name     string
		remove   []string // root-relative, symlinks resolved
		wantGaps []string
	}{
		{"port without state and rate", []string{dev + "mlx5_0/ports/1/state", dev + "mlx5_0/ports/1/rate"},
			[]string{dev + "mlx5_0/ports/1/state", dev + "mlx5_0/ports/1/rate"}},
		{"device without ports", []string{dev + "mlx5_1/ports"}, []string{dev + "mlx5_1/ports"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			if out, err := exec.Command("cp", "-a", "testdata/node1", root).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			for _, p := range tt.remove {
				real, err := filepath.EvalSymlinks(filepath.Join(root, p))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.RemoveAll(real); err != nil {
					t.Fatal(err)
				}
			}
			s, err := ReadRoot(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, g := range s.Gaps {
				got[g.Path] = true
			}
			for _, p := range tt.wantGaps {
				if !got[p] {
					t.Errorf("no gap for %s (gaps: %+v)", p, s.Gaps)
				}
			}
		})
	}
}
