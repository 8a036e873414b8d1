package host

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// maxEvidence bounds the log lines cited per finding.
const maxEvidence = 4

// aerTally collects the AER evidence of one PCI function: an HCA or GPU
// itself, or a switch/root port above some.
type aerTally struct {
	pci pcie.Address
	// below are the HCAs and GPUs the function is or sits above.
	below              []target
	corr, nonfat, fat  uint64
	logCorr, logUncorr int
	// rcvCorr counts the correctable errors of the ports' "error
	// received" lines ("Multiple" is at least two), which also count
	// where the detail lines of a report were cut from a paste.
	rcvCorr int
	// corrAt and rcvAt are the log times of the correctable errors the
	// reports and the received lines count, for bursts.
	corrAt, rcvAt []time.Duration
	ev            []finding.Evidence
	logEv         int
}

// Burst: in a pasted log, which is an excerpt of a longer one, this many
// correctable reports of one function within burstSpan are a flood,
// whatever the count over the whole log: the kernel rate-limits AER
// messages, so several in a second mean a link that keeps erring.
const (
	burstReports = 3
	burstSpan    = time.Second
)

// burst says whether at least burstReports of the times lie within
// burstSpan of each other.
func burst(at []time.Duration) bool {
	at = slices.Clone(at)
	slices.Sort(at)
	for i := 0; i+burstReports-1 < len(at); i++ {
		if at[i+burstReports-1]-at[i] <= burstSpan {
			return true
		}
	}
	return false
}

// Stream: in a pasted log, this many correctable reports of one function
// with no gap over streamGap between one and the next are a marginal link
// erring steadily (one every ~10 s, as a root port whose Data Link Layer
// keeps timing out), even under the whole-log threshold and slower than
// a burst. A one-off corrected error, or a few at boot minutes apart
// from the next, is no stream.
const (
	streamReports = 4
	streamGap     = time.Minute
)

// stream returns the longest run of the times that follow one another
// with no gap over streamGap (its length and span) when it holds at
// least streamReports of them; n is 0 when none does.
func stream(at []time.Duration) (n int, span time.Duration) {
	at = slices.Clone(at)
	slices.Sort(at)
	start := 0
	for i := 1; i <= len(at); i++ {
		if i < len(at) && at[i]-at[i-1] <= streamGap {
			continue
		}
		if k := i - start; k >= streamReports && k > n {
			n, span = k, at[i-1]-at[start]
		}
		start = i
	}
	return n, span
}

// lowCountWhy says why correctable reports under the whole-log threshold
// are reported: a burst or a steady stream; "" when neither.
func lowCountWhy(x *aerTally) string {
	if burst(x.corrAt) || burst(x.rcvAt) {
		return fmt.Sprintf("%d or more within a second: a burst", burstReports)
	}
	n, span := stream(x.corrAt)
	if m, sp := stream(x.rcvAt); m > n {
		n, span = m, sp
	}
	if n > 0 {
		return fmt.Sprintf("%d errors over %s, each within a minute of the one before: a steady stream from a marginal link", n, span.Round(100*time.Millisecond))
	}
	return ""
}

// checkAER reports AER errors on the links of HCAs and GPUs: the aer_dev_*
// counters of the function and of every port above it (errors are often
// logged at the link partner), and AER reports in the kernel log whose
// source is such a function. One finding per erroring function, naming the
// HCAs and GPUs that depend on it, so an error at a switch port above four
// devices is reported once.
func checkAER(in *Input) []finding.Finding {
	th := in.th()
	t := &aerTallies{in: in, by: map[pcie.Address]*aerTally{}}
	// Counters of the HCAs, GPUs and the ports above them.
	if !in.logOnly {
		t.addCounters()
	}
	evs := in.events()
	t.addLogEvents(evs)
	bits := aerBits(evs)
	var out []finding.Finding
	for _, a := range t.order {
		x := t.by[a]
		uncorr := x.nonfat + x.fat + uint64(x.logUncorr)
		x.logCorr = max(x.logCorr, x.rcvCorr)
		low := uncorr == 0 && x.corr < th.AERCorrectable && uint64(x.logCorr) < th.AERCorrectable
		why := ""
		if low && in.standalone {
			why = lowCountWhy(x)
		}
		if low && why == "" && !in.standalone {
			continue
		}
		f := aerFinding(in, x, bits[a])
		switch {
		case low && why == "":
			// A pasted log that shows a few corrected errors, no
			// burst and no stream: said, so the paste is answered,
			// but nothing to act on (the hardware corrected them, and
			// a healthy link logs one now and then).
			f.Severity = finding.Info
			f.Summary += fmt.Sprintf("; below %d corrected errors, with no burst or steady stream in the paste: the link corrected them, nothing to act on unless they recur (a count that keeps rising, many a second, is a marginal link)", th.AERCorrectable)
		case why != "":
			f.Summary += "; " + why
		}
		if uncorr > 0 {
			f.Severity = finding.Critical
		}
		out = append(out, f)
	}
	return out
}

// aerTallies is the AER tally of each erroring function, in the order
// they were first seen.
type aerTallies struct {
	in    *Input
	by    map[pcie.Address]*aerTally
	order []pcie.Address
}

// get returns a's tally, creating it with the devices below it.
func (t *aerTallies) get(a pcie.Address, below []target) *aerTally {
	if x, ok := t.by[a]; ok {
		return x
	}
	x := &aerTally{pci: a, below: below}
	t.by[a] = x
	t.order = append(t.order, a)
	return x
}

