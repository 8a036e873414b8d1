package ompihelp

import (
	"strconv"
	"strings"
)

// JobExit is mpirun's report that a process of the job ended in failure:
//
//	mpirun detected that one or more processes exited with non-zero status, thus causing
//	the job to be terminated. The first process to do so was:
//
//	  Process name: [[56171,1],6]
//	  Exit code:    3
//
// ("mpiexec detected …" when started so; Open MPI's ORTE and PRRTE
// runtimes word it alike), or
//
//	mpirun noticed that process rank 0 with PID 1234 on node gpu1 exited on signal 9 (Killed).
//
// Line is the report's first line, Text that line; Process and Code are
// the process name and exit code when printed (Code 0 when not), Signal
// the signal text of the second form.
type JobExit struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Process string `json:"process,omitempty"`
	Code    int    `json:"code,omitempty"`
	Signal  string `json:"signal,omitempty"`
}

// FindJobExit returns the first of mpirun's failed-process reports in
// lines (numbered from first). A line is looked at only when it holds
// "exited with non-zero status" or " exited on signal ", so that prose
// and logs cost a substring search a line.
func FindJobExit(lines []string, first int) (JobExit, bool) {
	for i, l := range lines {
		switch {
		case strings.Contains(l, "exited with non-zero status"):
			t := strings.TrimSpace(l)
			if !strings.Contains(t, "detected that one or more processes") {
				continue
			}
			e := JobExit{Line: first + i, Text: t}
			for _, f := range lines[i+1 : min(len(lines), i+8)] {
				f = strings.TrimSpace(strings.ReplaceAll(f, "\u00a0", " "))
				if v, ok := strings.CutPrefix(f, "Process name:"); ok {
					e.Process = strings.TrimSpace(v)
				}
				if v, ok := strings.CutPrefix(f, "Exit code:"); ok {
					e.Code, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			return e, true
		case strings.Contains(l, " exited on signal "):
			t := strings.TrimSpace(l)
			k := strings.Index(t, " exited on signal ")
			if k < 0 || !strings.Contains(t[:k], " noticed that process rank ") {
				continue
			}
			e := JobExit{Line: first + i, Text: t}
			e.Signal = strings.TrimSuffix(strings.TrimSpace(t[k+len(" exited on signal "):]), ".")
			return e, true
		}
	}
	return JobExit{}, false
}
