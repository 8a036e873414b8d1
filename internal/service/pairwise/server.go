package pairwise

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The agent's perf API, served by NewServer. Mount the handler on the
// agent's mux under PathPrefix without stripping it:
//
//	mux.Handle(pairwise.PathPrefix, pairwise.NewServer(opts))
//
// Every endpoint needs `Authorization: Bearer <token>`. An agent started
// without a token answers 403 to everything (it runs nothing); a missing or
// wrong token is 401. Bodies are JSON, at most 64 KiB, unknown fields
// refused (400). One test runs at a time per agent (either side): a second
// gets 409.
//
//	GET  /api/v1/perf/info    → InfoResponse: backends, rate limit, busy
//	POST /api/v1/perf/server  ServerRequest → ServerResponse: starts the
//	     server side of a test and returns the port (and, for tcp, the
//	     session key) the client side must use; the server side ends after
//	     one test or when nobody connects within the accept timeout.
//	DELETE /api/v1/perf/server/{port} ends a started server side whose
//	     client will not come (the runner calls it when the client side
//	     failed), so the agent is free for the next round at once.
//	POST /api/v1/perf/client  ClientRequest → ClientResponse: runs the
//	     client side against a peer's server side and returns the result.
const (
	PathPrefix = "/api/v1/perf/"
	PathInfo   = PathPrefix + "info"
	PathServer = PathPrefix + "server"
	PathClient = PathPrefix + "client"

	maxBody = 64 << 10
)

// ServerOptions configure the agent-side handler.
type ServerOptions struct {
	// Token is the shared secret (`ibdoctor agent --token` or
	// IBDOCTOR_TOKEN); empty refuses every request.
	Token string
	// Backends lists the backends this agent runs (tcp, perftest); nil
	// means tcp only.
	Backends []string
	// MaxDuration caps a test's duration (default 60 s).
	MaxDuration time.Duration
	// AcceptTimeout is how long a started server side waits for its client
	// (default 30 s).
	AcceptTimeout time.Duration
	// RateLimit throttles this agent's tcp tests to that many bytes per
	// second, in either role (0: none). Tests use it to make one node slow.
	RateLimit float64
	// ListenIP is the address test listeners bind to; empty binds to the
	// address the request arrived on.
	ListenIP string
	// Exec starts perftest programs; nil uses OSExecutor.
	Exec Executor
	// Log receives one line per token-authorised test request served:
	// who (remote address), what (role, backend, kind, peer), when, and
	// the result; nil logs nothing.
	Log *slog.Logger
}

// ServerRequest asks an agent to start the server side of a test.
type ServerRequest struct {
	Test Test `json:"test"`
}

// ServerResponse says where the started server side listens.
type ServerResponse struct {
	Port int `json:"port"`
	// Key is the hex session key the tcp client must present.
	Key string `json:"key,omitempty"`
}

// ClientRequest asks an agent to run the client side of a test against
// Peer:Port (the port from the peer's ServerResponse).
type ClientRequest struct {
	Test Test   `json:"test"`
	Peer string `json:"peer"`
	Port int    `json:"port"`
	Key  string `json:"key,omitempty"`
}

// ClientResponse carries the measurement.
type ClientResponse struct {
	Result Result `json:"result"`
}

// InfoResponse describes what an agent can run.
type InfoResponse struct {
	Backends      []string `json:"backends"`
	MaxDurationMS int64    `json:"max_duration_ms"`
	RateLimit     float64  `json:"rate_limit_bytes_per_second,omitempty"`
	Busy          bool     `json:"busy"`
}

// ErrorResponse is the body of every non-2xx answer.
type ErrorResponse struct {
	Error string `json:"error"`
}

type server struct {
	opts      ServerOptions
	tokenHash [sha256.Size]byte
	busy      chan struct{}
	lim       *limiter
	mux       *http.ServeMux

	mu       sync.Mutex
	sessions map[int]context.CancelFunc // running server sides by port
}

// NewServer returns the agent-side handler of the perf API (see PathPrefix
// for the endpoints).
func NewServer(opts ServerOptions) http.Handler {
	if opts.Backends == nil {
		opts.Backends = []string{BackendTCP}
	}
	if opts.MaxDuration <= 0 {
		opts.MaxDuration = time.Minute
	}
	if opts.AcceptTimeout <= 0 {
		opts.AcceptTimeout = 30 * time.Second
	}
	if opts.Exec == nil {
		opts.Exec = OSExecutor{}
	}
	s := &server{opts: opts, busy: make(chan struct{}, 1), lim: newLimiter(opts.RateLimit), mux: http.NewServeMux(), sessions: map[int]context.CancelFunc{}}
	s.tokenHash = sha256.Sum256([]byte(opts.Token))
	s.mux.HandleFunc("GET "+PathInfo, s.info)
	s.mux.HandleFunc("POST "+PathServer, s.startServer)
	s.mux.HandleFunc("DELETE "+PathServer+"/{port}", s.stopServer)
	s.mux.HandleFunc("POST "+PathClient, s.runClient)
	return s
}

