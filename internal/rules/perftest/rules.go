package perftest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/perftest"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// Thresholds (the catalogue documents them).
const (
	bwWarn = limits.PerfBWWarn
	bwCrit = limits.PerfBWCrit
	// MinBWBytes is the smallest message that can show line rate; below
	// it per-message overhead dominates.
	MinBWBytes = limits.PerfMinBWBytes
	// latFactor is the multiple of the floor above which latency is high.
	latFactor = limits.PerfLatFactor
	// udLatFactor raises the latency floor of UD tests over RC's.
	udLatFactor = 1.5
	// latCritFactor is the multiple of the floor above which it is critical.
	latCritFactor = 5
	// AbsFloorGbps is the bandwidth no working RDMA link falls below at
	// messages of MinBWBytes and more, judged without a line rate. The
	// slowest real RDMA links are Soft-RoCE (rxe) or soft-iWARP (siw) over
	// 1 GbE, which move about 110 MB/s (0.9 Gb/s) at 64 KiB; 0.1 Gb/s
	// (about 12 MB/sec as perftest counts) is under a ninth of that, so a run below it is not a
	// slow link but a broken path: a netdev that negotiated 10/100 Mb/s,
	// drops and retransmission, rxe over Wi-Fi or a shaped link, a CPU
	// that cannot keep up.
	AbsFloorGbps = 0.1
	// AbsCeilingUS is the small-message latency (messages of
	// AbsLatMaxBytes or less) above which no RDMA link is working,
	// judged without --max-latency: hardware RDMA takes 1-5 us, Soft-RoCE
	// and soft-iWARP, which run in the kernel's network stack, tens of
	// microseconds; 100 us is beyond both.
	AbsCeilingUS = 100
	// AbsLatMaxBytes is the largest message AbsCeilingUS applies to.
	AbsLatMaxBytes = 4096
	// mibGbps is perftest's MB/sec (0x100000 bytes per second) in Gb/s.
	mibGbps = 1048576 * 8 / 1e9
)

// Options are the expectations perftest output is judged against.
type Options struct {
	// LineRateGbps is the link's line rate in Gb/s (e.g. 200 for HDR 4X);
	// 0 = unknown, bandwidth not judged.
	LineRateGbps float64
	// DeviceRateGbps gives the line rate per device name (the banner's
	// "Device"), read from the node the test ran on; LineRateGbps wins.
	DeviceRateGbps map[string]float64
	// MaxLatencyUS overrides the latency threshold; 0 = floor × 1.5.
	MaxLatencyUS float64
}

// LatencyFloorUS is the expected small-message latency of a verb over a
// link type: about 1 µs for IB write/send, twice that for read and atomic
// (a round trip), and twice again over Ethernet (RoCE). An output without
// its banner says neither: an unknown link type is taken as Ethernet and
// an unknown verb as read, the slower of each, so a latency called high
// is high whatever the test was (a RoCE write at 1.8 µs is normal).
func LatencyFloorUS(verb, linkType string) float64 {
	f := 1.0
	if verb == "read" || verb == "atomic" || verb == "" {
		f = 2
	}
	if linkType == "Ethernet" || linkType == "" {
		f *= 2
	}
	return f
}

// Summary is what the rules read off one result, for reports.
type Summary struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	Test   string `json:"test"`
	Device string `json:"device,omitempty"`
	// BestGbps is the best average bandwidth at sizes ≥ MinBWBytes (or at
	// any size when none is that large).
	BestGbps  float64 `json:"best_gbps,omitempty"`
	BestBytes int64   `json:"best_bytes,omitempty"`
	// Fraction of the line rate (×2 when bidirectional), 0 when not judged.
	Fraction float64 `json:"fraction,omitempty"`
	// LatencyUS is the median latency of the smallest message.
	LatencyUS    float64 `json:"latency_us,omitempty"`
	LatencyBytes int64   `json:"latency_bytes,omitempty"`
	ThresholdUS  float64 `json:"threshold_us,omitempty"`
}

// Analysis is the result of Check.
type Analysis struct {
	Results  []Summary         `json:"results"`
	Findings []finding.Finding `json:"findings"`
	Notes    []string          `json:"notes,omitempty"`
}

