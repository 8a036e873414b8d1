// Package ucx judges UCX logs (internal/parse/ucxlog): work-completion
// errors on an HCA port, with their mlx5 syndrome decoded, and the other
// errors UCX reports (endpoint timeouts, unreachable destinations, failed
// verbs calls).
package ucx

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxlog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// maxEvidence bounds the log lines quoted per finding.
const maxEvidence = 4

// Check judges a UCX log. The first completion error that is not a flush
// is the cause (one finding, naming every process that got one; when
// all are flushes, the summary says the first error is not in the paste); when there is none, the first other error is
// (ucx.error). Errors after a
// completion error are its consequences and are counted in it.
func Check(lg *ucxlog.Log) []finding.Finding {
	if f, ok := completionFinding(lg); ok {
		return []finding.Finding{f}
	}
	if f, ok := memlockFinding(lg); ok {
		return []finding.Finding{f}
	}
	if f, ok := errorFinding(lg); ok {
		return []finding.Finding{f}
	}
	if f, ok := unavailableFinding(lg); ok {
		return []finding.Finding{f}
	}
	return nil
}

// unavailableFinding reports UCX's warning that a device or transport it
// was told to use (UCX_NET_DEVICES, UCX_TLS) is not available
// (ucp_context.c: "network device 'mlx5_bond_0:1' is not available,
// please use one or more of: 'bond0'(tcp), …"). When what it offers
// instead holds no RDMA device the process sees none (a container
// without /dev/infiniband, or the driver not loaded) and its traffic
// goes over TCP: critical; otherwise a warning (a wrong name).
func unavailableFinding(lg *ucxlog.Log) (finding.Finding, bool) {
	for _, r := range lg.Records {
		if r.Level != ucxlog.LevelWarn || !strings.Contains(r.Msg, " not available") {
			continue
		}
		what, offered, _ := strings.Cut(r.Msg, ", please use one or more of:")
		sum := "UCX: " + strings.TrimSpace(what)
		if r.Host != "" {
			sum = fmt.Sprintf("UCX on %s: %s", r.Proc(), strings.TrimSpace(what))
		}
		sev := finding.Warning
		if offered != "" {
			rdma := strings.Contains(offered, "(ib)") || strings.Contains(offered, "(rc") || strings.Contains(offered, "(dc") || strings.Contains(offered, "(ud") || strings.Contains(offered, "(gga)")
			if rdma {
				sum += ": the device name is wrong (UCX_NET_DEVICES names a device this node does not have)"
			} else {
				sum += fmt.Sprintf("; it offers only%s: the process sees no RDMA device (a container without /dev/infiniband, or the driver not loaded), so UCX runs over TCP", strings.TrimRight(offered, " "))
				sev = finding.Critical
			}
		}
		f := catalog.New("ucx.error", finding.Subject{Host: r.Host}, sum, finding.Evidence{Source: at(lg.Source, r.Line), Value: strings.TrimSpace(r.Text)})
		f.Severity = sev
		return f, true
	}
	return finding.Finding{}, false
}

// reMemlock is the hint UCX appends to a verbs call that failed with
// ENOMEM while RLIMIT_MEMLOCK is finite (src/uct/ib/base/ib_log.c and,
// in older releases, ib_md.c): "ibv_create_cq() failed: Cannot allocate
// memory. Please set max locked memory (ulimit -l) to 'unlimited'
// (current: 64 kbytes)", " : Please set …" in newer ones.
var reMemlock = regexp.MustCompile(`max locked memory \(ulimit -l\) to 'unlimited' \(current: (\d+) kbytes\)`)

