package wclog

import (
	"slices"
	"strconv"
	"strings"
)

// AppFailKind says what an application's RDMA failure line reports.
type AppFailKind string

// The kinds.
const (
	// SPDK's NVMe-oF host library (lib/nvme): a controller put in the
	// failed state (nvme_ctrlr.c nvme_ctrlr_fail: "ctrlr 192.168.0.1 in
	// failed state.", newer "[nqn…] in failed state.").
	AppCtrlrFailed AppFailKind = "ctrlr_failed"
	// nvme_rdma.c: rdma_resolve_addr or rdma_resolve_route reported an
	// error event ("RDMA address resolution error", "RDMA route
	// resolution error").
	AppAddrResolve AppFailKind = "addr_resolution"
	// nvme_qpair.c: polling a queue pair's completions failed ("CQ
	// transport error -6 (No such device or address) on qpair id 0";
	// before SPDK 21.01 "CQ error, abort requests after transport retry
	// counter exceeded", printed for every such failure).
	AppCQTransport AppFailKind = "cq_transport"
	// nvme_rdma.c: a queue pair's connection did not complete ("Failed
	// to connect rqpair=0x…").
	AppConnect AppFailKind = "connect"
	// nvme_rdma.c nvme_rdma_validate_cm_event: the RDMA CM delivered
	// another event than the one awaited ("Expected
	// RDMA_CM_EVENT_DISCONNECTED but received
	// RDMA_CM_EVENT_TIMEWAIT_EXIT (15) …").
	AppCMEvent AppFailKind = "cm_event"
	// Mooncake's store (transfer_task.cpp, client.cpp): a batch of
	// transfer-engine transfers did not complete within its timeout
	// ("Failed to complete transfers after 60 seconds for batch …").
	AppTransferTimeout AppFailKind = "transfer_timeout"

	// SPDK's NVMe-oF RDMA target (lib/nvmf/rdma.c) could not create or
	// set up a queue pair for a host's connection: "rdma_create_qp
	// failed: errno 12: Cannot allocate memory",
	// "spdk_nvmf_rdma_poll_group_add: *ERROR*: Failed to initialize
	// nvmf_rdma_qpair with qpair=0x…", "RDMA CQ resize failed: errno
	// 11: Resource temporarily unavailable".
	AppTgtQPair AppFailKind = "target_qpair"
	// lib/nvmf/rdma.c: a queue pair's verbs state is not one it can be
	// in ("QP#0: bad state updated: 192, maybe hardware issue",
	// "QP#0: expected state: IBV_QPS_ERR, actual state:
	// IBV_QPS_UNKNOWN").
	AppTgtQPState AppFailKind = "target_qp_state"
	// lib/nvmf/rdma.c nvmf_rdma_dump_qpair_contents: the target dumps a
	// queue pair it tears down after an error ("Dumping contents of
	// queue pair (QID 0)", "dumping requests in state 1"): printed
	// after the failure, never its cause.
	AppTgtDump AppFailKind = "target_dump"
	// lib/nvmf/rdma.c (debug log of the "rdma" component): the target
	// accepted a host's connection ("New RDMA Connection: 0x…" of
	// spdk_nvmf_rdma_conn_create, "Final Negotiated Queue Depth: 32
	// R/W Depth: 16" of nvmf_rdma_connect). Not a failure: a connect
	// that completed.
	AppTgtConnected AppFailKind = "target_connected"

	// librdmacm's example programs (rdma-core librdmacm/examples/rping.c
	// cma_event_handler; krping and programs built from rping print the
	// same): the RDMA CM delivered an error event instead of the
	// connection: "cma event RDMA_CM_EVENT_ADDR_ERROR, error -19". Event
	// holds the event, Errno the status it carried (the negative errno
	// of the kernel's resolution, or the reject reason of
	// RDMA_CM_EVENT_REJECTED) as printed: Signed keeps its sign.
	AppCMError AppFailKind = "cm_error"
)

