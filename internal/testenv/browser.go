package testenv

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumNames are the executables tried, Debian's first.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Browser is a headless Chromium driven over the DevTools protocol; each
// page it visits opens in a tab of its own.
type Browser struct {
	ctx context.Context
	// visits is the tab Visit reuses (a tab per page costs more than the
	// page on a loaded machine); mu serialises visits.
	mu     sync.Mutex
	visits *tab
	// Width and Height are the window (and screenshot) width and the
	// viewport height.
	Width, Height int
}

// StartBrowser starts Chromium headless (--headless --no-sandbox
// --disable-gpu) with a 1280×900 window for the test and stops it at
// cleanup. A missing chromium fails on CI and skips elsewhere.
func StartBrowser(t testing.TB) *Browser {
	t.Helper()
	path := ""
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		path = NeedTool(t, "chromium")
	}
	b := &Browser{Width: 1280, Height: 900}
	var out bytes.Buffer
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(b.Width, b.Height), chromedp.UserDataDir(t.TempDir()),
		chromedp.CombinedOutput(&lockedWriter{w: &out}))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	// The first Run starts the browser; its context must outlive the test.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("start %s: %v\n%s", path, err, out.String())
	}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	b.ctx = ctx
	return b
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Problem is one thing wrong with a page.
type Problem struct {
	// Page is the URL of the page it was found on.
	Page string
	// Kind is one of: load (the page itself), console (console.error or
	// an error in the browser log), exception (an uncaught exception),
	// request (a sub-resource that failed or answered non-2xx), link (an
	// internal link that does not answer 200), anchor (a link's #fragment
	// names no element of its page), img-alt, svg-title, label (a form
	// control without a label), contrast.
	Kind   string
	Detail string
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.Page, p.Kind, p.Detail) }

// Page is what a visit saw.
type Page struct {
	URL    string
	Status int
	Title  string
	// Links are the absolute URLs of the page's <a href>, in order.
	Links []string
	// IDs are the element ids (and <a name>s) fragments can point at.
	IDs map[string]bool
	// Contrast is the number of severity-classed elements whose contrast
	// was measured.
	Contrast int
	// Screenshot is the PNG written, "" when none.
	Screenshot string
	Problems   []Problem
}

// DefaultSeverityClass matches the class names that colour a severity or
// health: t-critical, c-warning, sev-ok, severity-info, health-unknown.
var DefaultSeverityClass = regexp.MustCompile(`^(?:t|c|sev|severity|health)-(?:ok|info|warning|critical|unreachable|unknown)$`)

// VisitOptions tune a visit.
type VisitOptions struct {
	// Shots is the directory full-page PNG screenshots go to ("" none),
	// named by ShotName; Shot, when set, picks the pages shot.
	Shots string
	Shot  func(url string) bool
	// SeverityClass selects, by class name, the elements whose text
	// contrast must be at least MinContrast (nil: DefaultSeverityClass).
	SeverityClass *regexp.Regexp
	// MinContrast defaults to 4.5 (WCAG 2.x level AA for normal text).
	MinContrast float64
	// Settle is how long to keep listening after the load event for late
	// console messages and requests (default 300 ms).
	Settle time.Duration
}

func (o VisitOptions) withDefaults() VisitOptions {
	if o.SeverityClass == nil {
		o.SeverityClass = DefaultSeverityClass
	}
	if o.MinContrast == 0 {
		o.MinContrast = 4.5
	}
	if o.Settle == 0 {
		o.Settle = 300 * time.Millisecond
	}
	return o
}

// ShotName is the screenshot file name of a URL: its path with slashes as
// dashes and anything outside [A-Za-z0-9._-] dropped, "index" for "/",
// plus ".png".
func ShotName(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "page.png"
	}
	s := strings.Trim(p.Path, "/")
	if s == "" {
		s = "index"
	}
	var b strings.Builder
	for _, r := range strings.ReplaceAll(s, "/", "-") {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		}
	}
	return b.String() + ".png"
}

