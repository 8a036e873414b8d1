package demo

import (
	"context"
	"flag"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

var updateShots = flag.Bool("update-screenshots", false, "write the README's screenshots (docs/screenshots) from this run, with 12 nodes")

// shotsDir is where every crawled page's screenshot goes (under the
// repository's out/, which git ignores).
const shotsDir = "../../../out/screenshots"

// readme are the pages the README shows, by file name.
var readme = map[string]string{
	"fleet.png":    "/",
	"node.png":     "/nodes/gpu04",
	"fabric.png":   "/fabric",
	"perf-run.png": "", // the one run, found by the crawl
	"timeline.png": "/timeline",
}

// TestDemoUIEndToEnd starts `demo --ui` in-process (6 nodes at 10× speed),
// waits until the hub has polled, the scheduled 2X retrain shows and the
// pairwise run is in, then drives headless Chromium through it: every
// page reachable from the fleet page loads without console errors,
// failed requests or broken links and passes the accessibility checks;
// a person's path fleet → node → finding → fabric → link works.
func TestDemoUIEndToEnd(t *testing.T) {
	b := testenv.StartBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	o := UIOptions{Dir: t.TempDir(), Nodes: 6, HostsPerLeaf: 2, Speed: 10, Tick: 200 * time.Millisecond, Interval: 2 * time.Second, Logf: t.Logf}
	if *updateShots {
		o.Nodes, o.HostsPerLeaf = 12, 4
	}
	u, err := StartUI(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()

	// gpu04's mlx5_2 retrains at 2X at 42 s simulated; the pairwise run
	// ends in tens of seconds.
	d := u.Hub.Data()
	for {
		n, err := d.Node(ctx, "gpu04")
		widthSeen := err == nil && slices.ContainsFunc(n.Findings, func(f web.FindingView) bool { return f.ID == "port.width_degraded" })
		if widthSeen && u.PerfLoaded(ctx) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no 2X finding on gpu04 or no pairwise run after %s simulated (node: %v)", u.Cluster.Elapsed(), err)
		case <-time.After(500 * time.Millisecond):
		}
	}

	path := []testenv.Step{
		{Name: "fleet → node", Link: regexp.MustCompile(`^/nodes/gpu04$`), Want: "#finding-port\\.width_degraded"},
		{Name: "node → finding", Link: regexp.MustCompile(`^#finding-port\.width_degraded$`), Want: "#finding-port\\.width_degraded"},
		{Name: "node → fabric", Link: regexp.MustCompile(`^/fabric$`), Want: "svg"},
		{Name: "fabric → link", Link: regexp.MustCompile(`^/fabric/links/`), Want: "h1"},
	}
	reached, err := b.Follow(ctx, u.URL+"/", path)
	if err != nil {
		t.Errorf("path: %v (reached %q)", err, reached)
	} else if len(reached) != 4 || !strings.HasSuffix(reached[1], "/nodes/gpu04#finding-port.width_degraded") || !strings.Contains(reached[3], "/fabric/links/") {
		t.Errorf("path reached %q", reached)
	}

	shots, err := filepath.Abs(shotsDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(shots); err != nil {
		t.Fatal(err)
	}
	// One screenshot per kind of page (the first node, the first link…),
	// plus the README's.
	kinds := map[string]bool{}
	shot := func(s string) bool {
		p, err := url.Parse(s)
		if err != nil || p.RawQuery != "" {
			return false
		}
		// The kind is the path's first two segments (/nodes/x → /nodes,
		// /fabric/links/a/1-b/2 → /fabric/links).
		seg := strings.SplitN(strings.TrimPrefix(p.Path, "/"), "/", 3)
		kind := "/" + seg[0]
		if len(seg) > 2 {
			kind += "/" + seg[1]
		} else if len(seg) == 2 && seg[0] == "nodes" {
			kind = "/nodes"
		}
		if kinds[kind] && !slices.Contains(slices.Collect(maps.Values(readme)), p.Path) {
			return false
		}
		kinds[kind] = true
		return true
	}
	site, err := b.Crawl(ctx, u.URL+"/", testenv.CrawlOptions{VisitOptions: testenv.VisitOptions{Shots: shots, Shot: shot}})
	if err != nil {
		t.Fatal(err)
	}
	site.Check(t)
	t.Logf("%d pages crawled, screenshots in %s", len(site.Pages), shots)
	for _, p := range []string{"/", "/nodes/gpu04", "/fabric", "/perf", "/timeline"} {
		if site.Page(p) == nil {
			t.Errorf("%s not reached by the crawl", p)
		}
	}
	if p := site.Page("/"); p == nil || p.Contrast == 0 {
		t.Error("no severity-coloured text measured on the fleet page")
	}
	var links, runs int
	for _, p := range site.Pages {
		switch {
		case strings.Contains(p.URL, "/fabric/links/"):
			links++
		case strings.Contains(p.URL, "/perf/runs/"):
			runs++
			if readme["perf-run.png"] == "" {
				readme["perf-run.png"] = strings.TrimPrefix(p.URL, u.URL)
			}
		}
	}
	if links == 0 || runs != 1 {
		t.Errorf("crawled %d link pages and %d pairwise runs, want some and 1", links, runs)
	}
	if *updateShots && !t.Failed() {
		dst := "../../../docs/screenshots"
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, p := range readme {
			pg := site.Page(p)
			if pg == nil || pg.Screenshot == "" {
				t.Errorf("no screenshot of %s for %s", p, name)
				continue
			}
			png, err := os.ReadFile(pg.Screenshot)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, name), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
