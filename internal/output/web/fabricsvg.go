package web

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
)

// loadColours is the route-load scale, light to heavy: each is legible
// as text on the page (the legend writes the bands in them) and the
// line's width grows with the band too.
var loadColours = []string{"#0969da", "#1a7f37", "#9a6700", "#bc4c00", "#a40e26"}

// stateDown reports whether a link's state means no traffic passes.
func stateDown(s string) bool {
	switch strings.ToLower(s) {
	case "", "active", "linkup", "up", "armed":
		return false
	}
	return true
}

// errWidth is a link's stroke width for its error rate: 2 when clean,
// up to 9 for thousands of errors per second.
func errWidth(rate float64) float64 {
	if rate <= 0 {
		return 2
	}
	return min(9, 3+2*math.Log10(1+rate))
}

// loadBand places a load on the five-step scale up to the heaviest,
// which is always in the top band: band i holds the loads above i/5 of
// the top up to (i+1)/5 of it.
func loadBand(load, top int) int {
	if load <= 0 || top <= 0 {
		return 0
	}
	n := len(loadColours)
	return min(n-1, (load*n+top-1)/top-1)
}

// loadLegend is one band of the route-load scale: the loads it holds.
type loadLegend struct {
	Band   int
	Lo, Hi int
}

// loadBands lists the bands loadBand puts the loads 1..top in.
func loadBands(top int) []loadLegend {
	var out []loadLegend
	for l := 1; l <= top; l++ {
		b := loadBand(l, top)
		if n := len(out); n > 0 && out[n-1].Band == b {
			out[n-1].Hi = l
			continue
		}
		out = append(out, loadLegend{b, l, l})
	}
	return out
}

type swPos struct{ x, y float64 }

