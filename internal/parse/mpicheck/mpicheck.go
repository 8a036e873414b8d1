// Package mpicheck finds the lines with which MPI test suites report a
// wrong result: the MPICH test suite (test/mpi, also run by Open MPI's
// MTT) prints "Did not get expected value for reduce scatter" and the
// values it compared ("[367] L recvbuf[2] = 9304802016, expected
// 9415283180256"), and MTest_Finalize ends a failed test with " Found 3
// errors" (" No Errors" when it passed). Lines may carry mpirun's
// --tag-output and --timestamp-output labels ("Sun Dec 24 00:05:00
// 2017[1,367]<stdout>:"); records glued together by a lost newline are
// found too.
package mpicheck

import (
	"strconv"
	"strings"
)

// Result is one wrong-result line.
type Result struct {
	Line int    `json:"line"`
	Text string `json:"text"` // the message, labels removed
}

const didNot = "did not get expected"

// WrongResult returns the message of a line that reports a wrong result,
// false when l is none.
func WrongResult(l string) (string, bool) {
	low := strings.ToLower(l)
	if i := strings.Index(low, didNot); i >= 0 {
		msg := l[i:]
		// A glued record: the next label starts a new one.
		if j := strings.Index(msg, "<stdout>:"); j > 0 {
			msg = msg[:j]
		}
		return strings.TrimSpace(msg), true
	}
	t := strings.TrimSpace(stripLabel(l))
	if rest, ok := strings.CutPrefix(t, "Found "); ok {
		f := strings.Fields(rest)
		if len(f) == 2 && (f[1] == "errors" || f[1] == "error") {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
				return t, true
			}
		}
	}
	return "", false
}

// stripLabel removes mpirun's "[1,367]<stdout>:" label and any
// timestamp before it.
func stripLabel(l string) string {
	for _, s := range []string{"<stdout>:", "<stderr>:"} {
		if i := strings.Index(l, s); i >= 0 && strings.Contains(l[:i], "[") {
			return l[i+len(s):]
		}
	}
	return l
}
