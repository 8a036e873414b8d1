package web

import (
	"cmp"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// fleetRows writes the fleet grid's rows. It is the one part of a page
// whose size grows with nodes × ports (16,000 cells for 2,000 nodes of 8
// ports), so it is written here rather than by the template engine,
// which costs a reflective call per value; every text and attribute
// value is escaped as the template would.
func fleetRows(rows []NodeRow) template.HTML {
	var b strings.Builder
	b.Grow(len(rows) * 900)
	for _, n := range rows {
		lk := look(n.Health)
		b.WriteString(`<tr><th scope="row"><a href="`)
		b.WriteString(esc(nodeURL(n.Host)))
		b.WriteString(`">`)
		b.WriteString(esc(n.Host))
		b.WriteString(`</a></th><td class="c-`)
		b.WriteString(string(norm(n.Health)))
		b.WriteString(`">`)
		b.WriteString(lk.Icon + " " + lk.Word)
		b.WriteString(`</td><td>`)
		if n.Group != "" {
			b.WriteString(`<a href="/?group=`)
			b.WriteString(esc(url.QueryEscape(n.Group)))
			b.WriteString(`">`)
			b.WriteString(esc(n.Group))
			b.WriteString(`</a>`)
		}
		b.WriteString(`</td><td class="ports">`)
		for _, p := range n.Ports {
			pl := look(p.Health)
			b.WriteString(`<span class="p c-`)
			b.WriteString(string(norm(p.Health)))
			b.WriteString(`" title="`)
			b.WriteString(esc(p.Name + ": " + pl.Word + ", " + p.State + " " + p.Rate))
			b.WriteString(`">`)
			b.WriteString(pl.Icon)
			b.WriteString(`</span>`)
		}
		if n.Error != "" {
			b.WriteString(` <span class="t-unreachable">`)
			b.WriteString(esc(n.Error))
			b.WriteString(`</span>`)
		}
		b.WriteString(`</td><td>`)
		for _, id := range n.FindingIDs {
			b.WriteString(`<a href="`)
			b.WriteString(esc(nodeURL(n.Host) + "#" + findingAnchor(id, 0)))
			b.WriteString(`">`)
			b.WriteString(esc(id))
			b.WriteString(`</a> `)
		}
		b.WriteString("</td></tr>\n")
	}
	return template.HTML(b.String())
}

// fleetMap writes the fleet as tiles, one per node, grouped by leaf: the
// view for a wall screen, where 2,000 nodes fit on one screen. A tile is
// its health's icon on its health's colour and links to the node; its
// name is in its label and tooltip.
func fleetMap(rows []NodeRow) template.HTML {
	groups := map[string][]NodeRow{}
	var names []string
	for _, n := range rows {
		if _, ok := groups[n.Group]; !ok {
			names = append(names, n.Group)
		}
		groups[n.Group] = append(groups[n.Group], n)
	}
	slices.SortFunc(names, func(a, b string) int {
		// Nodes without a leaf come last.
		if (a == "") != (b == "") {
			return cmp.Compare(b, a)
		}
		return cmp.Compare(a, b)
	})
	var b strings.Builder
	b.Grow(len(rows) * 160)
	for _, g := range names {
		ns := groups[g]
		slices.SortFunc(ns, func(a, b NodeRow) int { return cmp.Compare(a.Host, b.Host) })
		label := g
		if label == "" {
			label = "no leaf known"
		}
		b.WriteString(`<section class="group"><h2>`)
		b.WriteString(esc(label))
		n := map[Health]int{}
		for _, r := range ns {
			n[norm(r.Health)]++
		}
		for _, h := range healthOrder {
			if n[h] > 0 {
				fmt.Fprintf(&b, ` <span class="t-%s">%s %d %s</span>`, h, look(h).Icon, n[h], look(h).Word)
			}
		}
		b.WriteString("</h2><p class=\"tiles\">")
		for _, r := range ns {
			lk := look(r.Health)
			name := esc(r.Host + ": " + lk.Word)
			fmt.Fprintf(&b, `<a class="tile c-%s" href="%s" title="%s" aria-label="%s">%s</a>`,
				norm(r.Health), esc(nodeURL(r.Host)), name, name, lk.Icon)
		}
		b.WriteString("</p></section>\n")
	}
	return template.HTML(b.String())
}

// heatRows writes the bandwidth matrix's rows and counts the pairs
// measured and those below ok. A matrix has n² cells (65,536 for 256
// hosts), so, like the fleet grid, it is written here rather than by the
// template engine. A slow pair carries its icon as well as its colour.
func heatRows(run PerfRun, ref float64, known, culprit map[string]bool) (html template.HTML, measured, slow int) {
	n := len(run.Hosts)
	var b strings.Builder
	b.Grow(n * n * 90)
	var num []byte
	for i, h := range run.Hosts {
		eh := esc(h)
		b.WriteString(`<tr><th scope="row">`)
		if culprit[h] {
			b.WriteString("✖ ")
		}
		if known[h] {
			b.WriteString(`<a href="` + esc(nodeURL(h)) + `">` + eh + `</a>`)
		} else {
			b.WriteString(eh)
		}
		b.WriteString(`</th>`)
		for j, to := range run.Hosts {
			switch {
			case i == j:
				b.WriteString(`<td class="c-unknown self" title="` + eh + ` to itself">·</td>`)
			case i < len(run.Gbps) && j < len(run.Gbps[i]) && run.Gbps[i][j] >= 0:
				x := run.Gbps[i][j]
				hl := bandHealth(x, ref)
				lk := look(hl)
				measured++
				b.WriteString(`<td class="c-` + string(hl) + `" title="` + eh + ` → ` + esc(to) + `: `)
				num = strconv.AppendFloat(num[:0], x, 'f', 1, 64)
				b.Write(num)
				b.WriteString(` Gb/s (` + lk.Word + `)">`)
				if hl != OK {
					slow++
					b.WriteString(lk.Icon + " ")
				}
				num = strconv.AppendFloat(num[:0], x, 'f', cellDigits(x), 64)
				b.Write(num)
				b.WriteString(`</td>`)
			default:
				b.WriteString(`<td class="c-unknown" title="` + eh + ` → ` + esc(to) + `: not measured">—</td>`)
			}
		}
		b.WriteString("</tr>\n")
	}
	return template.HTML(b.String()), measured, slow
}

// cellDigits is how many decimals a matrix cell shows: whole Gb/s from 10
// up, so that a wide matrix stays narrow, and enough below that a slow or
// throttled pair never reads as 0.
func cellDigits(gbps float64) int {
	switch {
	case gbps >= 10:
		return 0
	case gbps >= 1:
		return 1
	}
	return 2
}
