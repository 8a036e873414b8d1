package ucx

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxperf"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// CheckPerf judges ucx_perftest tables. A bandwidth test (a name ending
// in "_bw") whose Final row's overall bandwidth falls short of the line
// rate (Gb/s; 0: not known) is perf.bw_low, with the thresholds perftest
// results are judged by (critical under limits.PerfBWCrit of the rate,
// a warning under limits.PerfBWWarn). Without a line rate nothing is
// judged but noted; a table without its Final row is noted (the run was
// cut or failed before it ended).
func CheckPerf(tests []*ucxperf.Test, lineRateGbps float64, source string) (out []finding.Finding, notes []string) {
	for _, t := range tests {
		name := t.Name
		if name == "" {
			name = "ucx_perftest"
		}
		if t.Final == nil {
			notes = append(notes, fmt.Sprintf("line %d: %s printed no Final row (%d progress rows): the run was cut or stopped before it ended, not judged", t.Line, name, len(t.Rows)))
			continue
		}
		if !IsBandwidthTest(t.Name) {
			continue
		}
		if lineRateGbps <= 0 {
			notes = append(notes, fmt.Sprintf("%s: bandwidth not judged: give --line-rate (e.g. 200 for HDR, 400 for NDR)", name))
			continue
		}
		gbps := t.Final.BWOverall * 8 / 1000
		frac := gbps / lineRateGbps
		if frac >= limits.PerfBWWarn {
			continue
		}
		f := catalog.New("perf.bw_low", finding.Subject{File: source},
			fmt.Sprintf("ucx_perftest %s reached %.1f of %.0f Gb/s (%.0f%%) overall", name, gbps, lineRateGbps, frac*100),
			finding.Evidence{Source: fmt.Sprintf("%s:%d", source, t.Final.Line), Value: fmt.Sprintf("Final: %d iterations, %.2f MB/s overall", t.Final.Iterations, t.Final.BWOverall)})
		if frac >= limits.PerfBWCrit {
			f.Severity = finding.Warning
		}
		out = append(out, f)
	}
	return out, notes
}

// IsBandwidthTest says whether a ucx_perftest test measures bandwidth
// (tag_bw, put_bw, ucp_am_bw, stream_bw …); "" (unnamed) does not count.
func IsBandwidthTest(name string) bool {
	return len(name) > 3 && name[len(name)-3:] == "_bw"
}