// memlockFinding reports the failed verbs call UCX blames on the
// locked-memory limit (openucx/ucx#8746) as host.memlock_limited: the
// limit is the cause, and raising it the fix. Critical below the limit
// NCCL-sized registrations need, as on a node.
func memlockFinding(lg *ucxlog.Log) (finding.Finding, bool) {
	var hit []ucxlog.Record
	kb := int64(-1)
	for _, r := range lg.Records {
		if !r.Serious() || !strings.Contains(r.Msg, "(ulimit -l)") {
			continue
		}
		m := reMemlock.FindStringSubmatch(r.Msg)
		if m == nil {
			continue
		}
		if kb < 0 {
			kb, _ = strconv.ParseInt(m[1], 10, 64)
		}
		hit = append(hit, r)
	}
	if len(hit) == 0 {
		return finding.Finding{}, false
	}
	cause := hit[0]
	msg := strings.TrimSpace(cause.Msg)
	device := ""
	if d, _, ok := strings.Cut(msg, ": "); ok && !strings.ContainsAny(d, " (") {
		device = d // "mlx5_0: ibv_create_cq() failed: …"
	}
	call, _, _ := strings.Cut(msg, " : Please set")
	call, _, _ = strings.Cut(call, ". Please set")
	where := "UCX"
	if cause.Host != "" {
		where = "UCX on " + cause.Proc()
	}
	var procs []string
	for _, r := range hit {
		if p := r.Proc(); p != "" && !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
	}
	sum := fmt.Sprintf("%s: %s, under a locked-memory limit (ulimit -l) of %d KiB: the process cannot pin the memory the HCA's queues and registrations need, so UCX cannot use the RDMA device (it falls back to another transport, or the job fails)", where, call, kb)
	if len(procs) > 1 {
		sum += fmt.Sprintf("; %d processes report it", len(procs))
	}
	evs := []finding.Evidence{{Source: at(lg.Source, cause.Line), Value: strings.TrimSpace(cause.Text)}}
	f := catalog.New("host.memlock_limited", finding.Subject{Host: cause.Host, Device: device}, sum, evs...)
	if kb<<10 < limits.HostMemlockCritical {
		f.Severity = finding.Critical
	}
	return f, true
}

func at(src string, line int) string { return fmt.Sprintf("%s:%d", src, line) }

