package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzParseSince: a window is in the past of now, at most 3660 days back
// for the "d" form; a refused one is named in the error.
func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"90m", "24h", "7d", "30d", "0d", "3661d", "-1h", "2026-11-30T10:30:00Z", "2026-11-30T10:30:00+01:00", "1e9h", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSince(s, t0)
		if err != nil {
			if !strings.Contains(err.Error(), "since=") {
				t.Fatalf("error does not name since=: %v", err)
			}
			return
		}
		if _, rerr := time.Parse(time.RFC3339, s); rerr == nil {
			return // an absolute time is taken as given
		}
		if !got.Before(t0) {
			t.Fatalf("since=%q is %v, not before now %v", s, got, t0)
		}
		if strings.HasSuffix(s, "d") && t0.Sub(got) > 3660*24*time.Hour {
			t.Fatalf("since=%q reaches %v back", s, t0.Sub(got))
		}
	})
}

// FuzzPageQuery: whatever the query string of a page (since=, host=,
// the fleet's id=, group=, health= and view= filters, color=, wall=),
// the answer is a page that parses as well-formed, accessible HTML (the
// query's values are escaped wherever they are shown), or a plain 400
// that names the parameter.
func FuzzPageQuery(f *testing.F) {
	for _, s := range []string{
		"/timeline?since=90m&host=gpu-b1", "/timeline?since=7d", "/timeline?since=bogus", "/timeline?host=%3Cscript%3E",
		"/?id=ib.port.down&group=rack1&health=critical", "/?view=map&wall=1", "/?health=%22%3E%3Cb%3E",
		"/fabric?color=load", "/perf", "/nodes/gpu-b1?wall=1",
	} {
		u, _ := url.Parse(s)
		f.Add(u.Path, u.RawQuery)
	}
	h := testHandler(newFixture(), Options{})
	f.Fuzz(func(t *testing.T, path, query string) {
		switch path {
		case "/", "/timeline", "/fabric", "/perf", "/nodes/gpu-b1":
		default:
			path = "/timeline"
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL.Path, req.URL.RawQuery = path, query
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body, ctype := rec.Body.String(), rec.Header().Get("Content-Type")
		switch rec.Code {
		case http.StatusOK:
			if !strings.HasPrefix(ctype, "text/html") {
				t.Fatalf("%s?%s: 200 %s", path, query, ctype)
			}
			if _, err := scan(body); err != nil {
				t.Fatalf("%s?%s: %v", path, query, err)
			}
		case http.StatusBadRequest:
			if !strings.HasPrefix(ctype, "text/plain") || !strings.Contains(body, "=") {
				t.Fatalf("%s?%s: 400 %s %q", path, query, ctype, body)
			}
		default:
			t.Fatalf("%s?%s: status %d", path, query, rec.Code)
		}
	})
}

// TestQueryControlCharacters: a query value with a control character or
// a byte that is not UTF-8 is a 400 naming the parameter, not a page
// carrying it (found by FuzzPageQuery: host=gpu%01 went into the title).
func TestQueryControlCharacters(t *testing.T) {
	h := testHandler(newFixture(), Options{})
	for _, c := range []struct {
		target string
		code   int
		want   string
	}{
		{"/timeline?host=gpu%01", 400, "host="},
		{"/timeline?host=gpu%ff", 400, "host="},
		{"/?group=rack%0a1", 400, "group="},
		{"/nodes/gpu-b1?wall=%7f", 400, "wall="},
		{"/timeline?host=gpu-b1", 200, "gpu-b1"},
		{"/?group=r%C3%A4ck", 200, "</html>"},
	} {
		code, body, _ := get(t, h, "GET", c.target)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("GET %s: %d %.200q, want %d with %q", c.target, code, body, c.code, c.want)
		}
	}
}
