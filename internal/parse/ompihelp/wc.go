package ompihelp

import (
	"regexp"
	"strings"
)

// wcStatuses are the work-completion status names openib's
// btl_openib_component_status_to_string prints, by ibv_wc_status.
var wcStatuses = []string{
	"SUCCESS", "LOCAL LENGTH ERROR", "LOCAL QP OPERATION ERROR", "LOCAL EEC OPERATION ERROR",
	"LOCAL PROTOCOL ERROR", "WORK REQUEST FLUSHED ERROR", "MEMORY WINDOW BIND ERROR",
	"BAD RESPONSE ERROR", "LOCAL ACCESS ERROR", "INVALID REQUEST ERROR", "REMOTE ACCESS ERROR",
	"REMOTE OPERATION ERROR", "RETRY EXCEEDED ERROR", "RECEIVER NOT READY RETRY EXCEEDED ERROR",
	"LOCAL RDD VIOLATION ERROR", "INVALID READ REQUEST ERROR", "REMOTE ABORT ERROR",
	"INVALID EECN ERROR", "INVALID EEC STATE ERROR", "FATAL ERROR", "RESPONSE TIMEOUT ERROR",
	"GENERAL ERROR", "STATUS UNDEFINED",
}

// FlushStatus is the status of work flushed from a queue pair already in
// the error state: fallout of an earlier failure.
const FlushStatus = "WORK REQUEST FLUSHED ERROR"

var (
	// A terminal or a mail client wraps these long lines anywhere, even
	// inside a word ("error polling L" / "P CQ"), so they are matched
	// with every blank taken out.
	reWCDense   = regexp.MustCompile(`errorpolling(\w{0,3})CQwithstatus([A-Z]+?)statusnumber(\d+)forwr_id(\w+)opcode(\d+)(?:vendorerror(-?\d+))?(?:qp_idx(\d+))?`)
	rePollDense = regexp.MustCompile(`errorpolling(\w{0,3})CQwith(-?\d+)errnosays`)
	rePollSays  = regexp.MustCompile(`errno\s*says\s+(.+?)\s*$`)
	reWCFrom    = regexp.MustCompile(`\]\s*from\s+(\S+)\s+(?:to:\s+(\S+)\s+)?error`)
	reWCNode    = regexp.MustCompile(`^\[([^\[\]\s]+)\]\[\[`)
)

// maxWCLines bounds the lines one wrapped handle_wc or poll_device line
// is read from (blank lines a quoting or an archive put between count).
const maxWCLines = 8

// wcStart says whether t (collapsed) starts openib's handle_wc or
// poll_device error line.
func wcStart(t string) bool {
	if strings.Contains(t, ":handle_wc]") || strings.Contains(t, ":poll_device]") {
		return true
	}
	return strings.HasPrefix(t, "error polling ") && strings.Contains(t, " CQ with ")
}

// nextText is the first non-blank line of ls from i (collapsed) and its
// index, "" when there is none within maxWCLines.
func nextText(ls []string, i int) (int, string) {
	for j := i; j < len(ls) && j < i+maxWCLines; j++ {
		if t := collapse(ls[j]); t != "" {
			return j, t
		}
	}
	return i, ""
}

// wcLines reads openib's handle_wc or poll_device error line at the top
// of ls, however wrapped: the message and how many lines it took.
func wcLines(ls []string) (Message, int, bool) {
	if len(ls) == 0 {
		return Message{}, 0, false
	}
	first := collapse(ls[0])
	if !wcStart(first) {
		return Message{}, 0, false
	}
	var parts []string
	for i := 0; i < len(ls) && i < maxWCLines; i++ {
		t := collapse(ls[i])
		if i > 0 && (isDashes(t) || strings.HasPrefix(t, "```") || wcStart(t) && !strings.HasPrefix(t, "error polling")) {
			break
		}
		if t == "" {
			continue
		}
		parts = append(parts, t)
		joined := strings.Join(parts, " ")
		dense := strings.Join(strings.Fields(joined), "")
		if m := reWCDense.FindStringSubmatch(dense); m != nil {
			if m[6] == "" {
				// "vendor error N qp_idx N" may be wrapped onto the next
				// line: take it when it is.
				if j, rest := nextText(ls, i+1); rest != "" && strings.HasPrefix(strings.ReplaceAll(rest, " ", ""), "vendor") {
					parts = append(parts, rest)
					joined = strings.Join(parts, " ")
					m = reWCDense.FindStringSubmatch(strings.Join(strings.Fields(joined), ""))
					i = j
				}
			}
			status := m[2]
			for _, s := range wcStatuses {
				if strings.ReplaceAll(s, " ", "") == m[2] {
					status = s
				}
			}
			msg := Message{Topic: CompletionError, Text: joined, Fields: map[string]string{}}
			msg.field("Status", status)
			msg.field("Status number", m[3])
			if m[6] != "" {
				msg.field("Vendor error", m[6])
			}
			if m[1] != "" {
				msg.field("CQ", m[1])
			}
			if f := reWCFrom.FindStringSubmatch(joined); f != nil {
				msg.Host = f[1]
				if f[2] != "" {
					msg.field("Peer host", f[2])
				}
			}
			return msg, i + 1, true
		}
		if m := rePollDense.FindStringSubmatch(dense); m != nil {
			msg := Message{Topic: PollError, Text: joined, Fields: map[string]string{}}
			msg.field("Return", m[2])
			if s := rePollSays.FindStringSubmatch(joined); s != nil {
				msg.field("Errno says", s[1])
			}
			if m[1] != "" {
				msg.field("CQ", m[1])
			}
			if f := reWCNode.FindStringSubmatch(joined); f != nil {
				msg.Host = f[1]
			} else if f := reWCFrom.FindStringSubmatch(joined); f != nil {
				msg.Host = f[1]
			}
			return msg, i + 1, true
		}
	}
	return Message{}, 0, false
}
