package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/mlxlink"
	mlxlinkrules "github.com/ibdoctor/ibdoctor/internal/rules/mlxlink"
)

// withPrompts returns the file's text with every line outside sp blanked
// and the prompts inside it kept: mlxlink's command line names the device
// its pages belong to.
func withPrompts(d *doc, sp Span) string {
	var b strings.Builder
	b.WriteString(strings.Repeat("\n", sp.Start-1))
	for _, l := range d.lines(sp) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// diagnoseMlxlink reads an mlxlink segment (one or more runs) and judges
// every port in it.
func diagnoseMlxlink(seg *Segment, file string, d *doc, sp Span) error {
	res, err := mlxlink.Parse(strings.NewReader(withPrompts(d, sp)), file)
	if err != nil {
		return err
	}
	r := mlxlinkrules.Check(res, file)
	seg.Summary = fmt.Sprintf("mlxlink, %s (%d Active)", plural(len(res.Ports), "port", "ports"), r.Active)
	var reasons []string
	at := map[string][]int{}
	for _, s := range res.Skipped {
		if s.Reason == "command line" || s.Reason == "banner" {
			continue
		}
		if _, ok := at[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		at[s.Reason] = append(at[s.Reason], s.Line)
	}
	for _, why := range reasons {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s: %s", lineList(file, at[why]), why))
	}
	// The tool's own errors, each said once with its lines.
	var msgs []string
	msgAt := map[string][]int{}
	for _, p := range res.Ports {
		for _, m := range p.Messages {
			if m.Key == "-E-" {
				if _, ok := msgAt[m.Value]; !ok {
					msgs = append(msgs, m.Value)
				}
				msgAt[m.Value] = append(msgAt[m.Value], m.Line)
			}
		}
	}
	for _, m := range msgs {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s: mlxlink said: %s", lineList(file, msgAt[m]), m))
	}
	seg.Skipped = append(seg.Skipped, r.Notes...)
	seg.Findings = append(seg.Findings, r.Findings...)
	return nil
}
