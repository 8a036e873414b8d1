package wclog

import (
	"strings"
	"testing"
)

// The real lines of spdk/spdk#1507 and #2686 (SPDK's NVMe-oF RDMA
// host, lib/nvme) and kvcache-ai/Mooncake#1088 (mooncake-store's
// transfer_task.cpp).
var appFailLines = []struct {
	line   string
	kind   AppFailKind
	ctrlr  string
	errno  int
	err    string
	event  string
	second int
}{
	{"[2020-07-24 13:50:18.369057] nvme_ctrlr.c: 788:nvme_ctrlr_fail: *ERROR*: ctrlr 192.168.0.1 in failed state.", AppCtrlrFailed, "192.168.0.1", 0, "", "", 0},
	{"[2022-10-31 10:03:18.973160] nvme_ctrlr.c:1015:nvme_ctrlr_fail: *ERROR*: [nqn.2014-08.org.nvmexpress.discovery] in failed state.", AppCtrlrFailed, "nqn.2014-08.org.nvmexpress.discovery", 0, "", "", 0},
	{"nvme_ctrlr.c:1135:nvme_ctrlr_fail: *ERROR*: [nqn.2016-06.io.spdk:cnode1, 1] in failed state.", AppCtrlrFailed, "nqn.2016-06.io.spdk:cnode1", 0, "", "", 0},
	{"[2022-10-31 10:03:18.973118] nvme_rdma.c:1064:nvme_rdma_addr_resolved: *ERROR*: RDMA address resolution error", AppAddrResolve, "", 0, "", "", 0},
	{"nvme_rdma.c:1165:nvme_rdma_route_resolved: *ERROR*: [null ctrlr,qid:0,qpair:0x1] RDMA route resolution error", AppAddrResolve, "", 0, "", "", 0},
	{"[2022-10-31 10:03:18.973137] nvme_rdma.c:2603:nvme_rdma_qpair_process_completions: *ERROR*: Failed to connect rqpair=0x200017c008c0", AppConnect, "", 0, "", "", 0},
	{"[2022-10-31 10:03:18.973150] nvme_qpair.c: 750:spdk_nvme_qpair_process_completions: *ERROR*: CQ transport error -6 (No such device or address) on qpair id 0", AppCQTransport, "", 6, "No such device or address", "", 0},
	{"[2020-07-24 13:50:18.369014] nvme_qpair.c: 712:spdk_nvme_qpair_process_completions: *ERROR*: CQ error, abort requests after transport retry counter exceeded", AppCQTransport, "", 0, "", "", 0},
	{"[2020-07-24 13:50:18.368039] nvme_rdma.c: 548:nvme_rdma_validate_cm_event: *ERROR*: Expected RDMA_CM_EVENT_DISCONNECTED but received RDMA_CM_EVENT_TIMEWAIT_EXIT (15) from CM event channel (status = 0)", AppCMEvent, "", 0, "", "RDMA_CM_EVENT_TIMEWAIT_EXIT", 0},
	{"E1120 11:10:27.133715 203020 transfer_task.cpp:305] Failed to complete transfers after 60 seconds for batch 2586731328  ", AppTransferTimeout, "", 0, "", "", 60},
	{"E0414 08:07:01.000000 1 client.cpp:1] Failed to complete transfers after 60 seconds", AppTransferTimeout, "", 0, "", "", 60},
	// SPDK's NVMe-oF RDMA target (lib/nvmf/rdma.c): spdk/spdk#1258,
	// #640 and #147, with and without the "spdk_" prefix of newer
	// function names.
	{"rdma.c:1075:spdk_nvmf_rdma_qpair_initialize: *ERROR*: rdma_create_qp failed: errno 12: Cannot allocate memory", AppTgtQPair, "", 12, "Cannot allocate memory", "", 0},
	{"rdma.c:3568:spdk_nvmf_rdma_poll_group_add: *ERROR*: Failed to initialize nvmf_rdma_qpair with qpair=0x2d55b40", AppTgtQPair, "", 0, "", "", 0},
	{"rdma.c: 874:spdk_nvmf_rdma_qpair_initialize: *ERROR*: RDMA CQ resize failed: errno 11: Resource temporarily unavailable", AppTgtQPair, "", 11, "Resource temporarily unavailable", "", 0},
	{"[2024-01-02 10:00:00.000000] rdma.c:1000:nvmf_rdma_qpair_initialize: *ERROR*: rdma_create_qp failed: errno 12: Cannot allocate memory", AppTgtQPair, "", 12, "Cannot allocate memory", "", 0},
	{"rdma.c: 545:spdk_nvmf_rdma_update_ibv_state: *ERROR*: QP#0: bad state updated: 192, maybe hardware issue", AppTgtQPState, "", 0, "", "", 0},
	{"rdma.c: 627:spdk_nvmf_rdma_set_ibv_state: *ERROR*: QP#0: expected state: IBV_QPS_ERR, actual state: IBV_QPS_UNKNOWN", AppTgtQPState, "", 0, "", "", 0},
	{"rdma.c: 730:nvmf_rdma_dump_qpair_contents: *ERROR*: Dumping contents of queue pair (QID 0)", AppTgtDump, "", 0, "", "", 0},
	{"rdma.c: 732:nvmf_rdma_dump_qpair_contents: *ERROR*:     dumping requests in state 11", AppTgtDump, "", 0, "", "", 0},
	{"[rdma] rdma.c: 320:spdk_nvmf_rdma_conn_create: New RDMA Connection: 0x1b594f0", AppTgtConnected, "", 0, "", "", 0},
	{"[rdma] rdma.c: 616:nvmf_rdma_connect: Final Negotiated Queue Depth: 32 R/W Depth: 16", AppTgtConnected, "", 0, "", "", 0},
}

