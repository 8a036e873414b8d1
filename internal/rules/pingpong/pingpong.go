// Package pingpong judges the runs of libibverbs' pingpong examples
// (parsed by internal/parse/pingpong) as the perftest rules judge a
// perftest: a run that died on a work completion error, or could not
// start, is perf.test_invalid; status 12 and 13 (retry and RNR retry
// exceeded) are critical, because the peer never answered over this path.
package pingpong

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/pingpong"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Result is what the rules found.
type Result struct {
	Findings []finding.Finding
	// OK counts the runs that printed their result.
	OK int
}

// Check judges every run of res; file names the paste.
func Check(res *pingpong.Result, file string) Result {
	var out Result
	for i, r := range res.Runs {
		name := fmt.Sprintf("pingpong run %d of %d (line %d)", i+1, len(res.Runs), r.Line)
		if len(res.Runs) == 1 {
			name = "the pingpong run"
		}
		if r.Command != "" {
			name += ": " + command(r.Command)
		}
		subj := finding.Subject{File: file}
		if r.ResultLine > 0 && len(r.Errors) == 0 {
			out.OK++
			continue
		}
		for _, m := range r.Errors {
			sev := finding.Warning
			what := "failed: " + m.Text
			if m.Status >= 0 {
				st := nccllog.WCStatus(m.Status)
				info := st.Info()
				what = fmt.Sprintf("failed on a work completion with status %d, %s (%s)", m.Status, info.Name, info.Text)
				if info.Meaning != "" {
					what += ": " + info.Meaning
				}
				if st == nccllog.WCRetryExcErr || st == nccllog.WCRNRRetryErr {
					sev = finding.Critical
				}
			} else if strings.HasPrefix(m.Text, "parse WC failed") && len(r.Errors) > 1 {
				continue // the program's summary of the status line above
			}
			f := catalog.New("perf.test_invalid", subj, fmt.Sprintf("%s %s; nothing was measured", name, what),
				finding.Evidence{Source: fmt.Sprintf("%s:%d", file, m.Line), Value: m.Text})
			if r.Remote != nil && r.Local != nil {
				f.Evidence = append(f.Evidence, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, r.Local.Line), Value: "local GID " + orDash(r.Local.GID)},
					finding.Evidence{Source: fmt.Sprintf("%s:%d", file, r.Remote.Line), Value: "remote GID " + orDash(r.Remote.GID)})
			}
			f.Severity = sev
			out.Findings = append(out.Findings, f)
			break // the first error is the cause; the rest follow from it
		}
	}
	catalog.Sort(out.Findings)
	return out
}

// command drops a shell prompt before the program's name.
func command(c string) string {
	f := strings.Fields(c)
	for i, w := range f {
		if strings.HasSuffix(w[strings.LastIndexByte(w, '/')+1:], "_pingpong") {
			return strings.Join(f[i:], " ")
		}
	}
	return c
}

// orDash shows an empty GID (InfiniBand without -g) as "::".
func orDash(s string) string {
	if s == "" {
		return "::"
	}
	return s
}
