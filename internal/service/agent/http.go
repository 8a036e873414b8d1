package agent

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/rates"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/store"
)

// PerfPrefix is where the pairwise test API is mounted.
const PerfPrefix = "/api/v1/perf/"

// HandlerOptions configure the HTTP API.
type HandlerOptions struct {
	// Token, when set, is required (Authorization: Bearer <token>) for
	// every request that is not a read (GET/HEAD) and for everything under
	// /api/v1/perf/. Without a token the agent is read-only: such requests
	// get 403.
	Token string
	// Perf is the pairwise test handler mounted under /api/v1/perf/ (nil:
	// not mounted).
	Perf http.Handler
}

// Handler returns the agent's HTTP API:
//
//	/metrics         Prometheus exposition of the last sample (rendered once per sample)
//	/api/v1/health   findings and verdict; 200 healthy or warning, 503 critical or no sample yet
//	/api/v1/ports    last sample: every port's state, counters and rates
//	/healthz         200 while samples are fresh (within 3 intervals), else 503
//	/api/v1/perf/    pairwise tests (token required)
//	/                this node's page (web.Handler: fleet of one, node, timeline)
func (a *Agent) Handler(o HandlerOptions) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", a.serveMetrics(metrics.NewSelfCollector()))
	mux.HandleFunc("GET /api/v1/health", a.serveHealth)
	mux.HandleFunc("GET /api/v1/ports", a.servePorts)
	mux.HandleFunc("GET /healthz", a.serveHealthz)
	pages := web.Handler(a.WebData(), web.Options{Title: "ibdoctor agent", Refresh: a.opts.Interval, NoFabric: true, NoPerf: true})
	for _, p := range web.Paths {
		mux.Handle("GET "+p, pages)
	}
	if o.Perf != nil {
		mux.Handle(PerfPrefix, o.Perf)
	}
	return guard(o.Token, mux)
}

// constantTimeCompare is subtle.ConstantTimeCompare; tests watch what it
// is given.
var constantTimeCompare = subtle.ConstantTimeCompare