// AppFail is an application line reporting that an RDMA connection or
// transfer failed.
type AppFail struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	Kind AppFailKind
	// Program names what printed it: "SPDK" or "Mooncake".
	Program string
	// Ctrlr is the controller SPDK names (its address or NQN); Errno
	// and Err the error a CQ transport error names (6, "No such device
	// or address"); Event the CM event received; Seconds the timeout
	// Mooncake waited.
	Ctrlr   string
	Errno   int
	Err     string
	Event   string
	Seconds int
	// Status is the event's status as printed (AppCMError: -19, 28).
	Status int
}

// AppFailLine reads an SPDK NVMe-oF host error line (SPDK's log
// format: "nvme_ctrlr.c: 788:nvme_ctrlr_fail: *ERROR*: ctrlr
// 192.168.0.1 in failed state.", an optional "[time]" before) or
// Mooncake's transfer timeout (glog: "E1120 11:10:27.133715 203020
// transfer_task.cpp:305] Failed to complete transfers after 60 seconds
// for batch 2586731328"). Line is left 0.
func AppFailLine(l string) (AppFail, bool) {
	if f, ok := cmErrorLine(strings.TrimSpace(l)); ok {
		return f, true
	}
	if f, ok := spdkTargetLine(strings.TrimSpace(l)); ok {
		return f, true
	}
	if _, m, ok := strings.Cut(l, "*ERROR*: "); ok && strings.Contains(l, "nvme") {
		return spdkHostLine(strings.TrimSpace(l), strings.TrimSpace(m))
	}
	if _, rest, ok := strings.Cut(l, "Failed to complete transfers after "); ok {
		n, after, _ := strings.Cut(rest, " ")
		s, err := strconv.Atoi(n)
		if err != nil || !strings.HasPrefix(after, "second") {
			return AppFail{}, false
		}
		return AppFail{Text: strings.TrimSpace(l), Kind: AppTransferTimeout, Program: "Mooncake", Seconds: s}, true
	}
	return AppFail{}, false
}

// cmErrorEvents are the rdma_cm events rping's handler reports as errors
// (rping.c cma_event_handler).
var cmErrorEvents = []string{"RDMA_CM_EVENT_ADDR_ERROR", "RDMA_CM_EVENT_ROUTE_ERROR", "RDMA_CM_EVENT_CONNECT_ERROR",
	"RDMA_CM_EVENT_UNREACHABLE", "RDMA_CM_EVENT_REJECTED"}

// cmErrorLine reads rping's "cma event RDMA_CM_EVENT_ADDR_ERROR, error
// -19" (a program's prefix before "cma event" allowed).
func cmErrorLine(l string) (AppFail, bool) {
	_, rest, ok := strings.Cut(l, "cma event RDMA_CM_EVENT_")
	if !ok {
		return AppFail{}, false
	}
	ev, st, ok := strings.Cut("RDMA_CM_EVENT_"+rest, ", error ")
	if !ok || !slices.Contains(cmErrorEvents, ev) {
		return AppFail{}, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(st))
	if err != nil || n < -4096 || n > 4096 {
		return AppFail{}, false
	}
	f := AppFail{Text: l, Kind: AppCMError, Program: "rping", Event: ev, Status: n}
	if n < 0 {
		f.Errno = -n
	}
	return f, true
}

