package analyze

import (
	"os"
	"path/filepath"
	"testing"
)

// maybeHeader passes every line header matches: the lines of every
// file in testdata and lines whose blanks are Unicode spaces.
func TestMaybeHeaderPassesHeaders(t *testing.T) {
	var files []string
	for _, g := range []string{"testdata/*", "testdata/*/*"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	checked := 0
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a folder
		}
		ls := Lines(string(b))
		ls = append(ls, "\u00a0CA 'mlx5_0'", "RC Write BW Test\u00a0", "  NodeRecord dump:\u2003", "\u0085hca_id:\tmlx5_0")
		for i, l := range ls {
			prev, next := "", ""
			if i > 0 {
				prev = ls[i-1]
			}
			if i+1 < len(ls) {
				next = ls[i+1]
			}
			for _, hca := range []bool{false, true} {
				if k, _ := header(l, prev, next, hca); k != KindUnknown {
					checked++
					if !maybeHeader(l) {
						t.Errorf("%s:%d: %q is a %s header, maybeHeader says no", p, i+1, l, k)
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d header lines checked", checked)
	}
}
