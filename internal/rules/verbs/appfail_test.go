package verbs

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
)

// nvmf.connection_failed and rdma.transfer_timeout on the real lines of
// spdk/spdk#2686, #1507 and kvcache-ai/Mooncake#1088; verbs.wr_flushed
// on spdk/spdk#1387's target flushes.
func TestAppFails(t *testing.T) {
	const (
		addr   = "[2022-10-31 10:03:18.973118] nvme_rdma.c:1064:nvme_rdma_addr_resolved: *ERROR*: RDMA address resolution error\n"
		cq     = "[2022-10-31 10:03:18.973150] nvme_qpair.c: 750:spdk_nvme_qpair_process_completions: *ERROR*: CQ transport error -6 (No such device or address) on qpair id 0\n"
		failed = "[2022-10-31 10:03:18.973160] nvme_ctrlr.c:1015:nvme_ctrlr_fail: *ERROR*: [nqn.2014-08.org.nvmexpress.discovery] in failed state.\n"
		cm     = "[2020-07-24 13:50:18.368039] nvme_rdma.c: 548:nvme_rdma_validate_cm_event: *ERROR*: Expected RDMA_CM_EVENT_DISCONNECTED but received RDMA_CM_EVENT_TIMEWAIT_EXIT (15) from CM event channel (status = 0)\n"
		mc     = "E1120 11:10:27.133715 203020 transfer_task.cpp:305] Failed to complete transfers after 60 seconds for batch 2586731328\n"
		flush  = "rdma.c:3868:spdk_nvmf_rdma_poller_poll: *ERROR*: Error on CQ 0x183b300, request 0x25446792, type 0, status: (5): Work Request Flushed Error\n"
		retry  = "rdma.c:3868:spdk_nvmf_rdma_poller_poll: *ERROR*: Error on CQ 0x183b300, request 0x25446793, type 0, status: (12): transport retry counter exceeded\n"
	)
	for _, tt := range []struct {
		name, text string
		id         string
		sev        finding.Severity
		sum        string
		first      string // the first evidence's line
	}{
		{"address resolution, controller failed", failed + cq + addr, "nvmf.connection_failed", finding.Critical,
			"controller nqn.2014-08.org.nvmexpress.discovery in the failed state: its I/O is aborted until it reconnects: the RDMA CM could not resolve the target's address", "t:3"},
		{"a queue pair's completions failed", cq, "nvmf.connection_failed", finding.Critical, "polling a queue pair's completions failed (error 6, No such device or address)", "t:1"},
		{"an unexpected CM event alone", cm, "nvmf.connection_failed", finding.Warning, "unexpected RDMA CM event: the RDMA CM delivered RDMA_CM_EVENT_TIMEWAIT_EXIT", "t:1"},
		{"rping's address error (linux-rdma, rxe on a tun device)", "created cm_id 0x556b45faf2a0\ncma event RDMA_CM_EVENT_ADDR_ERROR, error -19\nwaiting for addr/route resolution state 1\n",
			"rdma.cm_connect_failed", finding.Critical, "RDMA_CM_EVENT_ADDR_ERROR (error -19, ENODEV: the address resolved to a network interface that no RDMA device is bound to", "t:2"},
		{"rping's rejected connect alone", "cma event RDMA_CM_EVENT_REJECTED, error -104\nconnect error -1\n",
			"rdma.cm_connect_failed", finding.Warning, "answered and refused the connection", "t:1"},
		{"Mooncake's transfer timeout", mc, "rdma.transfer_timeout", finding.Critical, "did not complete within 60 seconds (1 batch)", "t:1"},
		{"the target's flushes alone", flush + flush, "verbs.wr_flushed", finding.Info, "2 completions of flushed work requests", "t:1"},
		{"flushes after a failure stay completion errors", retry + flush, "verbs.completion_error", finding.Critical, "transport retry counter exceeded", "t:1"},
		{"the target cannot create a queue pair (spdk/spdk#1258)", "rdma.c:1075:spdk_nvmf_rdma_qpair_initialize: *ERROR*: rdma_create_qp failed: errno 12: Cannot allocate memory\nrdma.c:3568:spdk_nvmf_rdma_poll_group_add: *ERROR*: Failed to initialize nvmf_rdma_qpair with qpair=0x2d55b40\n",
			"nvmf.target_qpair_failed", finding.Critical, "errno 12 (ENOMEM)", "t:1"},
		{"a queue pair in a bad state (spdk/spdk#640)", "rdma.c: 732:nvmf_rdma_dump_qpair_contents: *ERROR*:     dumping requests in state 11\nrdma.c: 545:spdk_nvmf_rdma_update_ibv_state: *ERROR*: QP#0: bad state updated: 192, maybe hardware issue\n",
			"nvmf.target_qpair_failed", finding.Critical, "'QP#0: bad state updated: 192, maybe hardware issue'", "t:2"},
		{"the target's queue pair dump alone", "rdma.c: 730:nvmf_rdma_dump_qpair_contents: *ERROR*: Dumping contents of queue pair (QID 0)\n",
			"nvmf.target_qpair_failed", finding.Warning, "the failure itself is not in the paste", "t:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := wclog.Parse(strings.NewReader(tt.text), "t")
			if err != nil {
				t.Fatal(err)
			}
			fs := append(Check(lg), CheckAppFails("t", lg.AppFails)...)
			if len(fs) == 0 {
				t.Fatal("no finding")
			}
			f := fs[0]
			if f.ID != tt.id || f.Severity != tt.sev || !strings.Contains(f.Summary, tt.sum) || len(f.Evidence) == 0 || f.Evidence[0].Source != tt.first {
				t.Errorf("got %s %s %q (evidence %v)", f.ID, f.Severity, f.Summary, f.Evidence)
			}
		})
	}
}