// session registers the cancel function of the server side on port and
// returns a function that unregisters it.
func (s *server) session(port int, cancel context.CancelFunc) func() {
	s.mu.Lock()
	s.sessions[port] = cancel
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.sessions, port)
		s.mu.Unlock()
	}
}

func (s *server) stopServer(w http.ResponseWriter, r *http.Request) {
	port, err := strconv.Atoi(r.PathValue("port"))
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("port %q is not a number", r.PathValue("port")))
		return
	}
	s.mu.Lock()
	cancel, ok := s.sessions[port]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no server side on port %d", port))
		return
	}
	cancel()
	writeJSON(w, http.StatusOK, struct {
		Stopped int `json:"stopped"`
	}{port})
}

// ServeHTTP checks the token, then routes to the endpoints.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Token == "" {
		writeError(w, http.StatusForbidden, "this agent has no token (start it with --token or IBDOCTOR_TOKEN); it runs no tests")
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	// Comparing fixed-size hashes keeps the comparison constant-time
	// whatever the token's length.
	h := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(h[:], s.tokenHash[:]) != 1 || !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ibdoctor"`)
		writeError(w, http.StatusUnauthorized, "missing or wrong token (Authorization: Bearer <token>)")
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *server) info(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, InfoResponse{Backends: s.opts.Backends, MaxDurationMS: s.opts.MaxDuration.Milliseconds(),
		RateLimit: s.opts.RateLimit, Busy: len(s.busy) > 0})
}

func (s *server) acquire(w http.ResponseWriter) bool {
	select {
	case s.busy <- struct{}{}:
		return true
	default:
		writeError(w, http.StatusConflict, "busy: this agent is already running a test")
		return false
	}
}

func (s *server) release() { <-s.busy }

// checkTest validates a decoded test for this agent.
func (s *server) checkTest(t Test) (Test, error) {
	t = t.WithDefaults()
	if err := t.Validate(s.opts.MaxDuration); err != nil {
		return t, err
	}
	if !slices.Contains(s.opts.Backends, t.Backend) {
		return t, fmt.Errorf("backend %s is not enabled on this agent (enabled: %s)", t.Backend, strings.Join(s.opts.Backends, ", "))
	}
	return t, nil
}

func (s *server) listenIP(r *http.Request) string {
	if s.opts.ListenIP != "" {
		return s.opts.ListenIP
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if h, _, err := net.SplitHostPort(a.String()); err == nil {
			return h
		}
	}
	return ""
}

