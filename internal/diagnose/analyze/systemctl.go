package analyze

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
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
	if f := trailingFailures(file, d, sp, units); f != nil {
		seg.Findings = append(seg.Findings, *f)
	}
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

// trailingFailures is the paste.failure_lines finding of the lines pasted
// under the last unit that are not its journal (the author's prose, then
// another program's log: a SHARP client's "[host:1:28576 unique id …]
// ERROR collect_ports_data: device mlx5_0 port 1 is not valid (port is
// used by SM)" under `systemctl status sharp_am`). The systemctl reader
// keeps every line under the fields as the journal; the tail starts at
// the first of them, after a blank line, that is no log line (journal
// lines carry a time stamp); nil when none of it says something failed.
func trailingFailures(file string, d *doc, sp Span, units []systemctl.Unit) *finding.Finding {
	if len(units) == 0 {
		return nil
	}
	j := units[len(units)-1].Journal
	for k, l := range j {
		n := l.N
		if k == 0 || n-1 == j[k-1].N || kmsg.DetectLine(l.Text) || n < sp.Start || n > sp.End {
			continue // no blank line above it, or a log line
		}
		ls := d.lines(sp)
		return failureLines(file, ls[n-sp.Start:], n)
	}
	return nil
}