// libfabric.provider_unavailable: ofi_rxm's miss at the info level is a
// warning (ofiwg/libfabric#9820), a provider the application named is
// critical, another provider's miss at the info level is not judged.
func TestGetinfos(t *testing.T) {
	rxm := "libfabric:4082300:1708029534::core:core:fi_getinfo_():1304<info> fi_getinfo: provider ofi_rxm returned -61 (No data available)\n"
	named := "libfabric:1:2::core:core:fi_getinfo_():1453<warn> fi_getinfo: provider verbs returned -61 (No data available)\n"
	other := "libfabric:1:2::core:core:fi_getinfo_():1453<info> fi_getinfo: provider psm2 returned -61 (No data available)\n"
	// aws-ofi-nccl#889: efa's empty list, logged at warn whoever asked.
	empty := "libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list\n"
	for _, tt := range []struct {
		text string
		sev  finding.Severity // "" for none
	}{{rxm, finding.Warning}, {other + named, finding.Critical}, {other, ""}, {empty, finding.Warning}, {empty + named, finding.Critical}} {
		lg, err := wclog.Parse(strings.NewReader(tt.text), "t")
		if err != nil {
			t.Fatal(err)
		}
		fs := CheckGetinfos("t", lg.Getinfos)
		if tt.text == empty && (len(fs) != 1 || !strings.Contains(strings.Join(fs[0].Remedy, " "), "fi_info -p efa")) {
			t.Errorf("efa: remedies %v", fs)
		}
		switch {
		case tt.sev == "" && len(fs) != 0, tt.sev != "" && (len(fs) != 1 || fs[0].ID != "libfabric.provider_unavailable" || fs[0].Severity != tt.sev):
			t.Errorf("%q: got %v", tt.text, fs)
		}
	}
}

// A debug trace of a connect SPDK's target accepted (spdk/spdk#147) is
// read and judged: no finding.
func TestAppFailsTargetConnected(t *testing.T) {
	lg, err := wclog.Parse(strings.NewReader("[rdma] rdma.c: 616:nvmf_rdma_connect: Final Negotiated Queue Depth: 32 R/W Depth: 16\n[rdma] rdma.c: 320:spdk_nvmf_rdma_conn_create: New RDMA Connection: 0x1b594f0\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.AppFails) != 2 {
		t.Fatalf("read %d lines, want 2", len(lg.AppFails))
	}
	if fs := append(Check(lg), CheckAppFails("t", lg.AppFails)...); len(fs) != 0 {
		t.Errorf("findings %v, want none", fs)
	}
}