// addCounters tallies the aer_dev_* counters of the HCAs, the GPUs and
// the ports above them, each function once.
func (t *aerTallies) addCounters() {
	s := t.in.Snap
	for _, c := range candidates(s) {
		for _, a := range append([]pcie.Address{c}, upstreamAddrs(t.in, c)...) {
			if _, done := t.by[a]; done {
				continue
			}
			p := s.PCIDevice(a)
			if p == nil || p.AER == nil || p.AER.Correctable+p.AER.NonFatal+p.AER.Fatal == 0 {
				continue
			}
			x := t.get(a, targetsOf(s, a))
			x.corr, x.nonfat, x.fat = p.AER.Correctable, p.AER.NonFatal, p.AER.Fatal
			x.ev = append(x.ev, finding.Evidence{
				Source: "sys/bus/pci/devices/" + string(a) + "/aer_dev_*",
				Value:  fmt.Sprintf("correctable %d, non-fatal %d, fatal %d%s", p.AER.Correctable, p.AER.NonFatal, p.AER.Fatal, bitList(p.AER.Bits)),
			})
		}
	}
}

// addLogEvents tallies the kernel log's AER reports: the detail lines
// ("PCIe Bus Error", one per error) where a source has them, else the
// ports' "error received" lines.
func (t *aerTallies) addLogEvents(evs []kmsg.Event) {
	in, s := t.in, t.in.Snap
	hasDetail := map[pcie.Address]bool{}
	for _, e := range evs {
		if e.Kind == kmsg.KindAER && e.AERDetail {
			hasDetail[e.PCI] = true
		}
	}
	for _, e := range evs {
		if e.Kind != kmsg.KindAER || e.PCI == "" {
			continue
		}
		if !e.AERDetail && hasDetail[e.PCI] {
			continue
		}
		below := targetsOf(s, e.PCI)
		if len(below) == 0 && !in.standalone && e.AERSeverity == kmsg.AERCorrectable {
			// A device no HCA or GPU depends on: its corrected errors are
			// not this tool's business; an uncorrectable or fatal one is
			// reported all the same (named by the BDF of the log), since
			// it can take the root complex or the whole host down.
			continue
		}
		x := t.get(e.PCI, below)
		if e.AERSeverity == kmsg.AERCorrectable {
			n := aerCount(e)
			x.logCorr += n
			if at, ok := recordTime(e.Record); ok && !e.Folded {
				for range n {
					x.corrAt = append(x.corrAt, at)
				}
			}
		} else {
			x.logUncorr += e.Weight()
		}
		if x.logEv < maxEvidence && !e.Folded {
			x.logEv++
			x.ev = append(x.ev, in.logEvidence(e.Record))
		}
	}
	// Where a function has detail lines, those are its reports; its
	// received lines still count the errors, for a paste that lost some
	// of the details.
	for _, e := range evs {
		if e.Kind == kmsg.KindAER && !e.AERDetail && hasDetail[e.PCI] && e.AERSeverity == kmsg.AERCorrectable {
			if x, ok := t.by[e.PCI]; ok {
				n := receivedCount(e)
				x.rcvCorr += n
				if x.logEv < maxEvidence && !e.Folded {
					x.logEv++
					x.ev = append(x.ev, in.logEvidence(e.Record))
				}
				if at, ok := recordTime(e.Record); ok && !e.Folded {
					for range n {
						x.rcvAt = append(x.rcvAt, at)
					}
				}
			}
		}
	}
}

// receivedCount is the number of errors an "error received" line stands
// for: "Multiple" means the status register held more than one.
func receivedCount(e kmsg.Event) int {
	if strings.HasPrefix(e.Detail, "Multiple ") {
		return 2 * e.Weight()
	}
	return e.Weight()
}

// aerCount is how many errors an AER event reports: a detail line one
// (times the events a folded one stands for), a received line as
// receivedCount says.
func aerCount(e kmsg.Event) int {
	if e.AERDetail {
		return e.Weight()
	}
	return receivedCount(e)
}

// recordTime is when a record was logged, as an offset comparable with
// the other records of the same log: the time since boot, else the wall
// clock.
func recordTime(r kmsg.Record) (time.Duration, bool) {
	switch {
	case r.HasMono:
		return r.Mono, true
	case !r.Time.IsZero():
		return time.Duration(r.Time.UnixNano()), true
	case r.HasRel:
		return r.Rel, true // dmesg -H with its minute stamp cut: the time since the paste's first record
	}
	return 0, false
}

// aerBits lists the error bits of the reports ("RxErr", "BadTLP",
// "Timeout") per reporting function, which say what a flood is made of.
func aerBits(evs []kmsg.Event) map[pcie.Address][]string {
	bits := map[pcie.Address][]string{}
	for _, e := range evs {
		if e.Kind == kmsg.KindAERBit && !slices.Contains(bits[e.PCI], e.Detail) {
			bits[e.PCI] = append(bits[e.PCI], e.Detail)
		}
	}
	return bits
}

// aerFinding is pcie.aer_errors for tally x, naming the function (or
// the HCAs and GPUs below it) and its counters and log reports, with
// the reports' error bits.
func aerFinding(in *Input, x *aerTally, bits []string) finding.Finding {
	a, s := x.pci, in.Snap
	var parts []string
	if x.corr+x.nonfat+x.fat > 0 {
		parts = append(parts, fmt.Sprintf("AER counters: %d correctable, %d non-fatal, %d fatal", x.corr, x.nonfat, x.fat))
	}
	if x.logCorr+x.logUncorr > 0 {
		p := aerReports(x.logCorr, x.logUncorr) + " " + in.window()
		if len(bits) > 0 {
			p += " (" + strings.Join(bits, ", ") + ")"
		}
		parts = append(parts, p)
	}
	where, subj := string(a), finding.Subject{Host: s.Host, PCI: string(a)}
	switch {
	case len(x.below) == 1 && x.below[0].PCI == a:
		where, subj = x.below[0].longLabel(), x.below[0].subject(s.Host)
	case len(x.below) > 0:
		var names []string
		for _, t := range x.below {
			names = append(names, t.label())
		}
		where = fmt.Sprintf("PCIe port %s above %s", a, strings.Join(names, ", "))
		subj = x.below[0].subject(s.Host)
		subj.PCI = string(a)
	}
	return catalog.New("pcie.aer_errors", subj, fmt.Sprintf("PCIe errors on the link of %s: %s", where, strings.Join(parts, "; ")), x.ev...)
}

