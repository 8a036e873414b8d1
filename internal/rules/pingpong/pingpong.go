// Package pingpong judges the runs of libibverbs' pingpong examples
// (parsed by internal/parse/pingpong) as the perftest rules judge a
// perftest: a run that died on a work completion error, or could not
// start, is perf.test_invalid; status 12 and 13 (retry and RNR retry
// exceeded) are verbs.completion_error, critical: the peer never answered
// over this path, a fault of the path or the peer that every RDMA
// application between these hosts meets, not of the test. A queue pair
// that could not be moved to RTR or RTS is verbs.qp_setup_failed,
// critical, as any program's is: with these settings the two ends cannot
// connect at all.
package pingpong

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/pingpong"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Result is what the rules found.
type Result struct {
	Findings []finding.Finding
	// OK counts the runs that printed their result.
	OK int
}

// Check judges every run of res; file names the paste.
func Check(res *pingpong.Result, file string) Result {
	var out Result
	for i, r := range res.Runs {
		name := fmt.Sprintf("pingpong run %d of %d (line %d)", i+1, len(res.Runs), r.Line)
		if len(res.Runs) == 1 {
			name = "the pingpong run"
		}
		if r.Command != "" {
			name += ": " + command(r.Command)
		}
		subj := finding.Subject{File: file}
		if r.ResultLine > 0 && len(r.Errors) == 0 {
			out.OK++
			continue
		}
		for _, m := range r.Errors {
			sev := finding.Warning
			id := "perf.test_invalid"
			what := "failed: " + m.Text
			if m.Status >= 0 {
				st := nccllog.WCStatus(m.Status)
				info := st.Info()
				what = fmt.Sprintf("failed on a work completion with status %d, %s (%s)", m.Status, info.Name, info.Text)
				if info.Meaning != "" {
					what += ": " + info.Meaning
				}
				if st == nccllog.WCRetryExcErr || st == nccllog.WCRNRRetryErr {
					sev, id = finding.Critical, "verbs.completion_error"
				}
			} else if strings.HasPrefix(m.Text, "parse WC failed") && len(r.Errors) > 1 {
				continue // the program's summary of the status line above
			}
			f := catalog.New(id, subj, fmt.Sprintf("%s %s; nothing was measured", name, what),
				finding.Evidence{Source: fmt.Sprintf("%s:%d", file, m.Line), Value: m.Text})
			if r.Remote != nil && r.Local != nil {
				f.Evidence = append(f.Evidence, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, r.Local.Line), Value: "local GID " + orDash(r.Local.GID)},
					finding.Evidence{Source: fmt.Sprintf("%s:%d", file, r.Remote.Line), Value: "remote GID " + orDash(r.Remote.GID)})
			}
			switch {
			case strings.Contains(m.Text, "to modify QP to RTR"):
				f.ID, sev = "verbs.qp_setup_failed", finding.Critical
				rtr(&f, r)
			case strings.Contains(m.Text, "to modify QP to RTS"):
				f.ID, sev = "verbs.qp_setup_failed", finding.Critical
				rts(&f)
			}
			f.Severity = sev
			out.Findings = append(out.Findings, f)
			break // the first error is the cause; the rest follow from it
		}
		// The programs print the GID on every address line (rc_pingpong.c
		// main: "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID
		// %s"); address lines without one are an old perftest's.
		if len(r.Errors) == 0 && r.ResultLine == 0 && r.Local != nil && r.Remote != nil && r.Local.GID != "" && r.Remote.GID != "" {
			out.Findings = append(out.Findings, unfinished(r, name, file, subj))
		}
	}
	catalog.Sort(out.Findings)
	return out
}

// command drops a shell prompt before the program's name.
func command(c string) string {
	f := strings.Fields(c)
	for i, w := range f {
		if strings.HasSuffix(w[strings.LastIndexByte(w, '/')+1:], "_pingpong") {
			return strings.Join(f[i:], " ")
		}
	}
	return c
}

// orDash shows an empty GID (InfiniBand without -g) as "::".
func orDash(s string) string {
	if s == "" {
		return "::"
	}
	return s
}

