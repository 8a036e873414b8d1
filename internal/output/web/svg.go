package web

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"
)

var esc = template.HTMLEscapeString

// svgOpen starts an <svg> that assistive technology reads as one image
// named by its <title>.
func svgOpen(b *strings.Builder, w, h int, class, title, desc string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" class="%s" viewBox="0 0 %d %d" width="%d" height="%d"><title>%s</title>`,
		class, w, h, w, h, esc(title))
	if desc != "" {
		fmt.Fprintf(b, `<desc>%s</desc>`, esc(desc))
	}
}

// f1 writes a coordinate with one decimal.
func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// niceMax rounds a chart's top up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// timeTicks picks about n tick times between a and b on round steps.
func timeTicks(a, b time.Time, n int) []time.Time {
	span := b.Sub(a)
	if span <= 0 {
		return []time.Time{a}
	}
	steps := []time.Duration{time.Second, 5 * time.Second, 15 * time.Second, time.Minute, 5 * time.Minute,
		15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= time.Duration(n) {
			step = s
			break
		}
	}
	var out []time.Time
	for t := a.Truncate(step); !t.After(b); t = t.Add(step) {
		if !t.Before(a) {
			out = append(out, t)
		}
	}
	return out
}

// tickLabel writes a tick time as short as its step allows (UTC).
func tickLabel(t time.Time, span time.Duration) string {
	t = t.UTC()
	switch {
	case span > 3*24*time.Hour:
		return t.Format("Jan 2")
	case span > 20*time.Hour:
		return t.Format("Jan 2 15:04")
	case span < 5*time.Minute:
		return t.Format("15:04:05")
	}
	return t.Format("15:04")
}

// lineChart draws one series over its time span: a y axis from zero with
// the unit, a time axis in UTC, and the line.
func lineChart(sr Series) template.HTML {
	const W, H, L, R, T, B = 640, 250, 78, 16, 36, 44
	var b strings.Builder
	title := sr.Name
	if sr.Unit != "" {
		title += " (" + sr.Unit + ")"
	}
	pts := sr.Points
	if len(pts) == 0 {
		svgOpen(&b, W, 60, "chart", title, "no samples in the window")
		fmt.Fprintf(&b, `<text x="%d" y="34">%s: no samples in the window</text></svg>`, L, esc(title))
		return template.HTML(b.String())
	}
	t0, t1 := pts[0].T, pts[0].T
	lo, hi, last := pts[0].V, pts[0].V, pts[len(pts)-1].V
	for _, p := range pts {
		if p.T.Before(t0) {
			t0 = p.T
		}
		if p.T.After(t1) {
			t1 = p.T
		}
		lo, hi = min(lo, p.V), max(hi, p.V)
	}
	ymax := niceMax(hi)
	span := t1.Sub(t0)
	x := func(t time.Time) float64 {
		if span <= 0 {
			return L + (W-L-R)/2
		}
		return L + float64(t.Sub(t0))/float64(span)*(W-L-R)
	}
	y := func(v float64) float64 { return T + (1-max(v, 0)/ymax)*(H-T-B) }
	svgOpen(&b, W, H, "chart", title, fmt.Sprintf("%d samples from %s to %s; min %s, max %s, last %s %s",
		len(pts), when(t0), when(t1), num(lo), num(hi), num(last), sr.Unit))
	fmt.Fprintf(&b, `<text class="head" x="%d" y="18">%s</text>`, L, esc(title))
	// Axes and grid.
	fmt.Fprintf(&b, `<g class="axis"><line x1="%d" y1="%d" x2="%d" y2="%d"/><line x1="%d" y1="%d" x2="%d" y2="%d"/>`,
		L, T, L, H-B, L, H-B, W-R, H-B)
	for i := 0; i <= 4; i++ {
		v := ymax * float64(i) / 4
		yy := f1(y(v))
		fmt.Fprintf(&b, `<line class="grid" x1="%d" y1="%s" x2="%d" y2="%s"/><text x="%d" y="%s" text-anchor="end" dy="4">%s</text>`,
			L, yy, W-R, yy, L-6, yy, esc(num(v)))
	}
	for _, t := range timeTicks(t0, t1, 5) {
		xx := f1(x(t))
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d"/><text x="%s" y="%d" text-anchor="middle">%s</text>`,
			xx, H-B, xx, H-B+5, xx, H-B+18, esc(tickLabel(t, span)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">time (UTC)</text>`, (L+W-R)/2, H-6)
	fmt.Fprintf(&b, `<text transform="translate(14 %d) rotate(-90)" text-anchor="middle">%s</text></g>`, (T+H-B)/2, esc(sr.Unit))
	if len(pts) == 1 {
		fmt.Fprintf(&b, `<circle class="line" cx="%s" cy="%s" r="3"/>`, f1(x(pts[0].T)), f1(y(pts[0].V)))
	} else {
		b.WriteString(`<polyline class="line" points="`)
		for i, p := range pts {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(f1(x(p.T)) + "," + f1(y(p.V)))
		}
		b.WriteString(`"/>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
