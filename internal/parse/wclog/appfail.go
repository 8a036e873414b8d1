package wclog

import (
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
}

// AppFailLine reads an SPDK NVMe-oF host error line (SPDK's log
// format: "nvme_ctrlr.c: 788:nvme_ctrlr_fail: *ERROR*: ctrlr
// 192.168.0.1 in failed state.", an optional "[time]" before) or
// Mooncake's transfer timeout (glog: "E1120 11:10:27.133715 203020
// transfer_task.cpp:305] Failed to complete transfers after 60 seconds
// for batch 2586731328"). Line is left 0.
func AppFailLine(l string) (AppFail, bool) {
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
