package nccl

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccltests"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Defaults of TestsOptions (the catalogue documents them as thresholds).
const (
	DefaultEfficiency     = 0.8
	DefaultSmallLatencyUS = 100
	// LargeMin is the smallest message size whose busbw counts as "large":
	// below it latency still dominates.
	LargeMin = 16 << 20
	// SmallMax is the largest message size whose time counts as latency.
	SmallMax = 64 << 10
	// busbwWarn and busbwCrit are fractions of the expectation.
	busbwWarn = 0.9
	busbwCrit = 0.8
	// inplaceGap is the relative busbw gap that counts as asymmetric.
	inplaceGap = 0.25
	// plateauGrowth is the growth between the two largest sizes that
	// counts as "still rising".
	plateauGrowth = 0.10
)

// TestsOptions are the expectations nccl-tests output is judged against.
type TestsOptions struct {
	// Collective overrides what the output (or its file name) says.
	Collective nccltests.Collective
	// ExpectBusBW is the expected large-message busbw in GB/s; 0 = none.
	ExpectBusBW float64
	// LineRateGbps is the per-GPU network line rate in Gb/s (the slowest
	// NIC a rank uses); the expectation is LineRateGbps/8 × Efficiency
	// when ExpectBusBW is 0. 0 = none.
	LineRateGbps float64
	// Efficiency of the line rate NCCL should reach (DefaultEfficiency).
	Efficiency float64
	// SmallLatencyUS is the time of the smallest message above which small
	// messages count as slow (DefaultSmallLatencyUS).
	SmallLatencyUS float64
}

func (o TestsOptions) withDefaults() TestsOptions {
	if o.Efficiency <= 0 || o.Efficiency > 1 {
		o.Efficiency = DefaultEfficiency
	}
	if o.SmallLatencyUS <= 0 {
		o.SmallLatencyUS = DefaultSmallLatencyUS
	}
	return o
}

// RunSummary is what the rules derived from one run, for reports.
type RunSummary struct {
	Line       int                  `json:"line"`
	Collective nccltests.Collective `json:"collective,omitempty"`
	Ranks      int                  `json:"ranks"`
	Hosts      []string             `json:"hosts,omitempty"`
	MinSize    int64                `json:"min_size"`
	MaxSize    int64                `json:"max_size"`
	// PeakBusBW is the best busbw over the large sizes (GB/s), 0 when the
	// run has no large size.
	PeakBusBW float64 `json:"peak_busbw"`
	// SmallTimeUS is the time of the smallest message.
	SmallTimeUS float64 `json:"small_time_us"`
	// ExpectBusBW is the expectation used (GB/s), 0 when none.
	ExpectBusBW float64 `json:"expect_busbw,omitempty"`
}

// TestsAnalysis is the result of CheckTests.
type TestsAnalysis struct {
	Source   string            `json:"source"`
	Runs     []RunSummary      `json:"runs"`
	Findings []finding.Finding `json:"findings"`
	// Notes say what was skipped and why ("skipped: …").
	Notes []string `json:"notes,omitempty"`
}

