package analyze

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/diagnose/analyze"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
)

// writeText renders the report for people: the verdict, then per file the
// segments found (kind, lines, what was parsed, what was skipped), then
// the findings with evidence, causes and remedies.
func writeText(w io.Writer, sty report.Style, r *analyze.Report) {
	segs := 0
	for _, f := range r.Files {
		for _, s := range f.Segments {
			if s.Kind != analyze.KindUnknown {
				segs++
			}
		}
	}
	verdict := report.VerdictLine(sty, "analyze", r.Findings)
	switch {
	case r.ExitCode == finding.ExitCannot && len(r.Findings) == 0:
		verdict = "analyze: " + sty.Severity(finding.Critical, "NOT ANALYSED (exit 3)")
	case r.ExitCode == finding.ExitCannot:
		verdict += " — " + sty.Severity(finding.Critical, "some input could not be analysed (exit 3)")
	}
	fmt.Fprintf(w, "%s — %s, %s\n", verdict, plural(len(r.Files), "file", "files"), plural(segs, "output", "outputs"))
	if !r.IsJudged() {
		fmt.Fprintf(w, "not judged: %s\n", r.NotJudged)
	}
	for _, f := range r.Files {
		fmt.Fprintln(w)
		switch {
		case f.Error != "" && f.NotRecognised:
			fmt.Fprintf(w, "%s: not recognised: %s\n", sty.Bold(f.File), f.Error)
			continue
		case f.Error != "":
			fmt.Fprintf(w, "%s: could not be read: %s\n", sty.Bold(f.File), f.Error)
			continue
		case f.NotRecognised:
			fmt.Fprintf(w, "%s: not recognised as the output of any tool ibdoctor reads", sty.Bold(f.File))
			if f.Closest != nil && f.Closest.Kind != analyze.KindUnknown {
				fmt.Fprintf(w, "; closest: %s (score %d/100)", f.Closest.Kind, f.Closest.Score)
			}
			fmt.Fprintln(w, "\n  force a kind with --kind (list them with --kind list)")
			continue
		}
		fmt.Fprintln(w, sty.Bold(f.File))
		for _, s := range f.Segments {
			kind := string(s.Kind)
			if kind == "" {
				kind = "?"
			}
			fmt.Fprintf(w, "  lines %-9s %-16s %s%s\n", s.Lines, kind, s.Summary, counts(s.Findings))
			for _, sk := range s.Skipped {
				fmt.Fprintf(w, "    %s %s\n", sty.Dim("skipped:"), sk)
			}
		}
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w)
		report.Findings(w, sty, r.Findings)
	}
}

func counts(fs []finding.Finding) string {
	c, wa, i := report.Counts(fs)
	var p []string
	for _, x := range []struct {
		n    int
		what string
	}{{c, "critical"}, {wa, "warning"}, {i, "info"}} {
		if x.n > 0 {
			p = append(p, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	if len(p) == 0 {
		return ""
	}
	return " — " + strings.Join(p, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
