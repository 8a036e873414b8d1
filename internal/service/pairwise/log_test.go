package pairwise

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for the handlers' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not one JSON object per line: %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestServerLogsTests captures the slog output of two agents: each
// token-authorised test request is one structured line saying who asked
// (remote address), what (role, backend, kind, peer), when and the
// result; a request without the token is not a served test.
func TestServerLogsTests(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	a := startAgent(t, "127.0.0.2", ServerOptions{Token: testToken, Log: log})
	b := startAgent(t, "127.0.0.3", ServerOptions{Token: testToken, Log: log})
	r := &Runner{Token: testToken, Hosts: []Host{a, b}, Test: Test{Backend: BackendTCP, Kind: KindBW, DurationMS: 100}}
	if _, err := r.Run(context.Background(), RoundRobin(2)); err != nil {
		t.Fatal(err)
	}
	if code, _ := post(t, a, PathServer, "wrong", tcpBW); code != 401 {
		t.Fatalf("wrong token: %d", code)
	}
	if code, _ := post(t, a, PathServer, testToken, `{"test":{"backend":"nope","kind":"bw","duration_ms":100}}`); code != 400 {
		t.Fatalf("bad backend: %d", code)
	}
	lines := buf.lines(t)
	roles := map[string]map[string]any{}
	for _, l := range lines {
		if l["msg"] != "pairwise test served" {
			t.Errorf("unexpected line %v", l)
			continue
		}
		for _, k := range []string{"time", "remote", "role", "backend", "kind", "started", "result"} {
			if _, ok := l[k]; !ok {
				t.Errorf("line lacks %s: %v", k, l)
			}
		}
		roles[l["role"].(string)+"/"+l["result"].(string)] = l
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3 (server, client, refused): %v", len(lines), lines)
	}
	c := roles["client/ok"]
	if c == nil || c["peer"] == nil || c["bits_per_second"] == nil || c["backend"] != "tcp" || c["kind"] != "bw" ||
		!strings.HasPrefix(c["remote"].(string), "127.0.0.1:") {
		t.Errorf("client line %v", c)
	}
	if s := roles["server/ok"]; s == nil || s["port"] == nil {
		t.Errorf("server line %v", s)
	}
	if e := roles["server/error"]; e == nil || !strings.Contains(e["error"].(string), `backend "nope"`) || e["level"] != "WARN" {
		t.Errorf("refused line %v", e)
	}
}
