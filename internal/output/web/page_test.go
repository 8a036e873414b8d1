package web

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// get serves one request and returns the status, body and content type.
func get(t testing.TB, h http.Handler, method, target string) (int, string, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String(), rec.Header().Get("Content-Type")
}

// pageFacts is what a page holds that the tests check across pages.
type pageFacts struct {
	ids   map[string]bool
	hrefs []string
}

var voidElem = regexp.MustCompile(`<(area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)\b([^>]*?)/?>`)

// scan parses a page as strict XML with HTML's void elements and
// entities, which fails on any unclosed or misnested element, and checks
// the accessibility basics: every <svg> is role="img" with a <title> as
// its first child, every form control has a <label for> naming it.
func scan(body string) (pageFacts, error) {
	pf := pageFacts{ids: map[string]bool{}}
	// HTML's void elements take no end tag; write them self-closed so a
	// strict XML parser accepts them and rejects everything else.
	body = voidElem.ReplaceAllString(body, "<$1$2/>")
	d := xml.NewDecoder(strings.NewReader(body))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var controls []string
	labels := map[string]bool{}
	var svgWantTitle bool
	var stack []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return pf, fmt.Errorf("not well-formed: %v (inside %s)", err, strings.Join(stack, ">"))
		}
		switch e := tok.(type) {
		case xml.StartElement:
			name := e.Name.Local
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			if svgWantTitle && name != "title" {
				return pf, fmt.Errorf("an <svg> starts with <%s>, not <title>", name)
			}
			svgWantTitle = false
			if id, ok := attr["id"]; ok {
				if pf.ids[id] {
					return pf, fmt.Errorf("id %q twice", id)
				}
				pf.ids[id] = true
			}
			switch name {
			case "svg":
				if attr["role"] != "img" {
					return pf, errors.New(`an <svg> without role="img"`)
				}
				svgWantTitle = true
			case "a", "link":
				if h, ok := attr["href"]; ok {
					pf.hrefs = append(pf.hrefs, h)
				}
			case "script":
				pf.hrefs = append(pf.hrefs, attr["src"])
			case "form":
				pf.hrefs = append(pf.hrefs, attr["action"])
			case "label":
				labels[attr["for"]] = true
			case "select", "textarea":
				controls = append(controls, attr["id"])
			case "input":
				if t := attr["type"]; t != "hidden" && t != "submit" {
					controls = append(controls, attr["id"])
				}
			case "img":
				if _, ok := attr["alt"]; !ok {
					return pf, errors.New("an <img> without alt")
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if svgWantTitle && strings.TrimSpace(string(e)) != "" {
				return pf, errors.New("text before an <svg>'s <title>")
			}
		}
	}
	if len(stack) != 0 {
		return pf, fmt.Errorf("unclosed: %s", strings.Join(stack, ">"))
	}
	for _, c := range controls {
		if c == "" || !labels[c] {
			return pf, fmt.Errorf("form control %q has no <label for>", c)
		}
	}
	return pf, nil
}

func TestScanCatchesBrokenPages(t *testing.T) {
	for name, body := range map[string]string{
		"misnested":    `<p><b>x</p></b>`,
		"unclosed":     `<div><p>x</p>`,
		"svg no role":  `<svg><title>x</title></svg>`,
		"svg no title": `<svg role="img"><rect/></svg>`,
		"no label":     `<form><select id="a"></select></form>`,
		"wrong label":  `<form><label for="b">B</label><input id="a"></form>`,
		"duplicate id": `<p id="x"></p><p id="x"></p>`,
	} {
		if _, err := scan(body); err == nil {
			t.Errorf("%s: scan accepted %s", name, body)
		}
	}
	if _, err := scan(`<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="x" href="/a"></head><body><label for="a">A</label><input id="a" type="text"><br><svg role="img"><title>t</title></svg></body></html>`); err != nil {
		t.Errorf("scan refused a good page: %v", err)
	}
}

func testHandler(f *fixture, o Options) http.Handler {
	o.Now = func() time.Time { return t0 }
	return Handler(f, o)
}