// guard enforces the read-only default and the token. A request that no
// route takes is left to the mux, so a wrong method on a read-only
// endpoint (POST /api/v1/health) gets 405 with an Allow header, not 403.
func guard(token string, next *http.ServeMux) http.Handler {
	// Comparing fixed-size hashes keeps the comparison constant-time
	// whatever the length of the token sent: ConstantTimeCompare on the
	// raw strings returns at once when the lengths differ, which tells
	// the token's length.
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		read := r.Method == http.MethodGet || r.Method == http.MethodHead
		if read && !strings.HasPrefix(r.URL.Path, PerfPrefix) {
			next.ServeHTTP(w, r)
			return
		}
		if _, pattern := next.Handler(r); pattern == "" {
			next.ServeHTTP(w, r) // 404 or 405
			return
		}
		if token == "" {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "read-only agent: start it with --token (or IBDOCTOR_TOKEN) to allow requests that run something"})
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		h := sha256.Sum256([]byte(got))
		if constantTimeCompare(h[:], want[:]) != 1 || !ok {
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

// Health is the /api/v1/health document.
type Health struct {
	Host string `json:"host"`
	// Taken is when the judged sample was read.
	Taken time.Time `json:"taken"`
	// Outcome is healthy, warning or critical with what `ibdoctor check`
	// would exit with (0, 1, 2), or "not_judged" (3) before the first
	// sample.
	finding.Outcome
	Findings []HealthEntry `json:"findings"`
}

// HealthEntry is a finding with the time it was first seen.
type HealthEntry struct {
	finding.Finding
	FirstSeen time.Time `json:"first_seen"`
}

func (a *Agent) serveHealth(w http.ResponseWriter, _ *http.Request) {
	v := a.view.Load()
	if v == nil || v.Snapshot == nil {
		writeJSON(w, http.StatusServiceUnavailable, Health{Outcome: finding.NotJudged("no sample read yet"), Findings: []HealthEntry{}})
		return
	}
	h := healthOf(v.Snapshot.Host, v.Snapshot.Taken, v.Active)
	code := http.StatusOK
	if h.ExitCode == finding.ExitCritical {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, h)
}

func healthOf(host string, taken time.Time, active []store.Active) Health {
	fs := make([]finding.Finding, len(active))
	h := Health{Host: host, Taken: taken, Findings: make([]HealthEntry, len(active))}
	for i, a := range active {
		fs[i] = a.Finding
		h.Findings[i] = HealthEntry{a.Finding, a.FirstSeen}
	}
	h.Outcome, _ = finding.Judge(fs, "")
	return h
}

// Ports is the /api/v1/ports document.
type Ports struct {
	Host     string        `json:"host"`
	Taken    time.Time     `json:"taken"`
	Interval float64       `json:"interval_seconds"`
	Ports    []PortSummary `json:"ports"`
}

// PortSummary is one port with its counters and rates over the last
// interval, and its identity from the same snapshot. The identity fields
// live here, not on trend.Port, because trend.Port is what the state store
// keeps; each is absent when unknown (older agents send none of them).
type PortSummary struct {
	trend.Port
	// PhysState is phys_state by name ("LinkUp", "Polling").
	PhysState string `json:"phys_state,omitempty"`
	// Rate is the rate file as the kernel prints it ("400 Gb/sec (4X
	// NDR)"), Width its lanes ("4X") and Speed its lane speed ("NDR"); all
	// three are absent unless the port is ACTIVE or its physical link is
	// up (a down RoCE port still reads a rate that means nothing).
	Rate  string `json:"rate,omitempty"`
	Width string `json:"width,omitempty"`
	Speed string `json:"speed,omitempty"`
	// PortGUID is the port GUID of an InfiniBand port (metrics.PortGUID;
	// absent on Ethernet), NodeGUID the device's node_guid. Both are "0x"
	// and 16 lowercase hex digits, as ibstat and ibnetdiscover print them.
	PortGUID string `json:"port_guid,omitempty"`
	NodeGUID string `json:"node_guid,omitempty"`
	// PCI is the address of the device's PCI function ("0000:17:00.0"),
	// PCIeLink its link as trained ("Gen5 x16", "Gen4 x8 of Gen5 x16").
	PCI      string      `json:"pci,omitempty"`
	PCIeLink string      `json:"pcie_link,omitempty"`
	Rates    []NamedRate `json:"rates"`
}

// identify fills the identity fields of ps from the snapshot's device d
// and port p (either may be nil).
func (ps *PortSummary) identify(s *snapshot.Snapshot, d *snapshot.Device, p *snapshot.Port) {
	if d != nil {
		ps.NodeGUID = guidText(d.NodeGUID)
		ps.PCI = string(d.PCI)
		ps.PCIeLink = pcieLink(s, *d)
	}
	if p == nil {
		return
	}
	if p.PhysState != nil {
		ps.PhysState = p.PhysState.String()
	}
	if p.Rate != nil && !p.Rate.IsZero() && (p.IsActive() || p.PhysState != nil && *p.PhysState == ib.PhysLinkUp) {
		ps.Rate = p.Rate.Sysfs()
		ps.Width = strconv.Itoa(p.Rate.Width) + "X"
		ps.Speed = p.Rate.Speed.String()
	}
	ps.PortGUID = metrics.PortGUID(p)
}

// guidText renders a GUID as ib.GUIDString whichever form the snapshot
// holds (the metrics' node_guid label does the same); text that is no
// GUID is dropped rather than passed on as an identity.
func guidText(g string) string {
	n, err := ib.NormalizeGUID(g)
	if err != nil {
		return ""
	}
	return n
}

// NamedRate is the rate of one reading; per_second is absent when the rate
// is unknown (status saturated, reset or no_data).
type NamedRate struct {
	Source    trend.Source `json:"src"`
	Name      string       `json:"name"`
	PerSecond *float64     `json:"per_second,omitempty"`
	Status    rates.Status `json:"status"`
}

// servePorts serves /api/v1/ports; with ?readings=0 each port's raw
// readings are left out (an empty list): about half the document, which
// the hub polling every agent does not read.
func (a *Agent) servePorts(w http.ResponseWriter, r *http.Request) {
	noReadings := r.URL.Query().Get("readings") == "0"
	v := a.view.Load()
	if v == nil || v.Snapshot == nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "no sample yet"})
		return
	}
	out := Ports{Host: v.Snapshot.Host, Taken: v.Sample.T, Interval: v.Interval.Seconds(), Ports: []PortSummary{}}
	byPort := map[trend.PortKey][]NamedRate{}
	for _, r := range v.Rates {
		nr := NamedRate{Source: r.Source, Name: r.Name, Status: r.Rate.Status}
		if r.Rate.Known() {
			ps := r.Rate.PerSecond
			nr.PerSecond = &ps
		}
		k := trend.PortKey{Device: r.Device, Port: r.Port}
		byPort[k] = append(byPort[k], nr)
	}
	for _, p := range v.Sample.Ports {
		rs := byPort[trend.PortKey{Device: p.Device, Port: p.Port}]
		if rs == nil {
			rs = []NamedRate{}
		}
		ps := PortSummary{Port: p, Rates: rs}
		if noReadings {
			ps.Readings = []trend.Reading{} // p is a copy: the sample keeps its own
		}
		ps.identify(v.Snapshot, v.Snapshot.Device(p.Device), v.Snapshot.Port(p.Device, p.Port))
		out.Ports = append(out.Ports, ps)
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *Agent) serveHealthz(w http.ResponseWriter, _ *http.Request) {
	v := a.view.Load()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if v == nil || v.Snapshot == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("no sample yet\n"))
		return
	}
	if age := time.Since(v.Snapshot.Taken); age > 3*v.Interval+10*time.Second {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("last sample is " + age.Round(time.Second).String() + " old\n"))
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// ServerLimits bound what clients can hold of the agent's HTTP server. The
// sampler does not depend on them: it runs in its own goroutine and
// publishes each sample atomically, so a saturated server delays answers,
// never samples.
type ServerLimits struct {
	// ReadHeaderTimeout bounds reading a request's headers, however slowly
	// they trickle in; ReadTimeout the whole request with its body.
	ReadHeaderTimeout, ReadTimeout time.Duration
	// WriteTimeout bounds a handler and its response (a pairwise test
	// extends it for its own duration).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends nothing.
	IdleTimeout time.Duration
	// MaxConns caps the connections served at once; further ones wait in
	// the listen backlog until one closes.
	MaxConns int
}

