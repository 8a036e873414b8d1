package nccl

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccltests"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// Defaults of TestsOptions (the catalogue documents them as thresholds).
const (
	DefaultEfficiency     = limits.NCCLEfficiency
	DefaultSmallLatencyUS = limits.NCCLSmallLatencyUS
	// LargeMin is the smallest message size whose busbw counts as "large":
	// below it latency still dominates.
	LargeMin = 16 << 20
	// SmallMax is the largest message size whose time counts as latency.
	SmallMax = 64 << 10
	// busbwWarn and busbwCrit are fractions of the expectation.
	busbwWarn = limits.NCCLBusBWWarn
	busbwCrit = limits.NCCLBusBWCrit
	// inplaceGap is the relative busbw gap that counts as asymmetric.
	inplaceGap = limits.NCCLInplaceGap
	// plateauGrowth is the growth between the two largest sizes that
	// counts as "still rising".
	plateauGrowth = limits.NCCLPlateauGrowth
)

// TestsOptions are the expectations nccl-tests output is judged against.
type TestsOptions struct {
	// Collective overrides what the output (or its file name) says.
	Collective nccltests.Collective
	// ExpectBusBW is the expected large-message busbw in GB/s; 0 = none.
	ExpectBusBW float64
	// LineRateGbps is the line rate of one NIC in Gb/s. A multi-node
	// run's busbw is bounded by each node's aggregate NIC bandwidth, so
	// when ExpectBusBW is 0 the expectation is NICs in use per node ×
	// LineRateGbps/8 × Efficiency (see nicsInUse). 0 = none.
	LineRateGbps float64
	// NICsPerNode is how many NICs each node has on the inter-node
	// network (--nics-per-node, or the ports of --root), 0 when not
	// known; NICsFrom says where it came from, for the report.
	NICsPerNode int
	NICsFrom    string
	// Net is what NCCL_DEBUG=INFO lines inside the output say about each
	// host's inter-node transport (NetUseOf); nil when there are none.
	Net []NetUse
	// ExpectIB says the nodes have (or should use) RDMA ports: --expect-ib,
	// or HCA outputs or a root showing them.
	ExpectIB bool
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
	// ExpectBusBW is the expectation used (GB/s), 0 when none;
	// ExpectBasis says how it was derived ("8 NICs per node (from
	// --nics-per-node) × 400 Gb/s / 8 × 0.80").
	ExpectBusBW float64 `json:"expect_busbw,omitempty"`
	ExpectBasis string  `json:"expect_basis,omitempty"`
}

// NetUse is what the NCCL log of one host says about its inter-node
// transport.
type NetUse struct {
	Host string `json:"host"`
	// Network is "IB" (which NCCL also prints for RoCE), "Socket" or a
	// plugin's name.
	Network string `json:"network"`
	// NICs are the "NET/IB : Using" entries ("mlx5_0:1/IB").
	NICs []string `json:"nics,omitempty"`
	// Line is where the log says it: the "Using network" or "NET/IB :
	// Using" line, 0 when only connection lines showed it.
	Line int `json:"line,omitempty"`
}

