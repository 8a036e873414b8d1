package web

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"
)

// maxBars bounds the bars drawn; the table under the chart lists every
// event.
const maxBars = 400

// timelineSVG draws one bar per event from when it opened to when it
// closed; an open one runs to the window's end and ends in an arrow and
// the word "open". Rows are grouped by host with the host's name on its
// first row.
func timelineSVG(tl Timeline, events []Event, summary string) template.HTML {
	const L, R, rowH = 330, 60, 20
	const W = 1100
	// The summary row on top: how many were open at each moment, coloured
	// by the worst of them.
	const T = 10 + rowH + 8
	n := min(len(events), maxBars)
	H := T + n*rowH + 46
	from, to := tl.Since, tl.Until
	if !to.After(from) {
		to = from.Add(time.Hour)
	}
	span := to.Sub(from)
	x := func(t time.Time) float64 {
		if t.Before(from) {
			t = from
		}
		if t.After(to) {
			t = to
		}
		return L + float64(t.Sub(from))/float64(span)*(W-L-R)
	}
	var b strings.Builder
	svgOpen(&b, W, H, "timeline", fmt.Sprintf("Findings from %s to %s: %d shown", when(from), when(to), n),
		"One bar per finding and host from when it opened to when it closed; open findings end in an arrow.")
	for _, t := range timeTicks(from, to, 8) {
		xx := f1(x(t))
		fmt.Fprintf(&b, `<line class="grid" x1="%s" y1="%d" x2="%s" y2="%d"/><text x="%s" y="%d" text-anchor="middle">%s</text>`,
			xx, T, xx, T+n*rowH, xx, T+n*rowH+16, esc(tickLabel(t, span)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">time (UTC)</text>`, (L+W-R)/2, H-8)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-weight="700">%s</text>`, L-8, 10+14, esc(summary))
	for _, sg := range overlap(events, to) {
		lk := look(sg.worst)
		x1, x2 := x(sg.from), x(sg.to)
		if x2-x1 < 1 {
			x2 = x1 + 1
		}
		fmt.Fprintf(&b, `<rect x="%s" y="%d" width="%s" height="%d" fill="%s"><title>%s to %s: %d open, worst %s %s</title></rect>`,
			f1(x1), 10+2, f1(x2-x1), rowH-4, lk.Fg, when(sg.from), when(sg.to), sg.open, lk.Icon, lk.Word)
	}
	fmt.Fprintf(&b, `<line class="sep" x1="0" y1="%d" x2="%d" y2="%d"/>`, T-4, W, T-4)
	prev := ""
	for i, e := range events[:n] {
		y := T + i*rowH
		lk := look(HealthOf(e.Severity))
		label := e.ID
		if e.Host != prev {
			label = e.Host + "  " + e.ID
			prev = e.Host
			if i > 0 {
				fmt.Fprintf(&b, `<line class="sep" x1="0" y1="%d" x2="%d" y2="%d"/>`, y, W, y)
			}
		}
		end, state := e.Closed, "closed "+when(e.Closed)
		if end.IsZero() {
			end, state = to, "open"
		}
		x1, x2 := x(e.Opened), x(end)
		if x2-x1 < 2 {
			x2 = x1 + 2
		}
		fmt.Fprintf(&b, `<g><title>%s %s %s on %s %s: opened %s, %s</title><text x="%d" y="%d" text-anchor="end">%s %s</text><rect x="%s" y="%d" width="%s" height="%d" fill="%s"/>`,
			lk.Icon, lk.Word, esc(e.ID), esc(e.Host), esc(e.Subject), when(e.Opened), esc(state),
			L-8, y+14, lk.Icon, esc(short(label, 44)), f1(x1), y+4, f1(x2-x1), rowH-8, lk.Fg)
		if e.Closed.IsZero() {
			fmt.Fprintf(&b, `<path d="M%s %d l8 6 l-8 6 z" fill="%s"/><text x="%s" y="%d">open</text>`,
				f1(x2), y+4, lk.Fg, f1(x2+10), y+14)
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// segment is a stretch of time with the same findings open.
type segment struct {
	from, to time.Time
	open     int
	worst    Health
}

// overlap sweeps the events' openings and closings (open ones close at
// end) into the stretches where at least one was open.
func overlap(events []Event, end time.Time) []segment {
	type edge struct {
		t    time.Time
		sev  int
		step int
	}
	var edges []edge
	for _, e := range events {
		c := e.Closed
		if c.IsZero() || c.After(end) {
			c = end
		}
		if !c.After(e.Opened) {
			continue
		}
		r := e.Severity.Rank()
		edges = append(edges, edge{e.Opened, r, 1}, edge{c, r, -1})
	}
	slices.SortStableFunc(edges, func(a, b edge) int { return a.t.Compare(b.t) })
	var out []segment
	bySev := [4]int{}
	for i, e := range edges {
		bySev[e.sev] += e.step
		if i+1 < len(edges) && edges[i+1].t.After(e.t) {
			open, worst := 0, Health("")
			for r, n := range bySev {
				open += n
				if n > 0 {
					worst = []Health{Unknown, Info, Warning, Critical}[r]
				}
			}
			if open > 0 {
				out = append(out, segment{e.t, edges[i+1].t, open, worst})
			}
		}
	}
	return out
}