func TestRoutes(t *testing.T) {
	h := testHandler(newFixture(), Options{Title: "test hub"})
	for _, c := range []struct {
		path string
		code int
		has  []string
		not  []string
	}{
		{"/", 200, []string{"gpu-a1", "gpu-b1", "gpu-b2 &lt;x&gt;", "✖ critical <b>1</b>", "⊘ unreachable <b>1</b>", "✔ ok <b>1</b>", "⚠ warning <b>1</b>",
			`href="/nodes/gpu-b1#finding-node.port_down"`, `<label for="f-id">`, `<label for="f-group">`, "connection refused: &#34;10.0.0.2:9315&#34; &amp; &lt;retry&gt;", `<b>table</b> · <a href="/?view=map">map</a>`, `href="/nodes/gpu-b2%20%3Cx%3E"`, "4 of 4 nodes"}, nil},
		{"/?id=node.port_down", 200, []string{"gpu-b1", `selected="selected">node.port_down`, "1 of 4 nodes"}, []string{">gpu-a1<"}},
		{"/?group=leaf1", 200, []string{">gpu-a1<", ">gpu-a2<"}, []string{">gpu-b1<"}},
		{"/?health=unreachable", 200, []string{">gpu-a2<", "connection refused"}, []string{">gpu-a1<"}},
		{"/?view=map", 200, []string{`<a class="tile c-critical" href="/nodes/gpu-b1" title="gpu-b1: critical" aria-label="gpu-b1: critical">✖</a>`,
			`<h2>leaf1 <span class="t-unreachable">⊘ 1 unreachable</span> <span class="t-ok">✔ 1 ok</span></h2>`, `<a href="/">table</a> · <b>map</b>`,
			`<input type="hidden" name="view" value="map">`}, []string{"<table"}},
		{"/?view=map&group=leaf2&wall=1", 200, []string{">leaf2 <", `href="/nodes/gpu-b2%20%3Cx%3E"`, `<a href="/?group=leaf2&amp;wall=1">table</a>`}, []string{">leaf1 <", `href="/nodes/gpu-a1"`}},
		{"/?group=nowhere", 200, []string{"No node matches."}, nil},
		{"/nodes/gpu-b1", 200, []string{`id="finding-node.port_down"`, `id="finding-node.symbol_errors"`, `id="finding-node.symbol_errors-2"`,
			"reseat the cable on mlx5_1 port 1", `<section class="finding closed" id="finding-node.link_flap">`, "/sys/class/infiniband/mlx5_1/ports/1/state", "dirty connector", "closed 2026-11-30 08:00:00Z after 1h0m",
			"<b>open</b> for 30m", "3 open, 4 in the window", "0000:17:00.0 Gen5 x16", "leaf2 port 1", "400 Gb/sec (4X NDR)",
			"<title>mlx5_0/1 rcv_data (bytes/s)</title>", `<text class="head" x="78" y="18">mlx5_0/1 symbol_error (errors/s)</text>`, "time (UTC)", "no samples in the window", "errors/s"}, nil},
		{"/nodes/gpu-b2%20%3Cx%3E", 200, []string{"gpu-b2 &lt;x&gt;", "No findings in the window"}, nil},
		{"/nodes/gpu-a2", 200, []string{"last poll failed: connection refused", "No ports read."}, nil},
		{"/nodes/nobody", 404, []string{"node nobody not found"}, nil},
		{"/fabric", 200, []string{"spine-a", "spine-b", ">leaf1<", `href="/fabric/links/` + linkDeg + `"`, `stroke-dasharray="8 5"`, `stroke-dasharray="2 4"`,
			"250/s", "3 hosts ⊘ 1", "4 switches in 2 tiers", "fabric.link_degraded", `<a href="/fabric?color=load">route load</a>`, "degraded"}, nil},
		{"/fabric?color=load", 200, []string{"<b>route load</b>", `<span class="load4">━ 33–40</span>`, `stroke="` + loadColours[len(loadColours)-1] + `"`}, []string{"250/s"}},
		{"/fabric/links/" + linkDeg, 200, []string{"SymbolErrorCounter", "<td class=\"num\">7</td>", "123456789", "40 from A to B, 12 from B to A", "<b>degraded</b>", "1X NDR"}, nil},
		{"/fabric/links/" + spineB + "/1-" + leaf1 + "/34", 200, []string{"98765", "PortRcvErrors", "—", "250 per second"}, nil},
		{"/fabric/links/0x0/1-0x1/2", 404, nil, nil},
		{"/fabric/leaves/" + leaf1, 200, []string{`<a href="/nodes/gpu-a1">gpu-a1</a>`, `<th scope="row">gpu-z9</th>`, "tier 1", "⊘ 1 unreachable", `href="/fabric/links/` + linkDeg + `"`}, nil},
		{"/fabric/leaves/" + spineB, 200, []string{"tier 2", "No hosts on this switch."}, nil},
		{"/fabric/leaves/0xdead", 404, nil, nil},
		{"/perf", 200, []string{`href="/perf/runs/run-7"`, `href="/perf/runs/run-6"`, "ib_write_bw"}, nil},
		{"/perf/runs/run-7", 200, []string{`<td class="c-critical" title="gpu-a1 → gpu-b1: 191.5 Gb/s (critical)">✖ 192</td>`,
			`<td class="c-ok" title="gpu-a1 → gpu-q7: 388.2 Gb/s (ok)">388</td>`, `<td class="c-warning" title="gpu-b1 → gpu-q7: 310.9 Gb/s (warning)">⚠ 311</td>`,
			`title="gpu-q7 → gpu-b1: not measured">—</td>`, "✖ <a href=\"/nodes/gpu-b1\">gpu-b1</a>", "✖ gpu-q7", "5 pairs measured, 3 below 90% of 400.0 Gb/s", "perf.pair_slow"}, nil},
		{"/perf/runs/run-6", 200, []string{"the fastest pair", "396.0 Gb/s", "0 below 90%"}, nil},
		{"/perf/runs/nope", 404, nil, nil},
		{"/timeline", 200, []string{"node.port_down", "node.link_flap", "2 findings between 2026-11-29 12:00:00Z and 2026-11-30 12:00:00Z, 1 still open", ">open</text>", ">whole fleet</text>",
			"<title>2026-11-30 07:00:00Z to 2026-11-30 08:00:00Z: 1 open, worst ⚠ warning</title>", "<title>2026-11-30 11:30:00Z to 2026-11-30 12:00:00Z: 1 open, worst ✖ critical</title>"}, []string{"node.symbol_errors"}},
		{"/timeline?since=7d&host=gpu-a1", 200, []string{"node.symbol_errors", `value="gpu-a1"`, `selected="selected">last 7d`, ">all of gpu-a1</text>"}, []string{"node.port_down"}},
		{"/timeline?since=2026-11-30T11:00:00Z", 200, []string{"node.port_down"}, []string{"node.link_flap"}},
		{"/timeline?since=bogus", 400, []string{"since=\"bogus\""}, nil},
		{"/timeline?since=-3h", 400, nil, nil},
		{"/static/style.css", 200, []string{"html.wall"}, nil},
		{"/static/palette.css", 200, []string{".c-critical{background:" + Looks[Critical].Bg}, nil},
		{"/static/refresh.js", 200, []string{"location.reload"}, nil},
		{"/static/", 404, nil, nil},
		{"/static/nothing.css", 404, nil, nil},
		{"/nowhere", 404, nil, nil},
	} {
		code, body, ctype := get(t, h, "GET", c.path)
		if code != c.code {
			t.Errorf("GET %s: %d, want %d\n%s", c.path, code, c.code, body)
			continue
		}
		for _, s := range c.has {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s: no %q", c.path, s)
			}
		}
		for _, s := range c.not {
			if strings.Contains(body, s) {
				t.Errorf("GET %s: has %q", c.path, s)
			}
		}
		if strings.HasPrefix(ctype, "text/html") {
			if _, err := scan(body); err != nil {
				t.Errorf("GET %s: %v", c.path, err)
			}
		}
		// A page, found or not, is HTML; only the static files are not.
		if !strings.HasPrefix(c.path, "/static/") && c.path != "/nowhere" && c.code != 400 && ctype != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", c.path, ctype)
		}
	}
}