// tab opens a new tab and records what would make a page fail: console
// errors, exceptions, failed requests.
type tab struct {
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	urls   map[network.RequestID]string
	probs  []Problem
	page   string
}

func (b *Browser) newTab(parent context.Context, page string) (*tab, error) {
	ctx, cancel := chromedp.NewContext(b.ctx)
	stop := context.AfterFunc(parent, cancel)
	tb := &tab{ctx: ctx, cancel: func() { stop(); cancel() }, urls: map[network.RequestID]string{}, page: page}
	if err := chromedp.Listen(ctx, tb.event); err != nil {
		tb.cancel()
		return nil, err
	}
	return tb, nil
}

func (tb *tab) add(kind, detail string) {
	tb.probs = append(tb.probs, Problem{Page: tb.page, Kind: kind, Detail: detail})
}

// event runs on the tab's reader goroutine: it only records.
func (tb *tab) event(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if e.Request != nil {
			tb.urls[e.RequestID] = e.Request.URL
		}
	case *network.EventResponseReceived:
		if r := e.Response; r != nil && (r.Status < 200 || r.Status > 299) && r.Status != 304 {
			tb.add("request", fmt.Sprintf("%s answered %d %s", r.URL, r.Status, r.StatusText))
		}
	case *network.EventLoadingFailed:
		if !e.Canceled {
			tb.add("request", fmt.Sprintf("%s failed: %s", tb.urls[e.RequestID], e.ErrorText))
		}
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range e.Args {
				switch {
				case a.Description != "":
					parts = append(parts, a.Description)
				case len(a.Value) > 0:
					parts = append(parts, strings.Trim(string(a.Value), `"`))
				}
			}
			tb.add("console", fmt.Sprintf("console.%s: %s", e.Type, strings.Join(parts, " ")))
		}
	case *runtime.EventExceptionThrown:
		if d := e.ExceptionDetails; d != nil {
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg += " " + d.Exception.Description
			}
			tb.add("exception", fmt.Sprintf("%s (%s:%d)", msg, d.URL, d.LineNumber+1))
		}
	case *log.EventEntryAdded:
		if en := e.Entry; en != nil && en.Level == log.EntryLevelError {
			// A failed sub-resource is reported as a request already; the
			// log's "Failed to load resource" line would count it twice.
			if en.Source == log.EntrySourceNetwork {
				return
			}
			tb.add("console", fmt.Sprintf("%s: %s %s", en.Source, en.Text, en.URL))
		}
	}
}

func (tb *tab) problems() []Problem {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return slices.Clone(tb.probs)
}

//go:embed browser_inspect.js
var inspectJS string

// inspection is what browser_inspect.js returns.
type inspection struct {
	URL   string   `json:"url"`
	Title string   `json:"title"`
	Links []string `json:"links"`
	IDs   []string `json:"ids"`
	A11y  []struct {
		Kind, Detail string
	} `json:"a11y"`
	Colors []struct {
		Element string     `json:"element"`
		Class   string     `json:"class"`
		Fg      [4]float64 `json:"fg"`
		Bg      [4]float64 `json:"bg"`
	} `json:"colors"`
}

