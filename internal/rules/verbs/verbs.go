// Package verbs judges the work-completion errors applications and their
// libraries print (internal/parse/wclog): libmlx5's error CQE dump,
// libfabric's provider errors, and log lines that name an ibv_wc_status;
// and the ibv async events application lines name, classed as every
// program's async events are (ClassifyAsync, NCCL's too).
package verbs

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// maxEvidence bounds the lines quoted per finding.
const maxEvidence = 4

// Check judges the errors of a log: one verbs.completion_error per
// status (an unknown status apart), the statuses that are failures first.
// A failure is critical; flushes after a failure, and errors whose status
// the paste does not show, are a warning (flushes alone are critical: the
// work was not done); a libmlx5 dump is always a failure (libmlx5
// prints none for a flush). Async events are one verbs.async_event per
// event text.
func Check(lg *wclog.Log) []finding.Finding {
	type group struct {
		st   nccllog.WCStatus
		hccl bool
		errs []wclog.Error
	}
	if f, ok := targetFlushes(lg); ok {
		return append([]finding.Finding{f}, asyncFindings(lg.Source, lg.Async)...)
	}
	var gs []*group
	for _, e := range lg.Errors {
		hccl := e.Source == wclog.SourceHCCL
		i := slices.IndexFunc(gs, func(g *group) bool { return g.st == e.Status && g.hccl == hccl })
		if i < 0 {
			gs = append(gs, &group{st: e.Status, hccl: hccl})
			i = len(gs) - 1
		}
		gs[i].errs = append(gs[i].errs, e)
	}
	var out []finding.Finding
	for _, g := range gs {
		out = append(out, groupFinding(lg.Source, g.st, g.errs))
	}
	if len(gs) == 1 && gs[0].st >= 0 && gs[0].st.Info().Fallout && !gs[0].hccl {
		// Flushes and nothing before them: the error that moved the
		// queue pair to the error state is not in the paste, but the
		// work was not done and the connection is dead until the
		// program sets it up again. Critical, as UCX's flush-only logs.
		out[0].Severity = finding.Critical
		out[0].Summary += "; no completion error before the flushes is in the paste: the queue pair went to the error state earlier (look for the first error before these lines, or on the peer: a peer that died or closed its connection flushes the same way)"
	}
	out = append(out, asyncFindings(lg.Source, lg.Async)...)
	catalog.Sort(out)
	return out
}

