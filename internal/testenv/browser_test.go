package testenv

import (
	"context"
	"image/png"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// page wraps a body in a valid page with a favicon, so the browser's own
// favicon request does not fail.
func page(title, body string) string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>` + title +
		`</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/style.css"></head><body>` + body + `</body></html>`
}

// goodSite is three pages with every kind of thing the checks look at,
// done right.
var goodSite = map[string]string{
	"/": page("Fleet", `<h1>Fleet</h1>
<svg width="20" height="20" role="img"><title>health: critical</title><circle cx="10" cy="10" r="8" fill="#b42318"/></svg>
<svg width="10" height="10" aria-hidden="true"><circle cx="5" cy="5" r="4"/></svg>
<img src="/dot.png" alt="a dot">
<form><label for="q">Finding</label><input id="q" name="q"><label>Leaf <select name="g"><option>leaf1</option></select></label><input type="submit" value="Filter"></form>
<p><span class="t-critical">✖ critical</span> <span class="c-warning">⚠ warning</span> <span class="plain">muted</span></p>
<a href="/a">node a</a> <a href="/b#sec">section</a> <a href="http://example.invalid/">elsewhere</a> <a href="mailto:x@example.invalid">mail</a>
<script>console.log("fine"); console.warn("only a warning")</script>`),
	"/a": page("Node a", `<h1>a</h1><a href="/">fleet</a> <a href="/b">b</a> <a href="/data.json">data</a>`),
	"/b": page("B", `<h1>b</h1><p style="height:1500px">tall</p><h2 id="sec">Section</h2><a href="/a">a</a>
<svg width="60" height="20" role="img" aria-label="map"><a href="/c"><rect width="60" height="20" fill="#0550ae"/></a></svg>`),
	"/c": page("C", `<h1>c</h1><a href="/">fleet</a>`),
}