// aerReports counts the log's AER reports of a function, naming only the
// severities it saw: "1 uncorrectable report", "3 correctable and 1
// uncorrectable reports".
func aerReports(corr, uncorr int) string {
	switch {
	case uncorr == 0:
		return plural(corr, "correctable report", "correctable reports")
	case corr == 0:
		return plural(uncorr, "uncorrectable report", "uncorrectable reports")
	}
	return fmt.Sprintf("%d correctable and %d uncorrectable reports", corr, uncorr)
}

// upstreamAddrs lists the ports above a function, nearest first.
func upstreamAddrs(in *Input, a pcie.Address) []pcie.Address {
	var out []pcie.Address
	for _, p := range in.Snap.Upstream(a) {
		out = append(out, p.Address)
	}
	return out
}

func bitList(bits map[string]uint64) string {
	var names []string
	for n, v := range bits {
		if v > 0 && !strings.HasPrefix(n, "TOTAL_") {
			names = append(names, fmt.Sprintf("%s %d", n, v))
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return " (" + strings.Join(names, ", ") + ")"
}

// checkXid reports NVIDIA Xid events per GPU and code. A GPU that fell off
// the bus is reported once: as gpu.xid when the driver logged an Xid 79 for
// it (its "fallen off the bus" lines join that finding's evidence), as
// gpu.fallen_off_bus when only the NVRM "fallen off the bus" message names it.
func checkXid(in *Input) []finding.Finding {
	s := in.Snap
	// A GPU is its PCI address, or the UUID a daemon names it by.
	type gpuKey struct {
		pci  pcie.Address
		uuid string
	}
	type key struct {
		gpuKey
		code int
	}
	type tally struct {
		n     int
		ev    []finding.Evidence
		procs []string
		// fatal: a message of an NVLink Xid said "Fatal"; named counts
		// the messages of another Xid that name this one as their cause
		// ("45, ... caused by previous Xid 149") where it was not logged
		// itself (cut from the paste, or before the window).
		fatal bool
		named int
		// unhealthy: NVIDIA's device plugin said it marks the GPU
		// unhealthy for it.
		unhealthy bool
		// lost: how the driver said it lost the GPU, where it did
		// not say "fallen off the bus" ("GPU lost from the bus
		// (NV_ERR_GPU_IS_LOST)").
		lost []string
	}
	xs := map[key]*tally{}
	var keys []key
	get := func(k key) *tally {
		t, ok := xs[k]
		if !ok {
			t = &tally{}
			xs[k] = t
			keys = append(keys, k)
		}
		return t
	}
	off := map[gpuKey]*tally{}
	var offKeys []gpuKey
	for _, e := range in.events() {
		g := gpuKey{e.PCI, e.GPUUUID}
		switch {
		case e.Kind == kmsg.KindFallenOffBus || (e.Kind == kmsg.KindXid && e.Xid == 79):
			t, ok := off[g]
			if !ok {
				t = &tally{}
				off[g] = t
				offKeys = append(offKeys, g)
			}
			t.n += e.Weight()
			t.named += boolInt(e.Kind == kmsg.KindXid) // the Xid 79 lines
			if e.Kind == kmsg.KindFallenOffBus && e.Detail != "GPU has fallen off the bus" && !slices.Contains(t.lost, e.Detail) {
				t.lost = append(t.lost, e.Detail)
			}
			if len(t.ev) < maxEvidence && !e.Folded {
				t.ev = append(t.ev, in.logEvidence(e.Record))
			}
		case e.Kind == kmsg.KindXid:
			t := get(key{g, e.Xid})
			t.unhealthy = t.unhealthy || strings.Contains(e.Detail, "unhealthy")
			t.n += e.Weight()
			t.fatal = t.fatal || reXidFatal.MatchString(e.Detail)
			if m := reXidCause.FindStringSubmatch(e.Detail); m != nil {
				if c, err := strconv.Atoi(m[1]); err == nil && c != e.Xid {
					ct := get(key{g, c})
					ct.named += e.Weight()
					if len(ct.ev) < maxEvidence && !e.Folded {
						ct.ev = append(ct.ev, in.logEvidence(e.Record))
					}
				}
			}
			if len(t.ev) < maxEvidence && !e.Folded {
				t.ev = append(t.ev, in.logEvidence(e.Record))
			}
			if p := strings.Trim(e.XidProcess, "'"); p != "" && p != "<unknown>" && !slices.Contains(t.procs, p) {
				t.procs = append(t.procs, p)
			}
		}
	}
	gpu := func(g gpuKey) (finding.Subject, string) {
		a := g.pci
		if a == "" && g.uuid != "" {
			return finding.Subject{Host: s.Host, GPU: g.uuid}, g.uuid
		}
		if a == "" {
			// The driver's own lines of a lost GPU need not name it
			// ("NVRM: _issueRpcAndWait: rpcSendMessage failed with
			// status 0x0000000f"): say how to find which one it is.
			return finding.Subject{Host: s.Host}, "an NVIDIA GPU (the lines name no PCI address: nvidia-smi -L and lspci -d 10de: show which one is missing)"
		}
		name, ok := gpuName(s, a)
		label := "GPU " + string(a)
		if ok {
			label = name + " (" + string(a) + ")"
		}
		return finding.Subject{Host: s.Host, GPU: strings.TrimPrefix(name, "GPU"), PCI: string(a)}, label
	}
	if u, ok := off[gpuKey{}]; ok && len(offKeys) > 1 {
		// Lines that name no GPU ("rpcSendMessage failed with status
		// 0x0000000f") beside a GPU the driver named as lost are that
		// loss, not another GPU's: they join its finding when one GPU
		// was named, and are left to the named findings otherwise.
		named := slices.DeleteFunc(offKeys, func(k gpuKey) bool { return k == gpuKey{} })
		if len(named) == 1 {
			t := off[named[0]]
			t.n += u.n
			for _, ev := range u.ev {
				if len(t.ev) < maxEvidence {
					t.ev = append(t.ev, ev)
				}
			}
		}
		offKeys = named
	}
	var out []finding.Finding
	for _, a := range offKeys {
		subj, label := gpu(a)
		t := off[a]
		if t.named == 0 {
			how := ""
			if len(t.lost) > 0 {
				how = ": " + strings.Join(t.lost, "; ")
			}
			if a.pci == "" && a.uuid == "" {
				label = "A" + strings.TrimPrefix(label, "a")
			}
			out = append(out, catalog.New("gpu.fallen_off_bus", subj,
				fmt.Sprintf("%s has fallen off the PCIe bus (%s %s%s); every job on it died", label, plural(t.n, "message", "messages"), in.window(), how), t.ev...))
			continue
		}
		// An Xid 79 is the driver's own name for the loss: one gpu.xid
		// finding, its summary saying the GPU fell off the bus, the
		// "fallen off the bus" lines of the same GPU in its evidence.
		info := LookupXid(79)
		f := catalog.New("gpu.xid", subj,
			fmt.Sprintf(xid79Lead+"%s: the GPU has fallen off the PCIe bus (%s %s); every job on it died", label, plural(t.n, "message", "messages"), in.window()), t.ev...)
		f.Severity = info.Severity
		// A lost GPU is not reset in place: the causes and remedies are
		// those of a GPU that fell off the bus (drain, reboot, reseat).
		lost := catalog.New("gpu.fallen_off_bus", subj, "")
		f.Causes, f.Remedy = lost.Causes, lost.Remedy
		out = append(out, f)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.pci, b.pci), cmp.Compare(a.uuid, b.uuid), cmp.Compare(a.code, b.code))
	})
	for _, k := range keys {
		t := xs[k]
		info := LookupXid(k.code)
		subj, label := gpu(k.gpuKey)
		if k.gpuKey == (gpuKey{}) {
			// An Xid line whose address the paste elided ("Xid (PCI:...): 145"):
			// the GPU is there, its address is not.
			label = "an NVIDIA GPU (its PCI address is elided in the lines: dmesg on the host names it)"
		}
		var sum string
		if t.n == 0 {
			sum = fmt.Sprintf("Xid %d (%s) on %s, named %s as the cause of a later Xid %s: %s", k.code, info.Name, label, plural(t.named, "time", "times"), in.window(), info.Meaning)
		} else {
			sum = fmt.Sprintf("Xid %d (%s) on %s, %s %s: %s", k.code, info.Name, label, plural(t.n, "time", "times"), in.window(), info.Meaning)
		}
		if len(t.procs) > 0 {
			sum += "; process " + strings.Join(t.procs, ", ")
		}
		if t.unhealthy {
			sum += "; the NVIDIA device plugin marked the GPU unhealthy: Kubernetes places no pod on it until the plugin restarts"
		}
		f := catalog.New("gpu.xid", subj, sum, t.ev...)
		f.Severity = info.Severity
		if t.fatal && info.FatalCritical {
			f.Severity = finding.Critical
		}
		if k.code == 45 && f.Severity == finding.Info {
			escalateXid45(in, &f, k.pci)
		}
		out = append(out, f)
	}
	return out
}

