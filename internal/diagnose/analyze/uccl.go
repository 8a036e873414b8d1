package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/uccl"
	perftestrules "github.com/ibdoctor/ibdoctor/internal/rules/perftest"
)

// diagnoseUCCL judges a UCCL P2P benchmark's result rows.
func diagnoseUCCL(seg *Segment, file string, d *doc, sp Span, opts Options, ctx *context) error {
	rows, err := uccl.Parse(strings.NewReader(segmentOnly(d, sp)), file)
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	best := rows[0]
	for i := range rows {
		rows[i].Line += sp.Start - 1
		if rows[i].Gbps > best.Gbps {
			best = rows[i]
		}
	}
	seg.Summary = fmt.Sprintf("UCCL P2P benchmark: %s, %s to %s, best %.2f Gb/s at %s", plural(len(rows), "message size", "message sizes"), rows[0].Label, rows[len(rows)-1].Label, best.Gbps, best.Label)
	fs, ns := perftestrules.CheckUCCL(rows, lineRate(seg, opts, ctx), file)
	seg.Findings = append(seg.Findings, fs...)
	notes(seg, ns)
	return nil
}
