package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the pages.
type Options struct {
	// Title names the site in every page's header ("ibdoctor hub").
	Title string
	// Refresh reloads the fleet, fabric and timeline pages this often in
	// a browser with JavaScript (0: never). Without JavaScript nothing
	// reloads; the pages are complete as served.
	Refresh time.Duration
	// NoFabric and NoPerf leave the fabric and perf pages out of the
	// navigation (an agent has neither).
	NoFabric, NoPerf bool
	// Now is the clock open findings run to (nil: time.Now).
	Now func() time.Time
}

type server struct {
	d    Data
	o    Options
	tmpl map[string]*template.Template
}

// Handler serves the pages:
//
//	/                     fleet: nodes × ports, counts per health, filters
//	/nodes/{host}         one node: ports, findings (#finding-…), charts
//	/fabric               switches in tiers, every switch-to-switch link
//	/fabric/links/{id}    one link with both ends' counters
//	/fabric/leaves/{id}   one switch with its links and hosts
//	/perf                 pairwise runs
//	/perf/runs/{id}       one run's bandwidth matrix
//	/timeline             findings opened and closed (?since=24h&host=)
//	/static/…             style sheet and the refresh script
//
// Only GET (and HEAD) are served; other methods get 405. A host, run,
// switch or link the Data does not have gets 404, any other Data error
// 500 with its message.
func Handler(d Data, o Options) http.Handler {
	return handler(d, o)
}

// Paths are the URL patterns (without a method) Handler serves, for a
// server that mounts it beside routes of its own.
var Paths = []string{"/{$}", "/nodes/", "/fabric", "/fabric/", "/perf", "/perf/", "/timeline", "/static/"}

func handler(d Data, o Options) *http.ServeMux {
	if o.Title == "" {
		o.Title = "ibdoctor"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &server{d: d, o: o, tmpl: parseTemplates()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", checkQuery(s.fleet))
	mux.HandleFunc("GET /nodes/{host}", checkQuery(s.node))
	mux.HandleFunc("GET /fabric", checkQuery(s.fabric))
	mux.HandleFunc("GET /fabric/links/{id...}", checkQuery(s.link))
	mux.HandleFunc("GET /fabric/leaves/{id}", checkQuery(s.leaf))
	mux.HandleFunc("GET /perf", checkQuery(s.perfRuns))
	mux.HandleFunc("GET /perf/runs/{id}", checkQuery(s.perfRun))
	mux.HandleFunc("GET /timeline", checkQuery(s.timeline))
	mux.HandleFunc("GET /static/palette.css", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = w.Write([]byte(paletteCSS()))
	})
	sub, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", staticFiles(http.FileServerFS(sub))))
	return mux
}

// staticFiles refuses directory listings and lets browsers cache for an
// hour.
func staticFiles(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// page is what every template gets: the layout's fields and the page's
// own view in P.
type page struct {
	Site    string
	Title   string
	Nav     string
	Wall    bool
	Refresh int
	NoFab   bool
	NoPerf  bool
	Now     time.Time
	P       any
}

// render executes a page template into a buffer first, so that a
// template error becomes a 500 rather than half a page.
func (s *server) render(w http.ResponseWriter, r *http.Request, name, title, nav string, refresh bool, p any) {
	pg := page{Site: s.o.Title, Title: title, Nav: nav, Wall: r.URL.Query().Get("wall") == "1",
		NoFab: s.o.NoFabric, NoPerf: s.o.NoPerf, Now: s.o.Now(), P: p}
	if refresh && s.o.Refresh > 0 {
		pg.Refresh = int(s.o.Refresh / time.Second)
		if pg.Refresh < 1 {
			pg.Refresh = 1
		}
	}
	var buf bytes.Buffer
	if err := s.tmpl[name].ExecuteTemplate(&buf, "page", pg); err != nil {
		plain(w, http.StatusInternalServerError, "rendering "+name+": "+err.Error())
		return
	}
	pageHeaders(w)
	_, _ = w.Write(buf.Bytes())
}

// pageHeaders marks a response as one of the pages: HTML that loads
// nothing but this server's style sheet and script.
func pageHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

// fail answers a Data error: 404 with a page for ErrNotFound, 500 with a
// plain message otherwise.
func (s *server) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, ErrNotFound) {
		pageHeaders(w)
		w.WriteHeader(http.StatusNotFound)
		s.renderStatus(w, r, what+" not found", err.Error())
		return
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	plain(w, http.StatusInternalServerError, what+": "+err.Error())
}

// renderStatus writes the not-found page after the status is set.
func (s *server) renderStatus(w http.ResponseWriter, r *http.Request, title, msg string) {
	pg := page{Site: s.o.Title, Title: title, Wall: r.URL.Query().Get("wall") == "1",
		NoFab: s.o.NoFabric, NoPerf: s.o.NoPerf, Now: s.o.Now(), P: msg}
	var buf bytes.Buffer
	if err := s.tmpl["notfound"].ExecuteTemplate(&buf, "page", pg); err != nil {
		_, _ = w.Write([]byte(title + "\n"))
		return
	}
	_, _ = w.Write(buf.Bytes())
}

// checkQuery refuses a query whose values hold control characters or
// are not UTF-8: pages show them (a host= in the title), and no host,
// finding ID, group or window has such characters.
func checkQuery(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, vs := range r.URL.Query() {
			for _, v := range vs {
				if !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
					plain(w, http.StatusBadRequest, fmt.Sprintf("%s=%q: control characters or bytes that are not UTF-8", k, v))
					return
				}
			}
		}
		next(w, r)
	}
}

func plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(msg + "\n"))
}

// parseTemplates builds one template set per page: the layout plus the
// page's body. A parse error is a programming error caught by every test.
func parseTemplates() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"fleet", "node", "fabric", "link", "leaf", "perf", "run", "timeline", "notfound"} {
		out[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}
