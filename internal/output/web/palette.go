package web

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The page colours. Text is PageText on PageBG; a health's word and icon
// are written in its Fg on PageBG (and its Fg draws its links and chart
// lines), and a health's filled cells carry OnBg text on Bg. Every pair
// has a WCAG 2.x contrast ratio of at least 4.5:1 (palette_test.go
// computes them), so the colours stay legible for low vision; the icon
// and word carry the meaning for everyone else.
const (
	PageBG    = "#ffffff"
	PageText  = "#1f2328"
	MutedText = "#57606a"
	LinkText  = "#0550ae"
	PanelBG   = "#f6f8fa"
)

// Look is how one Health is drawn.
type Look struct {
	// Icon and Word always accompany the colour.
	Icon, Word string
	// Fg is the colour of the health's text on PageBG and of its lines.
	Fg string
	// Bg fills a cell in this health; OnBg is the text on it.
	Bg, OnBg string
	// Rank orders healths for "worst of": higher is worse.
	Rank int
}

// Looks is the palette, one entry per Health.
var Looks = map[Health]Look{
	OK:          {Icon: "✔", Word: "ok", Fg: "#1a7f37", Bg: "#1a7f37", OnBg: "#ffffff", Rank: 0},
	Info:        {Icon: "ℹ", Word: "info", Fg: "#0550ae", Bg: "#ddf4ff", OnBg: "#0a3069", Rank: 1},
	Unknown:     {Icon: "?", Word: "unknown", Fg: "#57606a", Bg: "#d0d7de", OnBg: "#1f2328", Rank: 2},
	Warning:     {Icon: "⚠", Word: "warning", Fg: "#8a5300", Bg: "#ffd33d", OnBg: "#1f2328", Rank: 3},
	Unreachable: {Icon: "⊘", Word: "unreachable", Fg: "#6639ba", Bg: "#6639ba", OnBg: "#ffffff", Rank: 4},
	Critical:    {Icon: "✖", Word: "critical", Fg: "#b42318", Bg: "#b42318", OnBg: "#ffffff", Rank: 5},
}

// healthOrder lists the healths from worst to best, as the pages count
// them.
var healthOrder = []Health{Critical, Unreachable, Warning, Unknown, Info, OK}

// look returns the Look of h; anything not in the palette is drawn as
// Unknown.
func look(h Health) Look {
	if l, ok := Looks[h]; ok {
		return l
	}
	return Looks[Unknown]
}

// norm maps an unlisted Health to Unknown.
func norm(h Health) Health {
	if _, ok := Looks[h]; ok {
		return h
	}
	return Unknown
}

// Worst returns the worse of two healths.
func Worst(a, b Health) Health {
	if look(b).Rank > look(a).Rank {
		return norm(b)
	}
	return norm(a)
}

// textPairs are every foreground/background pair the pages write text
// in; the contrast test walks them.
func textPairs() [][2]string {
	out := [][2]string{{PageText, PageBG}, {MutedText, PageBG}, {LinkText, PageBG},
		{PageText, PanelBG}, {MutedText, PanelBG}, {LinkText, PanelBG}}
	for _, h := range healthOrder {
		l := Looks[h]
		out = append(out, [2]string{l.Fg, PageBG}, [2]string{l.Fg, PanelBG}, [2]string{l.OnBg, l.Bg})
	}
	for _, c := range loadColours {
		out = append(out, [2]string{c, PageBG})
	}
	return out
}

// paletteCSS is the colour part of the style sheet, written from the
// constants above so that what the test checks is what the pages use.
func paletteCSS() string {
	var b strings.Builder
	fmt.Fprintf(&b, ":root{--bg:%s;--text:%s;--muted:%s;--link:%s;--panel:%s}\n", PageBG, PageText, MutedText, LinkText, PanelBG)
	for _, h := range healthOrder {
		l := Looks[h]
		fmt.Fprintf(&b, ".t-%s{color:%s}\n.c-%s{background:%s;color:%s}\n", h, l.Fg, h, l.Bg, l.OnBg)
	}
	for i, c := range loadColours {
		fmt.Fprintf(&b, ".load%d{color:%s}\n", i, c)
	}
	return b.String()
}

// Contrast is the WCAG 2.x contrast ratio of two sRGB colours written
// "#rrggbb": (L1 + 0.05) / (L2 + 0.05) with L the relative luminance of
// the lighter and the darker colour.
func Contrast(fg, bg string) (float64, error) {
	l1, err := luminance(fg)
	if err != nil {
		return 0, err
	}
	l2, err := luminance(bg)
	if err != nil {
		return 0, err
	}
	if l2 > l1 {
		l1, l2 = l2, l1
	}
	return (l1 + 0.05) / (l2 + 0.05), nil
}

// luminance is the relative luminance of "#rrggbb" (WCAG 2.x, sRGB).
func luminance(c string) (float64, error) {
	if len(c) != 7 || c[0] != '#' {
		return 0, fmt.Errorf("colour %q: want #rrggbb", c)
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return 0, fmt.Errorf("colour %q: %v", c, err)
	}
	lin := func(x uint64) float64 {
		s := float64(x) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(v>>16&0xff) + 0.7152*lin(v>>8&0xff) + 0.0722*lin(v&0xff), nil
}
