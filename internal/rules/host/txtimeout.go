package host

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// checkTxTimeout reports the netdevs whose transmit queues stalled
// (kmsg.tx_timeout), one finding per interface with the queues named: the
// kernel's watchdog, the driver's own report, IPoIB's. A stall the driver
// recovers from once is a warning; the same queue stalling again, the
// watchdog firing again, or a recovery that failed is critical: the
// interface does not carry traffic.
func checkTxTimeout(in *Input) []finding.Finding {
	s := in.Snap
	type tally struct {
		iface, driver string
		pci           pcie.Address
		n             int
		// seen counts the lines of each source ("" the driver's
		// per-queue report, "watchdog", "detected") per queue.
		seen     map[string]int
		queues   []string
		again    []string
		stallMs  int64
		failed   []string
		ev       []finding.Evidence
		repeated bool
		lockup   *kmsg.Event
	}
	ts := map[string]*tally{}
	var keys []string
	var lockups []kmsg.Event
	for _, e := range in.events() {
		if e.Kind == kmsg.KindOops && e.Detail == "soft lockup" && len(lockups) < 64 {
			lockups = append(lockups, e)
		}
	}
	for _, e := range in.events() {
		if e.Kind != kmsg.KindTxTimeout {
			continue
		}
		k := e.Interface
		if k == "" {
			k = string(e.PCI)
		}
		t, ok := ts[k]
		if !ok {
			t = &tally{iface: e.Interface, seen: map[string]int{}}
			ts[k] = t
			keys = append(keys, k)
		}
		if t.pci == "" {
			t.pci = e.PCI
		}
		if t.driver == "" {
			t.driver = e.Driver
		}
		t.stallMs = max(t.stallMs, e.StallMs)
		if t.lockup == nil {
			t.lockup = softLockupNear(lockups, e.Record)
		}
		switch {
		case e.IsError:
			if !slices.Contains(t.failed, e.Detail) {
				t.failed = append(t.failed, e.Detail)
			}
		default:
			t.n += e.Weight()
			src := e.Detail + "\x00" + e.Queue
			t.seen[src] += e.Weight()
			if e.Queue != "" && !slices.Contains(t.queues, e.Queue) {
				t.queues = append(t.queues, e.Queue)
			}
			if t.seen[src] > 1 {
				t.repeated = true
				if e.Queue != "" && !slices.Contains(t.again, e.Queue) {
					t.again = append(t.again, e.Queue)
				}
			}
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := ts[k]
		tg := pciTarget(s, t.pci)
		subj := tg.subject(s.Host)
		subj.NetDev = t.iface
		if p := portOfNetDev(s, t.iface); p != nil && subj.Device == "" {
			subj.Device = p.Device
		}
		who := t.iface
		var at []string
		if t.pci != "" {
			at = append(at, string(t.pci))
		}
		if t.driver != "" {
			at = append(at, t.driver)
		}
		switch {
		case who == "" && len(at) == 0:
			who = "an interface the log does not name"
		case who == "":
			who = strings.Join(at, ", ")
		case len(at) > 0:
			who += " (" + strings.Join(at, ", ") + ")"
		}
		what := "its transmit queue stalled"
		switch len(t.queues) {
		case 0:
		case 1:
			what = "transmit queue " + t.queues[0] + " stalled"
		default:
			what = "transmit queues " + strings.Join(t.queues, ", ") + " stalled"
		}
		msg := fmt.Sprintf("%s: %s: %s", who, what, plural(t.n, "TX timeout message", "TX timeout messages")+" "+in.window())
		if t.stallMs > 0 {
			msg += fmt.Sprintf(", up to %s since the queue last sent", stallText(t.stallMs))
		}
		f := catalog.New("kmsg.tx_timeout", subj, msg, t.ev...)
		lockup := t.lockup
		switch {
		case len(t.failed) > 0:
			f.Severity = finding.Critical
			f.Summary += "; the driver failed to recover it (" + strings.Join(t.failed, "; ") + "): the interface carries no traffic until it is reset"
		case t.repeated:
			f.Severity = finding.Critical
			again := "the watchdog fired again"
			if len(t.again) > 0 {
				again = plural(len(t.again), "queue", "queues") + " (" + strings.Join(t.again, ", ") + ") timed out again"
			}
			f.Summary += "; " + again + ": the recovery does not hold, and the traffic on them stalls each time"
		case lockup != nil:
			f.Severity = finding.Critical
			f.Summary += fmt.Sprintf("; a soft lockup at the same time (line %d: %q): a CPU was wedged in the kernel and the interface stopped sending with it: the host is hanging, and the jobs on it stall", lockup.Record.Line, firstLine(lockup.Record.Text))
			f.Evidence = append(f.Evidence, in.logEvidence(lockup.Record))
			f.Remedy = append([]string{"drain the node; read the soft lockup's call trace (its first frames name the code that spun), fix or update that driver, and reboot the host"}, f.Remedy...)
		default:
			f.Summary += "; the driver recovers the queue (its traffic stalled meanwhile): watch for it to repeat"
		}
		out = append(out, f)
	}
	return out
}

// softLockupNear returns the first of the soft lockups (kernel/watchdog.c
// watchdog_timer_fn: "watchdog: BUG: soft lockup - CPU#38 stuck for 23s!
// [irq/27-pciehp:416]") logged within lockupWindow of r, or the first of
// them when either has no time. A transmit timeout beside one is the host
// wedged, not one queue: a CPU spun in the kernel for tens of seconds
// while the queue waited (an IPoIB "ib0: transmit timeout: latency 20428
// msecs" during a lockup in pciehp).
func softLockupNear(lockups []kmsg.Event, r kmsg.Record) *kmsg.Event {
	tr, okR := recordTime(r)
	for i := range lockups {
		tl, okL := recordTime(lockups[i].Record)
		if !okL || !okR || (tr-tl).Abs() <= lockupWindow {
			return &lockups[i]
		}
	}
	return nil
}

// lockupWindow is how far apart a soft lockup and a transmit timeout may be
// logged to be one stall: the watchdog reports a lockup after 20 s
// (twice watchdog_thresh), the netdev watchdog a queue after its 5 s or
// more, so both land within a minute of the stall's start.
const lockupWindow = 2 * time.Minute

// firstLine is s up to its first newline.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// stallText writes a stall in the unit that reads best: "28.6 s", "4.7
// days".
func stallText(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 2*86400*1000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s"
	}
	return fmt.Sprintf("%d s (%.1f days)", ms/1000, float64(ms)/86400e3)
}