// reXidCause finds the Xid an Xid message names as its cause: "45, pid=…,
// Ch 00000001 caused by previous Xid 149".
var reXidCause = regexp.MustCompile(`caused by previous Xid (\d+)`)

// reXidFatal: an NVLink Xid (144-150) message classes the error as
// "Fatal" or "Nonfatal": "149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (…)".
var reXidFatal = regexp.MustCompile(`(?:^|[^A-Za-z])Fatal\b`)

// checkFlaps counts link-down events per interface in the window.
func checkFlaps(in *Input) []finding.Finding {
	s := in.Snap
	th := in.th()
	type tally struct {
		pci   pcie.Address
		port  int
		downs int
		// inferred counts the downs read from a repeated "Link up";
		// up is the last state seen; ups and seen count the ups and the
		// downs logged.
		inferred int
		up       bool
		ups      int
		seen     int
		ev       []finding.Evidence
		// driver is the driver that printed the link lines; at the times
		// of the downs logged, unknown when a record has none.
		driver  string
		at      []time.Duration
		untimed bool
	}
	ts := map[string]*tally{}
	var names []string
	for _, e := range in.events() {
		if e.Kind != kmsg.KindLink {
			continue
		}
		k := e.Interface
		if e.Port > 0 {
			k = fmt.Sprintf("%s/%d", e.Interface, e.Port)
		}
		t, ok := ts[k]
		if !ok {
			t = &tally{pci: e.PCI, port: e.Port}
			ts[k] = t
			names = append(names, k)
		}
		if t.driver == "" {
			t.driver = e.Driver
		}
		if e.Folded {
			// Counted by the streaming reader, after the evidence.
			t.downs += e.Count
			t.inferred += e.Inferred
			t.untimed = true
			continue
		}
		down := !e.Up || t.up && t.ups >= t.seen
		if down {
			if at, ok := recordTime(e.Record); ok {
				t.at = append(t.at, at)
			} else {
				t.untimed = true
			}
		}
		switch {
		case !e.Up:
			t.downs++
			t.seen++
			if len(t.ev) < maxEvidence {
				t.ev = append(t.ev, in.logEvidence(e.Record))
			}
		case t.up && t.ups >= t.seen:
			// "Link up" again without a "Link down" between: the link
			// went down (the line was filtered out of the paste, by
			// `grep`, or never printed), so it counts as a flap. Not
			// when it answers a "down" logged earlier: a daemon that
			// logs six losses, then six gains, has lost the link six
			// times, not eleven.
			t.downs++
			t.inferred++
			if len(t.ev) < maxEvidence {
				t.ev = append(t.ev, in.logEvidence(e.Record))
			}
		}
		if e.Up {
			t.ups++
		}
		t.up = e.Up
	}
	slices.Sort(names)
	var out []finding.Finding
	for _, k := range names {
		t := ts[k]
		if t.downs < th.FlapWarning {
			continue
		}
		iface, _, _ := strings.Cut(k, "/")
		subj := finding.Subject{Host: s.Host, PCI: string(t.pci)}
		if d := s.Device(iface); d != nil {
			subj.Device, subj.Port = d.Name, t.port
		} else {
			subj.NetDev = iface
			if p := portOfNetDev(s, iface); p != nil {
				subj.Device, subj.Port = p.Device, p.Number
			} else if tg := pciTarget(s, t.pci); tg.Device != "" {
				subj.Device = tg.Device
			}
		}
		subj.LinkLayer = flapLinkLayer(s, subj, t.port)
		sum := fmt.Sprintf("link of %s went down %s %s", k, plural(t.downs, "time", "times"), in.window())
		if t.inferred > 0 {
			sum += fmt.Sprintf(" (%d of them read from \"Link up\" printed again without a \"Link down\" between)", t.inferred)
		}
		mgmt := subj.Device == "" && managementNIC(t.driver)
		storm := !t.untimed && flapStorm(t.at, th.FlapCritical)
		if mgmt {
			sum += fmt.Sprintf("; %s drives a 1 GbE-class port with no RDMA function (a management or host network link, not the training fabric)", t.driver)
			if t.downs >= th.FlapCritical && !storm {
				sum += fmt.Sprintf(", and no %d of its downs fall within %d minutes (no flap storm): a warning", th.FlapCritical, int(flapStormWindow/time.Minute))
			}
		}
		f := catalog.New("kmsg.link_flap", subj, sum, t.ev...)
		if mgmt {
			// mlxlink reads Mellanox/NVIDIA ports only.
			f.Remedy = slices.DeleteFunc(f.Remedy, func(r string) bool { return strings.HasPrefix(r, "mlxlink ") })
		}
		if t.downs >= th.FlapCritical && (!mgmt || storm) {
			f.Severity = finding.Critical
		}
		out = append(out, f)
	}
	return out
}

