// Package pingpong reads the output of libibverbs' example programs
// ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong and
// ibv_xsrq_pingpong (rdma-core libibverbs/examples): the "local address:"
// and "remote address:" lines, the "N bytes in S seconds = R Mbit/sec" and
// "N iters in S seconds = U usec/iter" results, and their error lines
// ("Failed status transport retry counter exceeded (12) for wr_id 2",
// "Couldn't connect to host:port", "Failed to modify QP to RTR").
package pingpong

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoRun says the text holds no pingpong output.
var ErrNoRun = errors.New("no pingpong \"local address:\" line, result or error")

// Addr is a "local address:  LID 0x0004, QPN 0x00004e, PSN 0x2b5d1c, GID ::"
// line.
type Addr struct {
	LID, QPN, PSN, GID string
	Line               int
}

// Message is an error line.
type Message struct {
	Text string
	Line int
	// Status is the work-completion status of a "Failed status … (N) for
	// wr_id" line, -1 for other messages.
	Status int
}

// Run is one program run.
type Run struct {
	// Command is the command line above the run, "" when not pasted.
	Command       string
	Line          int
	Local, Remote *Addr
	// Mbps and UsecPerIter are the results, 0 when not printed.
	Mbps, UsecPerIter float64
	ResultLine        int
	Errors            []Message
}

// Result is every run of a paste.
type Result struct {
	Runs    []*Run
	Skipped []int
}

var (
	reAddr   = regexp.MustCompile(`^(local|remote) address:\s+LID (\S+?),\s*QPN (\S+?),\s*PSN (\S+?)(?:,\s*GID (\S*))?$`)
	reBytes  = regexp.MustCompile(`^\d+ bytes in [\d.]+ seconds = ([\d.]+) Mbit/sec$`)
	reIters  = regexp.MustCompile(`^\d+ iters in [\d.]+ seconds = ([\d.]+) usec/iter$`)
	reFailed = regexp.MustCompile(`^Failed status (.*) \((\d+)\) for wr_id`)
)

// Header says whether t starts a pingpong run's output.
func Header(t string) bool {
	return strings.HasPrefix(t, "local address:") && strings.Contains(t, ", QPN ") && strings.Contains(t, "LID ")
}

// IsCommand says whether t runs a pingpong program (with or without its
// prompt).
func IsCommand(t string) bool {
	for _, w := range strings.Fields(t) {
		base := w[strings.LastIndexByte(w, '/')+1:]
		if strings.HasSuffix(base, "_pingpong") && len(base) <= 20 {
			return true
		}
	}
	return false
}

// reExchange is the message of a failed address exchange over the
// programs' TCP socket as their pp_server_exch_dest and pp_client_exch_dest
// print it (rdma-core libibverbs/examples: "%d/%d: Couldn't read remote
// address"; the OFED 1.x rdma_lat and rdma_bw, which share the functions,
// put the pid and function name first: "5924:pp_server_exch_dest: 0/45
// Couldn't read remote address"). The byte count or the pp_ function name
// must be there: "Couldn't read remote address" alone is many programs'.
var reExchange = regexp.MustCompile(`^(?:(?:\d+:)?pp_\w+: (?:\d+/\d+:? )?|\d+/\d+: )Couldn't (?:read|send) (?:remote|local) address\b`)

// ExchangeLine says whether t is the programs' failed address exchange
// line (see reExchange).
func ExchangeLine(t string) bool { return strings.Contains(t, "Couldn't") && reExchange.MatchString(t) }

// errorLine says whether t is one of the programs' error lines.
func errorLine(t string) bool {
	if ExchangeLine(t) {
		return true
	}
	for _, p := range []string{"Failed status ", "Couldn't ", "Failed to ", "failed to ", "Unable to ", "client read:", "server read:", "client write:", "server write:", "parse WC failed", "Completion for unknown wr_id", "No IB devices found", "IB device ", "Error, "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// Parse reads the runs of a paste.
func Parse(r io.Reader, source string) (*Result, error) {
	res := &Result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var cur *Run
	n := 0
	pendingCmd, pendingLine := "", 0
	start := func() {
		cur = &Run{Command: pendingCmd, Line: n}
		if pendingLine > 0 {
			cur.Line = pendingLine
		}
		res.Runs = append(res.Runs, cur)
		pendingCmd, pendingLine = "", 0
	}
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		if IsCommand(t) {
			pendingCmd, pendingLine = t, n
			cur = nil
			continue
		}
		if m := reAddr.FindStringSubmatch(t); m != nil {
			a := &Addr{LID: m[2], QPN: m[3], PSN: m[4], GID: m[5], Line: n}
			if m[1] == "local" {
				if cur == nil || cur.Local != nil {
					start()
				}
				cur.Local = a
			} else {
				if cur == nil || cur.Remote != nil {
					start()
				}
				cur.Remote = a
			}
			continue
		}
		if m := reBytes.FindStringSubmatch(t); m != nil {
			if cur == nil {
				start()
			}
			cur.Mbps, _ = strconv.ParseFloat(m[1], 64)
			cur.ResultLine = n
			continue
		}
		if m := reIters.FindStringSubmatch(t); m != nil {
			if cur == nil {
				start()
			}
			cur.UsecPerIter, _ = strconv.ParseFloat(m[1], 64)
			if cur.ResultLine == 0 {
				cur.ResultLine = n
			}
			continue
		}
		if errorLine(t) {
			if cur == nil {
				start()
			}
			msg := Message{Text: t, Line: n, Status: -1}
			if m := reFailed.FindStringSubmatch(t); m != nil {
				msg.Status, _ = strconv.Atoi(m[2])
			}
			cur.Errors = append(cur.Errors, msg)
			continue
		}
		res.Skipped = append(res.Skipped, n)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if len(res.Runs) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoRun}
	}
	return res, nil
}