func TestTimelineAsksForTheWindow(t *testing.T) {
	f := newFixture()
	h := testHandler(f, Options{})
	get(t, h, "GET", "/timeline?since=90m&host=gpu-b1")
	get(t, h, "GET", "/timeline")
	want := []string{"2026-11-30T10:30:00Z gpu-b1", "2026-11-29T12:00:00Z "}
	if fmt.Sprint(f.asked) != fmt.Sprint(want) {
		t.Errorf("asked %q, want %q", f.asked, want)
	}
}

func TestMethodsAndErrors(t *testing.T) {
	h := testHandler(newFixture(), Options{})
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		for _, p := range []string{"/", "/nodes/gpu-b1", "/fabric", "/perf/runs/run-7", "/timeline", "/static/style.css"} {
			if code, _, _ := get(t, h, m, p); code != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %d, want 405", m, p, code)
			}
		}
	}
	if code, _, _ := get(t, h, "HEAD", "/"); code != 200 {
		t.Errorf("HEAD /: %d", code)
	}

	broken := newFixture()
	broken.err = errBroken
	hb := testHandler(broken, Options{})
	for _, p := range []string{"/", "/nodes/gpu-b1", "/fabric", "/fabric/links/x", "/fabric/leaves/x", "/perf", "/perf/runs/run-7", "/timeline"} {
		code, body, ctype := get(t, hb, "GET", p)
		if code != 500 || !strings.Contains(body, "store is locked") || !strings.HasPrefix(ctype, "text/plain") {
			t.Errorf("GET %s with a broken store: %d %s %q", p, code, ctype, body)
		}
	}

	nofab := newFixture()
	nofab.fabric = nil
	hn := testHandler(nofab, Options{})
	for _, p := range []string{"/fabric", "/fabric/links/" + linkDeg, "/fabric/leaves/" + leaf1} {
		if code, _, _ := get(t, hn, "GET", p); code != 404 {
			t.Errorf("GET %s without a fabric: %d, want 404", p, code)
		}
	}
}

