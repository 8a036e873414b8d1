package web

import (
	"html/template"
	"net/url"
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
