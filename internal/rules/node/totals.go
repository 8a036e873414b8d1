package node

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// totalsNote is what every total-based finding says about itself.
const totalsNote = "these are totals since the driver loaded (or the counters were cleared), read once: they prove it happened, not that it still happens; two samples a few minutes apart (ibdoctor agent, or the command run twice) give the rate that says whether it is ongoing"

// retransmitCounters are the hw_counters that count a lost or unanswered
// packet the responder or requester recovered from (mlx5
// Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst).
var retransmitCounters = []string{"local_ack_timeout_err", "packet_seq_err", "out_of_sequence", "implied_nak_seq_err", "rnr_nak_retry_err", "duplicate_request", "roce_adp_retrans", "roce_adp_retrans_to"}

// completionErrors are hw_counters of work requests completed in error;
// their flush counters are the requests flushed after the first error
// moved the QP to the error state: consequences, not separate faults.
var completionErrors = []string{"req_cqe_error", "resp_cqe_error", "resp_local_length_error", "req_remote_access_errors", "resp_remote_access_errors", "req_remote_invalid_request"}

var flushCounters = []string{"req_cqe_flush_error", "resp_cqe_flush_error"}

// Totals judges error counters pasted once (rdma statistic, show_counters,
// hw_counters files, perfquery): a non-zero error total is evidence that
// it happened and is reported, with what a rate would add. Evidence names
// the sysfs file of each counter, as the node rules do.
func Totals(s *snapshot.Snapshot) []finding.Finding {
	var out []finding.Finding
	for i := range s.Devices {
		d := &s.Devices[i]
		for j := range d.Ports {
			out = append(out, portTotals(s, &d.Ports[j])...)
		}
	}
	catalog.Sort(out)
	return out
}

func portTotals(s *snapshot.Snapshot, p *snapshot.Port) []finding.Finding {
	hw := func(names []string) (parts []string, ev []finding.Evidence, sum uint64) {
		for _, n := range names {
			if c, ok := p.HWCounter(n); ok && c.Value > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", n, c.Value))
				ev = append(ev, finding.Evidence{Source: portPath(p, "hw_counters/"+n), Value: fmt.Sprint(c.Value)})
				sum += c.Value
			}
		}
		return parts, ev, sum
	}
	port := func(n string) (uint64, finding.Evidence, bool) {
		for _, c := range p.Counters {
			if c.Name == n && c.Value > 0 {
				return c.Value, finding.Evidence{Source: portPath(p, "counters/"+n), Value: fmt.Sprint(c.Value)}, true
			}
		}
		return 0, finding.Evidence{}, false
	}
	// num writes a port counter's value, "at least" where the counter
	// is stuck at its maximum (port.counter_saturated says so too).
	num := func(n string, v uint64) string {
		for _, c := range p.Counters {
			if c.Name == n && c.Saturated() {
				return fmt.Sprintf("at least %d (the counter is stuck at its %d-bit maximum)", v, c.Spec.Bits)
			}
		}
		return fmt.Sprint(v)
	}
	name := fmt.Sprintf("%s port %d", p.Device, p.Number)
	subj := portSubject(s, p)
	var out []finding.Finding
	if parts, ev, _ := hw([]string{"out_of_buffer"}); len(parts) > 0 {
		out = append(out, catalog.New("rdma.out_of_buffer", subj,
			fmt.Sprintf("%s: %s: packets dropped because no receive WQE was posted; %s", name, parts[0], totalsNote), ev...))
	}
	rt, rtEv, _ := hw(retransmitCounters)
	ce, ceEv, _ := hw(completionErrors)
	fl, flEv, _ := hw(flushCounters)
	if len(rt)+len(ce) > 0 {
		var what []string
		if len(rt) > 0 {
			what = append(what, "retransmission events: "+strings.Join(rt, ", "))
		}
		if len(ce) > 0 {
			c := "work requests completed in error: " + strings.Join(ce, ", ")
			if len(fl) > 0 {
				c += " (" + strings.Join(fl, ", ") + " are the requests flushed after that first error put the QP in the error state: consequences, not separate faults)"
			}
			what = append(what, c)
		}
		out = append(out, catalog.New("rdma.retransmits", subj,
			fmt.Sprintf("%s: %s; %s", name, strings.Join(what, "; "), totalsNote), append(append(rtEv, ceEv...), flEv...)...))
	}
	if parts, ev, _ := hw([]string{"rp_cnp_ignored"}); len(parts) > 0 {
		out = append(out, catalog.New("rdma.cnp_ignored", subj,
			fmt.Sprintf("%s: %s: congestion notifications arrived but the sender did not slow down; %s", name, parts[0], totalsNote), ev...))
	}
	// Port counters (sysfs counters/ or perfquery, names as sysfs has
	// them). PortXmitWait alone is not a finding: every switch port that
	// ever carried traffic has some.
	if v, ev, ok := port("port_xmit_discards"); ok {
		sum := fmt.Sprintf("%s: %s packets discarded on send", name, num("port_xmit_discards", v))
		evs := []finding.Evidence{ev}
		if dn, dev, ok := port("link_downed"); ok {
			sum += fmt.Sprintf("; the link went down %s time(s), and a port discards what it holds while its link is down", num("link_downed", dn))
			evs = append(evs, dev)
		}
		out = append(out, catalog.New("port.xmit_discards", subj, sum+"; "+totalsNote, evs...))
	} else if dn, dev, ok := port("link_downed"); ok {
		f := catalog.New("port.link_flapping", subj, fmt.Sprintf("%s: the link went down %s time(s); %s", name, num("link_downed", dn), totalsNote), dev)
		if dn < 3 {
			f.Severity = finding.Warning // a reboot of the peer also counts
		}
		out = append(out, f)
	}
	for _, r := range []struct{ counter, id, what string }{
		{"symbol_error", "port.symbol_errors", "symbol errors (bit errors on the lanes)"},
		{"port_rcv_errors", "port.rcv_errors", "packets received with errors"},
		{"link_error_recovery", "port.link_recovery", "link error recoveries"},
	} {
		if v, ev, ok := port(r.counter); ok {
			out = append(out, catalog.New(r.id, subj, fmt.Sprintf("%s: %s %s; %s", name, num(r.counter, v), r.what, totalsNote), ev))
		}
	}
	return out
}
