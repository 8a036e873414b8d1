package analyze

import (
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/hcatext"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

// diagnoseToolErrors judges the lines of RDMA tools that could not run
// (ibv_devinfo's "Failed to get IB devices list: …", ibstat's ibpanic,
// libibumad's "is ib_umad module loaded?").
func diagnoseToolErrors(seg *Segment, file string, d *doc, sp Span) error {
	var b strings.Builder
	for n := sp.Start; n <= sp.End; n++ {
		b.WriteString(d.line(n))
		b.WriteByte('\n')
	}
	errs, err := hcatext.ParseToolErrors(strings.NewReader(b.String()), file, sp.Start)
	if err != nil {
		return err
	}
	seg.Summary = plural(len(errs), "RDMA tool error line", "RDMA tool error lines")
	es := make([]noderules.ToolError, len(errs))
	for i, e := range errs {
		es[i] = noderules.ToolError{Kind: string(e.Kind), Device: e.Device, Port: e.Port, Errno: e.Errno, Line: e.Line, Text: e.Text}
	}
	fs, note := noderules.CheckToolErrors(file, es)
	if note != "" && len(fs) == 0 {
		seg.Empty = note
	}
	seg.Findings = append(seg.Findings, fs...)
	return nil
}
