package verbs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckAppFails judges an application's lines that an RDMA connection
// or transfer failed: SPDK's NVMe-oF host lines are one
// nvmf.connection_failed (critical when a controller failed, a queue
// pair's completions could not be polled, an address could not be
// resolved or a queue pair not connected; a warning for an unexpected
// CM event alone), Mooncake's transfer timeouts one rdma.transfer_timeout.
func CheckAppFails(source string, fs []wclog.AppFail) []finding.Finding {
	var spdk, mc, tgt, cm []wclog.AppFail
	for _, f := range fs {
		switch f.Kind {
		case wclog.AppCMError:
			cm = append(cm, f)
		case wclog.AppTransferTimeout:
			mc = append(mc, f)
		case wclog.AppTgtConnected:
			// A connect the target completed: nothing to judge.
		case wclog.AppTgtQPair, wclog.AppTgtQPState, wclog.AppTgtDump:
			tgt = append(tgt, f)
		default:
			spdk = append(spdk, f)
		}
	}
	var out []finding.Finding
	if len(spdk) > 0 {
		out = append(out, spdkFinding(source, spdk))
	}
	if len(tgt) > 0 {
		out = append(out, spdkTargetFinding(source, tgt))
	}
	if len(cm) > 0 {
		out = append(out, cmErrorFinding(source, cm))
	}
	if len(mc) > 0 {
		sum := fmt.Sprintf("Mooncake's transfers did not complete within %d seconds (%s): the keys of those batches fail with TRANSFER_FAIL, and a serving engine that needs them fails or stalls", mc[0].Seconds, plural(len(mc), "batch", "batches"))
		out = append(out, catalog.New("rdma.transfer_timeout", finding.Subject{File: source}, sum, appEvidence(source, mc)...))
	}
	return out
}

// cmErrnos names the errors the kernel's RDMA CM reports in an address,
// route or connect error event (drivers/infiniband/core/cma.c, addr.c).
var cmErrnos = map[int]string{
	19:  "ENODEV: the address resolved to a network interface that no RDMA device is bound to (no RDMA device on the interface that routes to the peer, or a Soft-RoCE/iWARP device not created on it)",
	22:  "EINVAL: the address or the device's port is not usable (no GID for the address)",
	99:  "EADDRNOTAVAIL: the source address is not on this host",
	101: "ENETUNREACH: no route to the peer's address",
	104: "ECONNRESET: the peer reset the connection (iWARP: nothing listening, or the peer refused it)",
	110: "ETIMEDOUT: the address (ARP or neighbour discovery), the path (InfiniBand SA query) or the peer's CM did not answer in time",
	111: "ECONNREFUSED: the peer refused the connection (nothing listening on that port)",
	113: "EHOSTUNREACH: no route to the peer's host",
}

// cmErrorFinding is the rdma.cm_connect_failed of rping's "cma event
// RDMA_CM_EVENT_…, error N" lines: an address, route or connect error
// or an unreachable peer means no RDMA CM connection can be made that
// way (critical); a rejected connect alone means the peer's CM answered
// and refused it, most often nothing listening yet (a warning).
func cmErrorFinding(source string, fs []wclog.AppFail) finding.Finding {
	var evs []string
	fatal := false
	for _, f := range fs {
		e := fmt.Sprintf("%s (error %d", f.Event, f.Status)
		if m, ok := cmErrnos[f.Errno]; ok && f.Status < 0 {
			e += ", " + m
		}
		e += ")"
		if !slices.Contains(evs, e) {
			evs = append(evs, e)
		}
		if f.Event != "RDMA_CM_EVENT_REJECTED" {
			fatal = true
		}
	}
	sum := "the RDMA CM could not make the connection: " + strings.Join(evs[:min(len(evs), 3)], "; ")
	if fatal {
		sum += "; the address, route or peer could not be reached over RDMA, so no RDMA CM program (rping, NVMe-oF, NFS over RDMA, perftest -R) can connect that way"
	} else {
		sum += "; the peer's connection manager answered and refused the connection (most often nothing listening on that port yet)"
	}
	f := catalog.New("rdma.cm_connect_failed", finding.Subject{File: source}, sum, appEvidence(source, fs)...)
	if !fatal {
		f.Severity = finding.Warning
	}
	return f
}

