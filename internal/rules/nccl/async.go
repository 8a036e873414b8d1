package nccl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/verbs"
)

// asyncSeverity classes an ibv async event as every program's async
// events are (verbs.ClassifyAsync, libibverbs' ibv_event_type_str texts)
// and says what it means for NCCL.
func asyncSeverity(ev string) (finding.Severity, string) {
	sev, class := verbs.ClassifyAsync(ev)
	switch class {
	case verbs.AsyncPortDown:
		return sev, "the port left ACTIVE under the job: its link went down"
	case verbs.AsyncDeviceFatal:
		return sev, "the HCA failed (device fatal): every connection over it is gone"
	case verbs.AsyncQueueError:
		return sev, "a queue of NCCL's connections went to the error state"
	case verbs.AsyncOtherError:
		return sev, "an error NCCL does not act on by itself"
	case verbs.AsyncFabric:
		return sev, "the fabric reconfiguring (a subnet manager sweep or a port coming back)"
	}
	return sev, "an event NCCL's async thread does not name"
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
		f.Causes = verbs.ForAsync(f.Causes, text)
		f.Remedy = verbs.ForAsync(f.Remedy, text)
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