// Visit loads one page in the visiting tab, waits for it to load and
// settle, inspects the live DOM and returns what it saw. Only a browser
// that cannot be driven is an error; everything wrong with the page is a
// Problem.
func (b *Browser) Visit(ctx context.Context, u string, o VisitOptions) (*Page, error) {
	o = o.withDefaults()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.visits == nil {
		tb, err := b.newTab(b.ctx, u)
		if err != nil {
			return nil, err
		}
		b.visits = tb
	}
	vt := b.visits
	vt.mu.Lock()
	vt.page, vt.probs, vt.urls = u, nil, map[network.RequestID]string{}
	vt.mu.Unlock()
	// The tab outlives this call; its actions stop when ctx does.
	rctx, cancel := context.WithCancel(vt.ctx)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	pg := &Page{URL: u, IDs: map[string]bool{}}
	// A blank page first stops the last page's timers (a page that
	// reloads itself could otherwise navigate the tab away from u).
	if err := chromedp.Do(rctx, chromedp.Navigate("about:blank")); err != nil {
		return nil, fmt.Errorf("blank tab: %w", err)
	}
	vt.mu.Lock()
	vt.probs, vt.urls = nil, map[network.RequestID]string{}
	vt.mu.Unlock()
	resp, err := chromedp.Run(rctx, chromedp.NavigateResponse(u))
	if err != nil {
		pg.Problems = append(pg.Problems, Problem{u, "load", err.Error()})
		return pg, nil
	}
	if resp != nil {
		pg.Status = int(resp.Status)
	}
	if err := chromedp.Do(rctx, chromedp.Sleep(o.Settle)); err != nil {
		return nil, err
	}
	ins, err := chromedp.Run(rctx, chromedp.Evaluate[inspection](inspectJS))
	if err != nil {
		return nil, fmt.Errorf("inspect %s: %w", u, err)
	}
	if ins.URL != u {
		// Inspecting another page would credit it to u.
		pg.Problems = append(pg.Problems, Problem{u, "load", "the tab is at " + ins.URL + " after loading"})
		return pg, nil
	}
	pg.Title, pg.Links = ins.Title, ins.Links
	for _, id := range ins.IDs {
		pg.IDs[id] = true
	}
	pg.Problems = vt.problems()
	for _, a := range ins.A11y {
		pg.Problems = append(pg.Problems, Problem{u, a.Kind, a.Detail})
	}
	for _, c := range ins.Colors {
		classes := strings.Fields(c.Class)
		if !slices.ContainsFunc(classes, o.SeverityClass.MatchString) {
			continue
		}
		pg.Contrast++
		if r := Contrast(c.Fg, c.Bg); r < o.MinContrast {
			pg.Problems = append(pg.Problems, Problem{u, "contrast", fmt.Sprintf("%s: text %s on %s is %.2f:1 (want ≥ %.1f:1)",
				c.Element, rgbString(c.Fg), rgbString(c.Bg), r, o.MinContrast)})
		}
	}
	if o.Shots != "" && (o.Shot == nil || o.Shot(u)) {
		png, err := chromedp.Run(rctx, chromedp.FullScreenshot(100))
		if err != nil {
			return nil, fmt.Errorf("screenshot %s: %w", u, err)
		}
		pg.Screenshot = filepath.Join(o.Shots, ShotName(u))
		if err := os.MkdirAll(o.Shots, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(pg.Screenshot, png, 0o644); err != nil {
			return nil, err
		}
	}
	if pg.Status != http.StatusOK {
		pg.Problems = append(pg.Problems, Problem{u, "load", fmt.Sprintf("answered %d, want 200", pg.Status)})
	}
	return pg, nil
}

func rgbString(c [4]float64) string {
	return fmt.Sprintf("rgb(%.0f,%.0f,%.0f)", c[0], c[1], c[2])
}

// Contrast is the WCAG 2.x contrast ratio of two sRGB colours (0-255
// channels; alpha is ignored, the colours are taken as composited).
func Contrast(fg, bg [4]float64) float64 {
	lum := func(c [4]float64) float64 {
		ch := func(v float64) float64 {
			v /= 255
			if v <= 0.04045 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(c[0]) + 0.7152*ch(c[1]) + 0.0722*ch(c[2])
	}
	l1, l2 := lum(fg), lum(bg)
	if l2 > l1 {
		l1, l2 = l2, l1
	}
	return (l1 + 0.05) / (l2 + 0.05)
}

// Site is the result of a crawl.
type Site struct {
	// Pages are the pages visited, in the order first reached.
	Pages    []*Page
	Problems []Problem
}

// Page returns the visited page whose path (and query) is p, or nil.
func (s *Site) Page(p string) *Page {
	for _, pg := range s.Pages {
		if u, err := url.Parse(pg.URL); err == nil && u.RequestURI() == p {
			return pg
		}
	}
	return nil
}

// Check fails the test once per problem.
func (s *Site) Check(t testing.TB) {
	t.Helper()
	for _, p := range s.Problems {
		t.Errorf("%s", p)
	}
}

// CrawlOptions tune a crawl.
type CrawlOptions struct {
	VisitOptions
	// MaxPages bounds the pages visited (default 500); reaching it is a
	// problem, not a silent cut.
	MaxPages int
	// Client checks links (nil: a client with a 10 s timeout).
	Client *http.Client
}

// Crawl visits start and every same-origin HTML page reachable from it by
// <a href> links. Every internal link is fetched once: one that does not
// answer 200 is a broken link, one that answers HTML is visited, and a
// link's #fragment must name an element of its page (visited once more
// when it lacks it: the page may have changed since).
func (b *Browser) Crawl(ctx context.Context, start string, o CrawlOptions) (*Site, error) {
	if o.MaxPages == 0 {
		o.MaxPages = 500
	}
	cl := o.Client
	if cl == nil {
		cl = &http.Client{Timeout: 10 * time.Second}
	}
	su, err := url.Parse(start)
	if err != nil {
		return nil, err
	}
	site := &Site{}
	type target struct {
		status int
		html   bool
	}
	checked := map[string]target{} // by URL without fragment
	visited := map[string]*Page{}
	type ref struct{ from, to, frag string }
	var frags []ref
	queue := []string{su.String()}
	checked[su.String()] = target{200, true}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if len(visited) >= o.MaxPages {
			site.Problems = append(site.Problems, Problem{u, "load", fmt.Sprintf("not visited: the crawl stopped at %d pages", o.MaxPages)})
			continue
		}
		pg, err := b.Visit(ctx, u, o.VisitOptions)
		if err != nil {
			return site, err
		}
		visited[u] = pg
		site.Pages = append(site.Pages, pg)
		site.Problems = append(site.Problems, pg.Problems...)
		for _, l := range pg.Links {
			lu, err := url.Parse(l)
			if err != nil || lu.Scheme != su.Scheme || lu.Host != su.Host {
				continue // another origin, mailto:, javascript:
			}
			frag := lu.Fragment
			lu.Fragment, lu.RawFragment = "", ""
			key := lu.String()
			if frag != "" {
				frags = append(frags, ref{u, key, frag})
			}
			if _, ok := checked[key]; ok {
				continue
			}
			st, html, err := probe(ctx, cl, key)
			if err != nil {
				site.Problems = append(site.Problems, Problem{u, "link", fmt.Sprintf("%s: %v", key, err)})
			} else if st != http.StatusOK {
				site.Problems = append(site.Problems, Problem{u, "link", fmt.Sprintf("%s answered %d, want 200", key, st)})
			}
			checked[key] = target{st, html}
			if err == nil && st == http.StatusOK && html {
				queue = append(queue, key)
			}
		}
	}
	// A live site changes while it is crawled: a page visited before the
	// page linking to it may lack an element that appeared since (a
	// finding opened in between). Such a target is visited once more, as
	// it is now, before a missing id counts.
	again := map[string]*Page{}
	for _, f := range frags {
		pg := visited[f.to]
		if pg == nil || pg.IDs[f.frag] {
			continue // not an HTML page (checked as a link) or fine
		}
		now, ok := again[f.to]
		if !ok {
			var err error
			if now, err = b.Visit(ctx, f.to, VisitOptions{SeverityClass: o.SeverityClass, MinContrast: o.MinContrast, Settle: o.Settle}); err != nil {
				return site, err
			}
			again[f.to] = now
		}
		if now.IDs[f.frag] {
			continue
		}
		site.Problems = append(site.Problems, Problem{f.from, "anchor", fmt.Sprintf("%s#%s: no element with that id", f.to, f.frag)})
	}
	return site, nil
}

// probe fetches u and reports its status and whether it is HTML.
func probe(ctx context.Context, cl *http.Client, u string) (int, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, false, err
	}
	resp, err := cl.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html"), nil
}