// NetUseOf sums a parsed NCCL log up per host: the network its processes
// used (Socket when any of them fell back to it) and the most NICs one of
// them listed.
func NetUseOf(lg *nccllog.Log) []NetUse {
	var out []NetUse
	idx := map[string]int{}
	for _, p := range lg.Procs {
		network, line := p.EffectiveNetwork()
		var nics []string
		for _, d := range p.IBDevices {
			nics = append(nics, fmt.Sprintf("%s:%d/%s", d.Name, d.Port, d.LinkLayer))
		}
		if network == "" && len(nics) == 0 {
			continue
		}
		if network == "" {
			network = "IB"
		}
		if len(nics) > 0 && line == 0 {
			line = p.IBLine
		}
		i, ok := idx[p.Host]
		if !ok {
			idx[p.Host] = len(out)
			out = append(out, NetUse{Host: p.Host, Network: network, NICs: nics, Line: line})
			continue
		}
		u := &out[i]
		if network == "Socket" && u.Network != "Socket" {
			u.Network, u.Line = "Socket", line
		}
		if len(nics) > len(u.NICs) {
			u.NICs = nics
			if u.Network != "Socket" {
				u.Line = line
			}
		}
	}
	return out
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
	if line <= 0 {
		return finding.Evidence{Source: source, Value: value}
	}
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

// runCheck holds what the steps of analyzeRun share: the run, its sorted
// rows, the summary being filled in, and the findings and notes so far.
type runCheck struct {
	source, label string
	run           *nccltests.Run
	opts          TestsOptions
	subj          finding.Subject
	coll          nccltests.Collective
	sum           RunSummary
	rows          []nccltests.Row // sorted by size
	fs            []finding.Finding
	notes         []string
	// floor is set when the expectation is dcFloor's (no flag gave one).
	floor bool
	// oneHost is set when the floor is oneHostFloorGBps's.
	oneHost bool
	// multiNode is set when the floor is multiNodeFloorGBps's.
	multiNode bool
	// dataCenter is set when the floor is that of data-center GPUs
	// across nodes (floorNICGbps).
	dataCenter bool
}

// note adds a note prefixed with the run's label.
func (c *runCheck) note(format string, args ...any) {
	c.notes = append(c.notes, c.label+fmt.Sprintf(format, args...))
}

// analyzeRun judges one nccl-tests run: corruption first, then the busbw
// factor, bandwidth and latency, in-place asymmetry and the plateau.
func analyzeRun(source, label string, run *nccltests.Run, opts TestsOptions) (RunSummary, []finding.Finding, []string) {
	c := &runCheck{source: source, label: label, run: run, opts: opts, subj: finding.Subject{File: source}}
	c.coll = collectiveOf(source, run, opts)
	c.sum = RunSummary{Line: run.Line, Collective: c.coll, Ranks: run.NRanks(), Hosts: run.Hosts()}
	c.rows = slices.Clone(run.Rows)
	slices.SortStableFunc(c.rows, func(a, b nccltests.Row) int { return cmpInt64(a.Size, b.Size) })
	if len(c.rows) > 0 {
		c.sum.MinSize, c.sum.MaxSize = c.rows[0].Size, c.rows[len(c.rows)-1].Size
		c.sum.SmallTimeUS = bestTime(c.rows[0])
	}

	// Corruption first: it invalidates everything else.
	c.checkCorruption()
	c.checkIBDisabled()
	if !c.judgeable() {
		return c.sum, c.fs, c.notes
	}
	c.checkBusFactor()
	large := c.largeRows()
	c.checkBandwidth(large)
	c.checkInPlace(large)
	c.checkPlateau()
	c.checkCollapse()
	return c.sum, c.fs, c.notes
}

// checkCorruption reports #wrong results and out-of-bounds values, and
// notes a missing footer and the errors nccl-tests printed.
func (c *runCheck) checkCorruption() {
	run, source, label := c.run, c.source, c.label
	var wrongEv []finding.Evidence
	var wrongRows int
	for _, r := range run.Rows {
		for _, m := range []struct {
			name string
			m    *nccltests.Measure
		}{{"out-of-place", r.OutOfPlace}, {"in-place", r.InPlace}} {
			if m.m != nil && (m.m.Wrong > 0 || m.m.DeltaOver) {
				wrongRows++
				if len(wrongEv) < 5 {
					what := fmt.Sprintf("#wrong %d", m.m.Wrong)
					if m.m.DeltaOver {
						what = fmt.Sprintf("error %.0e*: over the type's tolerance", m.m.MaxDelta)
					}
					wrongEv = append(wrongEv, ev(source, r.Line, fmt.Sprintf("%s %s: %s", FormatBytes(r.Size), m.name, what)))
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
		c.fs = append(c.fs, catalog.New("nccl.wrong_results", c.subj, summary, wrongEv...))
	}
	if run.Footers == 0 && len(run.Rows) > 0 {
		c.note("output ends without the footer (truncated, or the run was killed after %s)", FormatBytes(c.sum.MaxSize))
	}
	for _, e := range run.Errors {
		c.note("nccl-tests reported an error: %s", e)
	}
}

// checkIBDisabled reports a multi-node run whose command line sets
// NCCL_IB_DISABLE to a non-zero number (NCCL reads it as an integer and
// turns its IB transport off for any value but 0): NCCL then carries the
// inter-node traffic over TCP sockets, unless the NCCL log in the output
// shows every host on IB anyway.
func (c *runCheck) checkIBDisabled() {
	l := c.run.Launch
	if l == nil || len(c.sum.Hosts) < 2 {
		return
	}
	v, ok := l.Env["NCCL_IB_DISABLE"]
	if n, err := strconv.ParseInt(v, 10, 64); !ok || err != nil || n == 0 {
		return
	}
	if len(c.opts.Net) > 0 && !slices.ContainsFunc(c.opts.Net, func(u NetUse) bool { return u.Network == "Socket" }) {
		return
	}
	f := catalog.New("nccl.ib_disabled", c.subj,
		fmt.Sprintf("%smulti-node run over %d hosts (%s) launched with NCCL_IB_DISABLE=%s: NCCL sends the inter-node traffic over TCP sockets, not IB/RoCE", c.label, len(c.sum.Hosts), strings.Join(c.sum.Hosts, ", "), v),
		ev(c.source, l.Line, "NCCL_IB_DISABLE="+v))
	best, line := 0.0, 0
	for _, r := range c.rows {
		for _, m := range []*nccltests.Measure{r.OutOfPlace, r.InPlace} {
			if m != nil && m.BusBW > best {
				best, line = m.BusBW, r.Line
			}
		}
	}
	if line > 0 {
		f.Summary += fmt.Sprintf("; the best busbw measured is %.2f GB/s", best)
		f.Evidence = append(f.Evidence, ev(c.source, line, fmt.Sprintf("busbw %.2f GB/s", best)))
	}
	if !c.opts.ExpectIB {
		// The output alone cannot say that RDMA ports exist.
		f.Severity = finding.Warning
		f.Summary += " (critical where the nodes have RDMA ports: give --expect-ib or --root)"
	}
	c.fs = append(c.fs, f)
}

// judgeable reports whether the bandwidth rules apply: the processes formed
// one communicator of more than one rank and printed result rows. When they
// do not, it records why.
func (c *runCheck) judgeable() bool {
	run := c.run
	if run.Independent() {
		hosts := run.Hosts()
		c.fs = append(c.fs, catalog.New("nccl.test_not_distributed", c.subj,
			fmt.Sprintf("%s%d headers and rank lists each starting at rank 0 (hosts %s): every process of a non-MPI nccl-tests binary ran alone", c.label, max(run.Headers, 2), strings.Join(hosts, ", ")),
			ev(c.source, run.Line, fmt.Sprintf("%d headers, %d rank lines", run.Headers, len(run.Ranks)))))
		c.note("skipped bandwidth rules: the processes did not form one communicator")
		return false
	}
	if c.sum.Ranks == 1 {
		c.note("single-rank run: busbw is 0 by definition and says nothing about the network")
		return false
	}
	if len(c.rows) == 0 {
		c.note("skipped bandwidth rules: no result rows")
		return false
	}
	return true
}

// checkBusFactor checks busbw = algbw × factor(n) on each row, inferring
// the rank count from the rows when the output lists no complete ranks.
func (c *runCheck) checkBusFactor() {
	if c.coll == "" {
		c.note("skipped the busbw check: the output does not name the collective (give --collective)")
		return
	}
	n := c.sum.Ranks
	if n == 0 {
		if inferred := inferRanks(c.coll, c.rows); inferred > 0 {
			n = inferred
			c.sum.Ranks = n
			c.note("no complete rank list: %d ranks inferred from busbw/algbw of %s", n, c.coll)
		} else {
			c.note("skipped the busbw check: the rank count is unknown")
		}
	}
	if n > 1 {
		if f, ok := checkBusFactor(c.source, c.label, c.coll, n, c.rows, c.subj); ok {
			c.fs = append(c.fs, f)
		}
	}
}

// largeRows returns the rows large enough for bandwidth to dominate: at
// least LargeMin and within a factor 4 of the largest size.
func (c *runCheck) largeRows() []nccltests.Row {
	var large []nccltests.Row
	for _, r := range c.rows {
		if r.Size >= LargeMin && r.Size*4 >= c.sum.MaxSize {
			large = append(large, r)
		}
	}
	return large
}

// peakLine records the peak busbw of the large rows in the summary and
// returns the line it was read from.
func (c *runCheck) peakLine(large []nccltests.Row) int {
	peakLine := 0
	for _, r := range large {
		for _, m := range []*nccltests.Measure{r.OutOfPlace, r.InPlace} {
			if m != nil && m.BusBW > c.sum.PeakBusBW {
				c.sum.PeakBusBW, peakLine = m.BusBW, r.Line
			}
		}
	}
	return peakLine
}

// expectation returns the busbw a run should reach and how it was worked
// out, 0 when nothing says what to expect.
func (c *runCheck) expectation() (float64, string, nicCount) {
	opts := c.opts
	expect, basis := opts.ExpectBusBW, fmt.Sprintf("--expect-busbw %.1f GB/s", opts.ExpectBusBW)
	var nics nicCount
	if expect == 0 && opts.LineRateGbps > 0 {
		if len(c.sum.Hosts) == 1 {
			c.note("all ranks on %s: traffic stays on NVLink/PCIe, the network line rate does not apply", c.sum.Hosts[0])
		} else {
			nics = nicsInUse(c.run, c.sum.Ranks, opts)
			expect = float64(nics.n) * opts.LineRateGbps / 8 * opts.Efficiency
			basis = fmt.Sprintf("%d × %.0f Gb/s / 8 × %.2f = %.1f GB/s (%s)", nics.n, opts.LineRateGbps, opts.Efficiency, expect, nics.from)
			if nics.lowerBound {
				c.note("NICs per node unknown: busbw judged against one NIC, a lower bound (give --nics-per-node or --root)")
			}
		}
	}
	if expect == 0 && len(c.sum.Hosts) == 1 && c.sum.Ranks >= 2 && c.sum.MaxSize >= oneHostMinSize {
		c.floor, c.oneHost = true, true
		basis = fmt.Sprintf("%.0f GB/s, the floor for GPUs in one host (%d ranks on %s at messages up to %s: NVLink, or PCIe peer-to-peer or through host memory, and PCIe Gen2 x4 alone gives about 1.6 GB/s)",
			oneHostFloorGBps, c.sum.Ranks, c.sum.Hosts[0], FormatBytes(c.sum.MaxSize))
		return oneHostFloorGBps, basis, nics
	}
	if expect == 0 && opts.LineRateGbps == 0 {
		if gpu, ok := c.dataCenterAcrossNodes(); ok {
			c.floor, c.dataCenter = true, true
			expect = floorNICGbps / 8 * opts.Efficiency
			basis = fmt.Sprintf("%.1f GB/s, the floor for data-center GPUs across nodes (%s on %d hosts: at least one %.0f Gb/s NIC per node, / 8 × %.2f; --line-rate and --nics-per-node judge it exactly)",
				expect, gpu, len(c.sum.Hosts), floorNICGbps, opts.Efficiency)
			return expect, basis, nics
		}
		if len(c.sum.Hosts) >= 2 && c.sum.Ranks >= 2 && c.sum.MaxSize >= oneHostMinSize {
			c.floor, c.multiNode = true, true
			basis = fmt.Sprintf("%.0f GB/s, the floor for GPUs across nodes (%d ranks on %d hosts at messages up to %s: even one 10 GbE link carries about 1.1 GB/s over TCP, 25 GbE about 2.8 GB/s)",
				multiNodeFloorGBps, c.sum.Ranks, len(c.sum.Hosts), FormatBytes(c.sum.MaxSize))
			return multiNodeFloorGBps, basis, nics
		}
		c.note("bandwidth not judged: give --expect-busbw or --line-rate")
	}
	return expect, basis, nics
}

// multiNodeFloorGBps is the busbw below which a run across nodes has, at
// best, one 10 GbE path over TCP sockets between them: 10 Gb/s is 1.25
// GB/s on the wire and NCCL's socket transport carries about 1.1 GB/s of
// it. Any RDMA NIC, or 25 GbE, is well above; a run under it at
// oneHostMinSize and above did not use the network it was meant to.
const multiNodeFloorGBps float64 = 1

// oneHostFloorGBps is the busbw any two GPUs of one host reach at large
// messages: their data crosses NVLink, or PCIe peer-to-peer, or PCIe to
// and from host memory (NCCL's SHM transport), and even a PCIe Gen2 x4
// link carries about 1.6 GB/s (5 GT/s × 4 lanes with 8b/10b coding is
// 2 GB/s, less protocol overhead). A run that stays under it at
// oneHostMinSize and above has peer-to-peer off or broken, a GPU on a x1
// riser, or a link that trained down; smaller messages are latency bound
// and are not held to it.
const (
	oneHostFloorGBps float64 = 1
	oneHostMinSize   int64   = 32 << 20
)

// floorNICGbps is the slowest inter-node NIC a cluster of data-center
// GPUs carries per node: such nodes have one RDMA NIC of 100-400 Gb/s per
// GPU, or at least one 100 Gb/s NIC.
const floorNICGbps float64 = 100

// dcFloorCritFrac is the fraction of the data-center floor under which a
// run is critical: a third of 10 GB/s is 3.3 GB/s, about what one 25 GbE
// link carries over TCP (25/8 = 3.1 GB/s on the wire, NCCL's socket
// transport about 2.8 GB/s of it).
const dcFloorCritFrac = 1.0 / 3

// dataCenterGPUs are the data-center GPU models, as nccl-tests prints
// their names in its rank lines ("NVIDIA GH200 120GB", "NVIDIA
// A100-SXM4-80GB", "AMD Instinct MI300X"). NVIDIA GB10 (DGX Spark) is in
// it: each node has a ConnectX-7 of 200 Gb/s built in (NVIDIA DGX Spark
// hardware overview) for clustering two or more of them.
var dataCenterGPUs = []string{"A100", "A800", "H100", "H800", "H200", "H20", "GH200", "B100", "B200", "B300", "GB200", "GB300", "GB10", "MI250", "MI300", "MI325", "MI355"}

// dataCenterGPU returns the model of a data-center GPU name, "" for any
// other GPU (consumer, workstation, older or unknown).
func dataCenterGPU(name string) string {
	for _, tok := range strings.FieldsFunc(name, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') }) {
		for _, m := range dataCenterGPUs {
			// A letter suffix names a variant: MI300X, MI250X.
			if rest, ok := strings.CutPrefix(strings.ToUpper(tok), m); ok && strings.Trim(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && len(rest) <= 1 {
				return m
			}
		}
	}
	return ""
}

// dataCenterAcrossNodes says whether the run spans nodes and every rank
// line names a data-center GPU, and which.
func (c *runCheck) dataCenterAcrossNodes() (string, bool) {
	if len(c.sum.Hosts) < 2 || len(c.run.Ranks) == 0 {
		return "", false
	}
	var models []string
	for _, ri := range c.run.Ranks {
		m := dataCenterGPU(ri.GPU)
		if m == "" {
			return "", false
		}
		if !slices.Contains(models, m) {
			models = append(models, m)
		}
	}
	return strings.Join(models, "/"), true
}

// checkBandwidth judges large-message busbw against the expectation and
// small-message latency, folding a network cause from the NCCL log into
// one finding with the busbw shortfall as its evidence.
func (c *runCheck) checkBandwidth(large []nccltests.Row) {
	sum, opts, rows, label := &c.sum, c.opts, c.rows, c.label
	peakLine := c.peakLine(large)
	smallSlow := rows[0].Size <= SmallMax && sum.SmallTimeUS > opts.SmallLatencyUS
	smallEv := ev(c.source, rows[0].Line, fmt.Sprintf("%s: %.1f us (threshold %.0f us)", FormatBytes(rows[0].Size), sum.SmallTimeUS, opts.SmallLatencyUS))
	largeJudged, largeOK := false, false
	var lowBW *finding.Finding
	if len(large) == 0 {
		c.note("skipped the bandwidth check: the largest message (%s) is below %s, where latency still dominates", FormatBytes(sum.MaxSize), FormatBytes(LargeMin))
	} else if expect, basis, nics := c.expectation(); expect != 0 {
		sum.ExpectBasis = basis
		sum.ExpectBusBW = expect
		largeJudged = true
		if frac := sum.PeakBusBW / expect; frac >= busbwWarn && !c.floor || c.floor && frac >= 1 {
			largeOK = true
		} else {
			f := c.lowBusBW(large, peakLine, frac, basis, nics, smallSlow, smallEv)
			if c.floor {
				// The fabric's real rate is unknown: worth a look, not
				// proof of a broken link.
				f.Severity = finding.Warning
				if c.dataCenter && frac < dcFloorCritFrac {
					// Under a third of one 100 Gb/s NIC is what a
					// 25 GbE TCP path carries: whatever the fabric,
					// the job runs many times slower than its nodes allow.
					f.Severity = finding.Critical
					f.Summary += fmt.Sprintf("; under a third of the floor (%.1f GB/s), no more than a 25 GbE TCP path carries: a multi-node job on these nodes runs many times slower than their RDMA NICs allow", expect*dcFloorCritFrac)
				}
			}
			lowBW = &f
		}
	}
	// What the NCCL log says the run used explains a shortfall: that
	// cause is the one finding and the busbw its evidence.
	if cause, ok := netCause(c.source, label, c.run, *sum, opts, c.subj); ok {
		if lowBW != nil {
			cause.Evidence = append(cause.Evidence, lowBW.Evidence[0])
			cause.Summary += fmt.Sprintf("; large-message busbw %.1f GB/s is %.0f%% of the expected %s", sum.PeakBusBW, sum.PeakBusBW/sum.ExpectBusBW*100, sum.ExpectBasis)
			lowBW = nil
		}
		c.fs = append(c.fs, cause)
	}
	if lowBW != nil {
		c.fs = append(c.fs, *lowBW)
	}
	if c.floor {
		// The floor judges large messages only: small ones are judged
		// as in a run without an expectation.
		largeJudged, largeOK = false, false
	}
	if smallSlow && !largeJudged && !c.transportKnown() {
		// The floor of a small all_reduce depends on the transport: tens
		// of µs over InfiniBand/RoCE, 100-200 µs over AWS EFA or TCP at
		// two nodes. A paste that names neither the transport nor a
		// bandwidth to expect cannot call 160 µs slow.
		c.note("small messages take %.0f us for %s, above the %.0f us an InfiniBand/RoCE run stays under but normal for AWS EFA or TCP sockets: the output does not say which transport the run used (an NCCL_DEBUG=INFO log, or --line-rate/--expect-busbw, lets it be judged)",
			sum.SmallTimeUS, FormatBytes(rows[0].Size), opts.SmallLatencyUS)
		smallSlow = false
	}
	if smallSlow && (largeOK || !largeJudged) {
		f := catalog.New("nccl.small_msg_latency", c.subj, "", smallEv)
		if largeOK {
			f.Summary = fmt.Sprintf("%ssmall messages are slow (%.0f us for %s) while large-message busbw is fine (%.1f GB/s): NCCL algorithm/protocol choice or the PCIe path, not the links",
				label, sum.SmallTimeUS, FormatBytes(rows[0].Size), sum.PeakBusBW)
		} else {
			f.Summary = fmt.Sprintf("%ssmall messages are slow (%.0f us for %s); large-message bandwidth was not judged (no expectation)", label, sum.SmallTimeUS, FormatBytes(rows[0].Size))
		}
		c.fs = append(c.fs, f)
	}
}

// transportKnown says whether the run's transport between GPUs is known:
// all ranks on one host (NVLink/PCIe), or NCCL lines in the output that
// name the network each host used.
func (c *runCheck) transportKnown() bool {
	if len(c.sum.Hosts) == 1 {
		return true
	}
	for _, u := range c.opts.Net {
		if u.Network != "" {
			return true
		}
	}
	return false
}

// lowBusBW builds the nccl.busbw_low finding for a peak busbw at frac of
// the expectation, with a hint from the small-message latency.
func (c *runCheck) lowBusBW(large []nccltests.Row, peakLine int, frac float64, basis string, nics nicCount, smallSlow bool, smallEv finding.Evidence) finding.Finding {
	sum := &c.sum
	f := catalog.New("nccl.busbw_low", c.subj, "", ev(c.source, peakLine, fmt.Sprintf("peak busbw %.2f GB/s at sizes ≥ %s", sum.PeakBusBW, FormatBytes(large[0].Size))))
	if c.oneHost {
		f.Summary = fmt.Sprintf("%slarge-message busbw %.2f GB/s stays under %s; between GPUs of one host that points to peer-to-peer disabled (NCCL_P2P_DISABLE) or broken, a GPU on a x1 riser, or a PCIe link trained down",
			c.label, sum.PeakBusBW, basis)
		f.Causes = []string{
			"peer-to-peer between the GPUs disabled (NCCL_P2P_DISABLE=1, or PCIe ACS/IOMMU settings that block it) or broken, and the fallback through host memory slow",
			"a GPU on a x1 riser (mining frames) or in a slot wired for fewer lanes",
			"a GPU's PCIe link trained below its capability (narrower or slower)",
		}
		f.Remedy = []string{
			"nvidia-smi topo -m (AMD GPUs: rocm-smi --showtopo) to see how the GPUs connect (NV#, PIX, PXB, PHB, SYS)",
			"nvidia-smi -q -d PCIE under load: each GPU's current against its maximum link generation and width",
			"lspci -vv -s PCI | grep -E 'LnkCap|LnkSta' — PCI: each GPU's address (nvidia-smi --query-gpu=pci.bus_id --format=csv)",
			"unset NCCL_P2P_DISABLE and rerun with NCCL_DEBUG=INFO to see the transport NCCL picks between the GPUs (P2P, SHM)",
		}
		return f
	}
	if c.multiNode {
		f.Summary = fmt.Sprintf("%slarge-message busbw %.2f GB/s stays under %s: the ranks talk over, at best, a 10 GbE TCP path, not an RDMA network (NCCL's socket transport, or a slow interface chosen)",
			c.label, sum.PeakBusBW, basis)
		f.Causes = []string{
			"NCCL fell back to its socket transport (no RDMA NIC found or usable: NCCL_IB_DISABLE=1, missing rdma-core or nvidia-peermem, the IB plugin not loaded)",
			"NCCL_SOCKET_IFNAME (or mpirun's btl_tcp_if_include) points at a slow management interface",
			"the nodes have only 10 GbE or slower between them",
		}
		f.Remedy = []string{
			"rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read the log with 'ibdoctor nccl log': 'NET/IB' or 'NET/Socket' says which transport it used",
			"ibv_devinfo on each node: an RDMA device in PORT_ACTIVE state for NCCL to use",
			"ethtool <netdev> | grep Speed on the interface NCCL_SOCKET_IFNAME names",
		}
		return f
	}
	f.Summary = fmt.Sprintf("%slarge-message busbw %.1f GB/s is %.0f%% of the expected %s", c.label, sum.PeakBusBW, frac*100, basis)
	if frac >= busbwCrit {
		f.Severity = finding.Warning
	}
	if one := c.opts.LineRateGbps / 8; nics.n > 1 && sum.PeakBusBW <= one {
		f.Summary += fmt.Sprintf("; the peak is within one NIC's %.0f GB/s: the run looks stuck on one NIC or on TCP (read its NCCL_DEBUG=INFO log with 'ibdoctor nccl log')", one)
	}
	if smallSlow {
		f.Summary += fmt.Sprintf("; small messages are slow too (%.0f us): both bad points to the network links", sum.SmallTimeUS)
		f.Evidence = append(f.Evidence, smallEv)
	} else if c.rows[0].Size <= SmallMax {
		f.Summary += "; small messages are fine: look at the bandwidth path (link width/speed, PCIe, NIC sharing)"
	} else {
		f.Summary += "; look at the bandwidth path (link width/speed, PCIe, NIC sharing)"
	}
	return f
}

// checkInPlace compares in-place and out-of-place busbw at large sizes.
func (c *runCheck) checkInPlace(large []nccltests.Row) {
	var asym []finding.Evidence
	both := 0
	for _, r := range large {
		if r.OutOfPlace == nil || r.InPlace == nil || r.OutOfPlace.BusBW == 0 || r.InPlace.BusBW == 0 {
			continue
		}
		both++
		o, i := r.OutOfPlace.BusBW, r.InPlace.BusBW
		if math.Abs(o-i)/math.Max(o, i) > inplaceGap {
			asym = append(asym, ev(c.source, r.Line, fmt.Sprintf("%s: out-of-place %.2f GB/s, in-place %.2f GB/s", FormatBytes(r.Size), o, i)))
		}
	}
	if len(asym) > 0 && len(asym)*2 >= both {
		c.fs = append(c.fs, catalog.New("nccl.inplace_asymmetry", c.subj,
			fmt.Sprintf("%sin-place and out-of-place busbw differ by more than %.0f%% at %d of %d large sizes", c.label, inplaceGap*100, len(asym), both), asym...))
	}
}

// checkPlateau reports a run whose busbw still rises between the two
// largest distinct sizes: it stopped before the plateau.
func (c *runCheck) checkPlateau() {
	rows := c.rows
	if k := len(rows); k >= 2 && rows[k-1].Size > rows[k-2].Size && rows[k-1].Size <= 4*rows[k-2].Size && rows[k-1].Size >= LargeMin {
		last, prev := bestBusBW(rows[k-1]), bestBusBW(rows[k-2])
		if prev > 0 && last > prev*(1+plateauGrowth) {
			c.fs = append(c.fs, catalog.New("nccl.no_plateau", c.subj,
				fmt.Sprintf("%sbusbw still rises %.0f%% from %s to %s (%.2f → %.2f GB/s): the run stopped before the plateau", c.label, (last/prev-1)*100, FormatBytes(rows[k-2].Size), FormatBytes(rows[k-1].Size), prev, last),
				ev(c.source, rows[k-2].Line, fmt.Sprintf("%s busbw %.2f", FormatBytes(rows[k-2].Size), prev)),
				ev(c.source, rows[k-1].Line, fmt.Sprintf("%s busbw %.2f", FormatBytes(rows[k-1].Size), last))))
		}
	}
}

// checkCollapse reports a run whose busbw, at messages of collapseMinSize
// and more, falls under half the best busbw of the smaller sizes at
// collapseMinRows sizes or more: bandwidth grows with the message size up
// to a plateau, so a fall to a fraction of it is the fabric or the
// transport failing at those sizes (congestion, pause storms, a protocol
// or buffer switch), as perftest's half-plateau rule reads a bw curve.
func (c *runCheck) checkCollapse() {
	best, bestSize, bestLine := 0.0, int64(0), 0
	var evs []finding.Evidence
	lo, hi, low := int64(0), int64(0), math.Inf(1)
	prevSize := int64(-1)
	for _, r := range c.rows {
		if r.Size <= prevSize {
			return // not one ascending sweep: several runs or an edited table
		}
		prevSize = r.Size
		b := bestBusBW(r)
		if r.Size >= collapseMinSize && best >= collapseMinGBps && b < best/2 {
			if len(evs) == 0 {
				lo = r.Size
			}
			hi, low = r.Size, min(low, b)
			if len(evs) < 4 {
				evs = append(evs, ev(c.source, r.Line, fmt.Sprintf("%s busbw %.2f GB/s", FormatBytes(r.Size), b)))
			}
			continue
		}
		if len(evs) == 0 && b > best {
			best, bestSize, bestLine = b, r.Size, r.Line
		}
	}
	n := 0
	for _, r := range c.rows {
		if r.Size >= lo && r.Size <= hi && bestBusBW(r) < best/2 {
			n++
		}
	}
	if len(evs) == 0 || n < collapseMinRows {
		return
	}
	evs = append([]finding.Evidence{ev(c.source, bestLine, fmt.Sprintf("%s busbw %.2f GB/s (the best below)", FormatBytes(bestSize), best))}, evs...)
	c.fs = append(c.fs, catalog.New("nccl.busbw_collapse", c.subj,
		fmt.Sprintf("%sbusbw collapses from %.2f GB/s at %s to as low as %.2f GB/s at %d sizes from %s to %s (under half the best of the smaller sizes): the transfers stall at those sizes",
			c.label, best, FormatBytes(bestSize), low, n, FormatBytes(lo), FormatBytes(hi)), evs...))
}

// The collapse rule's limits: sizes of 1 MiB and more (smaller ones are
// latency bound and swing), a best of at least 1 GB/s before them, and at
// least two sizes under half of it (one slow size can be a hiccup).
const (
	collapseMinSize int64   = 1 << 20
	collapseMinGBps float64 = 1
	collapseMinRows         = 2
)

// nicCount is how many NICs per node a run's busbw may use, and why.
type nicCount struct {
	n    int
	from string
	// known is set when the node's NIC count is a fact (a flag, --root),
	// not read from what NCCL used or assumed from the layout.
	known bool
	// lowerBound is set when nothing said how many NICs a node has.
	lowerBound bool
}

// nicsInUse is the number of NICs per node a multi-node run drives: each
// GPU drives the NIC nearest to it, so a node with fewer GPUs than NICs
// uses one per GPU. The node's NICs come from opts.NICsPerNode (a flag or
// --root), else the NCCL log's "NET/IB : Using" list, else the rank layout
// (one NIC per GPU, the rail-optimized layout of 8-GPU servers), else one
// NIC as a lower bound. Without a rank list a multi-node run of ranks
// ranks holds at most ranks/2 per node.
func nicsInUse(run *nccltests.Run, ranks int, opts TestsOptions) nicCount {
	perHost := ranksPerHost(run)
	atMost := perHost
	if atMost == 0 && ranks >= 2 {
		atMost = ranks / 2
	}
	var c nicCount
	switch {
	case opts.NICsPerNode > 0:
		c = nicCount{n: opts.NICsPerNode, from: cmpOr(opts.NICsFrom, "--nics-per-node"), known: true}
	case logNICs(opts.Net) > 0:
		u := mostNICs(opts.Net)
		c = nicCount{n: len(u.NICs), from: fmt.Sprintf("NICs per node from the NCCL log: %s uses %s", u.Host, strings.Join(u.NICs, " "))}
	case perHost > 0:
		return nicCount{n: perHost, from: fmt.Sprintf("NICs per node from the rank layout: %d ranks per host, one NIC per GPU assumed; give --nics-per-node otherwise", perHost)}
	default:
		return nicCount{n: 1, from: "NICs per node unknown: one NIC assumed", lowerBound: true}
	}
	switch {
	case perHost > 0 && perHost < c.n:
		c.from += fmt.Sprintf("; %d GPU(s) per host drive %d of them", perHost, perHost)
		c.n = perHost
	case perHost == 0 && atMost > 0 && atMost < c.n:
		c.from += fmt.Sprintf("; no rank list: %d ranks hold at most %d per node, each driving one", ranks, atMost)
		c.n = atMost
	}
	return c
}

// ranksPerHost is the fewest ranks any host of the run holds (the node
// with the fewest GPUs uses the fewest NICs); 0 when unknown.
func ranksPerHost(run *nccltests.Run) int {
	if len(run.Ranks) == 0 || run.RanksTruncated {
		return 0
	}
	count := map[string]int{}
	for _, r := range run.Ranks {
		count[r.Host]++
	}
	least := 0
	for _, n := range count {
		if least == 0 || n < least {
			least = n
		}
	}
	return least
}

func logNICs(net []NetUse) int { return len(mostNICs(net).NICs) }

func mostNICs(net []NetUse) NetUse {
	var best NetUse
	for _, u := range net {
		if len(u.NICs) > len(best.NICs) {
			best = u
		}
	}
	return best
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// netCause judges what the NCCL log inside a multi-node run's output says
// it used: TCP sockets (nccl.socket_fallback, critical), or fewer NICs on
// a host than it has (nccl.nics_unused: critical when the node's NIC count
// is known or another host lists more, a warning when only the rank layout
// suggests a lone NIC serves several GPUs).
func netCause(source, label string, run *nccltests.Run, sum RunSummary, opts TestsOptions, subj finding.Subject) (finding.Finding, bool) {
	hosts := sum.Hosts
	if len(hosts) == 0 {
		for _, u := range opts.Net {
			hosts = append(hosts, u.Host)
		}
	}
	if len(hosts) < 2 || len(opts.Net) == 0 {
		return finding.Finding{}, false
	}
	for _, u := range opts.Net {
		if u.Network == "Socket" {
			f := catalog.New("nccl.socket_fallback", subj,
				fmt.Sprintf("%smulti-node run over %d hosts: %s sent its inter-node traffic over TCP sockets (NET/Socket), not IB/RoCE", label, len(hosts), cmpOr(u.Host, "a process")),
				ev(source, u.Line, "Using network Socket"))
			f.Severity = finding.Critical
			return f, true
		}
	}
	perHost := ranksPerHost(run)
	most := mostNICs(opts.Net)
	for _, u := range opts.Net {
		if len(u.NICs) == 0 {
			continue
		}
		// How many this host should list: the node's count when a flag or
		// --root says it; else as many as another host of the job lists
		// (the nodes of one job are alike); else, for a host that lists
		// a single NIC for several GPUs, one per GPU — only as a warning,
		// since some servers do have one NIC.
		want, from, sev := 0, "", finding.Critical
		switch {
		case opts.NICsPerNode > 0:
			want, from = opts.NICsPerNode, cmpOr(opts.NICsFrom, "--nics-per-node")
		case len(most.NICs) > len(u.NICs):
			want, from = len(most.NICs), fmt.Sprintf("%s uses %d", most.Host, len(most.NICs))
		case len(u.NICs) == 1 && perHost > 1:
			want, from, sev = perHost, fmt.Sprintf("%d GPUs per host, one NIC per GPU assumed", perHost), finding.Warning
		}
		if perHost > 0 {
			want = min(want, perHost)
		}
		if len(u.NICs) >= want {
			continue
		}
		f := catalog.New("nccl.nics_unused", subj,
			fmt.Sprintf("%s%s drives its inter-node traffic through %d NIC(s) where %d are expected (%s)", label, cmpOr(u.Host, "a process"), len(u.NICs), want, from),
			ev(source, u.Line, "NET/IB : Using "+strings.Join(u.NICs, " ")))
		f.Severity = sev
		if sev == finding.Warning {
			f.Summary += "; if the node has more, NCCL_IB_HCA or a down port keeps them out (give --nics-per-node or --root to judge for certain)"
		}
		return f, true
	}
	return finding.Finding{}, false
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
