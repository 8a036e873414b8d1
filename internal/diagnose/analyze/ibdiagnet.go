package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiagnet"
	ibdiagrules "github.com/ibdoctor/ibdoctor/internal/rules/ibdiagnet"
)

// diagnoseIBDiagnet parses an ibdiagnet segment (text holds the file's
// lines, those outside the segment blanked) and judges it; the summary
// says what ibdiagnet looked at, so a clean run shows what was judged.
func diagnoseIBDiagnet(seg *Segment, file, text string) error {
	r, err := ibdiagnet.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	res := ibdiagrules.Check(r)
	seg.Summary = "ibdiagnet"
	switch {
	case r.Major == 2 && r.Version != "":
		seg.Summary += " (" + r.Version + ")"
	case r.Major == 1:
		seg.Summary += " 1.x"
	}
	seg.Summary += ": " + res.Judged
	var reasons []string
	at := map[string][]int{}
	for _, s := range r.Skipped {
		if _, ok := at[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		at[s.Reason] = append(at[s.Reason], s.Line)
	}
	for _, why := range reasons {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s: %s", lineList(file, at[why]), why))
	}
	seg.Skipped = append(seg.Skipped, res.Notes...)
	seg.Findings = append(seg.Findings, res.Findings...)
	return nil
}