// CheckTests applies the nccl-tests rules to a parsed output. It is pure:
// everything it knows comes from out and opts.
func CheckTests(out *nccltests.Output, opts TestsOptions) *TestsAnalysis {
	opts = opts.withDefaults()
	a := &TestsAnalysis{Source: out.Source}
	for _, s := range out.Skipped {
		a.Notes = append(a.Notes, fmt.Sprintf("skipped: %s:%d: %s", out.Source, s.Line, s.Reason))
	}
	copies := copyRuns(out.Runs)
	if len(copies) > 0 {
		var hosts []string
		var evs []finding.Evidence
		for _, i := range copies {
			r := out.Runs[i]
			hosts = append(hosts, r.Ranks[0].Host)
			if len(evs) < 4 {
				evs = append(evs, ev(out.Source, r.Ranks[0].Line, fmt.Sprintf("Rank 0 Pid %d on %s", r.Ranks[0].Pid, r.Ranks[0].Host)))
			}
		}
		a.Findings = append(a.Findings, catalog.New("nccl.test_not_distributed", finding.Subject{File: out.Source},
			fmt.Sprintf("%d runs of the same test each list only their own ranks from rank 0, on different hosts (%s): every process of a non-MPI nccl-tests binary ran alone", len(copies), strings.Join(hosts, ", ")), evs...))
	}
	for i, run := range out.Runs {
		label := ""
		if len(out.Runs) > 1 {
			label = fmt.Sprintf("run %d (line %d): ", i+1, run.Line)
		}
		if slices.Contains(copies, i) {
			a.Runs = append(a.Runs, RunSummary{Line: run.Line, Collective: collectiveOf(out.Source, run, opts), Ranks: run.NRanks(), Hosts: run.Hosts()})
			a.Notes = append(a.Notes, fmt.Sprintf("%s: %sskipped bandwidth rules: one copy of a non-MPI run", out.Source, label))
			continue
		}
		sum, fs, notes := analyzeRun(out.Source, label, run, opts)
		a.Runs = append(a.Runs, sum)
		a.Findings = append(a.Findings, fs...)
		for _, n := range notes {
			a.Notes = append(a.Notes, out.Source+": "+n)
		}
	}
	catalog.Sort(a.Findings)
	return a
}