// Step is one click of a path through the site.
type Step struct {
	// Name says what the step is ("node page").
	Name string
	// Link selects the link to click: the first <a> (HTML or SVG) whose
	// href, as written in the page, matches.
	Link *regexp.Regexp
	// Want is a CSS selector that must match an element after the click
	// (on the new page, or, for a #fragment, the element it names).
	Want string
	// Timeout bounds the wait for Want (default 15 s).
	Timeout time.Duration
}

// Follow opens start in one tab and clicks through the steps as a person
// would. It returns the URL reached after each step, and fails on the first
// step whose link is missing, whose page does not load or lacks Want, or
// whose #fragment names no element. Console errors and failed requests on
// the way are problems too.
func (b *Browser) Follow(ctx context.Context, start string, steps []Step) ([]string, error) {
	tb, err := b.newTab(ctx, start)
	if err != nil {
		return nil, err
	}
	defer tb.cancel()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(start)); err != nil {
		return nil, fmt.Errorf("open %s: %w", start, err)
	}
	var reached []string
	for _, s := range steps {
		before, _ := chromedp.Run(tb.ctx, chromedp.Location())
		href, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
  const re = new RegExp(%q);
  const href = (a) => a.getAttribute('href') || a.getAttribute('xlink:href') || '';
  const a = Array.from(document.querySelectorAll('a')).find(a => re.test(href(a)));
  if (!a) return '';
  a.scrollIntoView();
  // An SVG <a> has no click(): a dispatched click follows both kinds.
  a.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, view: window}));
  return href(a);
})()`, s.Link.String())))
		if err != nil {
			return reached, fmt.Errorf("step %q: %w", s.Name, err)
		}
		if href == "" {
			return reached, fmt.Errorf("step %q: no link matching %s on %s", s.Name, s.Link, before)
		}
		wait := s.Timeout
		if wait <= 0 {
			wait = 15 * time.Second
		}
		sctx, cancel := context.WithTimeout(tb.ctx, wait)
		// A link to another page: wait until the tab has left this one,
		// or the wanted element is found on the page being left (under
		// load the click's navigation takes a while).
		if bu, err := url.Parse(before); err == nil && !strings.HasPrefix(href, "#") {
			if hu, err := bu.Parse(href); err == nil && (hu.Path != bu.Path || hu.RawQuery != bu.RawQuery) {
				for sctx.Err() == nil {
					if l, err := chromedp.Run(sctx, chromedp.Location()); err == nil && l != before {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		}
		err = chromedp.Do(sctx, chromedp.WaitReady(s.Want))
		cancel()
		loc, _ := chromedp.Run(tb.ctx, chromedp.Location())
		if err != nil {
			return reached, fmt.Errorf("step %q: after clicking %s on %s, %s shows no %s: %v", s.Name, href, before, loc, s.Want, err)
		}
		if lu, err := url.Parse(loc); err == nil && lu.Fragment != "" {
			ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.getElementById(%q) !== null`, lu.Fragment)))
			if err != nil || !ok {
				return reached, fmt.Errorf("step %q: %s: no element with id %q", s.Name, loc, lu.Fragment)
			}
		}
		tb.mu.Lock()
		tb.page = loc
		tb.mu.Unlock()
		reached = append(reached, loc)
	}
	// Late console messages and requests of the last page, as Visit
	// waits for them.
	time.Sleep(VisitOptions{}.withDefaults().Settle)
	if ps := tb.problems(); len(ps) > 0 {
		var lines []string
		for _, p := range ps {
			lines = append(lines, p.String())
		}
		return reached, fmt.Errorf("on the way: %s", strings.Join(lines, "; "))
	}
	return reached, nil
}
