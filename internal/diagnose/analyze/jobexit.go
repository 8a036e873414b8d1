package analyze

import (
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/ompihelp"
	ncclrules "github.com/ibdoctor/ibdoctor/internal/rules/nccl"
)

// jobExit adds to the first judged NCCL log of a paste the death of its
// job that mpirun reports anywhere in the file ("mpirun detected that one
// or more processes exited with non-zero status … Exit code: 3", a rank
// that exited on a signal), with a program's "nccl_allreduce returned
// error code 3" when one is there: nccl.call_failed, critical. A paste
// where something is critical already tells why the job died; an NCCL
// log that reads healthy does not make a failed job healthy.
func jobExit(name string, d *doc, spans []Span, segs []*Segment) {
	at := slices.IndexFunc(spans, func(sp Span) bool { return sp.Kind == KindNCCLLog })
	if at < 0 || segs[at] == nil || segs[at].Failed {
		return
	}
	for _, s := range segs {
		if s != nil && slices.ContainsFunc(s.Findings, func(f finding.Finding) bool { return f.Severity == finding.Critical }) {
			return
		}
	}
	var ex ompihelp.JobExit
	found := false
	var res ncclrules.ResultLine
	for _, p := range d.parts {
		if !found {
			ex, found = ompihelp.FindJobExit(p.ls, p.start)
		}
		if res.Line == 0 {
			for i, l := range p.ls {
				if code, ok := nccllog.ResultCode(l); ok {
					res = ncclrules.ResultLine{Line: p.start + i, Text: strings.TrimSpace(l), Code: code}
					break
				}
			}
		}
	}
	if !found {
		return
	}
	seg := segs[at]
	seg.Findings = append(seg.Findings, ncclrules.JobDied(name, ex, res))
	*seg = finish(*seg, name, nil)
}