// groupFinding is the finding of the errors of one status.
func groupFinding(source string, st nccllog.WCStatus, errs []wclog.Error) finding.Finding {
	var what string
	sev := finding.Critical
	info := st.Info()
	dump := slices.ContainsFunc(errs, func(e wclog.Error) bool { return e.Source == wclog.SourceMlx5 })
	hccl := errs[0].Source == wclog.SourceHCCL
	switch {
	case st < 0 && hccl:
		// HCCL's Execution_Error_ROCE_CQE: an error CQE on the NPU's
		// RoCE NIC failed a collective, and PyTorch's watchdog takes the
		// process down. HCCL does not print the ibv_wc_status.
		what = fmt.Sprintf("HCCL (Huawei's collective library on Ascend NPUs) got an error CQE on the NPU's RoCE NIC (%s); the collective failed and PyTorch's watchdog took the process down. HCCL does not print the completion status: a link that went down or flapped between the two NPUs, or a peer process that exited first", errs[0].What)
	case st >= 0:
		what = fmt.Sprintf("%s (status %d, %s)", info.Text, int(st), info.Name)
		if info.Meaning != "" {
			what += ": " + info.Meaning
		}
		if info.Fallout {
			sev = finding.Warning
		}
	case errs[0].Source == wclog.SourceDPDK:
		// DPDK 17.11-18.11 check_cqe dumps flushes too.
		what = "status not in the paste (DPDK's hexdump of the error CQE was cut before the row with the syndrome)"
		sev = finding.Warning
	case dump:
		what = "status not in the paste (libmlx5's CQE dump was cut before the row with the syndrome; libmlx5 prints the dump for every error but a flush or a retry exhaustion, so the operation failed)"
	default:
		var ws []string
		for _, e := range errs {
			if e.What != "" && !slices.Contains(ws, e.What) {
				ws = append(ws, e.What)
			}
		}
		what = fmt.Sprintf("provider error %q, which is no ibv_wc_status: read it in the provider's documentation", strings.Join(ws, "; "))
		sev = finding.Warning
		if efaFailed(errs) {
			// libfabric's EFA provider reports a send or receive it
			// could not complete (efa_rdm_txe_handle_error,
			// efa_rdm_rxe_handle_error; the texts are those of
			// prov/efa/src/efa_errno.h): the operation failed and
			// the application (NCCL through aws-ofi-nccl) gets the
			// error, so the collective fails.
			what = fmt.Sprintf("libfabric's EFA provider failed a transfer: %q (the texts of libfabric prov/efa/src/efa_errno.h: a peer whose EFA device or address is gone or unreachable, a queue pair in error, a memory registration that does not fit); the operation failed and the collective with it", strings.Join(ws, "; "))
			sev = finding.Critical
		}
	}
	var by, local, peers, hosts, ranks []string
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	var details []string
	for _, e := range errs {
		switch e.Source {
		case wclog.SourceMlx5, wclog.SourceDPDK:
			if e.Source == wclog.SourceDPDK {
				add(&by, "DPDK's mlx5 poll-mode driver")
			} else {
				add(&by, "libmlx5")
			}
			add(&hosts, e.Host)
			if e.CQE {
				side := "responder (receive queue)"
				if e.Requester {
					side = "requester (send queue)"
					if e.Opcode != "" {
						side += " " + e.Opcode
					}
				}
				add(&details, fmt.Sprintf("CQE syndrome %#x, vendor syndrome %#x, %s on QP %#x", e.Syndrome, e.Vendor, side, e.QPN))
			}
		case wclog.SourceHermon:
			// The Solaris driver of ConnectX HCAs logs its kernel
			// clients' error completions (hermon_cq.c): the syndrome
			// is the CQE's, the vendor syndrome the firmware's.
			add(&by, "the Solaris "+strings.TrimRight(e.LocalNIC, "0123456789")+" driver")
			add(&hosts, e.Host)
			if e.CQE {
				d := fmt.Sprintf("CQE syndrome %#x, vendor syndrome %#x on QP %#x", e.Syndrome, e.Vendor, e.QPN)
				if e.Client != "" {
					d += " of IB client " + e.Client
				}
				add(&details, d)
			}
		case wclog.SourceLibfabric:
			add(&by, "libfabric "+e.Provider)
		case wclog.SourceHCCL:
			add(&by, "HCCL in PyTorch's watchdog")
			add(&ranks, hcclRank(e))
			add(&hosts, e.Host)
		default:
			add(&by, "the application's log")
			if e.Vendor != 0 {
				// wc.vendor_err: libmlx5 copies the CQE's vendor_err_synd
				// (providers/mlx5/cq.c), a firmware code no public table
				// decodes.
				add(&details, fmt.Sprintf("vendor syndrome %#x (the NIC firmware's code: quote it to the NIC vendor)", e.Vendor))
			}
		}
		if e.Source == wclog.SourceHCCL && e.LocalNIC != "" && e.LocalIP != "" {
			add(&local, e.LocalNIC+" (device IP "+e.LocalIP+")")
		} else {
			add(&local, e.LocalNIC)
		}
		if e.PeerNIC != "" {
			p := e.PeerNIC
			if e.Peer != "" {
				p += " at " + e.Peer
			}
			if e.PeerHost != "" {
				p += " on " + e.PeerHost
			}
			add(&peers, p)
		}
		if e.LocalNIC == "" && e.PeerNIC == "" {
			for _, n := range e.NICs {
				add(&local, n)
			}
		}
	}
	sum := fmt.Sprintf("RDMA work completion failed (%s, by %s): %s", plural(len(errs), "line", "lines"), strings.Join(by, " and "), what)
	if len(ranks) > 0 {
		sum += "; " + strings.Join(ranks, ", ")
	}
	if len(details) > 0 {
		sum += "; " + strings.Join(details, "; ")
	}
	where := ""
	if len(hosts) > 0 {
		where = " on " + strings.Join(hosts, ", ")
	}
	switch {
	case len(local) > 0 && len(peers) > 0:
		sum += fmt.Sprintf("; path: local NIC %s%s to peer NIC %s", strings.Join(local, ", "), where, strings.Join(peers, ", "))
	case len(local) > 0:
		sum += fmt.Sprintf("; NIC %s%s", strings.Join(local, ", "), where)
	case where != "":
		sum += ";" + where
	}
	subj := finding.Subject{File: source}
	if len(hosts) == 1 {
		subj.Host = hosts[0]
	}
	if len(local) > 0 {
		subj.Device = local[0]
	}
	if len(peers) > 0 {
		dev, host, _ := strings.Cut(peers[0], " at ")
		host, _, _ = strings.Cut(host, " on ")
		subj.Peer = &finding.Subject{Device: dev, Host: host}
	}
	var ev []finding.Evidence
	for _, e := range errs[:min(len(errs), maxEvidence)] {
		ev = append(ev, lineEvidence(source, e.Line, e.Text))
	}
	f := catalog.New("verbs.completion_error", subj, sum, ev...)
	f.Severity = sev
	f.Causes = forStatus(f.Causes, st)
	f.Remedy = forStatus(f.Remedy, st)
	if errs[0].Source == wclog.SourceDPDK {
		// A DPDK application's own queues: its packet buffers, not GPU
		// memory, are what the NIC could not reach.
		f.Causes = append([]string{"DPDK: a packet buffer the application handed the mlx5 PMD lies outside the memory the PMD registered with the NIC (an mbuf of external or attached memory, or a mempool the PMD could not register), or the queue was set up with a bad descriptor; the PMD drops the packets of that queue"}, f.Causes...)
		f.Remedy = append([]string{"DPDK: build the mbufs the application sends from mempools of DPDK memory (rte_pktmbuf_pool_create after rte_eal_init), register external memory (rte_extmem_register, rte_dev_dma_map), and rerun with the PMD's debug log (DPDK 18.05+: the EAL's log-level option set to pmd.net.mlx5:debug)"}, f.Remedy...)
	}
	if hccl {
		// HCCL names the two causes of its EI0013: the network between
		// the NPUs (a port intermittently down) or a peer that exited;
		// those are a retry exhaustion's causes, and GPU buffer
		// registration is no NPU's.
		f.Causes = forStatus(f.Causes, 12)
		f.Remedy = append(forStatus(f.Remedy, 12), hcclRemedy(errs[0]))
	}
	return f
}

