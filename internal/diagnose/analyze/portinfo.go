package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/portinfo"
	portinforules "github.com/ibdoctor/ibdoctor/internal/rules/portinfo"
)

// diagnosePortInfo reads smpquery and ibportstate dumps (text holds the
// file's lines, those outside the segment blanked) and judges the
// PortInfo ones; NodeInfo and SwitchInfo dumps are summarised.
func diagnosePortInfo(seg *Segment, file, text string) error {
	res, err := portinfo.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	r := portinforules.Check(res, file)
	others := map[string]int{}
	var order []string
	for _, b := range res.Blocks {
		if b.What != "" && b.What != "Port info" && b.What != "MLNX ext Port info" {
			if others[b.What] == 0 {
				order = append(order, b.What)
			}
			others[b.What]++
		}
	}
	seg.Summary = fmt.Sprintf("%s (%d Active)", plural(r.Ports, "PortInfo dump", "PortInfo dumps"), r.Active)
	for _, w := range order {
		seg.Summary += ", " + plural(others[w], w+" dump", w+" dumps")
	}
	if r.Ports == 0 {
		seg.Empty = "no PortInfo dump (NodeInfo and SwitchInfo are read, not judged)"
	}
	var ns []int
	for _, s := range res.Skipped {
		ns = append(ns, s.Line)
	}
	if len(ns) > 0 {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s: not a \"Name:.....value\" line", lineList(file, ns)))
	}
	seg.Skipped = append(seg.Skipped, r.Notes...)
	seg.Findings = append(seg.Findings, r.Findings...)
	return nil
}
