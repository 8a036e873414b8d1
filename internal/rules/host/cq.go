package host

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxlog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// cqEventSyndromes are the syndromes of the mlx5 CQ error event
// (include/linux/mlx5/mlx5_ifc.h MLX5_CQ_ERROR_SYNDROME_*).
var cqEventSyndromes = map[int]string{
	0x1: "CQ overrun: more completions arrived than the CQ holds (its owner posted more work than it sized the CQ for, or stopped polling it)",
	0x2: "CQ access violation: the HCA could not write the CQ's memory",
}

// kernelWCStatusMsg are the texts of ib_wc_status_msg
// (drivers/infiniband/core/verbs.c wc_statuses, enum ib_wc_status order;
// older kernels' wordings of 6 and 9 too). mlx5_ib_qp_err_syndrome
// passes the CQE syndrome (MLX5_CQE_SYNDROME_*) to it, so a text's index
// is that syndrome, not the status: 0x12 prints "invalid EE context
// state" for a remote invalid request error.
var kernelWCStatusMsg = map[string]uint64{
	"success": 0, "local length error": 1, "local QP operation error": 2,
	"local EE context operation error": 3, "local protection error": 4,
	"WR flushed": 5, "memory bind operation error": 6,
	"memory management operation error": 6, "bad response error": 7,
	"local access error": 8, "remote invalid request error": 9,
	"invalid request error": 9, "remote access error": 10,
	"remote operation error": 11, "transport retry counter exceeded": 12,
	"RNR retry counter exceeded": 13, "local RDD violation error": 14,
	"remote invalid RD request": 15, "operation aborted": 16,
	"invalid EE context number": 17, "invalid EE context state": 18,
	"fatal error": 19, "response timeout error": 20, "general error": 21,
}

// qpErrorStatus is the work-completion status of a QP error line: its
// text's index is the CQE syndrome, mapped as the HCA means it.
func qpErrorStatus(text string) nccllog.WCStatus {
	if synd, ok := kernelWCStatusMsg[text]; ok {
		if st, ok := ucxlog.SyndromeStatus(synd); ok {
			return st
		}
	}
	return -1
}

