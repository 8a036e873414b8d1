package fabric

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckMADErrors judges the messages of infiniband-diags tools that could
// not reach the subnet manager (ibdiags.MADNoSA): the port they ran on
// knows no SM LID, so no subnet manager has configured it (none runs on
// the subnet, or the port is not Active yet), or it is an Ethernet (RoCE)
// port, which has none. That is fabric.sm_missing, as a warning: the
// paste does not say which. An agent registration failure alone
// (ibdiags.MADNoAgent) judges nothing (the tool lacked access, or the
// port has no SMI): note says why. SMPs that timed out during a
// discovery (ibdiags.MADTimeout) are fabric.smp_timeout, a warning: the
// nodes at the end of those paths did not answer. src names the file.
func CheckMADErrors(errs []ibdiags.MADError, src string) (fs []finding.Finding, note string) {
	var noSA, noAgent, timeouts []ibdiags.MADError
	for _, e := range errs {
		switch e.Kind {
		case ibdiags.MADNoSA:
			noSA = append(noSA, e)
		case ibdiags.MADTimeout:
			timeouts = append(timeouts, e)
		default:
			noAgent = append(noAgent, e)
		}
	}
	if len(timeouts) > 0 {
		fs = append(fs, smpTimeouts(timeouts, src))
		if len(noSA) == 0 {
			return fs, ""
		}
	}
	agent := ""
	if len(noAgent) > 0 {
		agent = fmt.Sprintf("could not register its MAD agent for management class %d on %s (mad_rpc_open_port: client_register failed): an Ethernet (RoCE) port has no SMI (class 1) agent, and without read-write access to /dev/infiniband/umad* (run as root) no class registers", noAgent[0].Class, madPorts(noAgent))
	}
	if len(noSA) == 0 {
		return nil, fmt.Sprintf("%s %s; nothing about the port or the fabric can be judged from that", madTools(noAgent), agent)
	}
	sum := fmt.Sprintf("%s found no SM/SA on %s: such a port knows no subnet manager LID, so no subnet manager has configured it (none runs on the subnet, or the port is not Active) — or it is an Ethernet (RoCE) port, which has none", madTools(noSA), madPorts(noSA))
	if agent != "" {
		sum += fmt.Sprintf("; %s %s", madTools(noAgent), agent)
	}
	sum += ". Check the port's link layer and state (ibstat) and, on InfiniBand, that a subnet manager runs (sminfo)"
	var evs []finding.Evidence
	for _, e := range append(slices.Clone(noSA), noAgent...) {
		if len(evs) >= 4 {
			break
		}
		evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", src, e.Line), Value: e.Text})
	}
	subj := finding.Subject{File: src}
	if d := madDevices(noSA); len(d) == 1 {
		subj.Device, subj.Port = d[0].Device, d[0].Port
	}
	f := catalog.New("fabric.sm_missing", subj, sum, evs...)
	f.Severity = finding.Warning
	f.Causes = append([]string{"the port is Down or Initializing: no SM has brought it up", "the port's link layer is Ethernet (RoCE): there is no SM, and the infiniband-diags tools do not apply"}, f.Causes...)
	f.Remedy = append([]string{"ibstat (the port's link layer, state and SM lid)"}, f.Remedy...)
	return append(fs, f), ""
}

// smpTimeouts is the fabric.smp_timeout finding of the SMPs that got no
// answer: each path names a node (or the link to it) that did not
// respond during the discovery, so the output lacks it and what lies
// behind it.
func smpTimeouts(ts []ibdiags.MADError, src string) finding.Finding {
	var paths []string
	for _, e := range ts {
		p := strings.TrimPrefix(e.Path, "DR path slid 0; dlid 0; ")
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	what := "directed route " + paths[0]
	if len(paths) > 1 {
		what = fmt.Sprintf("%d directed routes (%s)", len(paths), strings.Join(paths[:min(len(paths), 4)], "; "))
		if len(paths) > 4 {
			what = fmt.Sprintf("%d directed routes (%s …)", len(paths), strings.Join(paths[:4], "; "))
		}
	}
	st := fmt.Sprintf("status %d", ts[0].Status)
	if ts[0].Status == 110 {
		st = "status 110, ETIMEDOUT"
	}
	each := "the path"
	if len(paths) > 1 {
		each = "each path"
	}
	sum := fmt.Sprintf("subnet management packets sent along %s got no answer (%s): the node at the end of %s, or a link on the way, did not respond during the discovery, so it and what lies behind it are missing from the output; the rest of the fabric answered", what, st, each)
	var evs []finding.Evidence
	for _, e := range ts[:min(len(ts), 4)] {
		evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", src, e.Line), Value: e.Text})
	}
	return catalog.New("fabric.smp_timeout", finding.Subject{File: src}, sum, evs...)
}

// madDevices lists the distinct device ports of errs with a device.
func madDevices(errs []ibdiags.MADError) []ibdiags.MADError {
	var out []ibdiags.MADError
	for _, e := range errs {
		if e.Device != "" && !slices.ContainsFunc(out, func(o ibdiags.MADError) bool { return o.Device == e.Device && o.Port == e.Port }) {
			out = append(out, e)
		}
	}
	return out
}

func madPorts(errs []ibdiags.MADError) string {
	var ps []string
	for _, e := range madDevices(errs) {
		if e.Port > 0 {
			ps = append(ps, fmt.Sprintf("%s port %d", e.Device, e.Port))
		} else {
			ps = append(ps, e.Device)
		}
	}
	if len(ps) == 0 {
		if errs[0].Port > 0 {
			return fmt.Sprintf("port %d", errs[0].Port)
		}
		return "the port it ran on"
	}
	return strings.Join(ps, ", ")
}

func madTools(errs []ibdiags.MADError) string {
	var ts []string
	for _, e := range errs {
		if e.Tool != "" && !slices.Contains(ts, e.Tool) {
			ts = append(ts, e.Tool)
		}
	}
	if len(ts) == 0 {
		return "the infiniband-diags tool"
	}
	return strings.Join(ts, " and ")
}
