package job

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// FuzzParseHCAMap: a host → HCA map either fails naming its source and a
// line it has, or lists at least one HCA per host and, written back with
// every word quoted, reads back the same.
func FuzzParseHCAMap(f *testing.F) {
	for _, s := range []string{
		"# map\nnodeA \"h00 mlx5_0\"\nnodeB 0x10001\n",
		"gpu017 \"gpu017 mlx5_0\" \"gpu017 mlx5_1\"\ngpu018 0x0002c90300a1b2c3 0x0002c90300a1b2c4\r\n",
		"nodeA\n", "a \"b\n", "a 1 # 2\na 3\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseHCAMap(in, "map.txt")
		if err != nil {
			var n int
			if _, serr := fmt.Sscanf(err.Error(), "map.txt line %d:", &n); serr != nil || n < 1 || n > strings.Count(in, "\n")+1 {
				t.Fatalf("error does not name a line of map.txt: %v", err)
			}
			return
		}
		var b strings.Builder
		for _, h := range slices.Sorted(maps.Keys(m)) {
			if len(m[h]) == 0 {
				t.Fatalf("host %q without HCAs", h)
			}
			for _, w := range append([]string{h}, m[h]...) {
				if strings.ContainsAny(w, "\"\n") {
					return // a quote inside a bare word cannot be quoted
				}
				b.WriteString(`"` + w + `" `)
			}
			b.WriteString("\n")
		}
		again, err := ParseHCAMap(b.String(), "again")
		if err != nil {
			t.Fatalf("map written back fails: %v\n%s", err, b.String())
		}
		if !maps.EqualFunc(m, again, slices.Equal) {
			t.Fatalf("map %q reads back as %q", m, again)
		}
	})
}

func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{"ring", "TREE", "alltoall", "pairs", "mesh", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePattern(s)
		if err != nil {
			return
		}
		if again, err := ParsePattern(string(p)); err != nil || again != p || !strings.EqualFold(string(p), s) {
			t.Fatalf("pattern %q read as %q, which reads back as %q, %v", s, p, again, err)
		}
	})
}
