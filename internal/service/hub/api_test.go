package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
)

// pairwiseDoc is a `perf pairwise --format json` document of four hosts
// where every pair with h4 runs at half speed.
func pairwiseDoc(t *testing.T, started time.Time) []byte {
	t.Helper()
	hosts := []string{"h1", "h2", "h3", "h4"}
	m := &pairwise.Matrix{Hosts: hosts, Test: pairwise.Test{Backend: "tcp", Kind: pairwise.KindBW}, Pattern: "full", Started: started, Planned: 12}
	for _, a := range hosts {
		for _, b := range hosts {
			if a == b {
				continue
			}
			bps := 100e9
			if a == "h4" || b == "h4" {
				bps = 50e9
			}
			m.Pairs = append(m.Pairs, pairwise.PairResult{A: a, B: b, Result: &pairwise.Result{BitsPerSecond: bps}})
		}
	}
	var b bytes.Buffer
	if err := pairwise.WriteJSON(&b, pairwise.Report{Matrix: m, Findings: pairwiserules.Check(m.Input(nil), pairwiserules.Options{})}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func do(t *testing.T, h http.Handler, method, target, token string, body []byte) (int, []byte, http.Header) {
	t.Helper()
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, b, rec.Header()
}

// TestAPI drives every route of the hub's API against a hub that polled a
// real agent with a broken port and stored a pairwise run.
func TestAPI(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	sa := newSimAgent(t, "gpu02", "polling:mlx5_5/1")
	hb := newHub(t, c, Options{}, sa)
	if err := hb.PollOnce(ctx); err != nil {
		t.Fatal(err)
	}
	id, err := hb.AddPerfRun(ctx, pairwiseDoc(t, t0), "test")
	if err != nil {
		t.Fatal(err)
	}
	open := hb.Handler(HandlerOptions{})
	tok := hb.Handler(HandlerOptions{Token: "s3cret"})

	for _, c := range []struct {
		name, method, target, token string
		h                           http.Handler
		body                        []byte
		code                        int
		want                        string
	}{
		{"fleet", "GET", "/api/v1/nodes", "", open, nil, 200, `"Host": "gpu02"`},
		{"node", "GET", "/api/v1/nodes/gpu02", "", open, nil, 200, `"Device": "mlx5_5"`},
		{"unknown node", "GET", "/api/v1/nodes/gpu99", "", open, nil, 404, "not found"},
		{"findings", "GET", "/api/v1/findings", "", open, nil, 200, `"host": "gpu02"`},
		{"findings since duration", "GET", "/api/v1/findings?since=1h", "", open, nil, 200, `"opened"`},
		{"findings by severity none", "GET", "/api/v1/findings?severity=info&id=port.down", "", open, nil, 200, "[]"},
		{"findings bad since", "GET", "/api/v1/findings?since=yesterday", "", open, nil, 400, "RFC 3339"},
		{"findings bad severity", "GET", "/api/v1/findings?severity=fatal", "", open, nil, 400, "unknown severity"},
		{"no fabric", "GET", "/api/v1/fabric", "", open, nil, 404, "not found"},
		{"runs", "GET", "/api/v1/perf/runs", "", open, nil, 200, id},
		{"run", "GET", "/api/v1/perf/runs/" + id, "", open, nil, 200, `"Culprits": [`},
		{"unknown run", "GET", "/api/v1/perf/runs/nope", "", open, nil, 404, "not found"},
		{"post read-only", "POST", "/api/v1/perf/runs", "", open, pairwiseDoc(t, t0.Add(time.Hour)), 403, "read-only"},
		{"post no token", "POST", "/api/v1/perf/runs", "", tok, pairwiseDoc(t, t0.Add(time.Hour)), 401, "token"},
		{"post wrong token", "POST", "/api/v1/perf/runs", "s3cre", tok, pairwiseDoc(t, t0.Add(time.Hour)), 401, "token"},
		{"post not pairwise", "POST", "/api/v1/perf/runs", "s3cret", tok, []byte(`{"hello":1}`), 400, "not a `perf pairwise"},
		{"post", "POST", "/api/v1/perf/runs", "s3cret", tok, pairwiseDoc(t, t0.Add(time.Hour)), 201, `"id": "20261201T090000Z-`},
		{"delete", "DELETE", "/api/v1/nodes", "s3cret", tok, nil, 405, ""},
		{"put run", "PUT", "/api/v1/perf/runs", "", open, nil, 405, ""},
		{"healthz", "GET", "/healthz", "", open, nil, 200, "ok"},
		{"api only", "GET", "/", "", hb.Handler(HandlerOptions{NoUI: true}), nil, 200, "/api/v1/nodes"},
		{"reads need no token", "GET", "/api/v1/nodes", "", tok, nil, 200, "gpu02"},
		{"fleet page", "GET", "/", "", open, nil, 200, "gpu02"},
		{"node page", "GET", "/nodes/gpu02", "", open, nil, 200, "mlx5_5"},
		{"unknown node page", "GET", "/nodes/gpu99", "", open, nil, 404, ""},
		{"post to a page", "POST", "/", "s3cret", tok, nil, 405, ""},
	} {
		code, body, _ := do(t, c.h, c.method, c.target, c.token, c.body)
		if code != c.code || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %s %s: %d %s, want %d with %q", c.name, c.method, c.target, code, body, c.code, c.want)
		}
	}
	// The posted run is listed, newest first.
	_, body, _ := do(t, open, "GET", "/api/v1/perf/runs", "", nil)
	var runs []web.PerfRunRef
	if err := json.Unmarshal(body, &runs); err != nil || len(runs) != 2 || !runs[0].Started.Equal(t0.Add(time.Hour)) {
		t.Fatalf("runs after post: %s %v", body, err)
	}
	// Findings filters.
	_, body, _ = do(t, open, "GET", "/api/v1/findings?severity=critical", "", nil)
	var fs []Finding
	if err := json.Unmarshal(body, &fs); err != nil || len(fs) == 0 {
		t.Fatalf("critical findings: %s %v", body, err)
	}
	for _, f := range fs {
		if f.Finding.Severity != finding.Critical || f.Closed != nil || !f.Opened.Equal(t0) {
			t.Errorf("severity filter let through %+v", f)
		}
	}
	_, body, _ = do(t, open, "GET", "/api/v1/findings?id="+fs[0].Finding.ID, "", nil)
	var byID []Finding
	json.Unmarshal(body, &byID)
	for _, f := range byID {
		if f.Finding.ID != fs[0].Finding.ID {
			t.Errorf("id filter let through %s", f.Finding.ID)
		}
	}
	_, body, _ = do(t, open, "GET", "/api/v1/findings?since=2030-01-01T00:00:00Z", "", nil)
	if err := json.Unmarshal(body, &byID); err != nil || len(byID) != len(openIDsList(t, hb)) {
		t.Errorf("since in the future must still list the open findings: %s", body)
	}
}

func openIDsList(t *testing.T, h *Hub) []string {
	var out []string
	for id := range openIDs(t, h.st, "gpu02") {
		out = append(out, id)
	}
	return out
}

func TestPerfRun(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	h := newHub(t, c, Options{})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), pairwiseDoc(t, t0), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("skipped"), 0o600)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"matrix": {"hosts": ["a"], "pairs": [{"a": "a", "b": "zz"}], "started": "2026-12-01T08:00:00Z"}}`), 0o600)
	pd := NewPerfDir(h, dir)
	n, err := pd.Scan(ctx)
	if n != 1 || err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "zz") {
		t.Fatalf("loaded %d, error %v: want 1 and an error naming bad.json", n, err)
	}
	// A scan reads only what changed; a new scanner stores the same run
	// under the same ID, not a second one.
	if n, err := pd.Scan(ctx); n != 0 || err != nil {
		t.Errorf("second scan: %d stored, %v", n, err)
	}
	NewPerfDir(h, dir).Scan(ctx)
	refs, _ := h.Data().PerfRuns(ctx)
	if len(refs) != 1 || refs[0].Hosts != 4 || refs[0].Test != "tcp bw" {
		t.Fatalf("runs %+v", refs)
	}
	run, err := h.Data().PerfRun(ctx, refs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Gbps[0][1] != 100 || run.Gbps[0][3] != 50 || run.Gbps[2][2] != -1 {
		t.Errorf("matrix %v", run.Gbps)
	}
	if run.Expected < 90 || run.Expected > 110 {
		t.Errorf("expected %v Gb/s, want the measured reference of about 100", run.Expected)
	}
	if len(run.Culprits) != 1 || run.Culprits[0] != "h4" {
		t.Errorf("culprits %v, want h4", run.Culprits)
	}
	if _, err := h.Data().PerfRun(ctx, "nope"); !errors.Is(err, web.ErrNotFound) {
		t.Errorf("unknown run: %v", err)
	}
}