// logTest logs one served test request. res is nil for a server side
// (its measurement is the client's) and for failures.
func (s *server) logTest(r *http.Request, role string, t Test, peer string, port int, start time.Time, res *Result, err error) {
	if s.opts.Log == nil {
		return
	}
	attrs := []slog.Attr{slog.String("remote", r.RemoteAddr), slog.String("role", role),
		slog.String("backend", t.Backend), slog.String("kind", t.Kind), slog.Int64("duration_ms", t.DurationMS),
		slog.Time("started", start), slog.Duration("took", time.Since(start))}
	if peer != "" {
		attrs = append(attrs, slog.String("peer", peer))
	}
	if port != 0 {
		attrs = append(attrs, slog.Int("port", port))
	}
	level, result := slog.LevelInfo, "ok"
	if err != nil {
		level, result = slog.LevelWarn, "error"
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	attrs = append(attrs, slog.String("result", result))
	if res != nil {
		if res.BitsPerSecond > 0 {
			attrs = append(attrs, slog.Float64("bits_per_second", res.BitsPerSecond))
		}
		if res.LatencyMedianUS > 0 {
			attrs = append(attrs, slog.Float64("latency_median_us", res.LatencyMedianUS), slog.Float64("latency_p99_us", res.LatencyP99US))
		}
	}
	s.opts.Log.LogAttrs(r.Context(), level, "pairwise test served", attrs...)
}

func (s *server) startServer(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req ServerRequest
	var port int
	var err error
	defer func() { s.logTest(r, "server", req.Test, "", port, start, nil, err) }()
	if err = decode(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	t, err := s.checkTest(req.Test)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.acquire(w) {
		err = errBusy
		return
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(s.listenIP(r), "0"))
	if err != nil {
		s.release()
		writeError(w, http.StatusInternalServerError, "listening for the test: "+err.Error())
		return
	}
	port = ln.Addr().(*net.TCPAddr).Port
	acceptBy := time.Now().Add(s.opts.AcceptTimeout)
	// The session outlives the request; its own deadline bounds it.
	end := acceptBy.Add(t.Duration() + 3*grace)
	if t.Backend == BackendTCP {
		key := make([]byte, keyLen)
		_, _ = rand.Read(key)
		ctx, cancel := context.WithDeadline(context.Background(), end)
		done := s.session(port, cancel)
		go func() {
			defer s.release()
			defer done()
			defer cancel()
			_ = tcpServe(ctx, ln, key, t, s.lim, acceptBy)
		}()
		writeJSON(w, http.StatusOK, ServerResponse{Port: port, Key: hex.EncodeToString(key)})
		return
	}
	// perftest listens itself: hand it the port we were just given.
	ln.Close()
	argv, err := perftestArgs(t, port, "")
	if err != nil {
		s.release()
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err = s.startPerftestServer(end, port, argv); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, ServerResponse{Port: port})
}

// startPerftestServer starts the perftest server side and returns once it
// says it waits for the client; the process then runs on in the background
// until it exits or end passes. It releases the agent once the process
// has exited, whatever the outcome.
func (s *server) startPerftestServer(end time.Time, port int, argv []string) error {
	ctx, cancel := context.WithDeadline(context.Background(), end)
	proc, err := s.opts.Exec.Start(ctx, argv)
	if err != nil {
		cancel()
		s.release()
		return fmt.Errorf("starting %s: %w", argv[0], err)
	}
	done := s.session(port, cancel)
	ready := make(chan bool, 1)
	var tail tailBuffer
	go func() {
		defer s.release()
		defer done()
		defer cancel()
		sc := bufio.NewScanner(proc.Output())
		sc.Buffer(make([]byte, 0, 4096), 1<<20)
		listening := false
		for sc.Scan() {
			tail.add(sc.Text())
			if !listening && strings.Contains(sc.Text(), perftestWaiting) {
				listening = true
				ready <- true
			}
		}
		_, _ = io.Copy(io.Discard, proc.Output())
		_ = proc.Wait()
		if !listening {
			ready <- false
		}
	}()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case ok := <-ready:
		if !ok {
			return fmt.Errorf("%s exited before listening: %s", argv[0], tail.String())
		}
		return nil
	case <-timer.C:
		cancel() // ends the process; the goroutine then releases the agent
		return fmt.Errorf("%s did not start listening within 10 s: %s", argv[0], tail.String())
	}
}

// errBusy is logged for a request refused because a test is running.
var errBusy = errors.New("busy: already running a test")

func (s *server) runClient(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req ClientRequest
	var res *Result
	var err error
	defer func() { s.logTest(r, "client", req.Test, req.Peer, req.Port, start, res, err) }()
	if err = decode(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	t, err := s.checkTest(req.Test)
	if err == nil {
		err = checkPeer(req, t)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.acquire(w) {
		err = errBusy
		return
	}
	defer s.release()
	// The test outlasts the agent's write timeout for ordinary requests:
	// extend it for this response (ignored where unsupported).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(t.Duration() + 3*grace + 10*time.Second))
	ctx, cancel := context.WithTimeout(r.Context(), t.Duration()+3*grace)
	defer cancel()
	var got Result
	if t.Backend == BackendTCP {
		key, _ := hex.DecodeString(req.Key)
		got, err = tcpClient(ctx, net.JoinHostPort(req.Peer, strconv.Itoa(req.Port)), key, t, s.lim)
	} else {
		got, err = s.perftestClient(ctx, t, req)
	}
	if err != nil {
		writeError(w, http.StatusBadGateway, fmt.Sprintf("%s %s test against %s:%d: %v", t.Backend, t.Kind, req.Peer, req.Port, err))
		return
	}
	res = &got
	writeJSON(w, http.StatusOK, ClientResponse{Result: got})
}

func checkPeer(req ClientRequest, t Test) error {
	if strings.HasPrefix(req.Peer, "-") || validHost(req.Peer) != nil {
		return fmt.Errorf("peer %q: want an IP address or host name", req.Peer)
	}
	if req.Port < 1 || req.Port > 65535 {
		return fmt.Errorf("port %d out of range [1, 65535]", req.Port)
	}
	if t.Backend == BackendTCP {
		if k, err := hex.DecodeString(req.Key); err != nil || len(k) != keyLen {
			return fmt.Errorf("key: want %d hex digits from the peer's server response", 2*keyLen)
		}
	}
	return nil
}

func (s *server) perftestClient(ctx context.Context, t Test, req ClientRequest) (Result, error) {
	argv, err := perftestArgs(t, req.Port, req.Peer)
	if err != nil {
		return Result{}, err
	}
	proc, err := s.opts.Exec.Start(ctx, argv)
	if err != nil {
		return Result{}, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	out, rerr := io.ReadAll(io.LimitReader(proc.Output(), 1<<20))
	_, _ = io.Copy(io.Discard, proc.Output())
	werr := proc.Wait()
	res, perr := parsePerftest(bytes.NewReader(out), argv[0])
	if perr != nil {
		var tail tailBuffer
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			tail.add(l)
		}
		return Result{}, fmt.Errorf("%w (exit: %v; output: %s)", perr, errors.Join(werr, rerr), tail.String())
	}
	return res, nil
}

// tailBuffer keeps the last lines of a program's output for errors.
type tailBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *tailBuffer) add(l string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(l) > 200 {
		l = l[:200]
	}
	b.lines = append(b.lines, l)
	if len(b.lines) > 5 {
		b.lines = b.lines[1:]
	}
}

// String joins the kept lines with " | ".
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, " | ")
}

// decode reads one size-limited JSON object with no unknown fields.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	if dec.More() {
		return errors.New("request body: more than one JSON value")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, ErrorResponse{Error: msg})
}
