// Package nfs judges NFS-Ganesha's RDMA transport lines.
package nfs

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ganesha"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckGanesha judges Ganesha's RDMA lines: those logged at a failure
// level are one nfs.ganesha_rdma_error, critical at CRIT, MAJ or FATAL,
// a warning at WARN; EVENT, INFO and debug lines (memory regions and
// buffers registered) are its routine bookkeeping: no finding.
func CheckGanesha(source string, ls []ganesha.Line) []finding.Finding {
	var bad []ganesha.Line
	crit := false
	for _, l := range ls {
		if l.Failure() {
			bad = append(bad, l)
			crit = crit || l.Level != "WARN"
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sum := fmt.Sprintf("NFS-Ganesha's RDMA transport (libntirpc) logged %d failure line(s) at level %s; the first: %q", len(bad), bad[0].Level, bad[0].Msg)
	f := catalog.New("nfs.ganesha_rdma_error", finding.Subject{File: source}, sum)
	for _, l := range bad[:min(len(bad), 4)] {
		f.Evidence = append(f.Evidence, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, l.Line), Value: l.Text})
	}
	if !crit {
		f.Severity = finding.Warning
	}
	return []finding.Finding{f}
}
