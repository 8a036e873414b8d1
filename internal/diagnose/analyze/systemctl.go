package analyze

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/systemctl"
	"github.com/ibdoctor/ibdoctor/internal/rules/host"
)

// diagnoseSystemctl judges a pasted `systemctl status`: the units of the
// RDMA and GPU stack (host.CheckServices), and the journal lines printed
// under each unit, read as a kernel/syslog log by the kernel log reader
// (a daemon's own lines as journalctl -u prints them, kernel lines).
func diagnoseSystemctl(seg *Segment, file string, d *doc, sp Span, opts Options) error {
	units, err := systemctl.Parse(strings.NewReader(segmentOnly(d, sp)), file)
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	var words []string
	for i := range units {
		u := &units[i]
		u.Head.N += sp.Start - 1
		u.Active.N += sp.Start - 1
		for j := range u.Journal {
			u.Journal[j].N += sp.Start - 1
		}
		st := u.State
		if u.Sub != "" {
			st += " (" + u.Sub + ")"
		}
		if st == "" {
			st = "state not shown"
		}
		words = append(words, u.Name+" "+st)
	}
	seg.Summary = fmt.Sprintf("systemctl status: %s", strings.Join(words, ", "))
	fs, notes := host.CheckServices(units, file)
	seg.Findings = append(seg.Findings, fs...)
	seg.Skipped = append(seg.Skipped, notes...)
	for _, u := range units {
		if len(u.Journal) == 0 {
			continue
		}
		js := Span{Kind: KindKernel, Start: u.Journal[0].N, End: u.Journal[len(u.Journal)-1].N}
		var k Segment
		if err := diagnoseKernel(&k, file, d, js, opts); errors.Is(err, kmsg.ErrNoData) {
			seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s:%d-%d: the journal lines of %s: no kernel message in them; the daemon's own lines are shown, not judged", file, js.Start, js.End, u.Name))
			continue
		} else if err != nil {
			seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s:%d-%d: the journal lines of %s not read as a log (%v)", file, js.Start, js.End, u.Name, err))
			continue
		}
		seg.Findings = append(seg.Findings, k.Findings...)
		seg.Skipped = append(seg.Skipped, k.Skipped...)
	}
	return nil
}
