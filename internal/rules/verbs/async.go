package verbs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// AsyncClass is what an ibv async event tells of the connections over
// its device.
type AsyncClass int

// The classes of async events.
const (
	// AsyncUnknown: no ibv_event_type_str text.
	AsyncUnknown AsyncClass = iota
	// AsyncPortDown: "port error", the port left ACTIVE.
	AsyncPortDown
	// AsyncDeviceFatal: "local catastrophic error", the HCA failed.
	AsyncDeviceFatal
	// AsyncQueueError: a CQ, QP or WQ went to the error state.
	AsyncQueueError
	// AsyncOtherError: a failed path migration or an SRQ error.
	AsyncOtherError
	// AsyncFabric: the fabric reconfiguring or a queue's normal life.
	AsyncFabric
)

// ClassifyAsync classes an ibv async event by libibverbs'
// ibv_event_type_str text (rdma-core libibverbs/enum_strs.c, any case):
// the port leaving ACTIVE, a device fatal error and CQ/QP/WQ errors break
// the connections over the device (critical); path migration and SRQ
// errors may (warning); the rest is the fabric reconfiguring (a subnet
// manager sweep, a port coming back) or a queue's normal life (info). A
// text that is none of them is a warning.
func ClassifyAsync(ev string) (finding.Severity, AsyncClass) {
	switch strings.ToLower(ev) {
	case "port error":
		return finding.Critical, AsyncPortDown
	case "local catastrophic error":
		return finding.Critical, AsyncDeviceFatal
	case "cq error", "local work queue catastrophic error", "invalid request local work queue error",
		"local access violation work queue error", "wq fatal":
		return finding.Critical, AsyncQueueError
	case "path migration request error", "srq catastrophic error":
		return finding.Warning, AsyncOtherError
	case "port active", "lid change", "p_key change", "pkey change", "sm change", "client reregistration",
		"gid table change", "communication established", "send queue drained", "path migrated",
		"srq limit reached", "last wqe reached", "device speed change":
		return finding.Info, AsyncFabric
	}
	return finding.Warning, AsyncUnknown
}

// asyncKeys start the catalogue's lines written for one class of event.
var asyncKeys = map[AsyncClass]string{
	AsyncPortDown: "port error: ", AsyncDeviceFatal: "local catastrophic error: ", AsyncQueueError: "work-queue errors: ",
	AsyncOtherError: "other events: ", AsyncFabric: "other events: ", AsyncUnknown: "other events: ",
}

// ForAsync keeps, of a catalog list, the lines for every event and those
// written for the class of ev ("port error: …"), dropping the lines of
// the other classes.
func ForAsync(lines []string, ev string) []string {
	_, class := ClassifyAsync(ev)
	key := asyncKeys[class]
	var out []string
	for _, l := range lines {
		other := false
		for _, k := range asyncKeys {
			if strings.HasPrefix(l, k) && k != key {
				other = true
			}
		}
		if !other {
			out = append(out, l)
		}
	}
	return out
}

// asyncMeaning says what a class of event means for an application.
func asyncMeaning(c AsyncClass) string {
	switch c {
	case AsyncPortDown:
		return "the port left ACTIVE under the application: its link went down"
	case AsyncDeviceFatal:
		return "the HCA failed (device fatal): every connection over it is gone"
	case AsyncQueueError:
		return "a queue of the application's connections went to the error state: its transfers fail"
	case AsyncOtherError:
		return "an error the application must act on by itself"
	case AsyncFabric:
		return "the fabric reconfiguring (a subnet manager sweep or a port coming back) or a queue's normal life"
	}
	return "an event libibverbs does not name"
}

// asyncFindings reports the ibv async events of an application's log:
// one verbs.async_event per event text, with the devices the lines name,
// severity by ClassifyAsync.
func asyncFindings(source string, evs []wclog.Async) []finding.Finding {
	byText := map[string][]wclog.Async{}
	var order []string
	for _, a := range evs {
		if _, ok := byText[a.Event]; !ok {
			order = append(order, a.Event)
		}
		byText[a.Event] = append(byText[a.Event], a)
	}
	var out []finding.Finding
	for _, text := range order {
		as := byText[text]
		sev, class := ClassifyAsync(text)
		var devs []string
		for _, a := range as {
			if a.Device != "" && !slices.Contains(devs, a.Device) {
				devs = append(devs, a.Device)
			}
		}
		name := as[0].Name
		if name == "" {
			name = wclog.AsyncName(text)
		}
		sum := fmt.Sprintf("RDMA async event %q (%s) in the application's log, %s", text, name, plural(len(as), "line", "lines"))
		if len(devs) > 0 {
			sum += ", device " + strings.Join(devs, ", ")
		}
		sum += ": " + asyncMeaning(class)
		subj := finding.Subject{File: source}
		if len(devs) > 0 {
			subj.Device = devs[0]
		}
		var ev []finding.Evidence
		for _, a := range as[:min(len(as), maxEvidence)] {
			ev = append(ev, lineEvidence(source, a.Line, a.Text))
		}
		f := catalog.New("verbs.async_event", subj, sum, ev...)
		f.Severity = sev
		f.Causes = ForAsync(f.Causes, text)
		f.Remedy = ForAsync(f.Remedy, text)
		out = append(out, f)
	}
	return out
}