func TestOptions(t *testing.T) {
	h := testHandler(newFixture(), Options{Title: "agent gpu-b1", NoFabric: true, NoPerf: true, Refresh: 15e9})
	_, body, _ := get(t, h, "GET", "/")
	for _, s := range []string{"<title>Fleet · agent gpu-b1</title>", `data-refresh="15"`, `src="/static/refresh.js"`} {
		if !strings.Contains(body, s) {
			t.Errorf("no %q", s)
		}
	}
	for _, s := range []string{`href="/fabric"`, `href="/perf"`} {
		if strings.Contains(body, s) {
			t.Errorf("has %q", s)
		}
	}
	// A node page does not reload: the reader is reading.
	if _, body, _ := get(t, h, "GET", "/nodes/gpu-b1"); strings.Contains(body, "refresh.js") {
		t.Error("the node page reloads")
	}
	_, body, _ = get(t, h, "GET", "/?wall=1")
	for _, s := range []string{`<html lang="en" class="wall">`, `href="/timeline?wall=1"`, `<input type="hidden" name="wall" value="1">`} {
		if !strings.Contains(body, s) {
			t.Errorf("?wall=1: no %q", s)
		}
	}
}

// TestCrawl follows every internal link, script, style sheet and form from
// the fleet page: each must answer 200 with a well-formed page, and each
// #fragment must name an element on its page.
func TestCrawl(t *testing.T) {
	for name, o := range map[string]Options{"hub": {}, "agent": {NoFabric: true, NoPerf: true}} {
		f := newFixture()
		if o.NoFabric {
			f.fabric = nil
		}
		h := testHandler(f, o)
		pages := map[string]pageFacts{}
		queue := []string{"/"}
		var frags [][2]string
		for len(queue) > 0 && len(pages) < 500 {
			p := queue[0]
			queue = queue[1:]
			if _, done := pages[p]; done {
				continue
			}
			code, body, ctype := get(t, h, "GET", p)
			if code != 200 {
				t.Errorf("%s: GET %s: %d", name, p, code)
				pages[p] = pageFacts{}
				continue
			}
			pf := pageFacts{}
			if strings.HasPrefix(ctype, "text/html") {
				var err error
				if pf, err = scan(body); err != nil {
					t.Errorf("%s: %s: %v", name, p, err)
				}
			}
			pages[p] = pf
			for _, href := range pf.hrefs {
				u, err := url.Parse(href)
				if err != nil {
					t.Errorf("%s: %s: bad href %q", name, p, href)
					continue
				}
				if u.Scheme == "data" {
					continue
				}
				if u.Host != "" || u.Scheme != "" {
					t.Errorf("%s: %s: external href %q", name, p, href)
					continue
				}
				target := u.EscapedPath()
				if target == "" {
					target = p
				} else if u.RawQuery != "" {
					target += "?" + u.RawQuery
				}
				if u.Fragment != "" {
					frags = append(frags, [2]string{target, u.Fragment})
				}
				queue = append(queue, target)
			}
		}
		for _, fr := range frags {
			if !pages[fr[0]].ids[fr[1]] {
				t.Errorf("%s: %s has no #%s", name, fr[0], fr[1])
			}
		}
		if len(pages) < 8 {
			t.Errorf("%s: crawled only %d pages", name, len(pages))
		}
		if name == "hub" && len(pages) < 20 {
			t.Errorf("hub: crawled only %d pages", len(pages))
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
func count0(s, sub string) int    { return strings.Count(s, sub) }