// Check judges perftest results. Results from the two ends of one test
// (their QPNs cross-match) are compared with each other. It is pure.
func Check(results []*perftest.Result, opts Options) *Analysis {
	a := &Analysis{}
	for i, r := range results {
		s, fs, notes := analyzeOne(r, opts)
		// An end whose table did not come through (its row malformed,
		// skipped) judged nothing: the other end's table is judged.
		if j := sameMeasurement(results[:i], r); j >= 0 && len(results[j].BW)+len(results[j].Lat) > 0 {
			// The server and the client of one run both print its table:
			// one measurement, judged once.
			fs = slices.DeleteFunc(fs, func(f finding.Finding) bool { return f.ID == "perf.bw_low" || f.ID == "perf.lat_high" })
			notes = append(notes, fmt.Sprintf("%s: the same measurement as %s (the other end of the run): judged once", at(r, r.Line), at(results[j], results[j].Line)))
		}
		a.Results = append(a.Results, s)
		a.Findings = append(a.Findings, fs...)
		a.Notes = append(a.Notes, notes...)
	}
	a.Findings = append(a.Findings, pairFindings(results)...)
	catalog.Sort(a.Findings)
	return a
}

// sameMeasurement returns the index in earlier of the other end of r's
// run: the result whose QPNs cross-match r's, or the same test with the
// same rows; -1 when none.
func sameMeasurement(earlier []*perftest.Result, r *perftest.Result) int {
	for j, o := range earlier {
		if o.Kind != r.Kind {
			continue
		}
		if o.Local != nil && o.Remote != nil && r.Local != nil && r.Remote != nil && r.Local.QPN != "" && r.Remote.QPN != "" &&
			strings.EqualFold(o.Local.QPN, r.Remote.QPN) && strings.EqualFold(o.Remote.QPN, r.Local.QPN) {
			return j
		}
		if o.Test == r.Test && len(r.BW) > 0 && slices.EqualFunc(o.BW, r.BW, func(x, y perftest.BWRow) bool {
			return x.Bytes == y.Bytes && x.Iterations == y.Iterations && x.AvgGbps == y.AvgGbps
		}) {
			return j
		}
		if o.Test == r.Test && len(r.Lat) > 0 && len(o.Lat) == len(r.Lat) && slices.EqualFunc(o.Lat, r.Lat, func(x, y perftest.LatRow) bool {
			mx, _ := x.Median()
			my, _ := y.Median()
			return x.Bytes == y.Bytes && mx == my
		}) {
			return j
		}
	}
	return -1
}

func at(r *perftest.Result, line int) string { return fmt.Sprintf("%s:%d", r.Source, line) }

func name(r *perftest.Result) string {
	n := r.Test
	if n == "" {
		n = "perftest"
	}
	if r.Device != "" {
		n += " on " + r.Device
	}
	return n
}

// oneCheck holds what the steps of analyzeOne share: the test, its
// summary being filled in, and the findings and notes so far.
type oneCheck struct {
	r     *perftest.Result
	opts  Options
	subj  finding.Subject
	s     Summary
	fs    []finding.Finding
	notes []string
}

// analyzeOne judges one perftest test: its setup, its failures, and its
// bandwidth or latency.
func analyzeOne(r *perftest.Result, opts Options) (Summary, []finding.Finding, []string) {
	c := &oneCheck{r: r, opts: opts,
		s:    Summary{Source: r.Source, Line: r.Line, Test: r.Test, Device: r.Device},
		subj: finding.Subject{File: r.Source, Device: r.Device}}
	for _, k := range r.Skipped {
		c.notes = append(c.notes, fmt.Sprintf("skipped: %s:%d: %s", r.Source, k.Line, k.Reason))
	}
	if r.LinkType == "Ethernet" && r.Local != nil && perftest.GIDLinkLocal(r.Local.GID) {
		idx := "?"
		if r.GIDIndex != nil {
			idx = fmt.Sprint(*r.GIDIndex)
		}
		c.fs = append(c.fs, catalog.New("perf.test_invalid", c.subj,
			fmt.Sprintf("%s: RoCE test on GID index %s, a link-local (fe80::) GID: RoCE v1 or not routable across subnets; use the RoCE v2 IPv4-mapped GID", name(r), idx),
			finding.Evidence{Source: at(r, r.Line), Value: "GID: " + r.Local.GID}))
	}
	c.fs = append(c.fs, failureFindings(r, c.subj)...)
	startup := startupFindings(r, c.subj)
	if f, ok := zeroGID(r, c.subj, startup); ok {
		// A start that failed on an empty GID is its consequence.
		c.fs = append(c.fs, f)
		startup = slices.DeleteFunc(startup, gidConsequence)
	}
	c.fs = append(c.fs, startup...)
	switch r.Kind {
	case perftest.KindBW:
		c.checkBW()
	case perftest.KindLat:
		c.checkLat()
	}
	return c.s, c.fs, c.notes
}

