package pairwise

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// PairResult is the outcome of one pair's test.
type PairResult struct {
	// A sent (client side), B received (server side); both are node names.
	A     string `json:"a"`
	B     string `json:"b"`
	Round int    `json:"round"`
	// Result is nil when the test failed; Error then says why. With
	// Runner.Repeat it is the median of the Runs runs that succeeded.
	Result *Result `json:"result,omitempty"`
	Runs   int     `json:"runs,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// medianResult returns the median run: by bandwidth for bw tests, by
// median latency for lat tests (the lower middle for an even count).
func medianResult(rs []Result, kind string) Result {
	key := func(r Result) float64 { return r.BitsPerSecond }
	if kind == KindLat {
		key = func(r Result) float64 { return r.LatencyMedianUS }
	}
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b Result) int { return cmp.Compare(key(a), key(b)) })
	return s[(len(s)-1)/2]
}

// RoundTiming is how long one round took.
type RoundTiming struct {
	Round   int     `json:"round"`
	Pairs   int     `json:"pairs"`
	Seconds float64 `json:"seconds"`
}

// Matrix is everything one pairwise run measured.
type Matrix struct {
	Hosts   []string      `json:"hosts"`
	Test    Test          `json:"test"`
	Pattern string        `json:"pattern"`
	Started time.Time     `json:"started"`
	Pairs   []PairResult  `json:"pairs"`
	Rounds  []RoundTiming `json:"rounds"`
	// Planned is the number of pairs the schedule holds; fewer Pairs with
	// Interrupted set means the run was stopped.
	Planned     int  `json:"planned"`
	Interrupted bool `json:"interrupted,omitempty"`
}

// Runner drives a schedule through the agents' HTTP API.
type Runner struct {
	// Client makes the HTTP requests; nil uses a client without a global
	// timeout (every request gets its own deadline).
	Client *http.Client
	Token  string
	Test   Test
	Hosts  []Host
	// Repeat runs each pair's test this many times in a row (0 or 1: once)
	// and keeps the median run, so that one disturbed run (another job's
	// burst, a stalled host) does not make a pair look slow.
	Repeat int
	// Progress, when set, is called after every pair with the number of
	// pairs done and planned.
	Progress func(done, total int)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Run runs every round of s; the pairs of a round run concurrently. When
// ctx ends (SIGINT) it stops after the pairs in flight fail or finish and
// returns what was measured, with Interrupted set.
func (r *Runner) Run(ctx context.Context, s Schedule) (*Matrix, error) {
	if err := s.Validate(len(r.Hosts)); err != nil {
		return nil, err
	}
	test := r.Test.WithDefaults()
	if err := test.Validate(0); err != nil {
		return nil, err
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	m := &Matrix{Test: test, Pattern: s.Pattern, Started: now(), Planned: s.Pairs()}
	for _, h := range r.Hosts {
		m.Hosts = append(m.Hosts, h.Name)
	}
	done := 0
	for ri, round := range s.Rounds {
		if ctx.Err() != nil {
			m.Interrupted = true
			break
		}
		start := now()
		results := make([]PairResult, len(round))
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i, p := range round {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, b := r.Hosts[p.A], r.Hosts[p.B]
				pr := PairResult{A: a.Name, B: b.Name, Round: ri + 1}
				var ok []Result
				var lastErr error
				for range max(r.Repeat, 1) {
					res, err := r.pair(ctx, test, a, b)
					if err != nil {
						lastErr = err
						if ctx.Err() != nil {
							break
						}
						continue
					}
					ok = append(ok, res)
				}
				if len(ok) == 0 {
					pr.Error = lastErr.Error()
				} else {
					med := medianResult(ok, test.Kind)
					pr.Result, pr.Runs = &med, len(ok)
				}
				results[i] = pr
				mu.Lock()
				done++
				if r.Progress != nil {
					r.Progress(done, m.Planned)
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		if ctx.Err() != nil {
			// Pairs cut short by the interrupt measured nothing; keep the
			// ones that finished.
			m.Interrupted = true
			for _, pr := range results {
				if pr.Result != nil {
					m.Pairs = append(m.Pairs, pr)
				}
			}
			break
		}
		m.Pairs = append(m.Pairs, results...)
		m.Rounds = append(m.Rounds, RoundTiming{Round: ri + 1, Pairs: len(round), Seconds: now().Sub(start).Seconds()})
	}
	return m, nil
}

// pair runs one test: the server side on b, then the client side on a.
func (r *Runner) pair(ctx context.Context, t Test, a, b Host) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Duration()+4*grace)
	defer cancel()
	var srv ServerResponse
	if err := r.call(ctx, b, PathServer, ServerRequest{Test: t}, &srv); err != nil {
		return Result{}, fmt.Errorf("starting the server side on %s: %w", b.Name, err)
	}
	var cli ClientResponse
	req := ClientRequest{Test: t, Peer: b.IP(), Port: srv.Port, Key: srv.Key}
	if err := r.call(ctx, a, PathClient, req, &cli); err != nil {
		// Free b now rather than when its server side times out, so a
		// dead client does not make b busy in the next rounds too.
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		defer scancel()
		_ = r.call1(sctx, b, http.MethodDelete, fmt.Sprintf("%s/%d", PathServer, srv.Port), nil, &struct{}{})
		return Result{}, fmt.Errorf("running the client side on %s: %w", a.Name, err)
	}
	return cli.Result, nil
}

// busyRetry is how long call retries an agent that answers 409: the
// agent frees itself a moment after the previous round's test, which may
// be after the runner already heard the result.
const busyRetry = 3 * time.Second

// call POSTs a JSON body to an agent and decodes the answer, retrying while
// the agent is busy for up to busyRetry.
func (r *Runner) call(ctx context.Context, h Host, path string, in, out any) error {
	deadline := time.Now().Add(busyRetry)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := r.call1(ctx, h, http.MethodPost, path, in, out)
		var ae *AgentError
		if !errors.As(err, &ae) || ae.Status != http.StatusConflict || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
	}
}

func (r *Runner) call1(ctx context.Context, h Host, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+h.Addr+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+r.Token)
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e ErrorResponse
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return &AgentError{Status: resp.StatusCode, Msg: e.Error}
		}
		return &AgentError{Status: resp.StatusCode, Msg: http.StatusText(resp.StatusCode)}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("agent answer: %w", err)
	}
	return nil
}

// AgentError is a non-200 answer of an agent.
type AgentError struct {
	Status int
	Msg    string
}

// Error says the HTTP status and the agent's message.
func (e *AgentError) Error() string { return fmt.Sprintf("agent answered %d: %s", e.Status, e.Msg) }

// IsAuth says whether err is an agent refusing the token (401 or 403).
func IsAuth(err error) bool {
	var ae *AgentError
	return errors.As(err, &ae) && (ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden)
}

// AgentProblem is why one agent cannot take part in a run.
type AgentProblem struct {
	Host Host
	Err  error
	// Fatal problems are configuration errors that make the run pointless
	// (the agent refuses the token, or lacks the backend); the others
	// (unreachable, busy) leave the agent's pairs failed and reported.
	Fatal bool
}

// Preflight asks every agent for its info (GET /api/v1/perf/info) at the
// same time and returns the problems, in hosts-file order.
func (r *Runner) Preflight(ctx context.Context) []AgentProblem {
	ctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	probs := make([]*AgentProblem, len(r.Hosts))
	var wg sync.WaitGroup
	for i, h := range r.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var info InfoResponse
			err := r.call1(ctx, h, http.MethodGet, PathInfo, nil, &info)
			switch {
			case IsAuth(err):
				probs[i] = &AgentProblem{Host: h, Err: err, Fatal: true}
			case err != nil:
				probs[i] = &AgentProblem{Host: h, Err: err}
			case !slices.Contains(info.Backends, r.Test.Backend):
				probs[i] = &AgentProblem{Host: h, Fatal: true,
					Err: fmt.Errorf("backend %s is not enabled there (enabled: %s)", r.Test.Backend, strings.Join(info.Backends, ", "))}
			case info.MaxDurationMS > 0 && r.Test.DurationMS > info.MaxDurationMS:
				probs[i] = &AgentProblem{Host: h, Fatal: true,
					Err: fmt.Errorf("tests longer than %v are refused there", time.Duration(info.MaxDurationMS)*time.Millisecond)}
			case info.Busy:
				probs[i] = &AgentProblem{Host: h, Err: errors.New("busy with another test")}
			}
		}()
	}
	wg.Wait()
	var out []AgentProblem
	for _, p := range probs {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}