// targetFlushes is the verbs.wr_flushed of a log whose only completion
// errors are flushes SPDK's NVMe-oF target printed (lib/nvmf/rdma.c,
// "rdma.c:3868:spdk_nvmf_rdma_poller_poll: *ERROR*: Error on CQ …,
// status: (5): Work Request Flushed Error"): the queue pairs of
// connections being closed, which SPDK logs at debug level since.
func targetFlushes(lg *wclog.Log) (finding.Finding, bool) {
	if len(lg.Errors) == 0 || len(lg.AppFails) > 0 {
		return finding.Finding{}, false
	}
	for _, e := range lg.Errors {
		if e.Status != 5 || !strings.Contains(e.Text, "Error on CQ ") || !strings.Contains(e.Text, "nvmf_rdma_") {
			return finding.Finding{}, false
		}
	}
	sum := fmt.Sprintf("SPDK's NVMe-oF target logged %s of flushed work requests (status 5, IBV_WC_WR_FLUSH_ERR) and no other completion error: the work still posted on queue pairs being closed, as when a host disconnects; SPDK logs these at debug level since", plural(len(lg.Errors), "completion", "completions"))
	var ev []finding.Evidence
	for _, e := range lg.Errors[:min(len(lg.Errors), 2)] {
		ev = append(ev, lineEvidence(lg.Source, e.Line, e.Text))
	}
	return catalog.New("verbs.wr_flushed", finding.Subject{File: lg.Source}, sum, ev...), true
}

// hcclRank names the rank of an HCCL report: PyTorch's global rank and
// the rank in the process group.
func hcclRank(e wclog.Error) string {
	switch {
	case e.Rank >= 0 && e.GroupRank >= 0:
		return fmt.Sprintf("rank %d (rank %d of its process group)", e.Rank, e.GroupRank)
	case e.Rank >= 0:
		return fmt.Sprintf("rank %d", e.Rank)
	case e.GroupRank >= 0:
		return fmt.Sprintf("rank %d of its process group", e.GroupRank)
	}
	return ""
}

// hcclRemedy checks the NPU's RoCE port with Huawei's hccn_tool (the
// Ascend NPU's network tool: -link -g the port's link state, -net_health
// -g its health check, -ping -g address A a ping from the NPU's port).
func hcclRemedy(e wclog.Error) string {
	dev := "DEVICE_ID"
	if id, ok := strings.CutPrefix(e.LocalNIC, "NPU "); ok && id != "" {
		dev = id
	}
	peer := "PEER_DEVICE_IP"
	if e.Peer != "" {
		peer = e.Peer
	}
	return fmt.Sprintf("on the Ascend servers of both ends: hccn_tool -i %s -link -g and hccn_tool -i %s -net_health -g (the NPU's RoCE port must be UP and healthy), hccn_tool -i %s -ping -g address %s; and read the peer rank's log: if it exited first, its own error is the cause", dev, dev, dev, peer)
}

// statusPrefixes are the catalog entries that belong to one status.
var statusPrefixes = map[string]nccllog.WCStatus{
	"transport retry counter exceeded:": 12, "remote access error:": 10, "local protection error:": 4,
	"RNR retry counter exceeded:": 13, "remote operation, remote invalid request errors:": 11,
	"flushed work requests:": 5, "local length error:": 1,
}

// forStatus keeps, of a catalog list, the entries for st (all of them
// when st is unknown) and those for every status.
func forStatus(list []string, st nccllog.WCStatus) []string {
	if st < 0 {
		return list
	}
	var out []string
	for _, s := range list {
		keep := true
		for p, c := range statusPrefixes {
			if strings.HasPrefix(s, p) {
				keep = c == st || c == 11 && st == 9
			}
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// lineEvidence cites one log line, cut to 300 bytes at a character
// boundary.
func lineEvidence(source string, line int, text string) finding.Evidence {
	if len(text) > 300 {
		n := 300
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n] + "…"
	}
	return finding.Evidence{Source: fmt.Sprintf("%s:%d", source, line), Value: text}
}

// efaFailed says whether the errors are libfabric EFA provider reports of
// a failed transfer, not the flushes that follow a queue pair's error
// ("Flushed during queue pair destroy").
func efaFailed(errs []wclog.Error) bool {
	for _, e := range errs {
		if e.Source != wclog.SourceLibfabric || e.Provider != "efa" || strings.HasPrefix(e.What, "Flushed") {
			return false
		}
	}
	return len(errs) > 0
}