// spdkHostLine reads the message m of an SPDK *ERROR* line of lib/nvme.
func spdkHostLine(l, m string) (AppFail, bool) {
	f := AppFail{Text: l, Program: "SPDK"}
	switch {
	case strings.HasSuffix(strings.TrimSuffix(m, "."), "in failed state") && !strings.Contains(m, "already in failed state"):
		f.Kind = AppCtrlrFailed
		c := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(m, "."), "in failed state"))
		c = strings.TrimPrefix(c, "ctrlr ")
		if strings.HasPrefix(c, "[") {
			c = strings.Trim(strings.Split(c, "]")[0], "[")
			c, _, _ = strings.Cut(c, ",")
		}
		f.Ctrlr = c
	case strings.Contains(m, "RDMA address resolution error"), strings.Contains(m, "RDMA route resolution error"):
		f.Kind = AppAddrResolve
	case strings.Contains(m, "CQ error, abort requests after transport retry counter exceeded"):
		f.Kind = AppCQTransport
	case strings.Contains(m, "CQ transport error "):
		f.Kind = AppCQTransport
		_, rest, _ := strings.Cut(m, "CQ transport error ")
		n, after, _ := strings.Cut(rest, " ")
		// SPDK prints the negative errno ("-6").
		if e, err := strconv.Atoi(strings.TrimPrefix(n, "-")); err == nil && !strings.HasPrefix(n, "+") {
			f.Errno = e
		}
		if strings.HasPrefix(after, "(") {
			f.Err, _, _ = strings.Cut(after[1:], ")")
		}
	case strings.Contains(m, "Failed to connect rqpair"):
		f.Kind = AppConnect
	case strings.HasPrefix(m, "Expected RDMA_CM_EVENT_") && strings.Contains(m, " but received "):
		f.Kind = AppCMEvent
		_, ev, _ := strings.Cut(m, " but received ")
		f.Event, _, _ = strings.Cut(ev, " ")
	default:
		return AppFail{}, false
	}
	return f, true
}

// spdkTargetLine reads a line of SPDK's NVMe-oF RDMA target
// (lib/nvmf/rdma.c, SPDK's log format "rdma.c:1075:spdk_nvmf_rdma_qpair_initialize:
// *ERROR*: …", function names without the "spdk_" prefix since SPDK
// 20.07): its *ERROR* lines that a queue pair could not be created or
// set up, and its debug lines ("[rdma] rdma.c: 616:nvmf_rdma_connect:
// …") that a connection was accepted.
func spdkTargetLine(l string) (AppFail, bool) {
	i := strings.Index(l, "rdma.c:")
	if i < 0 {
		return AppFail{}, false
	}
	rest := l[i+len("rdma.c:"):]
	_, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return AppFail{}, false
	}
	fn, m, ok := strings.Cut(rest, ": ")
	fn = strings.TrimPrefix(strings.TrimSpace(fn), "spdk_")
	if !ok || !strings.HasPrefix(fn, "nvmf_rdma_") {
		return AppFail{}, false
	}
	f := AppFail{Text: l, Program: "SPDK target"}
	if e, ok := strings.CutPrefix(m, "*ERROR*:"); ok {
		e = strings.TrimSpace(e)
		switch {
		case strings.HasPrefix(e, "rdma_create_qp failed"), strings.HasPrefix(e, "Failed to initialize nvmf_rdma_qpair"),
			strings.HasPrefix(e, "RDMA CQ resize failed"), strings.HasPrefix(e, "Unable to create shared receive queue"):
			f.Kind = AppTgtQPair
		case strings.Contains(e, "bad state updated"), strings.Contains(e, "expected state:") && strings.Contains(e, "actual state:"):
			f.Kind = AppTgtQPState
		case fn == "nvmf_rdma_dump_qpair_contents":
			f.Kind = AppTgtDump
			return f, true
		default:
			return AppFail{}, false
		}
		if _, r, ok := strings.Cut(e, "errno "); ok {
			n, after, _ := strings.Cut(r, ":")
			if v, err := strconv.Atoi(strings.TrimSpace(n)); err == nil && v > 0 {
				f.Errno = v
				f.Err = strings.TrimSpace(after)
			}
		}
		return f, true
	}
	if strings.Contains(m, "*") {
		// *NOTICE*, *WARNING*: not read.
		return AppFail{}, false
	}
	m = strings.TrimSpace(m)
	if strings.HasPrefix(m, "New RDMA Connection: ") || strings.HasPrefix(m, "Final Negotiated Queue Depth: ") {
		f.Kind = AppTgtConnected
		return f, true
	}
	return AppFail{}, false
}
