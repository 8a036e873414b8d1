package analyze_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/diagnose/analyze"
)

// A file over the size read whole is streamed when it is an NCCL (or
// kernel) log, and refused by its size, before it is read, when it is
// another tool's output.
func TestAnalyzeBigFiles(t *testing.T) {
	dir := t.TempDir()
	var nccl strings.Builder
	for i := 0; nccl.Len() <= analyze.StreamAbove; i++ {
		fmt.Fprintf(&nccl, "gpu%d:%d:%d [0] NCCL INFO Channel 00/02 : 0 1 2 3\n", i%4, 100+i%4, 200+i%4)
		if i%1000 == 0 {
			fmt.Fprintf(&nccl, "gpu%d:%d:%d [0] NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n", i%4, 100+i%4, 200+i%4)
		}
	}
	big := filepath.Join(dir, "nccl.log")
	if err := os.WriteFile(big, []byte(nccl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "", "analyze", big)
	if code != 2 || !strings.Contains(out, "nccl-log         NCCL log of 4 processes — 1 critical") || !strings.Contains(out, "ibv_reg_mr failed 165 time(s)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// An ibstat output the size of a disk image: a sparse file, refused
	// by its size.
	ibstat := filepath.Join(dir, "ibstat.txt")
	text := strings.Repeat("CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n", analyze.StreamAbove/40)
	if err := os.WriteFile(ibstat, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(ibstat, 1<<40); err != nil {
		t.Skip(err)
	}
	start := time.Now()
	out, _, code = run(t, "", "analyze", ibstat)
	if code != 3 || !strings.Contains(out, "1048576 MiB, more than the 512 MiB read whole (it holds ibstat output); only kernel and NCCL logs are streamed: split it") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("refusing a 1 TiB file took %v", d)
	}
}