// bestBW returns the fastest row with messages of at least MinBWBytes,
// nil when none is that large, and the largest message size.
func bestBW(rows []perftest.BWRow) (*perftest.BWRow, int64) {
	var best *perftest.BWRow
	maxBytes := int64(0)
	for i := range rows {
		row := &rows[i]
		maxBytes = max(maxBytes, row.Bytes)
		if row.Bytes >= MinBWBytes && (best == nil || row.AvgGbps > best.AvgGbps) {
			best = row
		}
	}
	return best, maxBytes
}

// checkBW judges a bandwidth test's best row against the line rate.
func (c *oneCheck) checkBW() {
	r, opts, s := c.r, c.opts, &c.s
	if len(r.BW) == 0 && (len(r.Failures) > 0 || len(r.Startup) > 0) {
		return // the run died or never started: said above
	}
	if len(r.BW) == 0 {
		c.notes = append(c.notes, fmt.Sprintf("%s: %s has no result row", at(r, r.Line), name(r)))
		return
	}
	best, maxBytes := bestBW(r.BW)
	if best == nil {
		last := r.BW[len(r.BW)-1]
		s.BestGbps, s.BestBytes = last.AvgGbps, last.Bytes
		f := catalog.New("perf.test_invalid", c.subj,
			fmt.Sprintf("%s: the largest message is %d B; below %d B per-message overhead hides the link's bandwidth (%.2f Gb/s measured)", name(r), maxBytes, MinBWBytes, last.AvgGbps),
			finding.Evidence{Source: at(r, last.Line), Value: fmt.Sprintf("%d B: %.2f Gb/s", last.Bytes, last.AvgGbps)})
		f.Severity = finding.Info
		c.fs = append(c.fs, f)
		return
	}
	s.BestGbps, s.BestBytes = best.AvgGbps, best.Bytes
	rate, from := opts.LineRateGbps, ""
	if rate <= 0 && opts.DeviceRateGbps[r.Device] > 0 {
		rate, from = opts.DeviceRateGbps[r.Device], fmt.Sprintf(", the rate of %s port 1", r.Device)
	}
	swung, collapsed := false, false
	if f, ok := collapse(r, best, rate, c.subj); ok {
		c.fs = append(c.fs, f)
		collapsed = true
	} else if f, ok := swing(r, rate, c.subj); ok {
		c.fs = append(c.fs, f)
		swung = true
	}
	if r.Untitled {
		c.notes = append(c.notes, fmt.Sprintf("%s: %s rows pasted without their column titles: read as #bytes, #iterations, BW peak, BW average, MsgRate in %s (the unit the MsgRate column fits)", at(r, r.Line), name(r), r.Unit))
	}
	if rate <= 0 {
		if best.AvgGbps < AbsFloorGbps && !swung && !collapsed {
			f := catalog.New("perf.bw_low", c.subj,
				fmt.Sprintf("%s reached %.3g Gb/s (%.3g MB/sec) at %d B, below the %.1f Gb/s no working RDMA link falls under (Soft-RoCE or iWARP over 1 GbE moves about 0.9 Gb/s): the path is broken, not slow. Check the netdev under %s (rdma link show names it): ethtool NETDEV (Speed), ethtool -S NETDEV and ip -s link show NETDEV (errors, drops), its MTU against the RDMA MTU; a software device (rxe, siw) over Wi-Fi, a shaped or virtual link, or a saturated CPU (top) does this too", name(r), best.AvgGbps, best.AvgGbps/mibGbps, best.Bytes, AbsFloorGbps, orDash(r.Device)),
				finding.Evidence{Source: at(r, best.Line), Value: fmt.Sprintf("%d B × %d: average %.4g Gb/s", best.Bytes, best.Iterations, best.AvgGbps)})
			f.Severity = finding.Warning
			c.fs = append(c.fs, f)
			return
		}
		c.notes = append(c.notes, fmt.Sprintf("%s: bandwidth not judged: give --line-rate (e.g. 200 for HDR, 400 for NDR) or --root of the node", name(r)))
		return
	}
	expect := rate
	dir := ""
	if r.Bidirectional {
		expect *= 2
		dir = " (both directions)"
	}
	s.Fraction = best.AvgGbps / expect
	if s.Fraction >= bwWarn || swung {
		// A swing judged its slowest interval against the line rate:
		// one finding for one run.
		return
	}
	f := catalog.New("perf.bw_low", c.subj,
		fmt.Sprintf("%s reached %.1f of %.0f Gb/s%s%s (%.0f%%) at %d B", name(r), best.AvgGbps, expect, dir, from, s.Fraction*100, best.Bytes),
		finding.Evidence{Source: at(r, best.Line), Value: fmt.Sprintf("%d B × %d: average %.2f Gb/s", best.Bytes, best.Iterations, best.AvgGbps)})
	if s.Fraction >= bwCrit {
		f.Severity = finding.Warning
	}
	if r.QPs == 1 && best.Bytes < 1<<20 {
		f.Summary += "; one QP with 64 KiB messages can fall short on 400G links: rerun with -q 4 -s 1048576 before blaming the link"
	}
	c.fs = append(c.fs, f)
}

