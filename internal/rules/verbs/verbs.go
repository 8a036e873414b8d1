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

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// maxEvidence bounds the lines quoted per finding.
const maxEvidence = 4

// Check judges the errors of a log: one verbs.completion_error per
// status (an unknown status apart), the statuses that are failures first.
// A failure is critical; flushes, and errors whose status the paste does
// not show, are a warning; a libmlx5 dump is always a failure (libmlx5
// prints none for a flush). Async events are one verbs.async_event per
// event text.
func Check(lg *wclog.Log) []finding.Finding {
	type group struct {
		st   nccllog.WCStatus
		errs []wclog.Error
	}
	var gs []*group
	for _, e := range lg.Errors {
		i := slices.IndexFunc(gs, func(g *group) bool { return g.st == e.Status })
		if i < 0 {
			gs = append(gs, &group{st: e.Status})
			i = len(gs) - 1
		}
		gs[i].errs = append(gs[i].errs, e)
	}
	var out []finding.Finding
	for _, g := range gs {
		out = append(out, groupFinding(lg.Source, g.st, g.errs))
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
	switch {
	case st >= 0:
		what = fmt.Sprintf("%s (status %d, %s)", info.Text, int(st), info.Name)
		if info.Meaning != "" {
			what += ": " + info.Meaning
		}
		if info.Fallout {
			sev = finding.Warning
		}
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
	}
	var by, local, peers, hosts []string
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	var details []string
	for _, e := range errs {
		switch e.Source {
		case wclog.SourceMlx5:
			add(&by, "libmlx5")
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
		case wclog.SourceLibfabric:
			add(&by, "libfabric "+e.Provider)
		default:
			add(&by, "the application's log")
			if e.Vendor != 0 {
				// wc.vendor_err: libmlx5 copies the CQE's vendor_err_synd
				// (providers/mlx5/cq.c), a firmware code no public table
				// decodes.
				add(&details, fmt.Sprintf("vendor syndrome %#x (the NIC firmware's code: quote it to the NIC vendor)", e.Vendor))
			}
		}
		add(&local, e.LocalNIC)
		if e.PeerNIC != "" {
			p := e.PeerNIC
			if e.Peer != "" {
				p += " at " + e.Peer
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
		subj.Peer = &finding.Subject{Device: dev, Host: host}
	}
	var ev []finding.Evidence
	for _, e := range errs {
		if len(ev) == maxEvidence {
			break
		}
		t := e.Text
		if len(t) > 300 {
			t = t[:300] + "…"
		}
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, e.Line), Value: t})
	}
	f := catalog.New("verbs.completion_error", subj, sum, ev...)
	f.Severity = sev
	f.Causes = forStatus(f.Causes, st)
	f.Remedy = forStatus(f.Remedy, st)
	return f
}

// statusPrefixes are the catalog entries that belong to one status.
var statusPrefixes = map[string]nccllog.WCStatus{
	"transport retry counter exceeded:": 12, "remote access error:": 10, "local protection error:": 4,
	"RNR retry counter exceeded:": 13, "remote operation, remote invalid request errors:": 11,
	"flushed work requests:": 5,
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