// flapStormWindow: a port that goes down n (the critical count) times
// within it, a pace of 30 or more an hour, flaps in a storm.
const flapStormWindow = 10 * time.Minute

// flapStorm tells whether n of the down times fall within flapStormWindow.
func flapStorm(at []time.Duration, n int) bool {
	if n < 1 || len(at) < n {
		return false
	}
	at = slices.Clone(at)
	slices.Sort(at)
	for i := n - 1; i < len(at); i++ {
		if at[i]-at[i-n+1] <= flapStormWindow {
			return true
		}
	}
	return false
}

// managementNICs are Ethernet drivers of 1 GbE-class (and slower) ports
// with no RDMA function: on a GPU node they carry the management, BMC-side
// or host network, not RDMA traffic, so a flap is a warning unless it
// storms. Linux drivers as their pr_info/netdev_info prefix names them
// (drivers/net/ethernet/intel/e1000e, igb, igc, realtek/r8169, broadcom/tg3,
// bnx2, b44, marvell/sky2, skge, atheros/alx, atl1c, nvidia/forcedeth), and
// FreeBSD's for its "<ifname>N: link state changed" lines (em(4), igb(4),
// re(4), bge(4), bce(4), fxp(4), msk(4), alc(4)).
var managementNICs = map[string]bool{
	"e100": true, "e1000": true, "e1000e": true, "igb": true, "igc": true,
	"r8169": true, "r8168": true, "r8125": true, "r8152": true, "tg3": true,
	"bnx2": true, "b44": true, "sky2": true, "skge": true, "alx": true,
	"atl1c": true, "atl1e": true, "forcedeth": true, "8139too": true,
	"em": true, "lem": true, "re": true, "bge": true, "bce": true,
	"fxp": true, "msk": true, "alc": true,
}

// managementNIC tells whether a link's driver is one of managementNICs.
func managementNIC(driver string) bool {
	return managementNICs[driver]
}

// flapLinkLayer is the link layer of a flapping link, so that its remedies
// keep only the commands of that layer: the root's port (link_layer), the
// device's when all its ports share one, the netdev's type (ARPHRD 1
// Ethernet, 32 IPoIB); else what the log line tells: "<netdev>: Link
// up|down" is printed by mlx5e_update_carrier (en_main.c), which only the
// Ethernet netdev profile runs. The IB port line ("Port: 1 Link ACTIVE")
// is printed for RoCE ports too and tells nothing. "" when unknown.
func flapLinkLayer(s *snapshot.Snapshot, subj finding.Subject, port int) string {
	if subj.Device != "" {
		if subj.Port > 0 {
			if p := s.Port(subj.Device, subj.Port); p != nil && p.LinkLayer != "" {
				return string(p.LinkLayer)
			}
		} else if d := s.Device(subj.Device); d != nil && len(d.Ports) > 0 {
			ll := d.Ports[0].LinkLayer
			for _, p := range d.Ports[1:] {
				if p.LinkLayer != ll {
					ll = ""
				}
			}
			if ll != "" {
				return string(ll)
			}
		}
	}
	if subj.NetDev != "" {
		if nd := s.NetDev(subj.NetDev); nd != nil && nd.Type != nil {
			switch *nd.Type {
			case arphrdEther:
				return string(ib.LinkLayerEthernet)
			case arphrdInfiniBand:
				return string(ib.LinkLayerInfiniBand)
			}
		}
	}
	if subj.NetDev != "" && reIPoIBName.MatchString(subj.NetDev) {
		return string(ib.LinkLayerInfiniBand)
	}
	if port == 0 && subj.NetDev != "" {
		return string(ib.LinkLayerEthernet)
	}
	return ""
}

