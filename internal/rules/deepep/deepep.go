// Package deepep judges DeepEP test results (internal/parse/deepep).
package deepep

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/deepep"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

const (
	// LowLatencyMinGBs is the dispatch + combine bandwidth of
	// test_low_latency.py under which its RDMA path stalls: DeepEP's
	// README reports tens of GB/s for its low-latency kernels over
	// 400 Gb/s InfiniBand, and any working RDMA link gives several GB/s.
	LowLatencyMinGBs = 1.0
	// ScalingDrop is the fraction of the best figure of one operation
	// under which another run's best figure of it in the same paste is a
	// drop worth a warning.
	ScalingDrop = 0.5
)

// Check judges DeepEP lines: low-latency bandwidth under
// LowLatencyMinGBs, and "Best" tuning lines of one operation whose RDMA
// bandwidth falls under ScalingDrop of that operation's best in the
// paste (the same test on more nodes, or a second run), are
// perf.deepep_bw_low, warnings. Without a line rate a single run's
// internode figures are read, not judged.
func Check(tun []deepep.Tuning, ll []deepep.LowLatency, source string) (out []finding.Finding, notes []string) {
	at := func(line int) string { return fmt.Sprintf("%s:%d", source, line) }
	var slow []deepep.LowLatency
	for _, r := range ll {
		if r.Op == "dispatch+combine" && r.GBs < LowLatencyMinGBs {
			slow = append(slow, r)
		}
	}
	if len(slow) > 0 {
		worst := slow[0]
		for _, r := range slow {
			if r.MaxUS > worst.MaxUS {
				worst = r
			}
		}
		sum := fmt.Sprintf("test_low_latency: dispatch + combine at %.2f GB/s on %d of the ranks, under %.0f GB/s: DeepEP's low-latency kernels move tens of GB/s over RDMA", slow[0].GBs, len(slow), LowLatencyMinGBs)
		if worst.MinUS > 0 && worst.AvgUS > 10*worst.MinUS {
			sum += fmt.Sprintf("; %s averages %.0f us per operation against a minimum of %.0f us (maximum %.0f us): most operations stall, the path can run fast", rankName(worst.Rank), worst.AvgUS, worst.MinUS, worst.MaxUS)
		}
		f := catalog.New("perf.deepep_bw_low", finding.Subject{File: source}, sum,
			finding.Evidence{Source: at(slow[0].Line), Value: fmt.Sprintf("%s dispatch+combine %.2f GB/s, avg_t %.2f us", rankName(slow[0].Rank), slow[0].GBs, slow[0].AvgUS)})
		out = append(out, f)
	}
	best := map[string]deepep.Tuning{}
	var order []string
	for _, t := range tun {
		if !t.Best || t.RDMAGBs == 0 {
			continue
		}
		b, ok := best[t.Op]
		if !ok {
			order = append(order, t.Op)
		}
		if !ok || t.RDMAGBs > b.RDMAGBs {
			best[t.Op] = t
		}
	}
	for _, op := range order {
		b := best[op]
		for _, t := range tun {
			if t.Best && t.Op == op && t.RDMAGBs > 0 && t.RDMAGBs < ScalingDrop*b.RDMAGBs {
				f := catalog.New("perf.deepep_bw_low", finding.Subject{File: source},
					fmt.Sprintf("test_internode best %s: %.2f GB/s RDMA here against %.2f GB/s in another run of the paste (line %d), %.0f%% of it: the same test loses most of its RDMA bandwidth (more nodes, another path or setting)", op, t.RDMAGBs, b.RDMAGBs, b.Line, 100*t.RDMAGBs/b.RDMAGBs),
					finding.Evidence{Source: at(t.Line), Value: fmt.Sprintf("Best %s: %.2f GB/s (RDMA), %.2f GB/s (NVL)", op, t.RDMAGBs, t.NVLGBs)},
					finding.Evidence{Source: at(b.Line), Value: fmt.Sprintf("Best %s: %.2f GB/s (RDMA), %.2f GB/s (NVL)", op, b.RDMAGBs, b.NVLGBs)})
				out = append(out, f)
				break
			}
		}
	}
	if len(best) > 0 && len(out) == 0 {
		notes = append(notes, "test_internode: best RDMA figures read; without the link's line rate a single run is not judged against it")
	}
	return out, notes
}

func rankName(r int) string {
	if r < 0 {
		return "a rank"
	}
	return fmt.Sprintf("rank %d", r)
}
