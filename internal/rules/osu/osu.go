// Package osu judges OSU Micro-Benchmarks tables (internal/parse/osu).
package osu

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/osu"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

const (
	// SmallLatencyUS is the small-message latency (8 B or less) above
	// which a point-to-point OSU latency test did not run over RDMA:
	// MPI over InfiniBand or RoCE takes 1-5 us, over TCP (IPoIB or
	// Ethernet) tens of microseconds.
	SmallLatencyUS = 10.0
	// LowBandwidthMBs is the best bandwidth at 64 KiB or more under which
	// a bandwidth test did not run over RDMA: any RDMA link of 10 Gb/s or
	// more moves well over 1000 MB/s at large messages (perftest's
	// TCP-like rule judges the same way).
	LowBandwidthMBs = 1000.0
	// largeBytes is the size from which bandwidth is judged.
	largeBytes = 64 * 1024
)

// Check judges OSU tables: a table that ends in a hang marker or an
// error is perf.benchmark_stopped (a warning); a point-to-point latency
// test over SmallLatencyUS at 8 B or less is perf.lat_high, a bandwidth
// test under LowBandwidthMBs at 64 KiB or more perf.bw_low (warnings:
// figures of TCP, not of RDMA). Collective latencies grow with the
// process count and are not judged. notes says what was judged.
func Check(tables []*osu.Table, source string) (out []finding.Finding, notes []string) {
	at := func(line int) string { return fmt.Sprintf("%s:%d", source, line) }
	for _, t := range tables {
		name := t.Title
		if name == "" {
			name = "OSU table"
		}
		if len(t.Rows) == 0 {
			notes = append(notes, fmt.Sprintf("%s: %s has no rows, not judged", at(t.Line), name))
			continue
		}
		last := t.Rows[len(t.Rows)-1]
		if t.Stop != "" {
			f := catalog.New("perf.benchmark_stopped", finding.Subject{File: source},
				fmt.Sprintf("%s stopped after the %d-byte row: %q instead of the next size; the %d rows before it ran normally", name, last.Size, t.Stop, len(t.Rows)),
				finding.Evidence{Source: at(t.StopLine), Value: t.Stop})
			out = append(out, f)
		}
		switch t.Metric() {
		case "latency":
			if t.Collective() {
				notes = append(notes, fmt.Sprintf("%s: %s: collective latency grows with the process count, not judged against the link", at(t.Line), name))
				continue
			}
			var small *osu.Row
			for i := range t.Rows {
				r := &t.Rows[i]
				if r.Size <= 8 && (small == nil || r.Values[0] < small.Values[0]) {
					small = r
				}
			}
			if small == nil {
				notes = append(notes, fmt.Sprintf("%s: %s has no row of 8 B or less: small-message latency not judged", at(t.Line), name))
				continue
			}
			if v := small.Values[0]; v > SmallLatencyUS {
				f := catalog.New("perf.lat_high", finding.Subject{File: source},
					fmt.Sprintf("%s: %.2f us at %d B, over %.0f us: MPI over RDMA takes 1-5 us for small messages, tens of microseconds is TCP (IPoIB or Ethernet) or a software path", name, v, small.Size, SmallLatencyUS),
					finding.Evidence{Source: at(small.Line), Value: fmt.Sprintf("%d B: %.2f us", small.Size, v)})
				out = append(out, f)
			}
		case "bandwidth", "rate":
			var best *osu.Row
			for i := range t.Rows {
				r := &t.Rows[i]
				if r.Size >= largeBytes && (best == nil || r.Values[0] > best.Values[0]) {
					best = r
				}
			}
			if best == nil {
				notes = append(notes, fmt.Sprintf("%s: %s has no row of 64 KiB or more: bandwidth not judged", at(t.Line), name))
				continue
			}
			if v := best.Values[0]; v < LowBandwidthMBs {
				f := catalog.New("perf.bw_low", finding.Subject{File: source},
					fmt.Sprintf("%s: best %.0f MB/s at 64 KiB or more (%d B), under %.0f MB/s: an RDMA link of 10 Gb/s or more moves well over that; this is TCP (IPoIB or Ethernet) or a slow path", name, v, best.Size, LowBandwidthMBs),
					finding.Evidence{Source: at(best.Line), Value: fmt.Sprintf("%d B: %.2f MB/s", best.Size, v)})
				f.Severity = finding.Warning
				out = append(out, f)
			}
		}
	}
	return out, notes
}