// spdkFinding is the nvmf.connection_failed of SPDK's host lines.
func spdkFinding(source string, fs []wclog.AppFail) finding.Finding {
	has := func(k wclog.AppFailKind) bool {
		return slices.ContainsFunc(fs, func(f wclog.AppFail) bool { return f.Kind == k })
	}
	var ctrlrs, why []string
	for _, f := range fs {
		if f.Kind == wclog.AppCtrlrFailed && f.Ctrlr != "" && !slices.Contains(ctrlrs, f.Ctrlr) {
			ctrlrs = append(ctrlrs, f.Ctrlr)
		}
	}
	if has(wclog.AppAddrResolve) {
		why = append(why, "the RDMA CM could not resolve the target's address or route (no local RDMA device with a route to it)")
	}
	if has(wclog.AppConnect) {
		why = append(why, "a queue pair's connection did not complete")
	}
	for _, f := range fs {
		if f.Kind != wclog.AppCQTransport {
			continue
		}
		if f.Err != "" {
			why = append(why, fmt.Sprintf("polling a queue pair's completions failed (error %d, %s)", f.Errno, f.Err))
		} else {
			why = append(why, "polling a queue pair's completions failed (SPDK before 21.01 words every such failure 'transport retry counter exceeded')")
		}
		break
	}
	for _, f := range fs {
		if f.Kind == wclog.AppCMEvent {
			why = append(why, fmt.Sprintf("the RDMA CM delivered %s instead of the event awaited", f.Event))
			break
		}
	}
	var sum string
	fatal := has(wclog.AppCtrlrFailed) || has(wclog.AppAddrResolve) || has(wclog.AppConnect) || has(wclog.AppCQTransport)
	switch {
	case len(ctrlrs) > 0:
		sum = fmt.Sprintf("SPDK's NVMe-oF RDMA host put controller %s in the failed state: its I/O is aborted until it reconnects", strings.Join(ctrlrs, ", "))
	case fatal:
		sum = "SPDK's NVMe-oF RDMA host lost or could not make its connection to the target"
	default:
		sum = "SPDK's NVMe-oF RDMA host got an unexpected RDMA CM event"
	}
	if len(why) > 0 {
		sum += ": " + strings.Join(why, "; ")
	}
	// The cause lines first, then the controller's failure.
	quote := slices.Clone(fs)
	slices.SortStableFunc(quote, func(a, b wclog.AppFail) int {
		return spdkRank(a.Kind) - spdkRank(b.Kind)
	})
	var q []wclog.AppFail
	for _, f := range quote {
		if !slices.ContainsFunc(q, func(g wclog.AppFail) bool { return g.Kind == f.Kind }) {
			q = append(q, f)
		}
	}
	f := catalog.New("nvmf.connection_failed", finding.Subject{File: source}, sum, appEvidence(source, q)...)
	if !fatal {
		f.Severity = finding.Warning
	}
	return f
}

// spdkTargetFinding is the nvmf.target_qpair_failed of SPDK's target
// lines: critical when a queue pair could not be created or set up or
// its verbs state is broken, a warning when the paste holds only the
// dump of a queue pair torn down (the failure before it not shown).
func spdkTargetFinding(source string, fs []wclog.AppFail) finding.Finding {
	var why []string
	var q []wclog.AppFail
	seen := map[string]bool{}
	for _, k := range []wclog.AppFailKind{wclog.AppTgtQPair, wclog.AppTgtQPState, wclog.AppTgtDump} {
		for _, f := range fs {
			if f.Kind != k {
				continue
			}
			msg := f.Text
			if _, m, ok := strings.Cut(f.Text, "*ERROR*:"); ok {
				msg = strings.TrimSpace(m)
			}
			if k != wclog.AppTgtDump && !seen[msg] {
				seen[msg] = true
				why = append(why, "'"+msg+"'")
			}
			if k != wclog.AppTgtDump || len(q) == 0 {
				q = append(q, f)
			}
		}
	}
	fatal := len(why) > 0
	sum := "SPDK's NVMe-oF RDMA target dumped and tore down a queue pair after an error (the failure itself is not in the paste)"
	if fatal {
		sum = "SPDK's NVMe-oF RDMA target could not set up a host's queue pair, so that host's connect fails: " + strings.Join(why[:min(len(why), 4)], "; ")
		for _, f := range fs {
			if f.Errno == 12 {
				sum += "; errno 12 (ENOMEM): the HCA or the locked memory could not hold another queue pair (ulimit -l, the hugepage memory SPDK registers, the device's max_qp)"
				break
			}
		}
	}
	f := catalog.New("nvmf.target_qpair_failed", finding.Subject{File: source}, sum, appEvidence(source, q)...)
	if !fatal {
		f.Severity = finding.Warning
	}
	return f
}