// checkLat judges a latency test's smallest message against the floor for
// its verb and link, or against --max-latency.
func (c *oneCheck) checkLat() {
	r, opts, s := c.r, c.opts, &c.s
	if len(r.Lat) == 0 && (len(r.Failures) > 0 || len(r.Startup) > 0) {
		return // the run died or never started: said above
	}
	if len(r.Lat) == 0 {
		c.notes = append(c.notes, fmt.Sprintf("%s: %s has no result row", at(r, r.Line), name(r)))
		return
	}
	row := r.Lat[0]
	for _, x := range r.Lat[1:] {
		if x.Bytes < row.Bytes {
			row = x
		}
	}
	v, ok := row.Median()
	if !ok {
		return
	}
	if SoftDevice(r.Device) && opts.MaxLatencyUS == 0 {
		if v > AbsCeilingUS && row.Bytes <= AbsLatMaxBytes {
			s.LatencyUS, s.LatencyBytes, s.ThresholdUS = v, row.Bytes, AbsCeilingUS
			f := catalog.New("perf.lat_high", c.subj,
				fmt.Sprintf("%s: %.4g us for %d B messages, above the %d us no working RDMA link reaches (hardware RDMA takes 1-5 us, a software device such as %s tens of us): the path drops and retransmits or the CPU cannot keep up. Check the netdev under %s (rdma link show names it): ethtool -S NETDEV and ip -s link show NETDEV (errors, drops), its MTU against the RDMA MTU, and the CPU load (top); rxe over Wi-Fi or a virtual NIC does this too", name(r), v, row.Bytes, AbsCeilingUS, r.Device, r.Device),
				finding.Evidence{Source: at(r, row.Line), Value: fmt.Sprintf("%d B: typical/avg %.2f us", row.Bytes, v)})
			f.Severity = finding.Warning
			c.fs = append(c.fs, f)
			return
		}
		c.notes = append(c.notes, fmt.Sprintf("%s: latency not judged against the hardware floor: %s is a software RDMA device (rxe/siw run in the kernel's network stack), its latency is the CPU's, not the link's; give --max-latency to judge it", at(r, r.Line), r.Device))
		return
	}
	floor := LatencyFloorUS(r.Verb, r.LinkType)
	if r.Connection == "UD" {
		// A UD send carries its address handle in every work request
		// and lands behind a 40-byte GRH slot at the receiver: on a
		// ConnectX-5 EDR port ib_send_lat -c UD runs at 1.67 us where
		// RC sends take about 1.0 (realworld-fresh46).
		floor *= udLatFactor
	}
	limit := floor * latFactor
	if opts.MaxLatencyUS > 0 {
		limit = opts.MaxLatencyUS
	}
	s.LatencyUS, s.LatencyBytes, s.ThresholdUS = v, row.Bytes, limit
	if v <= limit {
		return
	}
	link := r.LinkType
	if link == "" {
		link = "an unknown link type, taken as Ethernet"
	}
	f := catalog.New("perf.lat_high", c.subj,
		fmt.Sprintf("%s: %.2f us for %d B messages, above %.2f us (floor %.1f us for %s over %s)", name(r), v, row.Bytes, limit, floor, orDash(r.Verb), link),
		finding.Evidence{Source: at(r, row.Line), Value: fmt.Sprintf("%d B: typical/avg %.2f us", row.Bytes, v)})
	if v > floor*latCritFactor {
		f.Severity = finding.Critical
	}
	c.fs = append(c.fs, f)
}

// SoftDevice says whether a device is software RDMA: Soft-RoCE (rxe) or
// soft-iWARP (siw) run over an ordinary NIC in the kernel.
func SoftDevice(dev string) bool {
	return strings.HasPrefix(dev, "rxe") || strings.HasPrefix(dev, "siw")
}

// collapseFraction is the share of the plateau below which the largest
// messages' bandwidth has collapsed.
const collapseFraction = 0.5