// copyRuns finds runs that are copies of one launch of a non-MPI binary
// (newer nccl-tests print a version line per copy, so each copy parses as
// its own run): the same program and sizes, each listing ranks from 0, the
// rank-0 lines on different hosts. It returns their indexes.
func copyRuns(runs []*nccltests.Run) []int {
	type key struct {
		prog     string
		min, max int64
		gpus     int
	}
	groups := map[key][]int{}
	var order []key
	for i, r := range runs {
		if len(r.Ranks) == 0 || r.Ranks[0].Rank != 0 || r.Independent() {
			continue
		}
		k := key{r.Program, r.MinBytes, r.MaxBytes, r.NGpus}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var out []int
	for _, k := range order {
		idx := groups[k]
		hosts := map[string]bool{}
		for _, i := range idx {
			hosts[runs[i].Ranks[0].Host] = true
		}
		if len(idx) >= 2 && len(hosts) >= 2 {
			out = append(out, idx...)
		}
	}
	slices.Sort(out)
	return out
}

func ev(source string, line int, value string) finding.Evidence {
	return finding.Evidence{Source: fmt.Sprintf("%s:%d", source, line), Value: value}
}

func collectiveOf(source string, run *nccltests.Run, opts TestsOptions) nccltests.Collective {
	if opts.Collective != "" {
		return opts.Collective
	}
	if run.Program != "" {
		if c, err := nccltests.ParseCollective(run.Program); err == nil {
			return c
		}
	}
	return nccltests.CollectiveInName(source)
}

func analyzeRun(source, label string, run *nccltests.Run, opts TestsOptions) (RunSummary, []finding.Finding, []string) {
	var fs []finding.Finding
	var notes []string
	subj := finding.Subject{File: source}
	coll := collectiveOf(source, run, opts)
	sum := RunSummary{Line: run.Line, Collective: coll, Ranks: run.NRanks(), Hosts: run.Hosts()}
	rows := slices.Clone(run.Rows)
	slices.SortStableFunc(rows, func(a, b nccltests.Row) int { return cmpInt64(a.Size, b.Size) })
	if len(rows) > 0 {
		sum.MinSize, sum.MaxSize = rows[0].Size, rows[len(rows)-1].Size
		sum.SmallTimeUS = bestTime(rows[0])
	}

	// Corruption first: it invalidates everything else.
	var wrongEv []finding.Evidence
	var wrongRows int
	for _, r := range run.Rows {
		for _, m := range []struct {
			name string
			m    *nccltests.Measure
		}{{"out-of-place", r.OutOfPlace}, {"in-place", r.InPlace}} {
			if m.m != nil && m.m.Wrong > 0 {
				wrongRows++
				if len(wrongEv) < 5 {
					wrongEv = append(wrongEv, ev(source, r.Line, fmt.Sprintf("%s %s: #wrong %d", FormatBytes(r.Size), m.name, m.m.Wrong)))
				}
			}
		}
	}
	oob := run.OutOfBounds != nil && *run.OutOfBounds > 0
	if wrongRows > 0 || oob {
		summary := fmt.Sprintf("%snccl-tests found corrupted results in %d measurement(s)", label, wrongRows)
		if oob {
			wrongEv = append(wrongEv, ev(source, run.OutOfBoundsLine, fmt.Sprintf("Out of bounds values : %d FAILED", *run.OutOfBounds)))
			summary = fmt.Sprintf("%snccl-tests found %d out-of-bounds values: data corruption between GPUs", label, *run.OutOfBounds)
		}
		fs = append(fs, catalog.New("nccl.wrong_results", subj, summary, wrongEv...))
	}
	if run.Footers == 0 && len(run.Rows) > 0 {
		notes = append(notes, fmt.Sprintf("%soutput ends without the footer (truncated, or the run was killed after %s)", label, FormatBytes(sum.MaxSize)))
	}
	for _, e := range run.Errors {
		notes = append(notes, fmt.Sprintf("%snccl-tests reported an error: %s", label, e))
	}

	if run.Independent() {
		hosts := run.Hosts()
		fs = append(fs, catalog.New("nccl.test_not_distributed", subj,
			fmt.Sprintf("%s%d headers and rank lists each starting at rank 0 (hosts %s): every process of a non-MPI nccl-tests binary ran alone", label, max(run.Headers, 2), strings.Join(hosts, ", ")),
			ev(source, run.Line, fmt.Sprintf("%d headers, %d rank lines", run.Headers, len(run.Ranks)))))
		notes = append(notes, fmt.Sprintf("%sskipped bandwidth rules: the processes did not form one communicator", label))
		return sum, fs, notes
	}
	n := sum.Ranks
	if n == 1 {
		notes = append(notes, fmt.Sprintf("%ssingle-rank run: busbw is 0 by definition and says nothing about the network", label))
		return sum, fs, notes
	}
	if len(rows) == 0 {
		notes = append(notes, fmt.Sprintf("%sskipped bandwidth rules: no result rows", label))
		return sum, fs, notes
	}

	// busbw = algbw × factor(n): check each row.
	if coll == "" {
		notes = append(notes, fmt.Sprintf("%sskipped the busbw check: the output does not name the collective (give --collective)", label))
	} else {
		if n == 0 {
			if inferred := inferRanks(coll, rows); inferred > 0 {
				n = inferred
				sum.Ranks = n
				notes = append(notes, fmt.Sprintf("%sno complete rank list: %d ranks inferred from busbw/algbw of %s", label, n, coll))
			} else {
				notes = append(notes, fmt.Sprintf("%sskipped the busbw check: the rank count is unknown", label))
			}
		}
		if n > 1 {
			if f, ok := checkBusFactor(source, label, coll, n, rows, subj); ok {
				fs = append(fs, f)
			}
		}
	}

	// Large-message bandwidth.
	var large []nccltests.Row
	for _, r := range rows {
		if r.Size >= LargeMin && r.Size*4 >= sum.MaxSize {
			large = append(large, r)
		}
	}
	peakLine := 0
	for _, r := range large {
		for _, m := range []*nccltests.Measure{r.OutOfPlace, r.InPlace} {
			if m != nil && m.BusBW > sum.PeakBusBW {
				sum.PeakBusBW, peakLine = m.BusBW, r.Line
			}
		}
	}
	smallSlow := rows[0].Size <= SmallMax && sum.SmallTimeUS > opts.SmallLatencyUS
	smallEv := ev(source, rows[0].Line, fmt.Sprintf("%s: %.1f us (threshold %.0f us)", FormatBytes(rows[0].Size), sum.SmallTimeUS, opts.SmallLatencyUS))
	largeJudged, largeOK := false, false
	switch {
	case len(large) == 0:
		notes = append(notes, fmt.Sprintf("%sskipped the bandwidth check: the largest message (%s) is below %s, where latency still dominates", label, FormatBytes(sum.MaxSize), FormatBytes(LargeMin)))
	default:
		expect, basis := opts.ExpectBusBW, fmt.Sprintf("--expect-busbw %.1f GB/s", opts.ExpectBusBW)
		if expect == 0 && opts.LineRateGbps > 0 {
			if len(sum.Hosts) == 1 {
				notes = append(notes, fmt.Sprintf("%sall ranks on %s: traffic stays on NVLink/PCIe, the network line rate does not apply", label, sum.Hosts[0]))
			} else {
				expect = opts.LineRateGbps / 8 * opts.Efficiency
				basis = fmt.Sprintf("%.0f%% of the %.0f Gb/s line rate = %.1f GB/s", opts.Efficiency*100, opts.LineRateGbps, expect)
			}
		}
		if expect == 0 {
			if opts.LineRateGbps == 0 {
				notes = append(notes, fmt.Sprintf("%sbandwidth not judged: give --expect-busbw or --line-rate", label))
			}
			break
		}
		sum.ExpectBusBW = expect
		largeJudged = true
		frac := sum.PeakBusBW / expect
		if frac >= busbwWarn {
			largeOK = true
			break
		}
		f := catalog.New("nccl.busbw_low", subj, "", ev(source, peakLine, fmt.Sprintf("peak busbw %.2f GB/s at sizes ≥ %s", sum.PeakBusBW, FormatBytes(large[0].Size))))
		f.Summary = fmt.Sprintf("%slarge-message busbw %.1f GB/s is %.0f%% of the expected %s", label, sum.PeakBusBW, frac*100, basis)
		if frac >= busbwCrit {
			f.Severity = finding.Warning
		}
		if smallSlow {
			f.Summary += fmt.Sprintf("; small messages are slow too (%.0f us): both bad points to the network links", sum.SmallTimeUS)
			f.Evidence = append(f.Evidence, smallEv)
		} else {
			f.Summary += "; small messages are fine: look at the bandwidth path (link width/speed, PCIe, NIC sharing)"
		}
		fs = append(fs, f)
	}
	if smallSlow && (largeOK || !largeJudged) {
		f := catalog.New("nccl.small_msg_latency", subj, "", smallEv)
		if largeOK {
			f.Summary = fmt.Sprintf("%ssmall messages are slow (%.0f us for %s) while large-message busbw is fine (%.1f GB/s): NCCL algorithm/protocol choice or the PCIe path, not the links",
				label, sum.SmallTimeUS, FormatBytes(rows[0].Size), sum.PeakBusBW)
		} else {
			f.Summary = fmt.Sprintf("%ssmall messages are slow (%.0f us for %s); large-message bandwidth was not judged (no expectation)", label, sum.SmallTimeUS, FormatBytes(rows[0].Size))
		}
		fs = append(fs, f)
	}

	// In-place vs out-of-place at large sizes.
	var asym []finding.Evidence
	both := 0
	for _, r := range large {
		if r.OutOfPlace == nil || r.InPlace == nil || r.OutOfPlace.BusBW == 0 || r.InPlace.BusBW == 0 {
			continue
		}
		both++
		o, i := r.OutOfPlace.BusBW, r.InPlace.BusBW
		if math.Abs(o-i)/math.Max(o, i) > inplaceGap {
			asym = append(asym, ev(source, r.Line, fmt.Sprintf("%s: out-of-place %.2f GB/s, in-place %.2f GB/s", FormatBytes(r.Size), o, i)))
		}
	}
	if len(asym) > 0 && len(asym)*2 >= both {
		fs = append(fs, catalog.New("nccl.inplace_asymmetry", subj,
			fmt.Sprintf("%sin-place and out-of-place busbw differ by more than %.0f%% at %d of %d large sizes", label, inplaceGap*100, len(asym), both), asym...))
	}

	// Plateau: the two largest distinct sizes.
	if k := len(rows); k >= 2 && rows[k-1].Size > rows[k-2].Size && rows[k-1].Size <= 4*rows[k-2].Size && rows[k-1].Size >= LargeMin {
		last, prev := bestBusBW(rows[k-1]), bestBusBW(rows[k-2])
		if prev > 0 && last > prev*(1+plateauGrowth) {
			fs = append(fs, catalog.New("nccl.no_plateau", subj,
				fmt.Sprintf("%sbusbw still rises %.0f%% from %s to %s (%.2f → %.2f GB/s): the run stopped before the plateau", label, (last/prev-1)*100, FormatBytes(rows[k-2].Size), FormatBytes(rows[k-1].Size), prev, last),
				ev(source, rows[k-2].Line, fmt.Sprintf("%s busbw %.2f", FormatBytes(rows[k-2].Size), prev)),
				ev(source, rows[k-1].Line, fmt.Sprintf("%s busbw %.2f", FormatBytes(rows[k-1].Size), last))))
		}
	}
	return sum, fs, notes
}

// checkBusFactor verifies busbw = algbw × factor(n) on every measure whose
// algbw is large enough for the printed rounding not to dominate.
func checkBusFactor(source, label string, coll nccltests.Collective, n int, rows []nccltests.Row, subj finding.Subject) (finding.Finding, bool) {
	factor, _ := coll.BusFactor(n)
	var bad []finding.Evidence
	badRows := 0
	for _, r := range rows {
		for _, m := range []*nccltests.Measure{r.OutOfPlace, r.InPlace} {
			if m == nil || m.AlgBW < 0.1 {
				continue
			}
			want := m.AlgBW * factor
			if math.Abs(m.BusBW-want) > 0.01+0.02*want+0.005*factor {
				badRows++
				if len(bad) < 3 {
					bad = append(bad, ev(source, r.Line, fmt.Sprintf("%s: algbw %.2f × %.3f = %.2f, busbw printed %.2f", FormatBytes(r.Size), m.AlgBW, factor, want, m.BusBW)))
				}
			}
		}
	}
	if badRows == 0 {
		return finding.Finding{}, false
	}
	return catalog.New("nccl.busbw_inconsistent", subj,
		fmt.Sprintf("%s%d measurement(s) disagree with busbw = algbw × %.3f (%s, %d ranks)", label, badRows, factor, coll, n), bad...), true
}

// inferRanks solves busbw/algbw = factor(n) for n from the row with the
// largest algbw; 0 when no n from 2 to 65536 fits.
func inferRanks(c nccltests.Collective, rows []nccltests.Row) int {
	var best *nccltests.Measure
	for _, r := range rows {
		for _, m := range []*nccltests.Measure{r.OutOfPlace, r.InPlace} {
			if m != nil && (best == nil || m.AlgBW > best.AlgBW) {
				best = m
			}
		}
	}
	if best == nil || best.AlgBW < 1 {
		return 0
	}
	ratio := best.BusBW / best.AlgBW
	var k float64 // factor = k(n-1)/n
	switch c {
	case nccltests.AllReduce:
		k = 2
	case nccltests.AllGather, nccltests.ReduceScatter, nccltests.AllToAll, nccltests.Gather, nccltests.Scatter, nccltests.HyperCube:
		k = 1
	default:
		return 0
	}
	if ratio >= k-1e-9 {
		return 0
	}
	n := int(math.Round(k / (k - ratio)))
	if f, ok := c.BusFactor(n); n >= 2 && n <= 65536 && ok && math.Abs(f*best.AlgBW-best.BusBW) <= 0.01+0.02*best.BusBW {
		return n
	}
	return 0
}

func bestTime(r nccltests.Row) float64 {
	t := math.Inf(1)
	for _, m := range []*nccltests.Measure{r.OutOfPlace, r.InPlace} {
		if m != nil && m.TimeUS < t {
			t = m.TimeUS
		}
	}
	if math.IsInf(t, 1) {
		return 0
	}
	return t
}

func bestBusBW(r nccltests.Row) float64 {
	b := 0.0
	for _, m := range []*nccltests.Measure{r.OutOfPlace, r.InPlace} {
		if m != nil && m.BusBW > b {
			b = m.BusBW
		}
	}
	return b
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// FormatBytes prints a message size the way people say it: 8 B, 64 KiB,
// 128 MiB, 8 GiB (exact powers of two), else the byte count.
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, u := n, 0
	for u < len(units)-1 && v >= 1024 && v%1024 == 0 {
		v /= 1024
		u++
	}
	return fmt.Sprintf("%d %s", v, units[u])
}