// unfinished reports a run that exchanged its addresses with the peer and
// never printed a result nor an error: the programs print "N bytes in S
// seconds" once every iteration completed (libibverbs/examples
// rc_pingpong.c main), so it hung waiting for completions, or was
// stopped. When both ends named link-local (fe80::) GIDs on RoCE (LID 0:
// no InfiniBand LID) and the GIDs differ (two hosts), the GID index is
// the likely cause: RoCE v2 routes by the GID's IP address, and a
// link-local one is not routable; the IPv4-mapped GID of the interface's
// address is.
func unfinished(r *pingpong.Run, name, file string, subj finding.Subject) finding.Finding {
	sum := fmt.Sprintf("%s exchanged addresses with its peer (lines %d and %d) but printed no result and no error: it did not complete (it hung waiting for its first completions, or was stopped); nothing was measured", name, r.Local.Line, r.Remote.Line)
	ev := []finding.Evidence{
		{Source: fmt.Sprintf("%s:%d", file, r.Local.Line), Value: "local LID " + r.Local.LID + ", GID " + orDash(r.Local.GID)},
		{Source: fmt.Sprintf("%s:%d", file, r.Remote.Line), Value: "remote LID " + r.Remote.LID + ", GID " + orDash(r.Remote.GID)},
	}
	f := catalog.New("perf.test_invalid", subj, sum, ev...)
	if roce(r.Local) && roce(r.Remote) && linkLocal(r.Local.GID) && linkLocal(r.Remote.GID) && !strings.EqualFold(r.Local.GID, r.Remote.GID) {
		f.Summary += "; both ends use link-local GIDs (fe80::, the GID made from the MAC) on RoCE between two hosts: RoCE v2 routes by the GID's IP address and a link-local one is not routable, so use the GID index of the interface's IPv4 address (::ffff:a.b.c.d, RoCE v2) with -g on both ends"
		f.Remedy = append([]string{"list the GIDs with show_gids (or cat /sys/class/infiniband/<dev>/ports/1/gids/<N> and gid_attrs/types/<N>) and rerun with -g <index of the RoCE v2 ::ffff:IPv4 GID> on both hosts, e.g. ibv_rc_pingpong -d <dev> -g 1 <peer>"}, f.Remedy...)
	} else {
		f.Remedy = append([]string{"rerun both ends and wait for the result line; a run that still hangs after the address exchange: check that the two ports reach each other (their state in ibv_devinfo; for RoCE, ping over the RDMA interface), and give both ends a GID index of the same kind"}, f.Remedy...)
	}
	return f
}

// roce says whether an address line is RoCE's: no LID (0x0000), a GID.
func roce(a *pingpong.Addr) bool {
	return a.GID != "" && strings.Trim(strings.TrimPrefix(strings.ToLower(a.LID), "0x"), "0") == ""
}

// linkLocal says whether a GID as the programs print it (inet_ntop:
// "fe80::5054:ff:fe6c:16f1") is an IPv6 link-local address (fe80::/10).
func linkLocal(gid string) bool {
	first, _, ok := strings.Cut(strings.ToLower(gid), ":")
	return ok && len(first) == 4 && strings.HasPrefix(first, "fe") && strings.IndexByte("89ab", first[2]) >= 0
}

// rts gives a run that printed "Failed to modify QP to RTS"
// (rc_pingpong.c pp_connect_ctx, after the move to RTR worked) its causes:
// the send side's attributes, and an iWARP device (siw, cxgb4, irdma in
// iWARP mode), whose queue pairs only the RDMA connection manager can
// connect: the pingpong examples move them by hand and fail there.
func rts(f *finding.Finding) {
	f.Summary = strings.Replace(f.Summary, "; nothing was measured", ": the queue pair reached RTR but could not be moved to RTS (Ready To Send), so the connection never came up; nothing was measured", 1)
	f.Causes = []string{
		"an iWARP device (siw, iw_cxgb4, irdma in iWARP mode): its connections are set up by the RDMA connection manager only, which the pingpong examples do not use",
		"a send-side attribute the device rejects (timeout, retry count, the initial PSN)",
	}
	f.Remedy = []string{
		"ibv_devinfo -d <dev> | grep transport: for iWARP test with a program that connects through rdma_cm: rping -s / rping -c -a <server> -v; or perftest over rdma_cm: ib_write_bw -R -d <dev>",
		"dmesg | tail for the driver's reason, then rerun both ends",
	}
}

// rtr gives a run that printed "Failed to modify QP to RTR" (rc_pingpong.c
// pp_connect_ctx, when ibv_modify_qp to Ready To Receive fails) the causes
// that call rejects: the address vector's GID index (-g), a port that is
// not ACTIVE, a path MTU (-m) above the port's active MTU. Nothing was
// sent yet: the peer is not at fault.
func rtr(f *finding.Finding, r *pingpong.Run) {
	why := ": bringing the queue pair to RTR (Ready To Receive) failed before any traffic"
	if r.Local != nil && linkLocal(r.Local.GID) {
		why += fmt.Sprintf(", with the link-local GID %s (the one made from the MAC, usually -g 0)", r.Local.GID)
	}
	f.Summary = strings.Replace(f.Summary, "; nothing was measured", why+"; nothing was measured", 1)
	f.Causes = []string{
		"a GID index (-g) that is empty, or not a RoCE v2 GID of the interface's IP address (RoCE)",
		"the local port not ACTIVE, or its netdev down",
		"a path MTU (-m) above the active MTU of one of the two ports",
	}
	f.Remedy = []string{
		"list the GIDs with show_gids, then on both hosts rerun with the index of the RoCE v2 ::ffff:IPv4 GID: ibv_rc_pingpong -d <dev> -g <index> (and <peer> on the client)",
		"ibv_devinfo -d <dev> -v on both hosts shows the port PORT_ACTIVE and its active_mtu; then ibv_rc_pingpong -d <dev> -m <MTU no larger than active_mtu, e.g. 1024>",
	}
}
