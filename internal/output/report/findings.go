package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// Document is the JSON shape of check and doctor: the findings plus the
// verdict and the collection gaps (extensions are additive).
type Document struct {
	Host string `json:"host,omitempty"`
	finding.Outcome
	Findings []finding.Finding `json:"findings"`
	Gaps     []snapshot.Gap    `json:"gaps"`
}

// NewDocument builds the JSON document; nil slices become [] so consumers
// never see null.
func NewDocument(host string, fs []finding.Finding, gaps []snapshot.Gap) Document {
	if gaps == nil {
		gaps = []snapshot.Gap{}
	}
	out, fs := finding.Judge(fs, "")
	return Document{Host: host, Outcome: out, Findings: fs, Gaps: gaps}
}

// SubjectString renders a subject compactly: "mlx5_3 port 1 (ib0)".
func SubjectString(s finding.Subject) string {
	var parts []string
	if s.Device != "" {
		d := s.Device
		if s.Port > 0 {
			d += " port " + strconv.Itoa(s.Port)
		}
		parts = append(parts, d)
	} else if s.Port > 0 {
		parts = append(parts, "port "+strconv.Itoa(s.Port))
	}
	if s.NetDev != "" {
		parts = append(parts, "("+s.NetDev+")")
	}
	if s.GPU != "" {
		parts = append(parts, "GPU "+s.GPU)
	} else if s.PCI != "" && s.Device == "" {
		parts = append(parts, "PCI "+s.PCI)
	}
	if s.NodeDesc != "" {
		parts = append(parts, fmt.Sprintf("%q", s.NodeDesc))
	}
	if s.NodeGUID != "" {
		parts = append(parts, s.NodeGUID)
	}
	if s.Peer != nil {
		parts = append(parts, "↔ "+SubjectString(*s.Peer))
	}
	if s.Rank != "" {
		parts = append(parts, "rank "+s.Rank)
	}
	if s.File != "" {
		parts = append(parts, s.File)
	}
	if len(parts) == 0 && s.Host != "" {
		return s.Host
	}
	return strings.Join(parts, " ")
}

// Counts returns how many findings have each severity.
func Counts(fs []finding.Finding) (crit, warn, info int) {
	for _, f := range fs {
		switch f.Severity {
		case finding.Critical:
			crit++
		case finding.Warning:
			warn++
		case finding.Info:
			info++
		}
	}
	return
}

// VerdictLine is the one-line summary: "gpu017: CRITICAL (2 critical, 1
// warning)".
func VerdictLine(st Style, host string, fs []finding.Finding) string {
	c, w, i := Counts(fs)
	v := strings.ToUpper(finding.Verdict(fs))
	var sev finding.Severity
	switch {
	case c > 0:
		sev = finding.Critical
	case w > 0:
		sev = finding.Warning
	}
	verdict := st.Green(v)
	if sev != "" {
		verdict = st.Severity(sev, v)
	}
	var n []string
	for _, x := range []struct {
		k string
		n int
	}{{"critical", c}, {"warning", w}, {"info", i}} {
		if x.n > 0 {
			n = append(n, fmt.Sprintf("%d %s", x.n, x.k))
		}
	}
	line := verdict
	if host != "" {
		line = host + ": " + verdict
	}
	if len(n) > 0 {
		line += " (" + strings.Join(n, ", ") + ")"
	}
	return line
}

// Findings writes findings as text: one block each with the summary,
// evidence, likely causes and the next commands.
func Findings(w io.Writer, st Style, fs []finding.Finding) {
	for i, f := range fs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		sev := strings.ToUpper(string(f.Severity))
		head := st.Severity(f.Severity, fmt.Sprintf("%-8s", sev)) + " " + st.Bold(f.ID)
		if subj := SubjectString(f.Subject); subj != "" {
			head += "  " + subj
		}
		fmt.Fprintln(w, head)
		fmt.Fprintf(w, "  %s\n", f.Summary)
		for _, e := range f.Evidence {
			fmt.Fprintf(w, "  %s %s = %s\n", st.Dim("evidence:"), e.Source, strings.TrimSpace(e.Value))
		}
		if len(f.Causes) > 0 {
			fmt.Fprintf(w, "  %s %s\n", st.Dim("causes:  "), strings.Join(f.Causes, "; "))
		}
		for j, r := range f.Remedy {
			label := "next:    "
			if j > 0 {
				label = "         "
			}
			fmt.Fprintf(w, "  %s %s\n", st.Dim(label), r)
		}
	}
}

// Gaps writes the collection warnings.
func Gaps(w io.Writer, st Style, gaps []snapshot.Gap) {
	if len(gaps) == 0 {
		return
	}
	fmt.Fprintf(w, "%s %d file(s) could not be read; what depends on them was not judged:\n", st.Severity(finding.Warning, "collection:"), len(gaps))
	for _, g := range gaps {
		fmt.Fprintf(w, "  %s: %s\n", g.Path, g.Err)
	}
}