// checkCQ reports the mlx5 completion queue errors of the kernel log
// (kmsg.cq_error), one finding per device: the CQ error events of a
// function, and the error completions the kernel's mlx5_ib polled on an
// RDMA device. A flush alone is a warning (the queue pair was already
// in error); any other status is critical.
func checkCQ(in *Input) []finding.Finding {
	s := in.Snap
	type tally struct {
		pci    pcie.Address
		device string
		// events counts the CQ error events; cqes the error completions
		// ("error cqe on cqn" lines, else their syndrome lines, else
		// the WC error lines: one completion may print all three).
		events, cqes, synLines, wcLines int
		// qpErrs counts the QP error lines (CQQPError), qpns their QPs.
		qpErrs int
		qpns   []string
		port   int
		// ulp: the device is a kernel consumer that reported its own
		// failed completions ("nvme15"), not an RDMA device.
		ulp         bool
		cqns, sides []string
		evSyn       []int
		statuses    []nccllog.WCStatus
		vendors     []int
		ev          []finding.Evidence
	}
	ts := map[string]*tally{}
	var keys []string
	for _, e := range in.events() {
		if e.Kind != kmsg.KindCQ {
			continue
		}
		k := e.Interface
		if e.CQ == kmsg.CQEvent {
			k = "pci " + string(e.PCI)
		}
		t, ok := ts[k]
		if !ok {
			t = &tally{pci: e.PCI, device: e.Interface}
			ts[k] = t
			keys = append(keys, k)
		}
		add := func(list *[]string, v string) {
			if v != "" && !slices.Contains(*list, v) {
				*list = append(*list, v)
			}
		}
		// The queues named are those of the lines quoted: a streamed
		// log folds the others into counts.
		if len(t.ev) < maxEvidence && !e.Folded {
			add(&t.cqns, e.CQN)
		}
		switch e.CQ {
		case kmsg.CQEvent:
			t.events += e.Weight()
			if !slices.Contains(t.evSyn, e.Syndrome) {
				t.evSyn = append(t.evSyn, e.Syndrome)
			}
		case kmsg.CQErrorCQE:
			t.cqes += e.Weight()
			add(&t.sides, e.Detail)
		case kmsg.CQSyndrome:
			t.synLines += e.Weight()
			add(&t.sides, e.Detail) // a dumped CQE's side (its op_own)
			st, ok := ucxlog.SyndromeStatus(uint64(e.Syndrome))
			if !ok {
				st = -1
			}
			if !slices.Contains(t.statuses, st) {
				t.statuses = append(t.statuses, st)
			}
			if !slices.Contains(t.vendors, e.VendorSyndrome) {
				t.vendors = append(t.vendors, e.VendorSyndrome)
			}
		case kmsg.CQQPError:
			t.qpErrs += e.Weight()
			t.port = e.Port
			if len(t.ev) < maxEvidence && !e.Folded {
				add(&t.qpns, e.Queue)
			}
			if st := qpErrorStatus(e.Detail); !slices.Contains(t.statuses, st) {
				t.statuses = append(t.statuses, st)
			}
			if !slices.Contains(t.vendors, e.VendorSyndrome) {
				t.vendors = append(t.vendors, e.VendorSyndrome)
			}
		case kmsg.CQWCError, kmsg.CQULP:
			t.wcLines += e.Weight()
			t.ulp = t.ulp || e.CQ == kmsg.CQULP
			if st := nccllog.WCStatus(e.WCStatus); !slices.Contains(t.statuses, st) {
				t.statuses = append(t.statuses, st)
			}
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := ts[k]
		// In a fixed order, the same whatever order a streamed log's
		// folded events come in.
		slices.Sort(t.evSyn)
		slices.Sort(t.vendors)
		slices.Sort(t.sides)
		var parts []string
		subj := finding.Subject{Host: s.Host, Device: t.device}
		label := t.device
		if t.ulp {
			subj.Device = ""
		}
		if t.events > 0 {
			tg := pciTarget(s, t.pci)
			subj, label = tg.subject(s.Host), tg.label()
			var why []string
			for _, sy := range t.evSyn {
				w, ok := cqEventSyndromes[sy]
				if !ok {
					w = "a syndrome the driver does not name"
				}
				why = append(why, fmt.Sprintf("syndrome %#x: %s", sy, w))
			}
			parts = append(parts, fmt.Sprintf("%s %s (%s); %s. The CQ and the queue pairs that complete into it go to the error state: its process's RDMA connections fail or hang; the link and the firmware are not at fault",
				plural(t.events, "CQ error event", "CQ error events"), in.window(), cqnList(t.cqns), strings.Join(why, "; ")))
		}
		sev := finding.Warning
		if n := max(t.cqes, t.synLines, t.wcLines, t.qpErrs); n > 0 {
			p := plural(n, "error completion", "error completions") + " " + in.window()
			if t.qpErrs > 0 && max(t.cqes, t.synLines, t.wcLines) == 0 {
				// An error event of the QP itself, of any owner.
				p = plural(n, "queue pair error", "queue pair errors") + " " + in.window() + " on " + qpnList(t.qpns)
			}
			qpOnly := t.qpErrs > 0 && max(t.cqes, t.synLines, t.wcLines) == 0
			if len(t.sides) > 0 {
				p += " (" + strings.Join(t.sides, ", ") + ")"
			}
			if len(t.cqns) > 0 && t.events == 0 {
				p += " on " + cqnList(t.cqns)
			}
			if !qpOnly {
				p += " polled by the kernel for a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB)"
			}
			// The failures first, then the flushes that follow them.
			slices.SortFunc(t.statuses, func(a, b nccllog.WCStatus) int {
				return cmp.Or(boolInt(a >= 0 && a.Info().Fallout)-boolInt(b >= 0 && b.Info().Fallout), cmp.Compare(a, b))
			})
			var sts []string
			flushOnly := len(t.statuses) > 0
			for _, st := range t.statuses {
				if st < 0 {
					sts = append(sts, "a syndrome the driver does not map")
					flushOnly = false
					continue
				}
				info := st.Info()
				sts = append(sts, fmt.Sprintf("%s (%d, %s)", info.Text, int(st), info.Name))
				if !info.Fallout {
					flushOnly = false
					sev = finding.Critical
				}
			}
			if len(sts) > 0 {
				p += ": " + strings.Join(sts, ", ")
			}
			if len(t.vendors) > 0 {
				var vs []string
				for i, v := range t.vendors {
					if i == maxEvidence {
						vs = append(vs, fmt.Sprintf("%d more", len(t.vendors)-i))
						break
					}
					vs = append(vs, fmt.Sprintf("%#x", v))
				}
				p += ", vendor syndrome " + strings.Join(vs, ", ")
			}
			switch {
			case flushOnly:
				p += ". Flushed work requests are fallout: the queue pair had already gone to the error state (its connection was torn down or lost) and its queued work was returned; the cause is what came before (the first non-flush error, a port or link event, the peer's disconnect)"
			case qpOnly:
				// The event itself says the QP is in error, whatever
				// its syndrome.
				sev = finding.Critical
				p += fmt.Sprintf(". The HCA moved the queue pair to the error state: its owner (an application's RDMA connection, or a kernel consumer's) fails its work and has to reconnect; rdma resource show qp link %s/%d lqpn %s names the process", t.device, t.port, t.qpns[0])
			case sev == finding.Critical:
				p += ". The work request failed and its queue pair went to the error state: the connection is lost until the consumer reconnects"
			default:
				p += ". The status is not in the paste: the queue pair went to the error state"
			}
			parts = append(parts, p)
		}
		f := catalog.New("kmsg.cq_error", subj, fmt.Sprintf("%s: %s", label, strings.Join(parts, "; ")), t.ev...)
		f.Severity = sev
		overrun, flush, other := slices.Contains(t.evSyn, 1), false, false
		for _, st := range t.statuses {
			if st >= 0 && st.Info().Fallout {
				flush = true
			} else {
				other = true
			}
		}
		f.Causes = keepPrefixed(f.Causes, map[string]bool{"CQ overrun:": overrun, "flushed work requests:": flush, "transport retry counter exceeded:": slices.Contains(t.statuses, nccllog.WCRetryExcErr), "remote access, ": other})
		f.Remedy = keepPrefixed(f.Remedy, map[string]bool{"CQ overrun:": overrun})
		out = append(out, f)
	}
	return out
}

// cqnList renders CQ numbers as the log prints them and as `rdma
// resource show cq` lists them (decimal): "CQN 0x40a (1034), CQN 0x406
// (1030)".
func cqnList(cqns []string) string {
	var out []string
	for _, c := range cqns {
		if v, err := strconv.ParseUint(strings.TrimPrefix(c, "0x"), 16, 32); err == nil {
			c = fmt.Sprintf("CQN %s (%d)", c, v)
		}
		out = append(out, c)
	}
	return strings.Join(out, ", ")
}

// qpnList renders QP numbers as the log prints them (decimal): "QP
// 51291, QP 114233".
func qpnList(qpns []string) string {
	out := make([]string, len(qpns))
	for i, q := range qpns {
		out[i] = "QP " + q
	}
	return strings.Join(out, ", ")
}

// keepPrefixed keeps, of a catalog list, the entries that start with a
// prefix marked true and those that start with none of the prefixes.
func keepPrefixed(list []string, prefixes map[string]bool) []string {
	var out []string
	for _, s := range list {
		keep := true
		for p, on := range prefixes {
			if strings.HasPrefix(s, p) {
				keep = on
			}
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}