func completionFinding(lg *ucxlog.Log) (finding.Finding, bool) {
	cs := lg.Completions
	if len(cs) == 0 {
		return finding.Finding{}, false
	}
	cause := cs[0]
	for _, c := range cs {
		if c.Status < 0 || !c.Status.Info().Fallout {
			cause = c
			break
		}
	}
	r := cause.Record
	port := cause.Device
	if cause.Port > 0 {
		port = fmt.Sprintf("%s port %d", cause.Device, cause.Port)
	}
	if cause.LinkLayer != "" {
		port += " (" + cause.LinkLayer + ")"
	}
	if port == "" {
		port = "an HCA port"
	}
	where := "on " + port
	if r.Host != "" {
		where += " of " + r.Host
	}
	decoded := ""
	switch {
	case cause.HasSyndrome && cause.Status >= 0:
		decoded = fmt.Sprintf("syndrome %#x = status %d %s (%s)", cause.Syndrome, int(cause.Status), cause.Status.Info().Name, cause.Status.Info().Text)
	case cause.HasSyndrome:
		decoded = fmt.Sprintf("syndrome %#x, which no ibv_wc_status is known for", cause.Syndrome)
	case cause.Status >= 0:
		decoded = fmt.Sprintf("status %d %s", int(cause.Status), cause.Status.Info().Name)
	}
	if cause.Vendor != 0 {
		decoded += fmt.Sprintf(", vendor syndrome %#x", cause.Vendor)
	}
	sum := fmt.Sprintf("UCX work-completion error %s: %s", where, cause.What)
	if decoded != "" {
		sum += " (" + strings.TrimPrefix(decoded, ", ") + ")"
	}
	if m := cause.Status.Info().Meaning; cause.Status >= 0 && m != "" {
		sum += ": " + m
	}
	// Who got one, and whom they name.
	var procs, hosts []string
	lids := map[int]int{}
	for _, c := range cs {
		if p := c.Record.Proc(); p != "" && !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
		if h := c.Record.Host; h != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
		if c.RemoteLID > 0 {
			lids[c.RemoteLID]++
		}
	}
	switch {
	case len(cs) > 1 && len(procs) > 0:
		sum += fmt.Sprintf("; %d completion errors from %d processes on %s", len(cs), len(procs), strings.Join(firstN(hosts, 4), ", "))
	case len(cs) > 1:
		// Lines pasted without UCX's [host:pid] prefix.
		sum += fmt.Sprintf("; %d completion errors (the lines do not say which process or host)", len(cs))
	}
	if len(lids) == 1 && cause.RemoteLID > 0 {
		if lids[cause.RemoteLID] > 1 {
			sum += fmt.Sprintf("; every one names remote LID %d: look at that node and the path to it", cause.RemoteLID)
		} else {
			sum += fmt.Sprintf("; the peer is remote LID %d", cause.RemoteLID)
		}
	}
	if n := laterErrors(lg, cs); n > 0 {
		sum += fmt.Sprintf("; %d later UCX error line(s) follow from it", n)
	}
	evs := []finding.Evidence{{Source: at(lg.Source, r.Line), Value: strings.TrimSpace(r.Text)}}
	if cause.QP != "" {
		evs = append(evs, finding.Evidence{Source: lg.Source, Value: "work request: " + cause.QP})
	}
	if len(procs) > 1 {
		evs = append(evs, finding.Evidence{Source: lg.Source, Value: "processes: " + strings.Join(firstN(procs, 8), ", ")})
	}
	if len(lids) > 1 {
		var ls []string
		for l, n := range lids {
			ls = append(ls, fmt.Sprintf("LID %d ×%d", l, n))
		}
		slices.Sort(ls)
		evs = append(evs, finding.Evidence{Source: lg.Source, Value: "remote LIDs: " + strings.Join(firstN(ls, 6), ", ")})
	}
	// Only flushes: the error that moved the queue pair to the error
	// state is not in the paste (a peer that died or closed its
	// connection flushes the same way). The work was not done and the
	// connection is dead: critical all the same, as the verbs reader
	// judges flush-only application logs.
	flushOnly := cause.Status >= 0 && cause.Status.Info().Fallout
	if flushOnly {
		sum += "; every completion error here is a flush, which follows an earlier error on the queue pair (not in the paste) or a peer that closed its connection: look for the first error in the log before these lines, or on the peer"
	}
	f := catalog.New("ucx.completion_error", finding.Subject{Host: r.Host, Device: cause.Device, Port: cause.Port, LinkLayer: linkLayer(cause.LinkLayer)}, sum, evs...)
	if cause.Status >= 0 {
		f.Causes = forStatus(f.Causes, cause.Status)
		f.Remedy = forStatus(f.Remedy, cause.Status)
		if len(f.Causes) == 0 && cause.Status.Info().Meaning != "" {
			f.Causes = []string{fmt.Sprintf("status %d: %s", int(cause.Status), cause.Status.Info().Meaning)}
		}
	}
	return f, true
}

// linkLayer names UCX's "IB"/"RoCE" as the subject's link layer.
func linkLayer(ll string) string {
	switch ll {
	case "IB":
		return string(ib.LinkLayerInfiniBand)
	case "RoCE", "Eth":
		return string(ib.LinkLayerEthernet)
	}
	return ""
}

// laterErrors counts the error lines that are neither a completion error
// nor the work-request line that goes with one.
func laterErrors(lg *ucxlog.Log, cs []ucxlog.Completion) int {
	n := 0
	for _, r := range lg.Records {
		if r.Serious() && !partOfCompletion(r, cs) {
			n++
		}
	}
	return n
}

// partOfCompletion says whether r is a completion error's line or a
// line its process printed with it (the WQE dump, the peer info).
func partOfCompletion(r ucxlog.Record, cs []ucxlog.Completion) bool {
	for _, c := range cs {
		if c.Record.Proc() == r.Proc() && c.Record.File == r.File && c.Record.SrcLine == r.SrcLine {
			return true
		}
	}
	return false
}

