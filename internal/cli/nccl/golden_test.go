package nccl

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden pins the text reports people read; -update rewrites them.
func TestGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"perf-nccl340-expect40.txt", []string{"perf", "--collective", "all_reduce", "--expect-busbw", "40", testsData + "nccl340-old-format-2gpu.txt"}},
		{"perf-not-mpi.txt", []string{"perf", testsData + "not-mpi-two-headers.txt"}},
		{"log-retry-and-socket.txt", []string{"log", "--expect-ib", logData + "nccl1814-retry-then-flush.log", testsData + "meowth-oob-failed-socket.txt", logData + "llamafactory7396-watchdog.log"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, _ := run(t, "", tt.args...)
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.golden, diff)
			}
		})
	}
}
