package nccllog

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ConnRetry is a run of INFO lines in which NCCL's socket layer retried a
// connect that failed (misc/socket.cc, include/socket.h):
//
//   - NCCL 2.24-2.26 socketConnectCheck: "socketPollConnect: connect
//     returned No route to host, retrying (26/34) after sleep for 2600
//     msec", for ETIMEDOUT, EHOSTUNREACH, ECONNREFUSED and the like; the
//     budget is NCCL_SOCKET_RETRY_CNT (34 by default) and the failure after
//     the last retry is a WARN "…, exceeded error retry count (35)";
//   - NCCL 2.27 and later: "socketPollConnect: connect to 10.0.0.2<29500>
//     returned Connection refused, retrying (1/34) after sleep for 100
//     msec", then WARN "… exceeded error retry count after 35 attempts";
//   - NCCL 2.4-2.23: "Call to connect returned Connection refused,
//     retrying", printed once every 1000 refused connects of the 20000
//     (RETRY_REFUSED_TIMES) it tries before it gives up.
//
// A few retries and then the process goes on are a peer that was not
// listening yet; retries that spend their budget, or that are the last
// thing the process printed, are a connect that failed.
type ConnRetry struct {
	// Line and Text are the run's first retry line; LastLine and
	// LastText its last.
	Line     int    `json:"line"`
	Text     string `json:"text"`
	LastLine int    `json:"last_line"`
	LastText string `json:"last_text"`
	// Lines counts the run's retry lines.
	Lines int `json:"lines"`
	// Attempt and Limit are the last "(k/N)" printed; 0 when the
	// wording has none.
	Attempt int `json:"attempt,omitempty"`
	Limit   int `json:"limit,omitempty"`
	// Error is the errno text, Peer the address without its port ("" when
	// the wording names none).
	Error string `json:"error"`
	Peer  string `json:"peer,omitempty"`
	// After is the first later INFO line of the process that is neither a
	// retry nor an error return: the process went on. 0 when none came.
	After int `json:"after,omitempty"`
	// Reported is set once the run has become an EventConnect.
	Reported bool `json:"reported,omitempty"`
}

// minRetryRun is how many retries a run that ends the process's log
// needs to read as a connect that failed: one or two are as likely a
// paste cut while the peer was still starting.
const minRetryRun = 3

// reRetry is one retry line of ConnRetry's wordings: peer, errno text,
// attempt, limit.
var reRetry = regexp.MustCompile(`(?:^|: )(?:Call to connect|connect(?: to (\S+?)(?:<\d+>)?)?) returned (.+?), retrying(?: \((\d+)/(\d+)\))?`)

// reRetryExceeded is the WARN a spent retry budget ends with: NCCL
// 2.24-2.26 "socketPollConnect: connect returned No route to host,
// exceeded error retry count (35)", 2.27 and later "…: connect to ADDR
// returned ERR, exceeded error retry count after 35 attempts"; NCCL
// 2.12-2.23 "socketStartConnect: exceeded retries (20000)" (connection
// refused) and "socketPollConnect: exceeded timeouts (3)".
var reRetryExceeded = regexp.MustCompile(`(?:^|: )connect(?: to (\S+?)(?:<\d+>)?)? returned (.+?), exceeded error retry count|\bsocket(?:Start|Poll)Connect: exceeded (retries|timeouts) \(\d+\)`)

// retryLine reads a retry line; ok is false for any other message.
func retryLine(msg string) (peer, errText string, attempt, limit int, ok bool) {
	if !strings.Contains(msg, ", retrying") {
		return "", "", 0, 0, false
	}
	m := reRetry.FindStringSubmatch(msg)
	if m == nil {
		return "", "", 0, 0, false
	}
	attempt, _ = strconv.Atoi(m[3])
	limit, _ = strconv.Atoi(m[4])
	return m[1], m[2], attempt, limit, true
}

// retryExceeded reads the WARN of a spent retry budget.
func retryExceeded(msg string) (peer, errText string, ok bool) {
	if !strings.Contains(msg, "exceeded ") {
		return "", "", false
	}
	m := reRetryExceeded.FindStringSubmatch(msg)
	switch {
	case m == nil:
		return "", "", false
	case m[3] == "retries":
		return "", "Connection refused", true
	case m[3] == "timeouts":
		return "", "Connection timed out", true
	}
	return m[1], m[2], true
}

// connRetry reads an INFO message of process p as part of a retry run:
// true when it is a retry line. Any other message but an error return
// tells that the process went on after the run.
func (ps *Parser) connRetry(p *Proc, n int, msg string) bool {
	peer, errText, attempt, limit, ok := retryLine(msg)
	if !ok {
		if r := p.ConnRetry; r != nil && r.After == 0 {
			if _, trace := errorReturn(msg); !trace || len(msg) >= 160 {
				r.After = n
			}
		}
		return false
	}
	r := p.ConnRetry
	if r == nil || r.After != 0 || r.Reported || r.Error != errText || r.Peer != peer {
		// A new run: the first ended (and was judged) or another peer.
		r = &ConnRetry{Line: n, Text: strings.Clone(msg), Error: strings.Clone(errText), Peer: strings.Clone(peer)}
		p.ConnRetry = r
	}
	r.Lines++
	r.LastLine, r.LastText = n, strings.Clone(msg)
	r.Attempt, r.Limit = attempt, limit
	if limit > 0 && attempt >= limit {
		// The budget is spent: the next failure gives up.
		ps.retryEvent(p, r, false)
	}
	return true
}

// retryEvent records run r of process p as a failed connect; atEnd when
// the log has ended, so that the event is put in line order among those
// of later lines (earlier, a folding parser's indices must stay valid).
func (ps *Parser) retryEvent(p *Proc, r *ConnRetry, atEnd bool) {
	r.Reported = true
	ev := Event{Kind: EventConnect, Source: ps.source, Line: r.LastLine, Host: p.Host, Pid: p.Pid, Text: r.LastText,
		Peer: r.Peer, Error: r.Error, Rank: -1, Retries: max(r.Attempt, r.Lines), RetryLimit: r.Limit}
	lg := ps.lg
	before := len(lg.Events)
	ps.event(ev)
	if atEnd && len(lg.Events) > before {
		// Keep the events in line order: a run judged at the log's end
		// goes before the events of later lines.
		i, _ := slices.BinarySearchFunc(lg.Events[:before], ev.Line, func(e Event, line int) int { return e.Line - line })
		for i < before && lg.Events[i].Line <= ev.Line {
			i++
		}
		if i < before {
			copy(lg.Events[i+1:], lg.Events[i:before])
			lg.Events[i] = ev
		}
	}
}

// flushRetries judges the runs still open at the log's end: one that the
// process never went on from is a connect that failed.
func (ps *Parser) flushRetries() {
	for _, p := range ps.lg.Procs {
		if r := p.ConnRetry; r != nil && !r.Reported && r.After == 0 && max(r.Lines, r.Attempt) >= minRetryRun {
			ps.retryEvent(p, r, true)
		}
	}
}
