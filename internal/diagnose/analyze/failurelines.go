package analyze

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/host"
)

// failureWords are the words and phrases, lower case, that say something
// failed in an output of a kind ibdoctor does not read: an application's
// log, a tool's error message, a launcher's report. A match must start a
// word and end one ("terror", "errorlog" and "port_rcv_errors" are none).
var failureWords = []string{
	"fail", "failed", "fails", "failing", "failure", "failures", "error", "errors", "fatal", "panic", "abort",
	"aborted", "aborting", "timed out", "timeout", "cannot", "can't", "unable to", "refused", "unreachable",
	"no route to host", "reset by peer", "broken pipe", "exceeded", "permission denied", "not responding",
	"unrecoverable", "corrupt", "corrupted", "segmentation fault", "core dumped", "exception",
}

// failureLine reports whether one line of an unread output says something
// failed: a word of failureWords that no benign context takes back. Not
// counted: a counter or setting that names a failure and is zero or a
// value ("errors: 0", "0 errors", "no errors", "Timeout: 14",
// "timeout=30s"), a word inside an identifier ("local_ack_timeout_err"),
// "failover"/"failsafe", and shell prompts and fences.
func failureLine(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" || isFence(t) || isPrompt(l) || isProse(t) {
		return false
	}
	for i := 0; i < len(t); i++ {
		if i > 0 && isIdentByte(t[i-1]) {
			if camelFailure(t, i) {
				return true
			}
			continue
		}
		c := t[i] | 0x20
		switch c {
		case 'a', 'b', 'c', 'e', 'f', 'n', 'p', 'r', 's', 't', 'u':
		default:
			continue
		}
		for _, w := range failureWords {
			if w[0] != c || !(len(t)-i >= len(w) && strings.EqualFold(t[i:i+len(w)], w)) {
				continue
			}
			end := i + len(w)
			if end < len(t) && isIdentByte(t[end]) {
				continue // a longer word: "failover", "errorlog", "error_count"
			}
			if benignFailureContext(t[:i], w, t[end:]) {
				continue
			}
			return true
		}
	}
	return false
}

// prosePronouns are the words of a person writing about a failure, which
// programs do not print: "We saw Failed to get IB devices list on two
// nodes", "I think reporting any instance of the word "pause" as a
// potential error would be safe".
// Not "you", which programs' hints print ("ERROR: you must be root"), nor
// "us", a unit of time.
var prosePronouns = []string{"we", "we're", "we've", "my", "our", "me"}

