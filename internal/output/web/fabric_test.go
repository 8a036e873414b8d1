package web

import (
	"fmt"
	"testing"
)

func TestLoadBands(t *testing.T) {
	for _, c := range []struct {
		top  int
		want string
	}{
		{0, "[]"},
		{1, "[{4 1 1}]"},
		{3, "[{1 1 1} {3 2 2} {4 3 3}]"},
		{40, "[{0 1 8} {1 9 16} {2 17 24} {3 25 32} {4 33 40}]"},
	} {
		if g := fmt.Sprint(loadBands(c.top)); g != c.want {
			t.Errorf("loadBands(%d) = %s, want %s", c.top, g, c.want)
		}
		// The busiest link is always in the top band.
		if c.top > 0 && loadBand(c.top, c.top) != len(loadColours)-1 {
			t.Errorf("top %d is in band %d", c.top, loadBand(c.top, c.top))
		}
	}
}
