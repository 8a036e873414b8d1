package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var hrefRe = regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)

// The agent serves its own node page at /: a fleet of one, the node with
// its findings, charts of the window and a timeline; every link on them
// answers, and the API beside them is unchanged.
func TestWebPages(t *testing.T) {
	l := newLiveNode(t, "h100-ndr", "mixed")
	a := l.agent(t, nil, 10*time.Second, shortWindows())
	h := a.Handler(HandlerOptions{})
	get := func(method, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("GET", "/"); code != 200 || !strings.Contains(body, "0 nodes") {
		t.Errorf("/ before the first sample: %d %s", code, body)
	}
	ctx := context.Background()
	for i := 0; i <= 9; i++ {
		if i > 0 {
			l.step(10 * time.Second)
		}
		if err := a.Sample(ctx); err != nil {
			t.Fatal(err)
		}
	}
	host := a.View().Snapshot.Host
	node := "/nodes/" + url.PathEscape(host)
	for _, c := range []struct {
		path string
		code int
		has  []string
	}{
		{"/", 200, []string{"<title>Fleet · ibdoctor agent</title>", ">" + host + "<", `href="` + node + `#finding-port.symbol_errors"`, `data-refresh="10"`, "mlx5_2/1: critical"}},
		{node, 200, []string{`id="finding-port.symbol_errors"`, `id="finding-port.link_flapping"`, `id="finding-rdma.out_of_buffer"`, "<b>open</b> for",
			"<title>mlx5_0/1 receive (bytes/s)</title>", "<title>mlx5_2/1 errors (errors/s)</title>", "time (UTC)", "NDR", "LinkUp"}},
		{"/timeline", 200, []string{"port.symbol_errors", "still open"}},
		{"/timeline?host=elsewhere", 200, []string{"No findings in this window"}},
		{"/nodes/elsewhere", 404, nil},
		{"/fabric", 404, nil},
		{"/perf", 200, []string{"No pairwise runs yet"}},
		{"/perf/runs/x", 404, nil},
		{"/api/v1/health", 503, []string{`"verdict": "critical"`}},
		{"/api/nothing", 404, nil},
	} {
		code, body := get("GET", c.path)
		if code != c.code {
			t.Errorf("GET %s: %d, want %d", c.path, code, c.code)
			continue
		}
		for _, s := range c.has {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s: no %q", c.path, s)
			}
		}
		for _, s := range []string{`href="/fabric"`, `href="/perf"`} {
			if strings.Contains(body, s) {
				t.Errorf("GET %s links to %s, which an agent does not have", c.path, s)
			}
		}
	}
	for _, p := range []string{"/", node, "/api/v1/health", "/metrics"} {
		if code, _ := get("POST", p); code != http.StatusMethodNotAllowed {
			t.Errorf("POST %s on a read-only agent: %d, want 405", p, code)
		}
	}
	// Every link on the pages answers 200.
	seen := map[string]bool{}
	queue := []string{"/"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		code, body := get("GET", p)
		if code != 200 {
			t.Errorf("GET %s: %d", p, code)
			continue
		}
		for _, m := range hrefRe.FindAllStringSubmatch(body, -1) {
			href := strings.ReplaceAll(m[1], "&amp;", "&")
			if href, _, _ = strings.Cut(href, "#"); href != "" && strings.HasPrefix(href, "/") {
				queue = append(queue, href)
			}
		}
	}
	if len(seen) < 6 {
		t.Errorf("crawled %d pages: %v", len(seen), seen)
	}
}
