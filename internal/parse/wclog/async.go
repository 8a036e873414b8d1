package wclog

import (
	"regexp"
	"strings"
)

// Async is an ibv async event an application's log line names: libibverbs'
// ibv_event_type_str text (rdma-core libibverbs/enum_strs.c), printed by
// the program's async-event thread after ibv_get_async_event(3), as
// Mooncake's transfer engine does ("Worker: Received context async event
// local work queue catastrophic error for context erdma_0",
// src/transfer_engine/worker_pool.cpp).
type Async struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	// Event is the ibv_event_type_str text as printed ("port error"),
	// Name its enum ibv_event_type constant (IBV_EVENT_PORT_ERR).
	Event, Name string
	// Device is the RDMA device the line names, "" when none.
	Device string
}

// asyncEvent is one text of ibv_event_type_str.
type asyncEvent struct{ text, name string }

// asyncEvents are the texts of rdma-core libibverbs/enum_strs.c
// ibv_event_type_str, as printed, with their enum ibv_event_type names
// (libibverbs/verbs.h), the longest first so that no text is found inside
// a longer one.
var asyncEvents = []asyncEvent{
	{"local access violation work queue error", "IBV_EVENT_QP_ACCESS_ERR"},
	{"invalid request local work queue error", "IBV_EVENT_QP_REQ_ERR"},
	{"local work queue catastrophic error", "IBV_EVENT_QP_FATAL"},
	{"path migration request error", "IBV_EVENT_PATH_MIG_ERR"},
	{"communication established", "IBV_EVENT_COMM_EST"},
	{"local catastrophic error", "IBV_EVENT_DEVICE_FATAL"},
	{"SRQ catastrophic error", "IBV_EVENT_SRQ_ERR"},
	{"client reregistration", "IBV_EVENT_CLIENT_REREGISTER"},
	{"send queue drained", "IBV_EVENT_SQ_DRAINED"},
	{"SRQ limit reached", "IBV_EVENT_SRQ_LIMIT_REACHED"},
	{"GID table change", "IBV_EVENT_GID_CHANGE"},
	{"last WQE reached", "IBV_EVENT_QP_LAST_WQE_REACHED"},
	{"path migrated", "IBV_EVENT_PATH_MIG"},
	{"P_Key change", "IBV_EVENT_PKEY_CHANGE"},
	{"port active", "IBV_EVENT_PORT_ACTIVE"},
	{"port error", "IBV_EVENT_PORT_ERR"},
	{"LID change", "IBV_EVENT_LID_CHANGE"},
	{"SM change", "IBV_EVENT_SM_CHANGE"},
	{"CQ error", "IBV_EVENT_CQ_ERR"},
	{"WQ fatal", "IBV_EVENT_WQ_FATAL"},
}

// AsyncName is the enum ibv_event_type name of an ibv_event_type_str
// text (any case), "" when it is none.
func AsyncName(text string) string {
	for _, e := range asyncEvents {
		if strings.EqualFold(e.text, text) {
			return e.name
		}
	}
	return ""
}

// asyncHint says cheaply whether a line may name an async event: it says
// "async" (or "Async", "ASYNC") and "event".
func asyncHint(l string) bool {
	return (strings.Contains(l, "sync") || strings.Contains(l, "SYNC")) && (strings.Contains(l, "event") || strings.Contains(l, "Event") || strings.Contains(l, "EVENT"))
}

// reAsyncDevice finds a device named as the event's context or device
// when its name is none the driver patterns know ("for context foo0").
var reAsyncDevice = regexp.MustCompile(`\b(?:context|device|dev|hca|HCA)[:= ]+([A-Za-z][\w-]*\d)\b`)

// asyncLine reads an application line that names an ibv async event: the
// line says "async" and "event", and after them an ibv_event_type_str
// text as libibverbs spells it, standing as words of its own (not inside
// a longer word). NCCL's lines are read by NCCL's parser and kernel lines
// by the kernel's: the dispatcher tests those first.
func asyncLine(l string) (Async, bool) {
	if !asyncHint(l) {
		return Async{}, false
	}
	at := strings.Index(l, "sync")
	if j := strings.Index(l, "SYNC"); at < 0 || j >= 0 && j < at {
		at = j
	}
	for _, e := range asyncEvents {
		i := strings.Index(l[at:], e.text)
		if i < 0 {
			continue
		}
		i += at
		end := i + len(e.text)
		if i > 0 && isWordByte(l[i-1]) || end < len(l) && (isWordByte(l[end]) || l[end] == '_') {
			continue
		}
		if !strings.Contains(strings.ToLower(l[:i]), "event") {
			continue // "async" then the text, with no event between: not an event's report
		}
		a := Async{Text: l, Event: e.text, Name: e.name}
		if d := reNIC.FindString(l); d != "" {
			a.Device = d
		} else if m := reAsyncDevice.FindStringSubmatch(l[end:]); m != nil {
			a.Device = m[1]
		}
		return a, true
	}
	return Async{}, false
}