// rping's error events (rdma-core librdmacm/examples/rping.c
// cma_event_handler): linux-rdma 2025-01-19 (rxe on a tun device) and
// 2019-05-06 (iWARP interop, a rejected connect).
func TestAppFailLineCMError(t *testing.T) {
	for _, tt := range []struct {
		line          string
		event         string
		status, errno int
	}{
		{"cma event RDMA_CM_EVENT_ADDR_ERROR, error -19", "RDMA_CM_EVENT_ADDR_ERROR", -19, 19},
		{"cma event RDMA_CM_EVENT_REJECTED, error -104", "RDMA_CM_EVENT_REJECTED", -104, 104},
		{"cma event RDMA_CM_EVENT_REJECTED, error 28", "RDMA_CM_EVENT_REJECTED", 28, 0},
		{"  cma event RDMA_CM_EVENT_ROUTE_ERROR, error -110", "RDMA_CM_EVENT_ROUTE_ERROR", -110, 110},
	} {
		f, ok := AppFailLine(tt.line)
		if !ok || f.Kind != AppCMError || f.Event != tt.event || f.Status != tt.status || f.Errno != tt.errno || f.Program != "rping" {
			t.Errorf("AppFailLine(%q) = %+v, %v", tt.line, f, ok)
		}
		if !DetectLine(tt.line) {
			t.Errorf("DetectLine(%q) = false", tt.line)
		}
	}
	for _, l := range []string{
		"cma_event type RDMA_CM_EVENT_ADDR_ERROR cma_id 0x556b45faf2a0 (parent)",
		"cma event RDMA_CM_EVENT_ESTABLISHED, error 0",
		"cma event RDMA_CM_EVENT_ADDR_ERROR, error x",
	} {
		if f, ok := AppFailLine(l); ok {
			t.Errorf("AppFailLine(%q) = %+v, want none", l, f)
		}
	}
}

func TestAppFailLine(t *testing.T) {
	for _, tt := range appFailLines {
		f, ok := AppFailLine(tt.line)
		if !ok || f.Kind != tt.kind || f.Ctrlr != tt.ctrlr || f.Errno != tt.errno || f.Err != tt.err || f.Event != tt.event || f.Seconds != tt.second {
			t.Errorf("AppFailLine(%q) = %+v, %v", tt.line, f, ok)
		}
		if !DetectLine(tt.line) {
			t.Errorf("DetectLine(%q) = false", tt.line)
		}
	}
	for _, l := range []string{
		"nvme_ctrlr.c:1123:nvme_ctrlr_fail: *NOTICE*: [nqn.x, 1] already in failed state",
		"nvme_ctrlr.c:1123:nvme_ctrlr_fail: *ERROR*: [nqn.x, 1] already in failed state",
		"rdma.c:3868:spdk_nvmf_rdma_poller_poll: *ERROR*: Error on CQ 0x183b300, request 0x25446792, type 0, status: (5): Work Request Flushed Error",
		"nvme.c: 815:nvme_probe_internal: *ERROR*: NVMe ctrlr scan failed",
		"Failed to complete transfers after many seconds",
		"The transfer engine failed to complete transfers after a restart",
		"rdma.c: 763:spdk_nvmf_rdma_qpair_destroy: *WARNING*: Destroying qpair when queue depth is 128",
		"[rdma] rdma.c: 583:nvmf_rdma_connect: Calculating Queue Depth",
		"rdma.c:1144:spdk_nvmf_rdma_create: *ERROR*: rdma_create_event_channel() failed, No such device",
	} {
		if f, ok := AppFailLine(l); ok {
			t.Errorf("AppFailLine(%q) = %+v, want none", l, f)
		}
	}
}