// isProse reports whether line t is a person's sentence: it holds one of
// prosePronouns as a word of its own ("I" upper case only), or it is eight
// words or more without a digit or any of the punctuation programs put in
// their messages (":", "=", brackets, paths): "With latest perftest while
// running ib_write_bw the below errors are seen on client side".
func isProse(t string) bool {
	if strings.Count(t, " ") >= 7 && !strings.ContainsAny(t, "0123456789:=[]{}<>/\\|") {
		return true
	}
	for w := range strings.FieldsFuncSeq(t, func(r rune) bool {
		return r == ' ' || r == ',' || r == '.' || r == '!' || r == '?' || r == '"' || r == '(' || r == ')'
	}) {
		if w == "i" || len(w) > 5 {
			continue
		}
		if w == "I" || w == "I'm" || w == "I've" {
			return true
		}
		if slices.Contains(prosePronouns, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// camelFailure reports whether t holds, at i, the last part of an
// exception's CamelCase name: "Error" or "Exception" after a lower-case
// letter and at a word's end ("RuntimeError:", "DistBackendError",
// "IOException").
func camelFailure(t string, i int) bool {
	if c := t[i-1]; c < 'a' || c > 'z' {
		return false
	}
	for _, w := range [...]string{"Error", "Exception"} {
		if strings.HasPrefix(t[i:], w) && (i+len(w) == len(t) || !isIdentByte(t[i+len(w)])) {
			return true
		}
	}
	return false
}

// benignFailureContext reports whether the failure word w, between before
// and after on its line, names a counter or setting rather than a failure.
func benignFailureContext(before, w, after string) bool {
	b := strings.ToLower(strings.TrimRight(before, " \t"))
	if strings.HasSuffix(b, " 0") || b == "0" || strings.HasSuffix(b, "no") || strings.HasSuffix(b, "without") ||
		strings.HasSuffix(b, "zero") {
		return true // "0 errors", "no errors", "without error"
	}
	a := strings.TrimLeft(after, " \t:=")
	if a == after && !strings.HasPrefix(after, " ") {
		// Nothing between the word and what follows: "error(…)", "failed."
		return false
	}
	if w == "timeout" && a != "" && a[0] >= '0' && a[0] <= '9' {
		return true // a setting: "Timeout: 14", "timeout=30s"
	}
	if a != "" && a[0] == '0' && (len(a) == 1 || a[1] < '0' || a[1] > '9') && (len(a) == 1 || a[1] != 'x' && a[1] != '.') {
		return true // a zero counter: "errors: 0", "Failures 0"
	}
	return false
}

// isIdentByte reports whether c continues an identifier or a word.
func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// failureLines returns the paste.failure_lines finding of the lines ls of
// an output no reader knows, which start at line start of file: nil when
// none of its first sampleLines lines says something failed (a streamed
// input keeps only those of an unread output).
func failureLines(file string, ls []string, start int) *finding.Finding {
	if f := host.KnownFailure(file, ls, start, sampleLines); f != nil {
		return f
	}
	var first, last int
	stop := -1
	n := 0
	for i, l := range ls[:min(len(ls), sampleLines)] {
		if !failureLine(l) {
			continue
		}
		if n == 0 {
			first = i
		}
		if stopLine(l) {
			stop = i // the last: what the failure ended, not its first symptom
		}
		last = i
		n++
	}
	if n == 0 {
		return nil
	}
	ev := []finding.Evidence{{Source: fmt.Sprintf("%s:%d", file, start+first), Value: strings.TrimSpace(ls[first])}}
	if stop > first && stop != last {
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, start+stop), Value: strings.TrimSpace(ls[stop])})
	}
	if last != first {
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, start+last), Value: strings.TrimSpace(ls[last])})
	}
	msg := fmt.Sprintf("%s ibdoctor does not read %s something failed; the first: %q",
		plural(n, "line", "lines"), map[bool]string{true: "says", false: "say"}[n == 1], cut(strings.TrimSpace(ls[first]), 200))
	if stop >= 0 {
		msg += fmt.Sprintf("; line %d says the program, connection or device stopped: %q", start+stop, cut(strings.TrimSpace(ls[stop]), 200))
	}
	f := catalog.New("paste.failure_lines", finding.Subject{}, msg, ev...)
	if stop >= 0 {
		f.Severity = finding.Critical
	}
	return &f
}

// stopWords are the words and phrases, lower case, of a failure line that
// say the failure ended something rather than being reported and survived:
// the program died or gave up ("core dumped", "aborted", "exiting",
// "terminate called"), a launcher stopped the job ("CANCELLED", "exited on
// signal"), a connection cannot be used any more ("retry exceeded", the
// RDMA transport's IBV_WC_RETRY_EXC_ERR in its many spellings), or a
// device or controller was given up ("in failed state", "unrecoverable").
var stopWords = []string{
	"core dumped", "segmentation fault", "abort", "aborted", "aborting", "exiting", "terminate called",
	"terminated", "terminating", "killed", "cancelled", "canceled", "exited on signal", "exit code", "exit status",
	"in failed state", "in error state", "unrecoverable", "retry exceeded", "retry counter exceeded",
	"retry count exceeded", "retries exceeded", "retry exc", "fatal",
}

// stopLine reports whether the failure line l holds one of stopWords as
// words of their own, not taken back by a "non-"/"no"/"0" before it
// ("non-fatal", "no abort") or a zero exit ("exit code 0", "exit status 0").
func stopLine(l string) bool {
	t := strings.ToLower(l)
	for _, w := range stopWords {
		for i := 0; ; {
			j := strings.Index(t[i:], w)
			if j < 0 {
				break
			}
			j += i
			end := j + len(w)
			i = end
			if j > 0 && isIdentByte(t[j-1]) || end < len(t) && isIdentByte(t[end]) && w != "retry exc" {
				continue
			}
			b := strings.TrimRight(t[:j], " -")
			if strings.HasSuffix(b, "non") || strings.HasSuffix(b, "no") || strings.HasSuffix(b, "not") {
				continue
			}
			if strings.HasPrefix(w, "exit ") {
				a := strings.TrimLeft(t[end:], " :=")
				a = strings.TrimPrefix(a, "-")
				if a == "" || a[0] < '1' || a[0] > '9' {
					continue // "exit code 0", "exit status: 0", a name
				}
			}
			return true
		}
	}
	return false
}

// cut shortens s to at most n bytes, at a character boundary, with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