// reIPoIBName matches the names of IPoIB netdevs: the kernel's "ib%d"
// (drivers/infiniband/ulp/ipoib/ipoib_main.c ipoib_add_port), its child
// interfaces "ib0.8001", and the "ib" prefix udev's net_id gives
// ARPHRD_INFINIBAND devices ("ibp12s0", "ibs3"). Their carrier lines come
// from network daemons (systemd-networkd "ib6: Lost carrier"): mlx5's own
// "Link up/down" is printed by the Ethernet profile only.
var reIPoIBName = regexp.MustCompile(`^ib(?:\d+(?:\.\w+)?|[ps]\d\w*)$`)

// ARPHRD types of sys/class/net/<if>/type (include/uapi/linux/if_arp.h).
const (
	arphrdEther      = 1
	arphrdInfiniBand = 32
)

// checkModules reports cable/transceiver module events: errors are
// critical, unplug events warnings, plug events nothing.
func checkModules(in *Input) []finding.Finding {
	s := in.Snap
	type key struct {
		pci    pcie.Address
		detail string
	}
	type tally struct {
		n     int
		isErr bool
		ev    []finding.Evidence
	}
	ts := map[key]*tally{}
	var keys []key
	for _, e := range in.events() {
		if e.Kind != kmsg.KindModule || (!e.IsError && e.Detail != "Cable unplugged") {
			continue
		}
		k := key{e.PCI, e.Detail}
		t, ok := ts[k]
		if !ok {
			t = &tally{isErr: e.IsError}
			ts[k] = t
			keys = append(keys, k)
		}
		t.n += e.Weight()
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := ts[k]
		tg := pciTarget(s, k.pci)
		label := tg.label()
		if k.pci == "" {
			label = "an mlx5 port (the line names no PCI address)"
		}
		f := catalog.New("kmsg.module_event", tg.subject(s.Host),
			fmt.Sprintf("port module of %s: %s (%s %s)", label, k.detail, plural(t.n, "event", "events"), in.window()), t.ev...)
		if t.isErr {
			f.Severity = finding.Critical
		}
		out = append(out, f)
	}
	return out
}