// collapse reports bandwidth that falls off at the largest messages after
// reaching a plateau (best): a healthy link holds its rate as messages
// grow, so a fall to under half means drops and retransmission (a
// software RDMA device or a lossy path), whatever the line rate. With a
// line rate the fallen rows are also judged against it.
func collapse(r *perftest.Result, best *perftest.BWRow, rate float64, subj finding.Subject) (finding.Finding, bool) {
	last := r.BW[len(r.BW)-1]
	for _, row := range r.BW {
		if row.Bytes > last.Bytes {
			last = row
		}
	}
	if last.Bytes <= best.Bytes || best.AvgGbps <= 0 || last.AvgGbps >= collapseFraction*best.AvgGbps {
		return finding.Finding{}, false
	}
	from := last.Bytes // the smallest message that fell under half
	for _, row := range r.BW {
		if row.Bytes > best.Bytes && row.AvgGbps < collapseFraction*best.AvgGbps && row.Bytes < from {
			from = row.Bytes
		}
	}
	f := catalog.New("perf.bw_low", subj,
		fmt.Sprintf("%s: bandwidth collapses at large messages: %.3g Gb/s at %d B, %.0f%% of the %.3g Gb/s it held at %d B (from %d B on); a link holds its rate as messages grow, so this is drops and retransmission on the path or in the RDMA stack", name(r), last.AvgGbps, last.Bytes, 100*last.AvgGbps/best.AvgGbps, best.AvgGbps, best.Bytes, from),
		finding.Evidence{Source: at(r, best.Line), Value: fmt.Sprintf("%d B: average %.3g Gb/s", best.Bytes, best.AvgGbps)},
		finding.Evidence{Source: at(r, last.Line), Value: fmt.Sprintf("%d B: average %.3g Gb/s", last.Bytes, last.AvgGbps)})
	f.Severity = finding.Warning
	if rate > 0 && last.AvgGbps < bwCrit*rate {
		f.Severity = finding.Critical
		f.Summary += fmt.Sprintf("; %.0f%% of the %g Gb/s line rate", 100*last.AvgGbps/rate, rate)
	}
	return f, true
}

// swing reports a run whose rows of one message size (the intervals of a
// --run_infinitely or repeated run) differ by more than collapseFraction:
// a link under a steady load holds a steady rate, so an interval at under
// half of another is drops or pauses on the path, whatever the line rate.
// With a line rate the slowest interval is also judged against it.
func swing(r *perftest.Result, rate float64, subj finding.Subject) (finding.Finding, bool) {
	type span struct {
		lo, hi *perftest.BWRow
		n      int
	}
	bySize := map[int64]*span{}
	var sizes []int64
	for i := range r.BW {
		row := &r.BW[i]
		if row.Bytes < MinBWBytes {
			continue
		}
		sp := bySize[row.Bytes]
		if sp == nil {
			sp = &span{lo: row, hi: row}
			bySize[row.Bytes] = sp
			sizes = append(sizes, row.Bytes)
		}
		sp.n++
		if row.AvgGbps < sp.lo.AvgGbps {
			sp.lo = row
		}
		if row.AvgGbps > sp.hi.AvgGbps {
			sp.hi = row
		}
	}
	var worst *span
	for _, b := range sizes {
		sp := bySize[b]
		if sp.n >= 2 && sp.hi.AvgGbps > 0 && sp.lo.AvgGbps < collapseFraction*sp.hi.AvgGbps &&
			(worst == nil || sp.lo.AvgGbps/sp.hi.AvgGbps < worst.lo.AvgGbps/worst.hi.AvgGbps) {
			worst = sp
		}
	}
	if worst == nil {
		return finding.Finding{}, false
	}
	lo, hi := worst.lo, worst.hi
	f := catalog.New("perf.bw_low", subj,
		fmt.Sprintf("%s: bandwidth swings between the %d results of %d B messages: %.3g Gb/s (line %d) to %.3g Gb/s (line %d), %.0f%% of its best; a link under a steady load holds a steady rate, so this is drops or pauses on the path (congestion, several senders into one port, RoCE without working PFC/ECN)", name(r), worst.n, lo.Bytes, lo.AvgGbps, lo.Line, hi.AvgGbps, hi.Line, 100*lo.AvgGbps/hi.AvgGbps),
		finding.Evidence{Source: at(r, hi.Line), Value: fmt.Sprintf("%d B: average %.3g Gb/s", hi.Bytes, hi.AvgGbps)},
		finding.Evidence{Source: at(r, lo.Line), Value: fmt.Sprintf("%d B: average %.3g Gb/s", lo.Bytes, lo.AvgGbps)})
	f.Severity = finding.Warning
	if rate > 0 && lo.AvgGbps < bwCrit*rate {
		f.Severity = finding.Critical
		f.Summary += fmt.Sprintf("; %.0f%% of the %g Gb/s line rate", 100*lo.AvgGbps/rate, rate)
	}
	return f, true
}