// checkRDMAPeer reports the peers a kernel RDMA transport lost
// (kmsg.rdma_peer_unreachable), one finding per peer: LNet's o2ib driver
// timed out its transmits or RDMA to the peer, or the peer refused or
// could not be reached to connect; an NVMe over RDMA controller could not
// connect to its target (one finding per controller).
func checkRDMAPeer(in *Input) []finding.Finding {
	s := in.Snap
	type tally struct {
		n       int
		what    []string
		stallMs int64
		ev      []finding.Evidence
	}
	ts := map[string]*tally{}
	var keys []string
	nvme := map[string]*nvmeTally{}
	var nvmeKeys []string
	for _, e := range in.events() {
		if e.Kind != kmsg.KindRDMAPeer {
			continue
		}
		if e.Driver == "nvme-rdma" || e.Driver == "nvme-fabrics" {
			t, ok := nvme[e.Interface]
			if !ok {
				t = &nvmeTally{}
				nvme[e.Interface] = t
				nvmeKeys = append(nvmeKeys, e.Interface)
			}
			t.add(in, e)
			continue
		}
		t, ok := ts[e.Interface]
		if !ok {
			t = &tally{}
			ts[e.Interface] = t
			keys = append(keys, e.Interface)
		}
		t.n += e.Weight()
		t.stallMs = max(t.stallMs, e.StallMs)
		w := rdmaPeerWhat(e.Detail)
		if !slices.Contains(t.what, w) {
			t.what = append(t.what, w)
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, nid := range keys {
		t := ts[nid]
		msg := fmt.Sprintf("LNet (Lustre) over RDMA lost peer %s: %s (%s %s)", nid, strings.Join(t.what, "; "), plural(t.n, "message", "messages"), in.window())
		if t.stallMs > 0 {
			msg += fmt.Sprintf("; the peer has not answered for %s", stallText(t.stallMs))
		}
		msg += ": the Lustre servers or clients behind it are unreachable over the fabric, and I/O to them hangs"
		f := catalog.New("kmsg.rdma_peer_unreachable", finding.Subject{Host: s.Host}, msg, t.ev...)
		catalog.Fill(&f, "nid", nid)
		f.Remedy = transportRemedies(f.Remedy, "Lustre: ")
		f.Causes = transportRemedies(f.Causes, "Lustre: ")
		out = append(out, f)
	}
	for _, c := range nvmeKeys {
		if f, ok := nvme[c].finding(in, c); ok {
			out = append(out, f)
		}
	}
	return out
}

// nvmeTally is what the kernel log says of one NVMe over RDMA controller.
type nvmeTally struct {
	n, reconnects int
	removed       bool
	addr          string // the target, from the controller's "new ctrl" line
	what          []string
	ev            []finding.Evidence
	// I/O timeouts (rdma.c nvme_rdma_timeout): how many, on which queues,
	// the first and last time logged; recoveries started and reconnects
	// that worked.
	timeouts, recoveries, reconnected int
	qids                              []string
	first, last                       time.Duration
	timed                             bool
}

func (t *nvmeTally) add(in *Input, e kmsg.Event) {
	switch {
	case e.Driver == "nvme-fabrics" && strings.HasPrefix(e.Detail, "addr "):
		t.addr = strings.TrimPrefix(e.Detail, "addr ")
		return
	case e.Driver == "nvme-fabrics" && e.Detail == "removing":
		t.removed = true
	case e.Driver == "nvme-fabrics" && e.Detail == "error recovery":
		t.recoveries += e.Weight()
	case e.Driver == "nvme-fabrics" && e.Detail == "reconnected":
		t.reconnected += e.Weight()
	case e.Driver == "nvme-fabrics":
		t.reconnects += e.Weight()
	case e.Detail == "I/O timeout":
		t.timeouts += e.Weight()
		if !slices.Contains(t.qids, e.Queue) {
			t.qids = append(t.qids, e.Queue)
		}
		if at, ok := recordTime(e.Record); ok {
			if !t.timed || at < t.first {
				t.first = at
			}
			if !t.timed || at > t.last {
				t.last = at
			}
			t.timed = true
		}
	default:
		t.n += e.Weight()
		if w := nvmeRDMAWhat(e.Detail); !slices.Contains(t.what, w) {
			t.what = append(t.what, w)
		}
	}
	if len(t.ev) < maxEvidence && !e.Folded {
		t.ev = append(t.ev, in.logEvidence(e.Record))
	}
}

// finding reports controller c when its RDMA connection failed: a
// warning for a connect that failed, critical when the host keeps
// reconnecting and failing or gave the controller up. Reconnect lines
// alone (nvme-tcp prints them too) report nothing.
func (t *nvmeTally) finding(in *Input, c string) (finding.Finding, bool) {
	if t.n == 0 && t.timeouts == 0 {
		return finding.Finding{}, false
	}
	target := "its target"
	if t.addr != "" {
		target = "its target " + t.addr
	}
	var msg string
	if t.n > 0 {
		msg = fmt.Sprintf("NVMe over RDMA controller %s cannot connect to %s: %s (%s %s)", c, target, strings.Join(t.what, "; "), plural(t.n, "message", "messages"), in.window())
		if t.timeouts > 0 {
			msg += "; " + t.timeoutText()
		}
	} else {
		msg = fmt.Sprintf("NVMe over RDMA controller %s: I/O to %s stalled, %s %s", c, target, t.timeoutText(), in.window())
	}
	switch {
	case t.removed:
		msg += ": the host gave up reconnecting and removed the controller, so its namespaces are gone"
	case t.reconnects > 0:
		msg += fmt.Sprintf(": it keeps reconnecting and failing (%s), and its namespaces stay unreachable", plural(t.reconnects, "failed reconnect attempt", "failed reconnect attempts"))
	case t.n > 0:
		msg += ": the connect failed, so the target's namespaces are not attached"
	case t.reconnected > 0:
		msg += ": the host reconnected, but I/O hung until it did; the RDMA path to the target (its port, the fabric, or the target itself) stalls"
	default:
		msg += ": I/O on those queues hangs until the host reconnects; the RDMA path to the target (its port, the fabric, or the target itself) stalls"
	}
	f := catalog.New("kmsg.rdma_peer_unreachable", finding.Subject{Host: in.Snap.Host, Device: c}, msg, t.ev...)
	f.Remedy = transportRemedies(f.Remedy, "NVMe over RDMA: ")
	f.Causes = transportRemedies(f.Causes, "NVMe over RDMA: ")
	if !t.removed && t.reconnects == 0 {
		f.Severity = finding.Warning
	}
	return f, true
}

// timeoutText says how many I/Os timed out, on which queues, over what
// time, and whether the host started error recovery.
func (t *nvmeTally) timeoutText() string {
	q := "queue " + t.qids[0]
	if len(t.qids) > 1 {
		q = "queues " + strings.Join(t.qids, ", ")
	}
	s := plural(t.timeouts, "I/O", "I/Os") + " timed out on " + q
	if t.timed {
		if d := t.last - t.first; d > 0 {
			s += " over " + d.Round(time.Millisecond).String()
		} else if t.timeouts > 1 {
			s += " at once"
		}
	}
	if t.recoveries > 0 {
		s += " and the host started error recovery (tore the queues down to reconnect them)"
	}
	return s
}

// nvmeRDMAWhat says what an nvme-rdma line reports: the RDMA CM reject
// reason (rdma_reject_msg; for InfiniBand the IB CM REJ reason codes of
// IBTA vol. 1 §12.6.7.2) or the errno of the step that failed.
func nvmeRDMAWhat(detail string) string {
	if strings.HasPrefix(detail, "Connect rejected") {
		if strings.Contains(detail, "(invalid service ID)") {
			return "the target refused the connection (" + detail + ": nothing listens on that port at the target address; the port is the trsvcid, 4420 by default)"
		}
		return "the target refused the connection (" + detail + ")"
	}
	i := strings.LastIndex(detail, "(-")
	if i < 0 {
		return detail
	}
	errno := strings.TrimSuffix(detail[i+2:], ")")
	if why, ok := nvmeRDMAErrno[errno]; ok {
		return detail + ": " + why
	}
	return detail
}

// nvmeRDMAErrno explains the errnos nvme_rdma_alloc_queue reports: a
// rejected connect is -ECONNRESET (nvme_rdma_conn_rejected), an address,
// route or connect the RDMA CM could not complete -ETIMEDOUT or
// -ECONNRESET (nvme_rdma_cm_handler).
var nvmeRDMAErrno = map[string]string{
	"104": "ECONNRESET, the target refused the RDMA connection or its address, route or connect failed",
	"110": "ETIMEDOUT, no answer in time: the target address does not resolve over RDMA or the target is down",
	"111": "ECONNREFUSED, the target refused the connection",
	"113": "EHOSTUNREACH, no route to the target",
	"19":  "ENODEV, no RDMA device serves the address",
	"12":  "ENOMEM, the host ran out of memory for the queue",
}

// transportRemedies keeps the remedies (or causes) without a transport
// marker and those marked for one transport (the marker removed).
func transportRemedies(remedy []string, mark string) []string {
	out := remedy[:0:0]
	for _, r := range remedy {
		switch {
		case strings.HasPrefix(r, mark):
			out = append(out, strings.TrimPrefix(r, mark))
		case strings.HasPrefix(r, "Lustre: "), strings.HasPrefix(r, "NVMe over RDMA: "):
		default:
			out = append(out, r)
		}
	}
	return out
}

// rdmaPeerWhat says what an LNet o2ib line reports.
func rdmaPeerWhat(detail string) string {
	switch {
	case detail == "Timed out tx for":
		return "transmits to it timed out"
	case detail == "Timed out RDMA with":
		return "RDMA with it timed out"
	case detail == "rejected":
		return "it rejected the connection"
	case strings.HasPrefix(detail, "ADDR ERROR"), strings.HasPrefix(detail, "ROUTE ERROR"):
		return "its address or route did not resolve to connect (" + detail + ")"
	case strings.HasPrefix(detail, "UNREACHABLE"), strings.HasPrefix(detail, "CONNECT ERROR"):
		return "connecting to it failed (" + detail + ")"
	}
	return detail
}

// checkSlotPower reports mlx5 cards whose PCIe slot gives less power
// than the card needs (pcie.slot_power), once per card: the functions of
// one card (0000:5c:00.0 and .1) share the slot.
func checkSlotPower(in *Input) []finding.Finding {
	s := in.Snap
	seen := map[string]bool{}
	var out []finding.Finding
	for _, e := range in.events() {
		if e.Kind != kmsg.KindSlotPower {
			continue
		}
		card, _, _ := strings.Cut(string(e.PCI), ".")
		if seen[card] {
			continue
		}
		seen[card] = true
		tg := pciTarget(s, e.PCI)
		out = append(out, catalog.New("pcie.slot_power", tg.subject(s.Host),
			fmt.Sprintf("%s: the mlx5 firmware detected insufficient power on the PCIe slot (%s in its report): the card may throttle its bandwidth or fail under load",
				tg.longLabel(), e.Detail),
			in.logEvidence(e.Record)))
	}
	return out
}
