package ompihelp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any input gives a log or an error, never a panic; a log's
// messages lie on lines of the input, in order, and each says the first
// sentence of its topic on that line.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("--------------------------------------------------------------------------\nWARNING: There is at least non-excluded one OpenFabrics device found,\nbut there are no active ports detected (or Open MPI was unable to use\nthem).\n\n  Local host: gpu7\n--------------------------------------------------------------------------\n")
	f.Add("[[27217,0],12][btl_openib_component.c:3556:handle_wc] from nvb27 to: nvb27 error polling L\nP CQ with status REMOTE ACCESS ERROR status number 10 for wr_id 19059c8 opcode 4  vendor e\nrror 136 qp_idx 3\n")
	f.Add("[rc000][[5397,1],72][btl_openib_component.c:3547:poll_device] error polling HP CQ with -2 errno says Device or resource busy\n")
	f.Add("The OpenFabrics (openib) BTL failed to initialize while trying to\n\ncreate an internal queue.\n  Function:    ibv_create_cq()\n")
	f.Add("[h:1] 3 more processes have sent help message help-mpi-btl-openib.txt / no active ports found\n")
	f.Fuzz(func(t *testing.T, in string) {
		lg, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.Is(err, ErrNoData) && !errors.As(err, &pe) {
				t.Fatalf("error %v is neither ErrNoData nor a parse error", err)
			}
			return
		}
		lines := strings.Split(strings.ReplaceAll(in, "\r\n", "\n"), "\n")
		prev := 0
		for _, m := range lg.Messages {
			if m.Line < 1 || m.Line > len(lines) || m.Line < prev {
				t.Fatalf("message %+v at line %d of %d (previous %d)", m.Topic, m.Line, len(lines), prev)
			}
			prev = m.Line
			if m.Topic.File == "" || m.Topic.Name == "" {
				t.Fatalf("message without a topic at line %d", m.Line)
			}
		}
		for _, a := range lg.Aggregates {
			if a.Topic.File == "" || a.Topic.Name == "" {
				t.Fatalf("aggregate without a topic: %+v", a)
			}
		}
	})
}