// failureFindings turns the completion errors that ended a run into
// findings with the status decoded, critical as the same error in a job's
// log is (verbs.completion_error): 12 (retry exceeded) and 13 (RNR retry
// exceeded) mean the peer never answered over this path, a fault of the
// link, the route or the peer; 4 (local protection) and 10 (remote
// access) a registration the HCA refused (GPUDirect without its peer
// memory module, a key the peer no longer holds), which a job doing the
// same transfers between these hosts meets too. A flush (5) is the
// consequence of an error before it, and a run that printed no status
// says too little: warnings.
func failureFindings(r *perftest.Result, subj finding.Subject) []finding.Finding {
	var fs []finding.Finding
	for _, fl := range r.Failures {
		side := ""
		if fl.Side != "" {
			side = " (at the " + fl.Side + ")"
		}
		what := "a completion error (no status printed)"
		sev := finding.Warning
		if fl.Status >= 0 {
			st := nccllog.WCStatus(fl.Status)
			info := st.Info()
			what = fmt.Sprintf("status %d, %s (%s)", fl.Status, info.Name, info.Text)
			if fl.Syndrome != "" {
				what += ", vendor syndrome " + fl.Syndrome
			}
			if info.Meaning != "" {
				what += ": " + info.Meaning
			}
			if st != nccllog.WCSuccess && st != nccllog.WCWRFlushErr {
				sev = finding.Critical
			}
		}
		f := catalog.New("perf.test_invalid", subj,
			fmt.Sprintf("%s died%s on a work completion with %s; no bandwidth or latency was measured", name(r), side, what),
			finding.Evidence{Source: at(r, fl.Line), Value: fl.Text})
		f.Severity = sev
		fs = append(fs, f)
	}
	return fs
}

// zeroGID reports a RoCE test whose local GID is all zeros: the port has
// no GID at the index the test used, so RoCE cannot address the peer and
// the connection (modify QP to RTR) fails. Critical when the test measured
// nothing; startup is what the test printed when it could not start, its
// lines become evidence.
func zeroGID(r *perftest.Result, subj finding.Subject, startup []finding.Finding) (finding.Finding, bool) {
	if r.LinkType != "Ethernet" {
		return finding.Finding{}, false
	}
	local := r.Local != nil && perftest.GIDZero(r.Local.GID)
	remote := r.Remote != nil && perftest.GIDZero(r.Remote.GID)
	if !local && !remote {
		return finding.Finding{}, false
	}
	idx := "?"
	if r.GIDIndex != nil {
		idx = fmt.Sprint(*r.GIDIndex)
	}
	var ends, who string
	var ev finding.Evidence
	switch {
	case local && remote:
		ends, who = "the local and the remote GID", "neither end has a"
	case local:
		ends, who = "the local GID", cmpOr(r.Device, "the local device")+" has no"
	default:
		ends, who = "the remote GID", "the peer has no"
	}
	if local {
		ev = finding.Evidence{Source: at(r, r.Local.GIDLine), Value: "GID: " + r.Local.GID}
	} else {
		ev = finding.Evidence{Source: at(r, r.Remote.GIDLine), Value: "GID: " + r.Remote.GID}
	}
	f := catalog.New("perf.test_invalid", subj,
		fmt.Sprintf("%s: RoCE test on GID index %s with %s all zeros: %s RoCE GID at that index (the netdev behind it is not in this network namespace or has no address, as in a pod whose RDMA interface was not set up, or -x names an empty index); RoCE cannot address the peer (show_gids lists the GIDs and their indexes)", name(r), idx, ends, who),
		ev)
	for _, x := range startup {
		if gidConsequence(x) {
			f.Evidence = append(f.Evidence, x.Evidence...)
		}
	}
	if len(r.BW) > 0 || len(r.Lat) > 0 {
		f.Severity = finding.Warning
		return f, true
	}
	f.Severity = finding.Critical
	if len(startup) > 0 {
		f.Summary += "; the test could not connect and measured nothing"
	}
	return f, true
}

// gidConsequence says whether a start-up finding follows from an empty
// GID: a queue pair that could not reach RTR (its address vector names
// that GID) or any start-up warning; a port that is not ACTIVE or a
// device without resources is a cause of its own.
func gidConsequence(x finding.Finding) bool {
	return x.Severity != finding.Critical || strings.Contains(x.Summary, rtrWords)
}

