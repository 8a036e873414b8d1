package nccl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// asyncSeverity classes an ibv async event by libibverbs'
// ibv_event_type_str text (libibverbs/enum_strs.c): the port leaving
// ACTIVE, a device fatal error and CQ/QP/WQ errors break the job's
// connections; path migration and SRQ errors may; the rest is the fabric
// reconfiguring (a subnet manager sweep, a port coming back).
func asyncSeverity(ev string) (finding.Severity, string) {
	switch strings.ToLower(ev) {
	case "port error":
		return finding.Critical, "the port left ACTIVE under the job: its link went down"
	case "local catastrophic error":
		return finding.Critical, "the HCA failed (device fatal): every connection over it is gone"
	case "cq error", "local work queue catastrophic error", "invalid request local work queue error",
		"local access violation work queue error", "wq fatal":
		return finding.Critical, "a queue of NCCL's connections went to the error state"
	case "path migration request error", "srq catastrophic error":
		return finding.Warning, "an error NCCL does not act on by itself"
	case "port active", "lid change", "p_key change", "pkey change", "sm change", "client reregistration",
		"gid table change", "communication established", "send queue drained", "path migrated",
		"srq limit reached", "last wqe reached", "device speed change":
		return finding.Info, "the fabric reconfiguring (a subnet manager sweep or a port coming back)"
	}
	return finding.Warning, "an event NCCL's async thread does not name"
}

// asyncFindings reports NCCL's ibv async events, one finding per event
// text, naming the hosts, devices and processes that printed it. A failed
// ibv_get_async_event after them is the async thread ending with the
// device, told in the same finding.
func asyncFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	byText := map[string][]nccllog.Event{}
	var order []string
	for _, e := range lg.Events {
		if e.Kind != nccllog.EventAsync {
			continue
		}
		if _, ok := byText[e.Async]; !ok {
			order = append(order, e.Async)
		}
		byText[e.Async] = append(byText[e.Async], e)
	}
	var out []finding.Finding
	for _, text := range order {
		evs := byText[text]
		sev, meaning := asyncSeverity(text)
		var hosts, devs []string
		procs := map[string][]string{}
		for _, e := range evs {
			h := e.Host
			if h == "" {
				h = "a host"
			}
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
			if e.HCA != "" {
				d := e.HCA + ":" + strconv.Itoa(e.Port)
				if !slices.Contains(devs, d) {
					devs = append(devs, d)
				}
			}
			if e.Pid != 0 {
				pid := strconv.Itoa(e.Pid)
				if !slices.Contains(procs[h], pid) {
					procs[h] = append(procs[h], pid)
				}
			}
		}
		var where []string
		for _, h := range hosts {
			w := h
			if n := len(procs[h]); n > 0 {
				w += fmt.Sprintf(" (%s: pid %s)", plural(n, "process", "processes"), strings.Join(firstN(procs[h], 8), ", "))
			}
			where = append(where, w)
		}
		summary := fmt.Sprintf("NET/IB async event %q %s on %s", text, times(weight(evs)), strings.Join(firstN(where, 4), "; "))
		if len(devs) > 0 {
			summary += ", device " + strings.Join(firstN(devs, 4), ", ")
		}
		summary += ": " + meaning
		ev := []finding.Evidence{{Source: at(evs[0].Source, evs[0].Line), Value: evs[0].Text}}
		if sev != finding.Info {
			for _, e := range lg.Events {
				if e.Kind == nccllog.EventResource && e.Call == "ibv_get_async_event" {
					summary += "; the async thread then stopped (ibv_get_async_event failed): the device is gone"
					ev = append(ev, finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
					break
				}
			}
		}
		f := catalog.New("nccl.ib_async_event", subj, summary, ev...)
		f.Severity = sev
		f.Causes = forAsync(f.Causes, text)
		f.Remedy = forAsync(f.Remedy, text)
		if len(hosts) == 1 && hosts[0] != "a host" {
			f.Subject.Host = hosts[0]
		}
		if len(devs) == 1 {
			d, p, _ := strings.Cut(devs[0], ":")
			f.Subject.Device = d
			f.Subject.Port, _ = strconv.Atoi(p)
		}
		out = append(out, f)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// asyncKeys start the catalogue's lines written for one class of event.
var asyncKeys = []string{"port error: ", "local catastrophic error: ", "work-queue errors: "}

// forAsync drops the lines written for another class of event than ev.
func forAsync(lines []string, ev string) []string {
	key := "" // the fabric reconfiguring: none of them
	switch e := strings.ToLower(ev); {
	case e == "port error":
		key = "port error: "
	case e == "local catastrophic error":
		key = "local catastrophic error: "
	case e == "cq error", strings.Contains(e, "work queue"), e == "wq fatal":
		key = "work-queue errors: "
	}
	var out []string
	for _, l := range lines {
		if slices.ContainsFunc(asyncKeys, func(k string) bool { return strings.HasPrefix(l, k) }) && (key == "" || !strings.HasPrefix(l, key)) {
			continue
		}
		out = append(out, l)
	}
	return out
}