// fabricSVG draws the switches in tiers, spines on top, leaves at the
// bottom with their hosts as one box per leaf (count and worst health),
// and every switch-to-switch link as a line to its page: the colour is
// the link's health (or its route load with byLoad), a dashed line is a
// degraded width or speed, a dotted one a link that is down, and the
// line thickens with the error rate.
func fabricSVG(f Fabric, byLoad bool) template.HTML {
	nt := len(f.Tiers)
	widest := 1
	for _, t := range f.Tiers {
		widest = max(widest, len(t))
	}
	gap, boxW, font, chars := 150.0, 130.0, 13, 18
	if widest > 24 {
		gap, boxW, font, chars = 96, 88, 11, 12
	}
	const boxH, rowH, hostH = 34.0, 150.0, 40.0
	W := int(float64(widest)*gap) + 40
	H := int(20+float64(max(nt-1, 0))*rowH+boxH+40+hostH) + 10
	var b strings.Builder
	b.Grow(400*len(f.Links) + 600*widest*nt)
	svgOpen(&b, W, H, "fabric", fmt.Sprintf("Fabric: %d tiers, %d links", nt, len(f.Links)),
		"Switches in tiers, spines at the top and leaves at the bottom with their hosts counted below them; every line is a cable between two switches and links to its page.")
	fmt.Fprintf(&b, `<g font-size="%d">`, font)
	// Every tier spreads over the full width, as a fat tree is drawn.
	pos := map[string]swPos{}
	for i, t := range f.Tiers {
		y := 20 + float64(nt-1-i)*rowH
		step := float64(W-40) / float64(max(len(t), 1))
		for j, sw := range t {
			pos[sw.ID] = swPos{20 + (float64(j)+0.5)*step, y}
		}
	}
	top := 0
	for _, l := range f.Links {
		top = max(top, l.LoadAB, l.LoadBA)
	}
	// Parallel cables between the same two switches fan out a little.
	par := map[[2]string]int{}
	// Healthy links go first, thin and faint when there are many, so that
	// the ones that need a look are drawn over them and stand out.
	links := slices.Clone(f.Links)
	slices.SortStableFunc(links, func(a, b Link) int { return cmp.Compare(linkRank(a), linkRank(b)) })
	faint := len(links) > 200
	b.WriteString(`<g class="links">`)
	for _, l := range links {
		a, okA := pos[l.A.ID]
		c, okB := pos[l.B.ID]
		if !okA || !okB {
			continue
		}
		if a.y > c.y {
			a, c = c, a
		}
		key := [2]string{l.A.ID, l.B.ID}
		if key[0] > key[1] {
			key[0], key[1] = key[1], key[0]
		}
		off := float64(par[key]%7-3) * 4
		par[key]++
		colour, width := look(l.Health).Fg, errWidth(l.ErrorRate)
		load := max(l.LoadAB, l.LoadBA)
		if byLoad {
			band := loadBand(load, top)
			colour, width = loadColours[band], 1.5+float64(band)*1.5
		}
		extra := ""
		if faint && linkRank(l) == 0 && !byLoad {
			width, extra = 1, ` stroke-opacity="0.35"`
		}
		dash := extra
		switch {
		case stateDown(l.State):
			dash += ` stroke-dasharray="2 4"`
		case l.Degraded:
			dash += ` stroke-dasharray="8 5"`
		}
		x1, y1, x2, y2 := a.x+off, a.y+boxH, c.x+off, c.y
		fmt.Fprintf(&b, `<a href="%s"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s><title>%s</title></line>`,
			esc(linkURL(l.ID)), f1(x1), f1(y1), f1(x2), f1(y2), colour, f1(width), dash, esc(linkTitle(l)))
		if l.ErrorRate > 0 && !byLoad {
			fmt.Fprintf(&b, `<text class="lbl" x="%s" y="%s" text-anchor="middle">%s/s</text>`,
				f1((x1+x2)/2), f1((y1+y2)/2), esc(num(l.ErrorRate)))
		}
		b.WriteString(`</a>`)
	}
	b.WriteString(`</g>`)
	for i, t := range f.Tiers {
		for _, sw := range t {
			p := pos[sw.ID]
			lk := look(sw.Health)
			name := sw.Name
			if name == "" {
				name = sw.ID
			}
			fmt.Fprintf(&b, `<a href="%s"><rect class="sw" x="%s" y="%s" width="%s" height="%s" rx="4" stroke="%s"/><text x="%s" y="%s" text-anchor="middle">%s %s</text><title>%s: %s %s</title></a>`,
				esc(leafURL(sw.ID)), f1(p.x-boxW/2), f1(p.y), f1(boxW), f1(boxH), lk.Fg, f1(p.x), f1(p.y+boxH/2+4),
				lk.Icon, esc(short(name, chars)), esc(name+" ("+sw.ID+")"), lk.Icon, lk.Word)
			if i == 0 && len(sw.Hosts) > 0 {
				ls := summarise(sw)
				wl := look(ls.Worst)
				bad := 0
				for _, c := range ls.Counts {
					if c.H != OK {
						bad += c.N
					}
				}
				label := fmt.Sprintf("%d hosts %s", len(sw.Hosts), wl.Icon)
				if bad > 0 {
					label += " " + strconv.Itoa(bad)
				}
				hy := p.y + boxH + 40
				fmt.Fprintf(&b, `<line class="hostline" x1="%s" y1="%s" x2="%s" y2="%s"/><a href="%s"><rect x="%s" y="%s" width="%s" height="%s" rx="10" fill="%s"/><text x="%s" y="%s" text-anchor="middle" fill="%s">%s</text><title>%s: %d hosts, worst %s %s; %d not ok</title></a>`,
					f1(p.x), f1(p.y+boxH), f1(p.x), f1(hy), esc(leafURL(sw.ID)), f1(p.x-boxW/2), f1(hy), f1(boxW), f1(hostH-12), wl.Bg,
					f1(p.x), f1(hy+(hostH-12)/2+4), wl.OnBg, esc(label), esc(name), len(sw.Hosts), wl.Icon, wl.Word, bad)
			}
		}
	}
	b.WriteString(`</g></svg>`)
	return template.HTML(b.String())
}

// linkRank orders links for drawing: 0 for a healthy one, higher the
// more it needs a look.
func linkRank(l Link) int {
	r := look(l.Health).Rank
	if l.Degraded || l.ErrorRate > 0 || stateDown(l.State) {
		r += 10
	}
	return r
}

// linkTitle is a link's tooltip: both ends, state, width, speed, errors,
// loads.
func linkTitle(l Link) string {
	s := fmt.Sprintf("%s port %d – %s port %d: %s %s, %s %s %s", l.A.Name, l.A.Port, l.B.Name, l.B.Port,
		look(l.Health).Icon, look(l.Health).Word, l.State, l.Width, l.Speed)
	if l.Degraded {
		s += ", DEGRADED"
	}
	if l.ErrorRate > 0 {
		s += ", " + num(l.ErrorRate) + " errors/s"
	}
	if l.LoadAB > 0 || l.LoadBA > 0 {
		s += fmt.Sprintf(", routes %s→%s %d, back %d", l.A.Name, l.B.Name, l.LoadAB, l.LoadBA)
	}
	return s
}

// short cuts a name to n runes with an ellipsis.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