// rtrWords is in the summary of a start that failed at RTR.
const rtrWords = "bringing its queue pair to RTR (Ready To Receive) failed"

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// startupFindings reports a test that could not start. A local port that
// is not ACTIVE is critical: nothing can run over it; so is a local device
// that cannot give the test its verbs resources (its attributes, a queue
// pair): no RDMA program can run on it either. The other causes (device
// not opened, peer not reached, QP not brought up) are warnings that name
// perftest's message.
func startupFindings(r *perftest.Result, subj finding.Subject) []finding.Finding {
	var fs []finding.Finding
	for _, st := range r.Startup {
		if st.Midrun && len(r.Failures) > 0 {
			continue // the completion error that ended the run is said
		}
		sum := fmt.Sprintf("%s could not start: %s; no bandwidth or latency was measured", name(r), st.Text)
		sev := finding.Warning
		var causes, remedy []string
		switch {
		case st.Port > 0 && !strings.EqualFold(st.PortState, "Active"):
			sum = fmt.Sprintf("%s could not start: local port %d is %s (perftest runs only over an ACTIVE port)", name(r), st.Port, st.PortState)
			sev = finding.Critical
		case st.Device:
			sum = fmt.Sprintf("%s could not start: the local device could not create the test's verbs resources (%s); RDMA is unusable on this device for this process, whatever the peer", name(r), st.Text)
			sev = finding.Critical
			causes = []string{"kernel driver (mlx5_ib) and rdma-core/libibverbs out of step, often after a kernel upgrade",
				"the process's locked-memory limit too low for the queue pair's buffers (ulimit -l)",
				"the device in a bad state (firmware or driver error in dmesg)"}
			remedy = []string{"ibv_devinfo -v to see whether the device answers a query",
				"dmesg | grep -i mlx5 for driver errors",
				"ulimit -l (unlimited for RDMA jobs)",
				"run the kernel's matching rdma-core (or MLNX_OFED built for this kernel)"}
		case st.CMEvent != "":
			sum, sev, causes, remedy = cmEventFinding(r, st)
		case strings.Contains(strings.ToLower(st.Text), "modify qp") && strings.Contains(st.Text, " to RTR"):
			// ibv_modify_qp to Ready To Receive takes the path to the peer
			// (its GID or LID, the path MTU) and the local port: it fails
			// with EINVAL when the address vector names a GID index that
			// does not exist or is not the port's RoCE GID, a path MTU
			// above the port's active MTU, or a port that is not ACTIVE.
			// Critical: with these settings the two ports cannot
			// connect at all, as a program's "Failed to modify QP to
			// RTR" is (verbs.qp_setup_failed).
			sum = fmt.Sprintf("%s could not start: "+rtrWords+" (%s), so no traffic was sent and nothing was measured: with these settings the two ports cannot connect", name(r), st.Text)
			sev = finding.Critical
			causes = []string{"a GID index that is empty or not the RoCE v2 GID of the address used (RoCE)",
				"the local port or its netdev down (ibdev2netdev shows (Down)), or the test run on another device than the one carrying the address",
				"a path MTU above the active MTU of one of the two ports"}
			remedy = []string{"show_gids to find the RoCE v2 GID index of the address, then pass it (ib_write_bw -x N, ibv_rc_pingpong -g N)",
				"ibv_devinfo -v on both hosts: the port used is PORT_ACTIVE, and active_mtu matches (else set the MTU: ib_write_bw -m 1024, qperf -M 1024)",
				"ibdev2netdev to pick the device whose netdev is (Up) and holds the address (ib_write_bw -d DEV, qperf -i DEV:PORT)"}
		case strings.HasPrefix(st.Text, "Couldn't connect to ") || strings.HasPrefix(st.Text, "Unable to open file descriptor for socket connection"):
			// The client's TCP connection for the key exchange
			// (perftest_communication.c ethernet_client_connect)
			// was refused or timed out: nothing RDMA was tried.
			sum = fmt.Sprintf("%s could not start: the client could not open the TCP connection perftest exchanges its keys over (%s); nothing RDMA was tried yet", name(r), st.Text)
			causes = []string{"no server side running on the peer (started after the client, or already gone)",
				"a firewall between the hosts blocking the test's TCP port (18515 unless -p sets another)",
				"the wrong address, or one the management network does not reach"}
			remedy = []string{"start the server side on the peer first, with the same test and options and no address, then the client with the peer's address",
				"pick a port the firewall allows with -p PORT on both ends",
				"check the address answers from this host (ping it)"}
		}
		if st.Midrun {
			// Both ends had exchanged their addresses and the test
			// was running: the peer closed its socket before the
			// closing exchange, so its run ended in an error (a work
			// completion error, a crash) or it was killed.
			sum = fmt.Sprintf("%s died mid-run: the two ends had exchanged their addresses and the test had started, then the exchange with the peer failed (%s): the peer's run ended before it finished, so no bandwidth or latency was measured; the peer's own output names its error (run both ends again and keep both outputs)", name(r), st.Text)
			sev = finding.Critical
		}
		f := catalog.New("perf.test_invalid", subj, sum, finding.Evidence{Source: at(r, st.Line), Value: st.Text})
		if causes != nil {
			f.Causes, f.Remedy = causes, remedy
		}
		f.Severity = sev
		fs = append(fs, f)
	}
	return fs
}

