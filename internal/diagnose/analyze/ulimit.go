package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/proc"
	"github.com/ibdoctor/ibdoctor/internal/rules/host"
)

// diagnoseUlimit judges pasted `ulimit -a` output (or /proc/<pid>/limits)
// by its locked-memory limit: RDMA memory registration pins pages under
// it. text has the file's line numbers.
func diagnoseUlimit(seg *Segment, file, text string) error {
	l, line, err := proc.ParseUlimit(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = "max locked memory " + host.LimitText(l)
	ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", file, line)}
	if ls := strings.Split(text, "\n"); line >= 1 && line <= len(ls) {
		ev.Value = strings.TrimSpace(ls[line-1])
	}
	fs := host.CheckPastedMemlock(l, ev)
	for i := range fs {
		fs[i].Subject.File = file
	}
	seg.Findings = append(seg.Findings, fs...)
	return nil
}