// errorClass says what kind of error a UCX message reports, with what it
// usually means.
func errorClass(msg string) string {
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "endpoint timeout") || strings.Contains(low, "timeout error") || strings.Contains(low, "timed out") || strings.Contains(low, "timeout of "):
		return "a timeout: the peer stopped answering (it died or hung, or the path to it dropped packets for long)"
	case strings.Contains(low, "unreachable"):
		return "no transport reaches the peer: the two ends share no transport and device (UCX_TLS, UCX_NET_DEVICES, a port down, RoCE without a routable GID)"
	case strings.Contains(low, "connection reset") || strings.Contains(low, "remote side aborted"):
		return "the peer closed or lost its endpoint (it exited or crashed)"
	case strings.Contains(low, "unrecognized") || strings.Contains(low, "not recognized") || strings.Contains(low, "no such device") || strings.Contains(low, "not available") || strings.Contains(low, "is not enabled"):
		return "a device or transport UCX was told to use does not exist or is not enabled here (UCX_NET_DEVICES, UCX_TLS)"
	case strings.Contains(low, "cannot allocate memory") && (strings.Contains(low, "reg") || strings.Contains(low, "ibv_")):
		return "memory registration failed: the locked-memory limit (ulimit -l) is too low or the HCA ran out of resources"
	case strings.Contains(low, "ibv_") || strings.Contains(low, "mlx5dv_") || strings.Contains(low, "rdma_") || strings.Contains(low, "devx"):
		return "a verbs call failed: firmware or driver lacks the feature, a device in error, or a resource limit"
	}
	return ""
}

func errorFinding(lg *ucxlog.Log) (finding.Finding, bool) {
	var errs []ucxlog.Record
	for _, r := range lg.Records {
		if r.Serious() && strings.TrimSpace(r.Msg) != "" && !strings.HasPrefix(r.Msg, "[") {
			errs = append(errs, r)
		}
	}
	if len(errs) == 0 {
		return finding.Finding{}, false
	}
	// The first error that says what went wrong is the cause; a line of
	// the MPI layer ("Failed to resolve UCX endpoint") only follows one.
	cause := errs[0]
	for _, r := range errs {
		if errorClass(r.Msg) != "" {
			cause = r
			break
		}
	}
	msg := strings.TrimSpace(cause.Msg)
	for _, p := range []string{"UCX Fatal: ", "FATAL: ", "Fatal: ", "Error: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	where := ""
	if cause.Host != "" {
		where = " on " + cause.Proc()
	}
	loc := ""
	if cause.File != "" {
		loc = fmt.Sprintf(" (%s:%d)", cause.File, cause.SrcLine)
	}
	sum := fmt.Sprintf("UCX %s%s%s: %s", strings.ToLower(string(cause.Level)), where, loc, msg)
	if c := errorClass(cause.Msg); c != "" {
		sum += " — " + c
	}
	// The device the paste told UCX to use is where to look.
	var subj finding.Subject
	subj.Host = cause.Host
	if lg.NetDevices != "" {
		sum += "; UCX_NET_DEVICES=" + lg.NetDevices
		if dev, port, ok := strings.Cut(lg.NetDevices, ":"); ok && !strings.Contains(lg.NetDevices, ",") {
			if n, err := strconv.Atoi(port); err == nil {
				subj.Device, subj.Port = dev, n
			}
		} else if !strings.Contains(lg.NetDevices, ",") {
			subj.NetDev = lg.NetDevices
		}
	}
	var procs []string
	for _, r := range errs {
		if p := r.Proc(); p != "" && !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
	}
	if len(errs) > 1 {
		n := max(1, len(procs))
		proc := "process"
		if n > 1 {
			proc = "processes"
		}
		sum += fmt.Sprintf("; %d error lines from %d %s", len(errs), n, proc)
	}
	evs := []finding.Evidence{{Source: at(lg.Source, cause.Line), Value: strings.TrimSpace(cause.Text)}}
	seen := map[string]bool{cause.Msg: true}
	for _, r := range errs {
		if len(evs) >= maxEvidence {
			break
		}
		if !seen[r.Msg] {
			seen[r.Msg] = true
			evs = append(evs, finding.Evidence{Source: at(lg.Source, r.Line), Value: strings.TrimSpace(r.Text)})
		}
	}
	return catalog.New("ucx.error", subj, sum, evs...), true
}

// forStatus drops lines written for another status ("status 4: …").
func forStatus(lines []string, st nccllog.WCStatus) []string {
	var out []string
	for _, l := range lines {
		var n int
		if _, err := fmt.Sscanf(l, "status %d:", &n); err == nil && nccllog.WCStatus(n) != st {
			continue
		}
		out = append(out, l)
	}
	return out
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}
