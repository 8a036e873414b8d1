package ucxlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any input parses or fails with an error, never panics, and
// every record and completion points at a line of the input.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.log"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(string(b))
		}
	}
	f.Add("[1.5] [h:1:0] a.c:1 UCX ERROR x on m:1/IB (synd 0x")
	f.Add("Pod log says: ib_mlx5dv_md.c:1100 UCX  ERROR mlx5_1: ibv_modify_qp(UMR QP 0x2c5c) failed to modify to RTR: No such device")
	f.Add("[h:1:0:1] a.c:2  Error on m QP 0x1 wqe[0]: x (synd zz)")
	f.Fuzz(func(t *testing.T, s string) {
		lg, err := Parse(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		for _, r := range lg.Records {
			if r.Line < 1 || r.Line > lg.Lines {
				t.Fatalf("record line %d of %d", r.Line, lg.Lines)
			}
		}
		for _, c := range lg.Completions {
			if c.Record.Line < 1 || c.Record.Line > lg.Lines {
				t.Fatalf("completion line %d", c.Record.Line)
			}
		}
	})
}