// spdkRank orders SPDK's lines by how near the cause they are.
func spdkRank(k wclog.AppFailKind) int {
	return slices.Index([]wclog.AppFailKind{wclog.AppAddrResolve, wclog.AppConnect, wclog.AppCMEvent, wclog.AppCQTransport, wclog.AppCtrlrFailed}, k)
}

// appEvidence cites the first lines.
func appEvidence(source string, fs []wclog.AppFail) []finding.Evidence {
	var ev []finding.Evidence
	for _, f := range fs[:min(len(fs), maxEvidence)] {
		ev = append(ev, lineEvidence(source, f.Line, f.Text))
	}
	return ev
}

// rdmaProviders are the libfabric providers that run over RDMA verbs or
// layer an endpoint type over them (fi_verbs(7), fi_rxm(7), fi_rxd(7)).
var rdmaProviders = []string{"verbs", "ofi_rxm", "ofi_rxd", "verbs;ofi_rxm", "verbs;ofi_rxd"}

// CheckGetinfos judges libfabric's lines that a provider's getinfo
// failed: one libfabric.provider_unavailable, critical when libfabric
// logged one at the warn level (the application named that provider),
// a warning when a verbs provider or a utility provider over verbs
// found nothing to offer (logged at the info level: the application
// may still get another provider, such as tcp), and a warning when a
// provider answered with an empty list (logged at the warn level
// whoever asked: the provider, efa in aws-ofi-nccl's logs, sees no
// device that fits). Other providers' misses at the info level are
// fi_getinfo trying every provider: not judged.
func CheckGetinfos(source string, gs []wclog.Getinfo) []finding.Finding {
	var keep []wclog.Getinfo
	var provs []string
	warn := false
	for _, g := range gs {
		if !g.Warn && !g.Empty && !slices.Contains(rdmaProviders, g.Provider) {
			continue
		}
		keep = append(keep, g)
		warn = warn || g.Warn && !g.Empty
		if !slices.Contains(provs, g.Provider) {
			provs = append(provs, g.Provider)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	g := keep[0]
	sum := fmt.Sprintf("libfabric's fi_getinfo got nothing from provider %s (returned -%d", strings.Join(provs, ", "), g.Errno)
	if g.Empty {
		sum = fmt.Sprintf("libfabric's fi_getinfo got nothing from provider %s (output empty list", strings.Join(provs, ", "))
	}
	if g.Err != "" && !g.Empty {
		sum += ", " + g.Err
	}
	sum += ")"
	switch {
	case warn:
		sum += ": the application asked for that provider, so it gets no endpoint from it"
	case g.Empty:
		sum += ": the provider found no device or endpoint that fits the request (for efa: no EFA device visible where the program runs, such as a container without /dev/infiniband/uverbs*), so the application gets another provider (tcp, sockets) or fails"
	default:
		sum += ": no RDMA endpoint of that provider matched the application's request; ofi_rxm layers the reliable-datagram (FI_EP_RDM) endpoints MPI libraries use over verbs' connected (FI_EP_MSG) endpoints, so without it the application falls back to another provider (tcp) or fails"
	}
	f := catalog.New("libfabric.provider_unavailable", finding.Subject{File: source}, sum)
	for _, k := range keep[:min(len(keep), maxEvidence)] {
		f.Evidence = append(f.Evidence, lineEvidence(source, k.Line, k.Text))
	}
	if !warn {
		f.Severity = finding.Warning
	}
	if slices.Contains(provs, "efa") {
		// The catalogue's causes and remedies are written for verbs.
		f.Causes = []string{
			"the EFA devices are not visible where the program runs: a container without /dev/infiniband/uverbs*, a pod that does not request vpc.amazonaws.com/efa, an instance type or network interface without EFA, or the efa kernel module not loaded",
			"the libfabric in the image is not the EFA installer's (/opt/amazon/efa), or too old for the instance's EFA devices",
		}
		f.Remedy = []string{
			"fi_info -p efa -t FI_EP_RDM on the host and inside the container: it must list the EFA devices",
			"ls /sys/class/infiniband and lsmod | grep efa on the host; pass the EFA devices into the container or request vpc.amazonaws.com/efa in the pod's resources",
			"cat /opt/amazon/efa_installed_packages for the EFA software versions",
		}
	}
	return []finding.Finding{f}
}
