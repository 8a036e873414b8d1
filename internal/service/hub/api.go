package hub

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
)

// HandlerOptions configure the hub's HTTP server.
type HandlerOptions struct {
	// Token, when set, is required (Authorization: Bearer <token>) for
	// every request that writes (POST /api/v1/perf/runs). Without it the
	// hub is read-only: writes get 403.
	Token string
	// UI serves everything outside /api/ and /healthz; nil serves the
	// web pages (web.Handler on Data); NoUI serves none.
	UI   http.Handler
	NoUI bool
}

// Finding is one finding of /api/v1/findings: the finding with the host,
// subject and times of its life.
type Finding struct {
	Host    string          `json:"host"`
	Subject string          `json:"subject"`
	Opened  time.Time       `json:"opened"`
	Closed  *time.Time      `json:"closed,omitempty"`
	Finding finding.Finding `json:"finding"`
}

// Handler returns the hub's HTTP API:
//
//	GET  /api/v1/nodes              the fleet: every node with its health and ports
//	GET  /api/v1/nodes/{host}       one node: ports, findings, rate series
//	GET  /api/v1/findings           the findings timeline (?since=&id=&severity=&host=)
//	GET  /api/v1/fabric             the last fabric check's view
//	GET  /api/v1/perf/runs          the pairwise runs
//	POST /api/v1/perf/runs          store a `perf pairwise --format json` document (token)
//	GET  /api/v1/perf/runs/{id}     one run's matrix and culprits
//	GET  /healthz                   200 while the store answers
//	GET  /, /nodes/{host}, ...      the web pages (web.Handler)
func (h *Hub) Handler(o HandlerOptions) http.Handler {
	d := h.Data()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/nodes", func(w http.ResponseWriter, r *http.Request) {
		fl, err := d.Fleet(r.Context())
		reply(w, fl, err)
	})
	mux.HandleFunc("GET /api/v1/nodes/{host}", func(w http.ResponseWriter, r *http.Request) {
		n, err := d.Node(r.Context(), r.PathValue("host"))
		reply(w, n, err)
	})
	mux.HandleFunc("GET /api/v1/findings", h.serveFindings)
	mux.HandleFunc("GET /api/v1/fabric", func(w http.ResponseWriter, r *http.Request) {
		f, err := d.Fabric(r.Context())
		reply(w, f, err)
	})
	mux.HandleFunc("GET /api/v1/perf/runs", func(w http.ResponseWriter, r *http.Request) {
		runs, err := d.PerfRuns(r.Context())
		if runs == nil {
			runs = []web.PerfRunRef{}
		}
		reply(w, runs, err)
	})
	mux.HandleFunc("POST /api/v1/perf/runs", h.servePostRun)
	mux.HandleFunc("GET /api/v1/perf/runs/{id}", func(w http.ResponseWriter, r *http.Request) {
		run, err := d.PerfRun(r.Context(), r.PathValue("id"))
		reply(w, run, err)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if _, err := h.st.Version(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "history store: "+err.Error()+"\n")
			return
		}
		io.WriteString(w, "ok\n")
	})
	if o.UI == nil && !o.NoUI {
		o.UI = web.Handler(d, web.Options{Title: "ibdoctor hub", Refresh: h.opts.Interval, Now: h.opts.Now})
	}
	if o.UI != nil {
		mux.Handle("GET /", o.UI)
	} else {
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "ibdoctor hub: /api/v1/nodes /api/v1/nodes/{host} /api/v1/findings /api/v1/fabric /api/v1/perf/runs /healthz\n")
		})
	}
	return guard(o.Token, mux)
}

// guard lets reads through and requires the token for everything else,
// as the agent does: a request no route takes is left to the mux (404,
// or 405 with an Allow header).
func guard(token string, next *http.ServeMux) http.Handler {
	// Fixed-size hashes keep the comparison constant-time whatever the
	// length of the token sent.
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		if _, pattern := next.Handler(r); pattern == "" {
			next.ServeHTTP(w, r)
			return
		}
		if token == "" {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "read-only hub: start it with --token to accept writes"})
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		hs := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(hs[:], want[:]) != 1 || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ibdoctor"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "missing or wrong token (Authorization: Bearer <token>)"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func reply(w http.ResponseWriter, v any, err error) {
	switch {
	case errors.Is(err, web.ErrNotFound):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	default:
		writeJSON(w, http.StatusOK, v)
	}
}

// parseSince reads ?since=: an RFC 3339 time or a duration back from now
// ("24h", "90m"); empty is the retention.
func (h *Hub) parseSince(s string) (time.Time, error) {
	now := h.opts.Now()
	if s == "" {
		return now.Add(-h.st.Retention()), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, errors.New("since: want an RFC 3339 time (2026-12-01T08:00:00Z) or a duration back from now (24h)")
}

func (h *Hub) serveFindings(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since, err := h.parseSince(q.Get("since"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	fq := hubstore.FindingQuery{Since: since, ID: q.Get("id"), Host: q.Get("host"), Limit: 10000}
	if s := q.Get("severity"); s != "" {
		sev, err := finding.ParseSeverity(s)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "severity: " + err.Error()})
			return
		}
		fq.Severity = sev
	}
	if s := q.Get("open"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "open: want true or false"})
			return
		}
		fq.OpenOnly = b
	}
	rows, err := h.st.Findings(r.Context(), fq)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	out := make([]Finding, 0, len(rows))
	for _, x := range rows {
		f := Finding{Host: x.Host, Subject: x.Subject, Opened: x.Opened, Finding: x.Finding}
		if !x.Closed.IsZero() {
			c := x.Closed
			f.Closed = &c
		}
		out = append(out, f)
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Hub) servePostRun(w http.ResponseWriter, r *http.Request) {
	doc, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxPerfRunBytes))
	if err != nil {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": err.Error()})
		return
	}
	id, err := h.AddPerfRun(r.Context(), doc, "request body")
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	w.Header().Set("Location", "/api/v1/perf/runs/"+id)
	writeJSON(w, http.StatusCreated, map[string]string{"id": id})
}