// serve serves pages, a style sheet, a PNG and a JSON file, and answers
// 500 on /a500; anything else is 404.
func serve(t *testing.T, pages map[string]string) string {
	t.Helper()
	dot := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\b\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a500":
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			_, _ = w.Write([]byte(".t-critical{color:#b42318}.c-warning{background:#ffd33d;color:#1f2328}body{font-family:sans-serif}"))
			return
		case "/dot.png":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(dot)
			return
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ok":true}`))
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestContrast(t *testing.T) {
	for _, tt := range []struct {
		fg, bg [4]float64
		want   float64
	}{
		{[4]float64{0, 0, 0, 1}, [4]float64{255, 255, 255, 1}, 21},
		{[4]float64{255, 255, 255, 1}, [4]float64{255, 255, 255, 1}, 1},
		{[4]float64{0xb4, 0x23, 0x18, 1}, [4]float64{255, 255, 255, 1}, 6.57}, // #b42318 on white
		{[4]float64{0xff, 0xd3, 0x3d, 1}, [4]float64{255, 255, 255, 1}, 1.44}, // #ffd33d on white
	} {
		if got := Contrast(tt.fg, tt.bg); math.Abs(got-tt.want) > 0.01 {
			t.Errorf("Contrast(%v, %v) = %.3f, want %.2f", tt.fg, tt.bg, got, tt.want)
		}
	}
}

func TestShotName(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:1/":                         "index.png",
		"http://127.0.0.1:1/nodes/gpu01":              "nodes-gpu01.png",
		"http://127.0.0.1:1/fabric/links/0x1/7-0x2/3": "fabric-links-0x1-7-0x2-3.png",
		"http://127.0.0.1:1/perf/runs/a%20b?x=1#y":    "perf-runs-ab.png",
	} {
		if got := ShotName(in); got != want {
			t.Errorf("ShotName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCrawl: the good site passes with every page visited and screenshot;
// each broken variant fails with the problem it was broken by, and only
// that one.
func TestCrawl(t *testing.T) {
	b := StartBrowser(t)
	// Generous: under load each of the 15 crawls takes seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	t.Run("good", func(t *testing.T) {
		base := serve(t, goodSite)
		shots := t.TempDir()
		site, err := b.Crawl(ctx, base+"/", CrawlOptions{VisitOptions: VisitOptions{Shots: shots}})
		if err != nil {
			t.Fatal(err)
		}
		site.Check(t)
		var got []string
		for _, p := range site.Pages {
			got = append(got, strings.TrimPrefix(p.URL, base))
		}
		if strings.Join(got, " ") != "/ /a /b /c" {
			t.Errorf("visited %q, want / /a /b /c (data.json is checked as a link, not visited; /c is linked from an SVG)", got)
		}
		if p := site.Page("/"); p == nil || p.Contrast != 2 || p.Title != "Fleet" {
			t.Errorf("fleet page: %+v, want 2 severity elements measured", p)
		}
		f, err := os.Open(site.Page("/b").Screenshot)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		if r := img.Bounds(); r.Dx() != b.Width || r.Dy() <= b.Height {
			t.Errorf("screenshot of the tall page is %v, want full page: %d wide, over %d high", r, b.Width, b.Height)
		}
	})

	broken := []struct {
		name  string
		pages map[string]string
		kind  string
		want  string
	}{
		{"broken link", map[string]string{"/a": page("a", `<a href="/">fleet</a> <a href="/gone">gone</a>`)}, "link", "/gone answered 404"},
		{"broken anchor", map[string]string{"/a": page("a", `<a href="/b#nosuch">b</a>`)}, "anchor", "/b#nosuch: no element"},
		{"console error", map[string]string{"/b": page("B", `<h2 id="sec">s</h2><script>console.error("boom", 42)</script>`)}, "console", "console.error: boom 42"},
		{"exception", map[string]string{"/b": page("B", `<h2 id="sec">s</h2><script>null.x</script>`)}, "exception", "TypeError"},
		{"failed request", map[string]string{"/a": page("a", `<img src="/nope.png" alt="missing">`)}, "request", "/nope.png answered 404"},
		{"missing svg title", map[string]string{"/a": page("a", `<svg width="9" height="9"><rect width="9" height="9"/></svg>`)}, "svg-title", "svg has no <title>"},
		{"empty svg title", map[string]string{"/a": page("a", `<svg width="9" height="9"><title> </title></svg>`)}, "svg-title", "svg has no <title>"},
		{"img without alt", map[string]string{"/a": page("a", `<img src="/dot.png">`)}, "img-alt", "img (/dot.png) has no alt"},
		{"unlabelled input", map[string]string{"/a": page("a", `<form><input name="q" placeholder="finding"></form>`)}, "label", "input has no label"},
		{"unlabelled select", map[string]string{"/a": page("a", `<select><option>x</option></select>`)}, "label", "select has no label"},
		{"low contrast", map[string]string{"/a": page("a", `<span class="t-warning" style="color:#ffd33d">⚠ warning</span>`)}, "contrast", "span.t-warning: text rgb(255,211,61) on rgb(255,255,255) is 1.43:1"},
		{"low contrast on a filled cell", map[string]string{"/a": page("a", `<div style="background:#b42318"><b class="sev-critical" style="color:#57606a">✖</b></div>`)}, "contrast", "b.sev-critical"},
		{"page answers 500", map[string]string{"/a": page("a", `<a href="/a500">a</a>`)}, "link", "/a500 answered 500"},
	}
	for _, tt := range broken {
		t.Run(tt.name, func(t *testing.T) {
			pages := maps.Clone(goodSite)
			maps.Copy(pages, tt.pages)
			base := serve(t, pages)
			site, err := b.Crawl(ctx, base+"/", CrawlOptions{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range site.Problems {
				if p.Kind == tt.kind && strings.Contains(p.Detail, tt.want) {
					found = true
				} else {
					t.Errorf("unexpected problem %s", p)
				}
			}
			if !found {
				t.Errorf("no %s problem containing %q; got %v", tt.kind, tt.want, site.Problems)
			}
		})
	}
}

// TestCrawlLiveAnchor: on a live site a page visited before the page that
// links to it may lack the element yet; the crawl looks again instead of
// calling the anchor broken, and still reports one that never appears.
func TestCrawlLiveAnchor(t *testing.T) {
	b := StartBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
		case "/":
			_, _ = w.Write([]byte(page("fleet", `<a href="/b">b</a> <a href="/c">c</a>`)))
		case "/b":
			// The probe and the first visit see no finding; it opens after.
			body := `<h2 id="sec">s</h2>`
			if served.Add(1) > 2 {
				body += `<section id="late">l</section>`
			}
			_, _ = w.Write([]byte(page("b", body)))
		case "/c":
			_, _ = w.Write([]byte(page("c", `<a href="/b#late">late</a> <a href="/b#never">never</a>`)))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	site, err := b.Crawl(ctx, srv.URL+"/", CrawlOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if served.Load() < 3 {
		t.Errorf("/b served %d times, want a second visit", served.Load())
	}
	var got []string
	for _, p := range site.Problems {
		got = append(got, p.Kind+": "+p.Detail)
	}
	if len(got) != 1 || !strings.Contains(got[0], "/b#never: no element") {
		t.Errorf("problems %q, want only /b#never", got)
	}
}

// TestFollow clicks fleet → node → section anchor; a missing link, a page
// without the wanted element and a console error on the way each fail.
func TestFollow(t *testing.T) {
	b := StartBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := []Step{
		{Name: "node", Link: regexp.MustCompile(`^/a$`), Want: "h1", Timeout: 5 * time.Second},
		{Name: "section", Link: regexp.MustCompile(`^/b$`), Want: "#sec", Timeout: 5 * time.Second},
	}
	base := serve(t, goodSite)
	got, err := b.Follow(ctx, base+"/", append(path, Step{Name: "svg link", Link: regexp.MustCompile(`^/c$`), Want: "h1", Timeout: 5 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != base+"/a" || got[1] != base+"/b" || got[2] != base+"/c" {
		t.Errorf("reached %q", got)
	}
	withAnchor := append(path[:1:1], Step{Name: "anchor", Link: regexp.MustCompile(`^/b#sec$`), Want: "#sec"})
	withAnchor[1].Link = regexp.MustCompile(`^/b#sec$`)
	pages := maps.Clone(goodSite)
	pages["/a"] = page("a", `<h1>a</h1><a href="/b#sec">b</a>`)
	if got, err := b.Follow(ctx, serve(t, pages)+"/", withAnchor); err != nil || !strings.HasSuffix(got[1], "/b#sec") {
		t.Errorf("anchor path: %q, %v", got, err)
	}

	for _, tt := range []struct {
		name  string
		pages map[string]string
		want  string
	}{
		{"missing link", map[string]string{"/a": page("a", `<h1>a</h1>`)}, `step "section": no link matching ^/b$`},
		{"missing element", map[string]string{"/b": page("b", `<h2>no id</h2>`)}, `step "section": after clicking /b`},
		{"console error", map[string]string{"/a": page("a", `<h1>a</h1><a href="/b">b</a><script>console.error("oops")</script>`)}, "console.error: oops"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pages := maps.Clone(goodSite)
			maps.Copy(pages, tt.pages)
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			_, err := b.Follow(sctx, serve(t, pages)+"/", path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