// The SPDK host's lines of spdk/spdk#2686 in a row: read in order, with
// their line numbers, beside the lines of no kind.
func TestParseAppFails(t *testing.T) {
	text := "[2022-10-31 10:03:17.974663] nvme.c: 815:nvme_probe_internal: *ERROR*: NVMe ctrlr scan failed\n" +
		appFailLines[3].line + "\n" + appFailLines[5].line + "\n" + appFailLines[6].line + "\n" + appFailLines[1].line + "\n"
	lg, err := Parse(strings.NewReader(text), "t")
	if err != nil {
		t.Fatal(err)
	}
	var got []AppFailKind
	for i, f := range lg.AppFails {
		if f.Line != i+2 {
			t.Errorf("line %d, want %d", f.Line, i+2)
		}
		got = append(got, f.Kind)
	}
	if want := []AppFailKind{AppAddrResolve, AppConnect, AppCQTransport, AppCtrlrFailed}; strings.Join(kinds(got), ",") != strings.Join(kinds(want), ",") || len(lg.Errors) != 0 {
		t.Errorf("kinds %v (errors %d)", got, len(lg.Errors))
	}
}

func kinds(ks []AppFailKind) []string {
	var out []string
	for _, k := range ks {
		out = append(out, string(k))
	}
	return out
}

// FuzzAppFailLine: any line is read or refused, never a panic; a line
// read has a kind and its program.
func FuzzAppFailLine(f *testing.F) {
	for _, tt := range appFailLines {
		f.Add(tt.line)
	}
	f.Add("x *ERROR*: nvme CQ transport error ")
	f.Add("nvme *ERROR*: [ in failed state")
	f.Add("nvme *ERROR*: CQ transport error -9223372036854775808 (x")
	f.Add("nvme *ERROR*: Expected RDMA_CM_EVENT_ but received ")
	f.Add("Failed to complete transfers after 9999999999999999999999 seconds")
	f.Add("cma event RDMA_CM_EVENT_ADDR_ERROR, error -19")
	f.Add("cma event RDMA_CM_EVENT_REJECTED, error -9223372036854775808")
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := AppFailLine(s)
		if ok && (a.Kind == "" || a.Program == "" || a.Errno < 0) {
			t.Fatalf("AppFailLine(%q) = %+v", s, a)
		}
	})
}

// libfabric's getinfo failures of ofiwg/libfabric#9820, and the lines
// around them that are none.
func TestGetinfoLine(t *testing.T) {
	g, ok := GetinfoLine("libfabric:4082300:1708029534::core:core:fi_getinfo_():1304<info> fi_getinfo: provider ofi_rxm returned -61 (No data available)")
	if !ok || g.Provider != "ofi_rxm" || g.Errno != 61 || g.Err != "No data available" || g.Warn {
		t.Errorf("got %+v, %v", g, ok)
	}
	g, ok = GetinfoLine("libfabric:1:2::core:core:fi_getinfo_():1453<warn> fi_getinfo: provider verbs returned -61 (No data available)")
	if !ok || g.Provider != "verbs" || !g.Warn {
		t.Errorf("warn: got %+v, %v", g, ok)
	}
	// src/fabric.c: a provider whose getinfo succeeded with no entry
	// (aws-ofi-nccl#889, efa in a container without EFA devices).
	g, ok = GetinfoLine("libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list")
	if !ok || g.Provider != "efa" || !g.Empty || !g.Warn || g.Errno != 0 {
		t.Errorf("empty list: got %+v, %v", g, ok)
	}
	// The same line exported from CloudWatch, its stamp glued before it.
	g, ok = GetinfoLine("  | 2025-05-16T16:39:51.208-07:00libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list | libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list")
	if !ok || g.Provider != "efa" || !g.Empty || !strings.HasPrefix(g.Text, "libfabric:85:") {
		t.Errorf("CloudWatch: got %+v, %v", g, ok)
	}
	for _, l := range []string{
		"libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider  output empty list",
		"libfabric:4082300:1708029534:ofi_rxm:core:core:ofi_layering_ok():1194<info> Need core provider, skipping ofi_rxm",
		"libfabric:4082300:1708029534::ofi_rxm:core:fi_param_get_():373<info> variable use_srx=<not set>",
		"libfabric:1:2::core:core:fi_getinfo_():1453<warn> fi_getinfo: provider verbs returned --61 (x)",
		"fi_getinfo: provider verbs returned -61 (No data available)",
	} {
		if g, ok := GetinfoLine(l); ok {
			t.Errorf("GetinfoLine(%q) = %+v", l, g)
		}
	}
}

func FuzzGetinfoLine(f *testing.F) {
	f.Add("libfabric:4082300:1708029534::core:core:fi_getinfo_():1304<info> fi_getinfo: provider ofi_rxm returned -61 (No data available)")
	f.Add("libfabric:> fi_getinfo: provider x returned -")
	f.Add("libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list")
	f.Fuzz(func(t *testing.T, s string) {
		if g, ok := GetinfoLine(s); ok && (g.Provider == "" || g.Errno < 0) {
			t.Fatalf("GetinfoLine(%q) = %+v", s, g)
		}
	})
}