// checkHealth reports mlx5 firmware health errors and command timeouts,
// one finding per function (kmsg.mlx5_health). Firmware commands that
// failed with a status, on a function that has no fatal event, are
// kmsg.mlx5_cmd_failed: the firmware answered, the request was refused.
func checkHealth(in *Input) []finding.Finding {
	s := in.Snap
	type tally struct {
		n, suppressed int
		fatal         bool
		loadOnly      bool // every fatal event is a load or probe failure
		statuses      []int
		cmds          []string
		details       []string
		cmdDetails    []string
		ev            []finding.Evidence
	}
	ts := map[pcie.Address]*tally{}
	var keys []pcie.Address
	for _, e := range in.events() {
		if e.Kind != kmsg.KindHealth {
			continue
		}
		t, ok := ts[e.PCI]
		if !ok {
			t = &tally{loadOnly: true}
			ts[e.PCI] = t
			keys = append(keys, e.PCI)
		}
		t.n += e.Weight()
		t.suppressed += e.Suppressed
		if e.HealthClass != kmsg.HealthCommand {
			t.fatal = true
			t.loadOnly = t.loadOnly && loadFailure(e.Detail)
		}
		if e.HealthClass == kmsg.HealthCommand {
			if !slices.Contains(t.statuses, e.CmdStatus) {
				t.statuses = append(t.statuses, e.CmdStatus)
			}
			if cmd, _, _ := strings.Cut(e.Detail, " failed"); !slices.Contains(t.cmds, cmd) {
				t.cmds = append(t.cmds, cmd)
			}
			if !slices.Contains(t.cmdDetails, e.Detail) {
				t.cmdDetails = append(t.cmdDetails, e.Detail)
			}
		}
		d := e.Detail
		if strings.Contains(d, "timeout. Will cause a leak") || strings.HasSuffix(d, ") No done completion") || d == "Command completion arrived after timeout" {
			d = "firmware command timeout"
		}
		if cmd, ok := strings.CutSuffix(d, " recovered after timeout"); ok {
			// cmd.c wait_func_handle_exec_timeout: the command's
			// completion came only when the driver polled the command
			// EQ after its timeout: its interrupt never arrived.
			cmd, _, _ = strings.Cut(cmd, "(")
			d = cmd + " answered only after the command timeout: its completion interrupt was lost (MSI-X or interrupt remapping)"
		}
		if !slices.Contains(t.details, d) {
			t.details = append(t.details, d)
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := ts[k]
		tg := pciTarget(s, k)
		label := tg.label()
		count := fmt.Sprintf("%s %s", plural(t.n, "message", "messages"), in.window())
		if t.suppressed > 0 {
			count += fmt.Sprintf(", and %d more the kernel's rate limit did not print", t.suppressed)
		}
		if t.fatal && (len(t.cmds) == 0 || !t.loadOnly) {
			out = append(out, catalog.New("kmsg.mlx5_health", tg.subject(s.Host),
				fmt.Sprintf("%s firmware health: %s (%s)", label, strings.Join(t.details, "; "), count), t.ev...))
			continue
		}
		if t.fatal {
			// The function failed after the firmware refused a
			// command ("CREATE_EQ(0x301) op_mod(0x0) failed, status bad
			// parameter(0x3)", then main.c mlx5_load "Failed to create
			// EQs" and "probe of 0000:0b:00.0 failed with error -22"):
			// the refused command is why, and what to act on. One cause,
			// one finding: the load failure is its consequence, in its
			// summary and evidence.
			f := catalog.New("kmsg.mlx5_cmd_failed", tg.subject(s.Host),
				fmt.Sprintf("%s: the firmware refused driver commands: %s, and then the function failed to load: %s (%s); %s", label, strings.Join(t.cmdDetails, "; "), strings.Join(fatalOnly(t.details, t.cmdDetails), "; "), count, cmdMeaning(t.statuses, t.cmds)), t.ev...)
			f.Severity = finding.Critical
			f.Causes = forCmdStatus(f.Causes, t.statuses)
			f.Remedy = forCmdStatus(f.Remedy, t.statuses)
			out = append(out, f)
			continue
		}
		f := catalog.New("kmsg.mlx5_cmd_failed", tg.subject(s.Host),
			fmt.Sprintf("%s: the firmware refused driver commands: %s (%s); %s", label, strings.Join(t.details, "; "), count, cmdMeaning(t.statuses, t.cmds)), t.ev...)
		f.Causes = forCmdStatus(f.Causes, t.statuses)
		f.Remedy = forCmdStatus(f.Remedy, t.statuses)
		out = append(out, f)
	}
	return out
}

// loadFailure reports whether a fatal mlx5 detail is the function's load
// or probe failing (main.c "mlx5_load_one failed with error code -22",
// "handle_hca_cap failed", the driver core's "probe of 0000:0b:00.0
// failed with error -22"), not the firmware's health failing.
func loadFailure(d string) bool {
	return strings.HasPrefix(d, "probe ") || strings.Contains(d, " failed") && !strings.HasPrefix(d, "synd ") && !strings.Contains(d, "health")
}

// fatalOnly is details without the command failures in cmds.
func fatalOnly(details, cmds []string) []string {
	var out []string
	for _, d := range details {
		if !slices.Contains(cmds, d) {
			out = append(out, d)
		}
	}
	return out
}

// Command statuses of the mlx5 firmware (include/linux/mlx5/device.h
// MLX5_CMD_STAT_*), by what they tell the operator.
const (
	cmdStatInternal = 0x1 // internal error
	cmdStatSysState = 0x4 // bad system state
	cmdStatLimits   = 0x8 // limits exceeded (-ENOMEM)
	cmdStatNoRes    = 0xf // no resources
)

// cmdStatusGroup is what a command status says: "resource" (the HCA is
// full), "firmware" (the firmware itself failed) or "request" (the
// firmware refused what the driver asked).
func cmdStatusGroup(st int) string {
	switch st {
	case cmdStatLimits, cmdStatNoRes:
		return "resource"
	case cmdStatInternal, cmdStatSysState:
		return "firmware"
	}
	return "request"
}

// cmdObjects names what a CREATE command that ran out allocates.
var cmdObjects = map[string]string{
	"CREATE_MKEY": "memory keys (memory registrations)",
	"CREATE_QP":   "queue pairs", "CREATE_DCT": "queue pairs",
	"CREATE_CQ":  "completion queues",
	"CREATE_SRQ": "shared receive queues", "CREATE_XRC_SRQ": "shared receive queues", "CREATE_RMP": "shared receive queues",
}

// cmdMeaning says in a few words what the statuses of a function's
// failed commands mean.
func cmdMeaning(statuses []int, cmds []string) string {
	var parts []string
	has := func(g string) bool {
		return slices.ContainsFunc(statuses, func(st int) bool { return cmdStatusGroup(st) == g })
	}
	if has("resource") {
		what := "objects of that kind"
		for _, c := range cmds {
			if o, ok := cmdObjects[c]; ok {
				what = o
				break
			}
		}
		parts = append(parts, "the HCA holds as many "+what+" as it can, so new ones fail with ENOMEM: a limit the applications hit, not a device fault; find who holds them (rdma resource show)")
	}
	if slices.Contains(cmds, "SET_ROCE_ADDRESS") {
		// include/linux/mlx5/mlx5_ifc.h: the command writes an entry of
		// the port's GID table (drivers/infiniband/hw/mlx5/gsi.c and
		// main.c set_roce_addr, called from add_roce_gid).
		parts = append(parts, "SET_ROCE_ADDRESS writes the port's RoCE GID table: the GID was not added (the kernel then logs \"GID add failed\"), so RDMA-CM and NCCL connections over that GID fail (check show_gids or rdma link, and the netdev address it came from)")
	}
	if has("request") {
		parts = append(parts, "the firmware refused what the driver asked: driver and firmware that do not match, or a driver bug; compare firmware and driver versions")
	}
	if has("firmware") {
		parts = append(parts, "the firmware reports an internal error or a bad system state; watch for a fatal error or reset of the function")
	}
	return strings.Join(parts, "; ")
}

// forCmdStatus keeps, of a catalog list, the entries for the status
// groups present and those for every status (no group prefix).
func forCmdStatus(list []string, statuses []int) []string {
	prefixes := map[string][]string{
		"limits exceeded, no resources:": {"resource"},
		"bad parameter,":                 {"request"},
		"internal error,":                {"firmware"},
		"other statuses:":                {"request", "firmware"},
	}
	var out []string
	for _, s := range list {
		keep := true
		for p, groups := range prefixes {
			if strings.HasPrefix(s, p) {
				keep = slices.ContainsFunc(statuses, func(st int) bool { return slices.Contains(groups, cmdStatusGroup(st)) })
			}
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}

// checkPCIeBandwidth reports the kernel's own "available PCIe bandwidth,
// limited by … (capable of …)" line: the device trained its link below
// what the device can do, once per device.
func checkPCIeBandwidth(in *Input) []finding.Finding {
	s := in.Snap
	seen := map[pcie.Address]bool{}
	var out []finding.Finding
	for _, e := range in.events() {
		if e.Kind != kmsg.KindPCIeBandwidth && e.Kind != kmsg.KindPCIeLinkReport || seen[e.PCI] {
			continue
		}
		seen[e.PCI] = true
		tg := pciTarget(s, e.PCI)
		subj := tg.subject(s.Host)
		subj.PCI = string(e.PCI)
		if e.Kind == kmsg.KindPCIeLinkReport {
			out = append(out, driverLinkFinding(in, e, tg, subj))
			continue
		}
		where := ""
		if e.LimitedAt != "" && e.LimitedAt != e.PCI {
			where = " at " + string(e.LimitedAt)
		}
		f := catalog.New("pcie.link_degraded", subj,
			fmt.Sprintf("%s: PCIe link gives %g Gb/s, limited by %s%s; the device is capable of %g Gb/s with %s (the kernel's own bandwidth line)",
				tg.label(), e.AvailGbps, e.LimitedBy, where, e.CapableGbps, e.CapableOf),
			in.logEvidence(e.Record))
		if what := bandwidthCarrier(s, tg, e.Record.Text); what != "" {
			f.Summary += "; the device is " + what + ": it carries a training job's traffic, and the job gets that much less PCIe bandwidth"
		} else {
			f.Severity = finding.Warning
			f.Summary += "; neither the line nor the host names the device as a network adapter or a data-center GPU (they carry a training job's traffic, where this is critical): worth fixing for the device's own throughput"
		}
		out = append(out, f)
	}
	return out
}

// nicDrivers are network drivers that print their own PCIe link report
// at probe: the device is a network adapter (PCIeCarrier).
var nicDrivers = map[string]bool{"mqnic": true}

// driverLinkFinding reports a driver's own link report whose status is
// below its capability (Corundum mqnic "Link capability: gen 3 x16",
// "Link status: gen 3 x4"): critical on a network adapter, as a degraded
// link is in lspci's LnkSta, a warning on a device the driver does not
// say is one.
func driverLinkFinding(in *Input, e kmsg.Event, tg target, subj finding.Subject) finding.Finding {
	f := catalog.New("pcie.link_degraded", subj,
		fmt.Sprintf("%s: PCIe link trained at %s, the device is capable of %s (the %s driver's own link report at probe)",
			tg.label(), e.LimitedBy, e.CapableOf, e.Driver),
		in.logEvidence(e.Record))
	class := ""
	if nicDrivers[e.Driver] || tg.Device != "" || deviceModule(e.Driver) == "RDMA" {
		class = "Ethernet controller"
	}
	if what := PCIeCarrier(class, ""); what != "" {
		f.Summary += "; the device is " + what + " (" + e.Driver + "): it carries a training job's traffic, and the job gets that much less PCIe bandwidth"
	} else {
		f.Severity = finding.Warning
		f.Summary += "; the " + e.Driver + " driver is not known to drive a network adapter or a data-center GPU: critical if the device carries a training job's traffic"
	}
	return f
}

// bandwidthCarrier says what the device of a kernel bandwidth line is
// when it carries a training job's traffic (PCIeCarrier's policy), ""
// when neither the line nor the snapshot says so: the line names the
// device by its driver ("mlx5_core 0000:3b:00.0: …"; "pci 0000:0b:00.0:"
// at enumeration names nothing), the snapshot by its RDMA device or a GPU
// of the 3D controller class (PCI class 0x0302: NVIDIA's data-center
// GPUs; desktop GeForce cards are VGA controllers, 0x0300).
func bandwidthCarrier(s *snapshot.Snapshot, tg target, text string) string {
	drv, _, _ := strings.Cut(text, " ")
	switch {
	case tg.Device != "" || deviceModule(drv) == "RDMA":
		return "a network adapter"
	case tg.GPU != "":
		for _, g := range s.GPUs() {
			if g.Address == tg.PCI && g.Class != nil && *g.Class>>8 == pcie.Class3D>>8 {
				return "a data-center GPU"
			}
		}
	}
	return ""
}

// checkGPUResetRequired reports the NVIDIA driver's NV_ERR_RESET_REQUIRED
// (gpu.reset_required, critical), one finding per GPU the lines name (or
// one for the host when they name none, as the GSP assert does): the GPU
// refuses new work until it is reset, CUDA answers "CUDA-capable
// device(s) is/are busy or unavailable", and no Xid number is printed.
func checkGPUResetRequired(in *Input) []finding.Finding {
	s := in.Snap
	type tally struct {
		n       int
		details []string
		ev      []finding.Evidence
	}
	ts := map[pcie.Address]*tally{}
	var keys []pcie.Address
	for _, e := range in.events() {
		if e.Kind != kmsg.KindGPUResetRequired {
			continue
		}
		t, ok := ts[e.PCI]
		if !ok {
			t = &tally{}
			ts[e.PCI] = t
			keys = append(keys, e.PCI)
		}
		t.n += e.Weight()
		if !slices.Contains(t.details, e.Detail) {
			t.details = append(t.details, e.Detail)
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, a := range keys {
		t := ts[a]
		subj := finding.Subject{Host: s.Host, PCI: string(a)}
		label := "a GPU (the lines do not name which)"
		if a != "" {
			label = "GPU " + string(a)
			if name, ok := gpuName(s, a); ok {
				subj.GPU = strings.TrimPrefix(name, "GPU")
				label = name + " (" + string(a) + ")"
			}
		}
		out = append(out, catalog.New("gpu.reset_required", subj,
			fmt.Sprintf("the NVIDIA driver says %s needs a reset: %s (%s %s); it refuses new work until reset, and CUDA reports \"CUDA-capable device(s) is/are busy or unavailable\"", label, strings.Join(t.details, "; "), plural(t.n, "message", "messages"), in.window()), t.ev...))
	}
	return out
}