// cmEventFinding says what the rdma_cm event a -R client got instead of
// ESTABLISHED means (librdmacm's rdma_cm_event_type, rdma_connect(3)).
// REJECTED: the address and route resolved and the peer's connection
// manager answered, refusing the connection; with perftest that is
// almost always no server listening on the port (not started yet, gone,
// started without -R or on another -p): the fabric carried the request
// and the reply, so it is a warning. UNREACHABLE, CONNECT_ERROR and the
// address and route errors are the RDMA path to the peer failing: no
// RDMA program can connect that way, so they are critical.
func cmEventFinding(r *perftest.Result, st perftest.Startup) (sum string, sev finding.Severity, causes, remedy []string) {
	switch st.CMEvent {
	case "RDMA_CM_EVENT_REJECTED":
		return fmt.Sprintf("%s could not start: the rdma_cm connection was rejected by the peer (event %d, %s: %s): address and route resolved and the peer's connection manager answered, but nothing accepted the connection; nothing was measured", name(r), st.CMEventNum, st.CMEvent, st.Text),
			finding.Warning,
			[]string{"no server side listening on the peer's port (started after the client, already gone, or on another -p)",
				"the server started without -R (rdma_cm) while the client used it, or the other way round",
				"the server refused the connection parameters (different test, connection type or options on the two ends)"},
			[]string{"start the server side on the peer first with the same test and options (-R on both ends, the same -p), then the client",
				"rping -s on the peer and rping -c -a PEER_IP -v -C 3 here to test rdma_cm on its own"}
	case "RDMA_CM_EVENT_UNREACHABLE", "RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_ADDR_ERROR", "RDMA_CM_EVENT_ROUTE_ERROR":
		return fmt.Sprintf("%s could not start: the rdma_cm connection to the peer failed (event %d, %s: %s): the RDMA path to the peer does not work, so no RDMA connection can be made that way; nothing was measured", name(r), st.CMEventNum, st.CMEvent, st.Text),
			finding.Critical,
			[]string{"the RDMA port down or the link flapping on either end",
				"RoCE: no route or ARP/neighbour entry to the peer's address on the RDMA netdev, a wrong GID index, or a VLAN/MTU mismatch",
				"InfiniBand: no subnet manager, or the peer's port not in the same partition"},
			[]string{"ibv_devinfo -v on both ends (port state ACTIVE, link layer)",
				"ip route get PEER_IP and ip neigh on the RDMA netdev (RoCE)",
				"rping -s on the peer and rping -c -a PEER_IP -v -C 3 here"}
	}
	return fmt.Sprintf("%s could not start: the rdma_cm connection got %s instead of ESTABLISHED (%s); nothing was measured", name(r), st.CMEvent, st.Text),
		finding.Warning, nil, nil
}

func orDash(s string) string {
	if s == "" {
		return "an unknown verb, taken as read"
	}
	return s
}

// pairFindings compares the two ends of a test: results whose local QPN is
// the other's remote QPN (and the other way round).
func pairFindings(results []*perftest.Result) []finding.Finding {
	var fs []finding.Finding
	for i, a := range results {
		for _, b := range results[i+1:] {
			if a.Local == nil || a.Remote == nil || b.Local == nil || b.Remote == nil || a.Local.QPN == "" || a.Remote.QPN == "" {
				continue // QPNs masked in the paste do not pair
			}
			if !strings.EqualFold(a.Local.QPN, b.Remote.QPN) || !strings.EqualFold(a.Remote.QPN, b.Local.QPN) {
				continue
			}
			if a.MTU != 0 && b.MTU != 0 && a.MTU != b.MTU {
				subj := finding.Subject{File: a.Source, Device: a.Device, Peer: &finding.Subject{File: b.Source, Device: b.Device}}
				fs = append(fs, catalog.New("perf.test_invalid", subj,
					fmt.Sprintf("the two ends of %s disagree on MTU: %d on %s, %d on %s", a.Test, a.MTU, a.Source, b.MTU, b.Source),
					finding.Evidence{Source: at(a, a.Line), Value: fmt.Sprintf("Mtu : %d[B]", a.MTU)},
					finding.Evidence{Source: at(b, b.Line), Value: fmt.Sprintf("Mtu : %d[B]", b.MTU)}))
			}
		}
	}
	return fs
}
