package web

import (
	"math"
	"strings"
	"testing"
)

func TestContrastKnownValues(t *testing.T) {
	for _, c := range []struct {
		fg, bg string
		want   float64
	}{
		{"#000000", "#ffffff", 21},
		{"#ffffff", "#ffffff", 1},
		{"#777777", "#ffffff", 4.48}, // the classic grey that just fails AA
		{"#767676", "#ffffff", 4.54}, // and the one that just passes
		{"#ffffff", "#000000", 21},   // order does not matter
	} {
		got, err := Contrast(c.fg, c.bg)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 0.01 {
			t.Errorf("Contrast(%s, %s) = %.3f, want %.2f", c.fg, c.bg, got, c.want)
		}
	}
	for _, bad := range []string{"fff", "#ggg000", "#12345"} {
		if _, err := Contrast(bad, "#ffffff"); err == nil {
			t.Errorf("Contrast(%q) accepted", bad)
		}
	}
}

// Every text colour the pages use on every background it is used on
// reaches the WCAG AA ratio for normal text.
func TestPaletteContrast(t *testing.T) {
	pairs := textPairs()
	if len(pairs) < 3*len(Looks) {
		t.Fatalf("only %d pairs for %d healths", len(pairs), len(Looks))
	}
	for _, p := range pairs {
		r, err := Contrast(p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		if r < 4.5 {
			t.Errorf("%s on %s: contrast %.2f < 4.5", p[0], p[1], r)
		}
	}
}

// Every health has an icon and a word, and the style sheet carries the
// palette's colours.
func TestPaletteComplete(t *testing.T) {
	css := paletteCSS()
	for _, h := range []Health{OK, Info, Warning, Critical, Unreachable, Unknown} {
		l, ok := Looks[h]
		if !ok || l.Icon == "" || l.Word == "" {
			t.Errorf("%s: no icon or word", h)
		}
		if !strings.Contains(css, ".c-"+string(h)+"{background:"+l.Bg+";color:"+l.OnBg+"}") {
			t.Errorf("%s: cell colours not in the style sheet", h)
		}
	}
	if Worst(OK, Critical) != Critical || Worst(Warning, Info) != Warning || Worst("bogus", OK) != Unknown {
		t.Error("Worst orders healths wrongly")
	}
}