// DefaultServerLimits suit Prometheus scrapes (default scrape timeout
// 10 s), probes and a few people: a scrape is answered from the last
// sample in milliseconds.
var DefaultServerLimits = ServerLimits{
	ReadHeaderTimeout: 5 * time.Second,
	ReadTimeout:       15 * time.Second,
	WriteTimeout:      30 * time.Second,
	IdleTimeout:       60 * time.Second,
	MaxConns:          64,
}

// Serve runs an HTTP server on ln within DefaultServerLimits until ctx
// ends, then shuts it down gracefully (in-flight requests get up to 5 s).
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	return ServeLimited(ctx, ln, h, DefaultServerLimits)
}

// ServeLimited is Serve with explicit limits.
func ServeLimited(ctx context.Context, ln net.Listener, h http.Handler, lim ServerLimits) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: lim.ReadHeaderTimeout, ReadTimeout: lim.ReadTimeout,
		WriteTimeout: lim.WriteTimeout, IdleTimeout: lim.IdleTimeout, MaxHeaderBytes: 64 << 10}
	if lim.MaxConns > 0 {
		ln = limitListener(ln, lim.MaxConns)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// limitListener accepts at most n connections at once: Accept waits for
// one of them to close (as golang.org/x/net/netutil.LimitListener does).
func limitListener(ln net.Listener, n int) net.Listener {
	return &limited{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limited struct {
	net.Listener
	sem   chan struct{}
	done  chan struct{}
	close sync.Once
}

func (l *limited) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitedConn{Conn: c, release: sync.OnceFunc(func() { <-l.sem })}, nil
}

func (l *limited) Close() error {
	err := l.Listener.Close()
	l.close.Do(func() { close(l.done) })
	return err
}

type limitedConn struct {
	net.Conn
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
