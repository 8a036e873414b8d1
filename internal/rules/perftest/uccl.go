package perftest

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/uccl"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckUCCL judges the rows of a UCCL P2P benchmark (one sweep of message
// sizes, GPU memory to GPU memory through UCCL's engine). The best rate
// at MinBWBytes or more is compared with the line rate when the paste
// gives one (lineRate > 0): under bwCrit of it a perf.bw_low warning (the
// engine, its Python driver and the GPUs are in the path too, so not
// critical as for ib_write_bw). Without a line rate, a largest message
// under half the best rate (the rate fell as messages grew) or a best
// under AbsFloorGbps is a warning; otherwise nothing, with a note.
func CheckUCCL(rows []uccl.Row, lineRate float64, file string) (fs []finding.Finding, notes []string) {
	var best, largest *uccl.Row
	for i := range rows {
		r := &rows[i]
		if largest == nil || r.Size >= largest.Size {
			largest = r
		}
		if r.Size >= MinBWBytes && (best == nil || r.Gbps > best.Gbps) {
			best = r
		}
	}
	if best == nil {
		return nil, []string{fmt.Sprintf("the largest message is %s: below %d B per-message overhead hides the link's bandwidth, not judged", largest.Label, MinBWBytes)}
	}
	subj := finding.Subject{File: file}
	ev := func(r *uccl.Row) finding.Evidence {
		return finding.Evidence{Source: fmt.Sprintf("%s:%d", file, r.Line), Value: fmt.Sprintf("%s: %.2f Gbps", r.Label, r.Gbps)}
	}
	warn := func(sum string, rs ...*uccl.Row) {
		var e []finding.Evidence
		for _, r := range rs {
			e = append(e, ev(r))
		}
		f := catalog.New("perf.bw_low", subj, sum, e...)
		f.Severity = finding.Warning
		fs = append(fs, f)
	}
	switch {
	case lineRate > 0:
		if frac := best.Gbps / lineRate; frac < bwCrit {
			warn(fmt.Sprintf("UCCL P2P benchmark reached %.1f of %.0f Gb/s (%.0f%%) at %s: far below the line rate; GPU-to-GPU through UCCL's engine usually comes within 10%% of it at 1 MB and more", best.Gbps, lineRate, frac*100, best.Label), best)
		}
	case largest.Size >= MinBWBytes && largest.Gbps < best.Gbps/2:
		warn(fmt.Sprintf("UCCL P2P benchmark: %.2f Gb/s at the largest message (%s), under half of the %.2f Gb/s at %s: a link under a steady load holds its rate as messages grow", largest.Gbps, largest.Label, best.Gbps, best.Label), largest, best)
	case best.Gbps < AbsFloorGbps:
		warn(fmt.Sprintf("UCCL P2P benchmark reached only %.3g Gb/s (best, at %s): no working RDMA path is that slow", best.Gbps, best.Label), best)
	default:
		notes = append(notes, fmt.Sprintf("UCCL bandwidth (%.2f Gb/s at %s) not judged against a line rate: give --line-rate (e.g. 200, 400) or paste ibstat/ibv_devinfo of the NICs", best.Gbps, best.Label))
	}
	return fs, notes
}
