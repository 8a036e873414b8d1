package verbs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
)

// verbs.completion_error on the real lines of ofiwg/libfabric#4283,
// kvcache-ai/Mooncake#955 and openucx/ucx#1569 (internal/parse/wclog/testdata):
// a failure is critical and names the NICs of the path; a flush alone is
// critical too (the work was not done; the first error is not in the
// paste); a flush after a failure, or a provider error that is no
// ibv_wc_status, is a warning; a cut libmlx5 dump is still a failure.
// hcclCQE is the watchdog's line of vllm-project/vllm-ascend#7384.
const hcclCQE = "[rank11]:[E313 06:55:06.502248200 compiler_depend.ts:1693] [Rank 1] HCCL watchdog thread terminated with exception: [PID: 335] 2026-03-13-06:55:06.896.485 Execution_Error_ROCE_CQE(EI0013): An error CQE occurred during operator execution. Local information: server xx.xx.xx.199, device ID 3, device IP 10.20.13.9. Peer information: server xx.xx.xx.195, device ID 3, device IP 10.20.13.5.\n"

func TestCheck(t *testing.T) {
	dump := "mlx5: cn10: got completion with error:\n00000000 00000000 00000000 00000000\n00000000 00000000 00000000 00000000\n00000002 00000000 00000000 00000000\n00000000 00008813 10012abe 0dd0c1d3\n"
	rxm := "libfabric:ofi_rxm:cq:rxm_cq_read_write_error():819<warn> fi_cq_readerr: err: 5, prov_err: remote access error (10)\n"
	mooncake := "E1023 04:59:20.346201 375956 worker_pool.cpp:294] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f8b6f185000, length: 4096, dest_addr: 0x7ebb87185000, local_nic: mlx5_9, peer_nic: 192.168.1.161:16360@mlx5_7, dest_rkey: 1894181, retry_cnt: 0): transport retry counter exceeded\n"
	// Juniper/warp17#81 (realworld-fresh35): DPDK 17.11's mlx5 PMD dumps
	// an error CQE with rte_hexdump after WARP17's prompt.
	dpdk := "warp17> MLX5 Error CQE: at [0x7f6a7d20c000], len=64\n" +
		"00000000: 00 73 65 65 6E 00 00 00 00 00 00 00 00 00 00 00 | .seen...........\n" +
		"00000010: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 | ................\n" +
		"00000020: 00 00 00 13 00 00 00 00 00 00 00 00 00 00 00 00 | ................\n" +
		"00000030: 00 00 00 00 9D 00 53 04 0A 00 15 42 00 19 B0 D2 | ......S....B....\n"
	for _, tt := range []struct {
		name, text string
		sev        []finding.Severity
		sum        string // a fragment of the first finding's summary
		device     string
		peer       string
		cause      string // the first cause kept
	}{
		{"dump and libfabric: one failure", dump + rxm, []finding.Severity{finding.Critical},
			"RDMA work completion failed (2 lines, by libmlx5 and libfabric ofi_rxm): remote access error (status 10, IBV_WC_REM_ACCESS_ERR)", "", "", "remote access error:"},
		{"the CQE decoded", dump, []finding.Severity{finding.Critical},
			"CQE syndrome 0x13, vendor syndrome 0x88, requester (send queue) RDMA_READ on QP 0x12abe; on cn10", "", "", "remote access error:"},
		{"DPDK's hexdump of an error CQE", dpdk, []finding.Severity{finding.Critical},
			"RDMA work completion failed (1 line, by DPDK's mlx5 poll-mode driver): local protection error (status 4, IBV_WC_LOC_PROT_ERR)", "", "", "DPDK: a packet buffer"},
		{"DPDK's CQE decoded", dpdk, []finding.Severity{finding.Critical},
			"CQE syndrome 0x4, vendor syndrome 0x53, requester (send queue) SEND on QP 0x1542", "", "", "DPDK: a packet buffer"},
		{"DPDK's dump cut", "MLX5 Error CQE: at [0x7f5b64e01080], len=64\n00000000: 00 73 65 65 6E 00 00 00 00 00 00 00 00 00 00 00 | .seen...........\n", []finding.Severity{finding.Warning},
			"status not in the paste (DPDK's hexdump", "", "", "DPDK: a packet buffer"},
		{"retry exceeded between two NICs", mooncake, []finding.Severity{finding.Critical},
			"transport retry counter exceeded (status 12, IBV_WC_RETRY_EXC_ERR): the peer never acknowledged", "mlx5_9", "mlx5_7", "transport retry counter exceeded:"},
		{"a cut dump", "mlx5: vegas06: got completion with error:\n00000000 00000000 00000000 00000000\n", []finding.Severity{finding.Critical},
			"status not in the paste", "", "", "transport retry counter exceeded:"},
		{"a flush alone: the first error is not in the paste", "E1023 04:59:20.346201 375956 worker_pool.cpp:294] Worker: Process failed for slice (local_nic: mlx5_9): Work Request Flushed Error\n", []finding.Severity{finding.Critical},
			"no completion error before the flushes is in the paste", "mlx5_9", "", "flushed work requests:"},
		{"a provider error of another provider", "libfabric:ofi_rxm:cq:rxm_cq_read_write_error():819<warn> fi_cq_readerr: err: 5, prov_err: Unresponsive receiver (12)\n", []finding.Severity{finding.Warning},
			`provider error "Unresponsive receiver"`, "", "", "transport retry counter exceeded:"},
		// aws/aws-ofi-nccl#346: the EFA provider failed a send (critical);
		// its flush text alone stays a warning.
		{"an EFA provider transfer failure", "libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid address My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:fe44:425]:0:947699476 Peer host id: i-0ce6d3d57139f053c (7)\n", []finding.Severity{finding.Critical},
			`libfabric's EFA provider failed a transfer: "Invalid address"`, "", "", "transport retry counter exceeded:"},
		{"an EFA provider flush", "libfabric:1:2::efa:cq:efa_rdm_rxe_handle_error():600<warn> err: 5, message: Flushed during queue pair destroy (1)\n", []finding.Severity{finding.Warning},
			`provider error "Flushed during queue pair destroy"`, "", "", "transport retry counter exceeded:"},
		// ruihong123/dLSM#7: the status and wc.vendor_err printed in hex,
		// the retry exhaustion first, then flushes.
		{"numeric status, then flushes", "number 0 got bad completion with status: 0xc, vendor syndrome: 0x81\nnumber 1 got bad completion with status: 0x5, vendor syndrome: 0xf9\nnumber 2 got bad completion with status: 0x5, vendor syndrome: 0xf9\n",
			[]finding.Severity{finding.Critical, finding.Warning},
			"transport retry counter exceeded (status 12, IBV_WC_RETRY_EXC_ERR): the peer never acknowledged: a lossy or broken path (bit errors, link flap, RoCE drops or routing/GID mismatch) or a dead peer process or node; vendor syndrome 0x81", "", "", "transport retry counter exceeded:"},
		// sahlberg/libiscsi#376 (realworld-fresh39's README row): the iSER
		// initiator's completion printed field by field, status 1 and
		// the vendor error in hex without 0x (lib/iser.c).
		{"libiscsi's failed completion", "libiscsi:3 wr id 5559208da690 status 1 vend_err d7\n", []finding.Severity{finding.Critical},
			"RDMA work completion failed (1 line, by the application's log): local length error (status 1, IBV_WC_LOC_LEN_ERR): a receive buffer was too small for the incoming message: mismatched peers or an application bug; vendor syndrome 0xd7", "", "", "local length error:"},
		{"the failure before the flushes", strings.Replace(mooncake, "transport retry counter exceeded", "Work Request Flushed Error", 1) + mooncake, []finding.Severity{finding.Critical, finding.Warning},
			"transport retry counter exceeded", "mlx5_9", "mlx5_7", "transport retry counter exceeded:"},
		// vllm-project/vllm-ascend#7384 (realworld-fresh31's README row):
		// HCCL's error CQE on an Ascend NPU's RoCE NIC, re-raised by
		// PyTorch's watchdog. No ibv_wc_status, yet a failure: critical,
		// with the rank, both NPUs and the retry exhaustion's causes.
		// NVIDIA forum thread 207715 (realworld-fresh37's README row):
		// Oracle Solaris 11.3's mcxnex driver logs an SRP target's error
		// completion; the host, device, QP and IB client named.
		{"Solaris mcxnex error CQE", "Mar 30 21:04:53 zfstgt-1 genunix: [ID 937861 kern.info] mcxnex0: CQE ERR: IB Client 'srpt'\n" +
			"Mar 30 21:04:53 zfstgt-1 genunix: [ID 204426 kern.warning] WARNING: mcxnex0: CQE ERR: cqe ffffa100fbff5fa0 QPN 0x40064 indx 0x1d81 status 0x13 vendor syndrome 0x88\n" +
			"Mar 30 21:04:53 zfstgt-1 genunix: [ID 158346 kern.info] mcxnex0: CQE remote access error\n", []finding.Severity{finding.Critical},
			"RDMA work completion failed (1 line, by the Solaris mcxnex driver): remote access error (status 10, IBV_WC_REM_ACCESS_ERR): the peer's memory key or access rights did not allow the operation: its registration went away (the peer process died or deregistered) or GPUDirect failed on the peer; CQE syndrome 0x13, vendor syndrome 0x88 on QP 0x40064 of IB client srpt; NIC mcxnex0 on zfstgt-1", "mcxnex0", "", "remote access error:"},
		{"HCCL error CQE in the watchdog", hcclCQE, []finding.Severity{finding.Critical},
			"HCCL (Huawei's collective library on Ascend NPUs) got an error CQE on the NPU's RoCE NIC (Execution_Error_ROCE_CQE(EI0013): An error CQE occurred during operator execution)", "NPU 3 (device IP 10.20.13.9)", "NPU 3", "transport retry counter exceeded:"},
		{"HCCL: the ranks named", hcclCQE, []finding.Severity{finding.Critical},
			"; rank 11 (rank 1 of its process group); path: local NIC NPU 3 (device IP 10.20.13.9) on xx.xx.xx.199 to peer NIC NPU 3 at 10.20.13.5 on xx.xx.xx.195", "NPU 3 (device IP 10.20.13.9)", "NPU 3", "transport retry counter exceeded:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := wclog.Parse(strings.NewReader(tt.text), "paste")
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(lg)
			if len(fs) != len(tt.sev) {
				t.Fatalf("%d findings, want %d: %v", len(fs), len(tt.sev), fs)
			}
			for i, f := range fs {
				if f.ID != "verbs.completion_error" || f.Severity != tt.sev[i] {
					t.Errorf("finding %d: %s %s, want %s", i, f.ID, f.Severity, tt.sev[i])
				}
			}
			f := fs[0]
			if !strings.Contains(f.Summary, tt.sum) {
				t.Errorf("summary %q\nwant it to hold %q", f.Summary, tt.sum)
			}
			if f.Subject.Device != tt.device {
				t.Errorf("device %q, want %q", f.Subject.Device, tt.device)
			}
			if got := ""; f.Subject.Peer != nil {
				got = f.Subject.Peer.Device
				if got != tt.peer {
					t.Errorf("peer %q, want %q", got, tt.peer)
				}
			} else if tt.peer != "" {
				t.Errorf("no peer, want %q", tt.peer)
			}
			if strings.Contains(tt.name, "HCCL") {
				if len(f.Causes) != 1 || !strings.Contains(f.Remedy[len(f.Remedy)-1], "hccn_tool -i 3 -ping -g address 10.20.13.5") {
					t.Errorf("HCCL: causes %q remedies %q, want the retry exhaustion's cause and hccn_tool on NPU 3", f.Causes, f.Remedy)
				}
			}
			if len(f.Causes) == 0 || !strings.HasPrefix(f.Causes[0], tt.cause) {
				t.Errorf("causes %q, want the first to start %q", f.Causes, tt.cause)
			}
		})
	}
}

// verbs.async_event on the lines of kvcache-ai/Mooncake#117 (the
// realworld-fresh27 sample's README row: "Received context async event
// local work queue catastrophic error for context erdma_0") and on each
// class of ibv_event_type_str text: queue, port and device errors are
// critical, path migration and SRQ errors a warning, the fabric
// reconfiguring info; the general error before the event is its own
// verbs.completion_error.
func TestAsyncEvents(t *testing.T) {
	general := "E0222 20:07:21.119704 2179433 worker_pool.cpp:291] Worker: Process failed for slice (opcode: 0, source_addr: 0x7f5cfc000000, length: 65536, dest_addr: 140123979120640, local_nic: erdma_0, peer_nic: 10.0.0.41:7712@erdma_0, dest_rkey: 39908608, retry_cnt: 0): general error\n"
	qpFatal := "W0222 20:07:21.119717 2179435 worker_pool.cpp:399] Worker: Received context async event local work queue catastrophic error for context erdma_0\n"
	for _, tt := range []struct {
		name, text string
		ids        []string
		sev        []finding.Severity
		sum        string // a fragment of the async finding's summary
		device     string
		cause      string // the start of the async finding's one cause kept for its class
	}{
		{"Mooncake#117: general error then QP fatal", general + qpFatal,
			[]string{"verbs.async_event", "verbs.completion_error"}, []finding.Severity{finding.Critical, finding.Critical},
			`RDMA async event "local work queue catastrophic error" (IBV_EVENT_QP_FATAL) in the application's log, 1 line, device erdma_0: a queue of the application's connections went to the error state`, "erdma_0", "work-queue errors:"},
		{"port error", "app: async event on mlx5_1: port error\n",
			[]string{"verbs.async_event"}, []finding.Severity{finding.Critical}, `"port error" (IBV_EVENT_PORT_ERR)`, "mlx5_1", "port error:"},
		{"device fatal", "app: async event on mlx5_1: local catastrophic error\n",
			[]string{"verbs.async_event"}, []finding.Severity{finding.Critical}, "device fatal", "mlx5_1", "local catastrophic error:"},
		{"SRQ error", "app: async event: SRQ catastrophic error\n",
			[]string{"verbs.async_event"}, []finding.Severity{finding.Warning}, "IBV_EVENT_SRQ_ERR", "", "other events:"},
		{"the fabric reconfiguring", "app: async event on mlx5_1: port active\napp: async event on mlx5_1: port active\n",
			[]string{"verbs.async_event"}, []finding.Severity{finding.Info}, "2 lines, device mlx5_1", "mlx5_1", "other events:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := wclog.Parse(strings.NewReader(tt.text), "paste")
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(lg)
			if len(fs) != len(tt.ids) {
				t.Fatalf("%d findings, want %d: %v", len(fs), len(tt.ids), fs)
			}
			var f finding.Finding
			for i, g := range fs {
				if g.ID != tt.ids[i] || g.Severity != tt.sev[i] {
					t.Errorf("finding %d: %s %s, want %s %s", i, g.ID, g.Severity, tt.ids[i], tt.sev[i])
				}
				if g.ID == "verbs.async_event" {
					f = g
				}
			}
			if !strings.Contains(f.Summary, tt.sum) {
				t.Errorf("summary %q\nwant it to hold %q", f.Summary, tt.sum)
			}
			if f.Subject.Device != tt.device {
				t.Errorf("device %q, want %q", f.Subject.Device, tt.device)
			}
			last := ""
			for _, c := range f.Causes {
				for _, k := range []string{"port error:", "local catastrophic error:", "work-queue errors:", "other events:"} {
					if strings.HasPrefix(c, k) {
						last = c
					}
				}
			}
			if tt.cause == "" && last != "" || tt.cause != "" && !strings.HasPrefix(last, tt.cause) {
				t.Errorf("causes %q, want the class's %q", f.Causes, tt.cause)
			}
		})
	}
}

// ClassifyAsync is the one classification of ibv_event_type_str texts
// (rdma-core libibverbs/enum_strs.c), NCCL's included: every text of
// libibverbs is classed, none as unknown.
func TestClassifyAsync(t *testing.T) {
	for _, tc := range []struct {
		ev    string
		sev   finding.Severity
		class AsyncClass
	}{
		{"CQ error", finding.Critical, AsyncQueueError},
		{"local work queue catastrophic error", finding.Critical, AsyncQueueError},
		{"invalid request local work queue error", finding.Critical, AsyncQueueError},
		{"local access violation work queue error", finding.Critical, AsyncQueueError},
		{"WQ fatal", finding.Critical, AsyncQueueError},
		{"port error", finding.Critical, AsyncPortDown},
		{"local catastrophic error", finding.Critical, AsyncDeviceFatal},
		{"path migration request error", finding.Warning, AsyncOtherError},
		{"SRQ catastrophic error", finding.Warning, AsyncOtherError},
		{"communication established", finding.Info, AsyncFabric},
		{"send queue drained", finding.Info, AsyncFabric},
		{"path migrated", finding.Info, AsyncFabric},
		{"port active", finding.Info, AsyncFabric},
		{"LID change", finding.Info, AsyncFabric},
		{"P_Key change", finding.Info, AsyncFabric},
		{"SM change", finding.Info, AsyncFabric},
		{"SRQ limit reached", finding.Info, AsyncFabric},
		{"last WQE reached", finding.Info, AsyncFabric},
		{"client reregistration", finding.Info, AsyncFabric},
		{"GID table change", finding.Info, AsyncFabric},
		{"event type 99", finding.Warning, AsyncUnknown},
	} {
		sev, class := ClassifyAsync(tc.ev)
		if sev != tc.sev || class != tc.class {
			t.Errorf("%q: %s class %d, want %s class %d", tc.ev, sev, class, tc.sev, tc.class)
		}
		if tc.class != AsyncUnknown && wclog.AsyncName(tc.ev) == "" {
			t.Errorf("%q: no IBV_EVENT_ name", tc.ev)
		}
	}
}

// rdma.transport_unavailable on the lines of kvcache-ai/Mooncake#1384
// (realworld-fresh31's README row) and spdk/spdk#272 (realworld-fresh27's):
// a transport that did not start is critical, with the device and GID
// index in the summary and in a pasteable ibv_devinfo; a device refused
// alone is a warning.
func TestCheckTransports(t *testing.T) {
	mooncake := "W0115 05:20:19.944772   309 rdma_context.cpp:588] User-specified GID index 0 on mlx5_8/ has no associated network device, may not be optimal for RDMA operations\n" +
		"E0115 05:20:19.945159   309 rdma_context.cpp:81] Failed to open device mlx5_8 on port  with GID 0\n" +
		"W0115 05:20:19.945183   309 rdma_transport.cpp:656] Disable device mlx5_8\n" +
		"E0115 05:20:19.945191   309 rdma_transport.cpp:662] RdmaTransport: No available RNIC\n" +
		"E0115 05:20:19.945197   309 rdma_transport.cpp:106] RdmaTransport: cannot initialize RDMA resources\n"
	spdk := "transport.c:  76:spdk_nvmf_transport_create: *ERROR*: Unable to create new transport of type RDMA\n" +
		"nvmf.c: 255:spdk_nvmf_tgt_listen: *ERROR*: Transport initialization failed\n" +
		"conf.c: 284:spdk_nvmf_parse_subsystem: *ERROR*: Failed to listen on transport RDMA address 10.0.0.12:4420\n"
	for _, tt := range []struct {
		name, text string
		sev        finding.Severity
		sum        string
		device     string
		remedy     string // a fragment of the first remedy
		evidence   int    // the line of the last evidence
	}{
		{"mooncake: no RNIC left", mooncake, finding.Critical,
			`RDMA device mlx5_8 could not be opened: GID index 0 on mlx5_8 has no network device (a RoCE GID entry without an address) ("RdmaTransport: cannot initialize RDMA resources")`,
			"mlx5_8", "ibv_devinfo -v -d mlx5_8 in the same container or pod", 5},
		{"spdk: no RDMA transport", spdk, finding.Critical,
			`no RDMA device was usable ("Failed to listen on transport RDMA address 10.0.0.12:4420")`, "", "ibv_devinfo -v in the same container", 3},
		{"ldmsd: no event channel", "Fri Dec 13 07:57:32 2019: INFO      : z_rdma_listen: rdma_create_event_channel failed. zerr 7\nFri Dec 13 07:57:32 2019: ERROR     : Error 7 listening on the 'rdma' transport.\n", finding.Critical,
			"librdmacm could not create its event channel", "", "ibv_devinfo -v in the same container", 2},
		{"brpc: no completion channel (EMFILE)", "W0630 16:15:24.209332 1166934 rdma_endpoint.cpp:1046] Fail to create comp channel for CQ: Too many open files [24]\nE0630 16:15:24.209450 1166934 rdma_helper.cpp:544] rdma_recv_block_type incorrect (valid value: default/large/huge)\n", finding.Critical,
			"brpc could not create an RDMA resource of its endpoint (completion channel, completion queue or queue pair); EMFILE (Too many open files)", "", "ibv_devinfo -v in the same container", 2},
		{"one device refused", "E0115 05:20:19.945159   309 rdma_context.cpp:81] Failed to open device mlx5_8 on port  with GID 3\n", finding.Warning,
			"could not open RDMA device mlx5_8 and left it out of its transport with GID index 3", "mlx5_8", "ibv_devinfo -v -d mlx5_8", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := wclog.Parse(strings.NewReader(tt.text), "paste")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckTransports("paste", lg.Transports)
			if len(fs) != 1 || fs[0].ID != "rdma.transport_unavailable" || fs[0].Severity != tt.sev {
				t.Fatalf("findings %v, want one rdma.transport_unavailable %s", fs, tt.sev)
			}
			f := fs[0]
			if !strings.Contains(f.Summary, tt.sum) {
				t.Errorf("summary %q\nwant it to hold %q", f.Summary, tt.sum)
			}
			if f.Subject.Device != tt.device {
				t.Errorf("device %q, want %q", f.Subject.Device, tt.device)
			}
			if !strings.Contains(f.Remedy[0], tt.remedy) {
				t.Errorf("remedy %q, want %q", f.Remedy[0], tt.remedy)
			}
			if last := f.Evidence[len(f.Evidence)-1].Source; last != fmt.Sprintf("paste:%d", tt.evidence) {
				t.Errorf("last evidence %s, want line %d", last, tt.evidence)
			}
		})
	}
	if fs := CheckTransports("paste", nil); fs != nil {
		t.Errorf("no lines: %v", fs)
	}
}

// TestCheckQPSetups: a queue pair that could not reach RTR is one
// critical verbs.qp_setup_failed whose causes and remedies are those of
// the error number seen (Mooncake issue 204's ETIMEDOUT is RoCE's address
// resolution; an EINVAL is an attribute the port rejects), all of them
// when the log gives none.
func TestCheckQPSetups(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		sum        string
		causes     []string // prefixes the causes must hold, in order
		notCause   string   // a prefix no cause may have
		device     string
	}{
		{"mooncake ETIMEDOUT",
			"E0331 12:03:04.222625 56060 rdma_endpoint.cpp:385] [Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Connection timed out [110]\n",
			"could not bring a queue pair to RTR (Ready To Receive), failing with ETIMEDOUT (110, Connection timed out): those RDMA connections never came up; ETIMEDOUT there is RoCE's address resolution",
			[]string{"ETIMEDOUT (110): ", "ETIMEDOUT (110): "}, "EINVAL", ""},
		{"EINVAL on a named device, twice",
			"ibv_modify_qp failed with 22 (to RTS) on mlx5_3\nibv_modify_qp failed with 22 (to RTS) on mlx5_3\n",
			"2 lines of the application's log say it could not bring its queue pairs to RTS (Ready To Send) on mlx5_3, failing with EINVAL (22, Invalid argument)",
			[]string{"EINVAL (22): "}, "ETIMEDOUT", "mlx5_3"},
		{"no number",
			"Failed to modify QP to INIT\n",
			"could not bring a queue pair to INIT: those RDMA connections never came up",
			[]string{"ETIMEDOUT (110): ", "ETIMEDOUT (110): ", "EINVAL (22): ", "ENETUNREACH (101), EHOSTUNREACH (113): ", "other error numbers: "}, "", ""},
		{"another number",
			"Failed to modify QP to RTR: Cannot allocate memory\n",
			"failing with ENOMEM (12, Cannot allocate memory)",
			[]string{"other error numbers: "}, "ETIMEDOUT", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := wclog.Parse(strings.NewReader(tt.text), "paste")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckQPSetups("paste", lg.QPSetups)
			if len(fs) != 1 || fs[0].ID != "verbs.qp_setup_failed" || fs[0].Severity != finding.Critical {
				t.Fatalf("findings %v, want one critical verbs.qp_setup_failed", fs)
			}
			f := fs[0]
			if !strings.Contains(f.Summary, tt.sum) {
				t.Errorf("summary %q\nwant it to hold %q", f.Summary, tt.sum)
			}
			if f.Subject.Device != tt.device {
				t.Errorf("device %q, want %q", f.Subject.Device, tt.device)
			}
			var keyed []string
			for _, c := range f.Causes {
				for _, k := range []string{"ETIMEDOUT (110): ", "EINVAL (22): ", "ENETUNREACH (101), EHOSTUNREACH (113): ", "other error numbers: "} {
					if strings.HasPrefix(c, k) {
						keyed = append(keyed, k)
					}
				}
				if tt.notCause != "" && strings.HasPrefix(c, tt.notCause) {
					t.Errorf("cause %q should not be there", c)
				}
			}
			if !slices.Equal(keyed, tt.causes) {
				t.Errorf("causes keyed %q, want %q", keyed, tt.causes)
			}
			if len(f.Evidence) != strings.Count(tt.text, "\n") {
				t.Errorf("evidence %v", f.Evidence)
			}
		})
	}
	// DeepSeek 3FS (deepseek-ai/3FS issue 175): a RoCE port with no IP
	// address accepted a connection whose peer never sent its first
	// message; no ibv_modify_qp failed, so no error number's lines.
	t.Run("3fs accept timeout", func(t *testing.T) {
		for _, tt := range []struct {
			name, port string
			noAddr     bool
		}{
			{"no address", "mlx5_1:1, ifaddrs [], zones [UNKNOWN], ETHERNET, ACTIVE", true},
			{"with address", "mlx5_1:1, ifaddrs [192.168.3.25], zones [A], ETHERNET, ACTIVE", false},
			{"infiniband", "mlx5_1:1, ifaddrs [], zones [UNKNOWN], INFINIBAND, ACTIVE", false},
		} {
			text := "[2025-03-15T10:06:53.201396617+00:00 SvrConn0:  228 IBSocket.cc:738 CRITICAL] IBSocket RDMA://localhost.localdomain/mlx5_0:1/953 accept timeout, port {" + tt.port + "}\n" +
				"[2025-03-15T10:06:53.201434547+00:00 SvrConn0:  228 Listener.cc:218 ERROR] IBSocket RDMA://localhost.localdomain/mlx5_0:1/953 still in ACCEPTED state after wait 15s\n"
			lg, err := wclog.Parse(strings.NewReader(text), "paste")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckQPSetups("paste", lg.QPSetups)
			if len(fs) != 1 || fs[0].ID != "verbs.qp_setup_failed" || fs[0].Severity != finding.Critical || fs[0].Subject.Device != "mlx5_1" {
				t.Fatalf("%s: findings %v, want one critical verbs.qp_setup_failed on mlx5_1", tt.name, fs)
			}
			f := fs[0]
			if !strings.Contains(f.Summary, "accepted RDMA connections on mlx5_1 from localhost.localdomain mlx5_0:1 whose peer never sent its first message") {
				t.Errorf("%s: summary %q", tt.name, f.Summary)
			}
			if got := strings.Contains(f.Summary, "port mlx5_1:1 is RoCE") && strings.Contains(f.Remedy[0], "show_gids mlx5_1"); got != tt.noAddr {
				t.Errorf("%s: no-address words %v, want %v: %q / %q", tt.name, got, tt.noAddr, f.Summary, f.Remedy[0])
			}
			for _, c := range append(f.Causes, f.Remedy...) {
				if strings.HasPrefix(c, "ETIMEDOUT") || strings.HasPrefix(c, "EINVAL") || strings.HasPrefix(c, "other error numbers") {
					t.Errorf("%s: error-number line %q with no error number", tt.name, c)
				}
			}
		}
	})
	if fs := CheckQPSetups("paste", nil); fs != nil {
		t.Errorf("no lines: %v", fs)
	}
}

// TestCheckPortAddrs: 3FS mgmtd in Docker (deepseek-ai/3FS issue 98): no
// address on the ports' network device is a warning; the device refused
// for its unknown zone is critical.
func TestCheckPortAddrs(t *testing.T) {
	const docker = "IBDevice.cc:386 WARNING] IfAddr of mlx5_0:1 -> Bond0 not found, maybe running in container!\n" +
		"IBDevice.cc:441 CRITICAL] IBDevice mlx5_0:1 can't set zone by IP, fallback to UNKNOWN\n"
	for _, tt := range []struct {
		name, text string
		sev        finding.Severity
		sum        string
	}{
		{"no address", docker, finding.Warning, "no IP address for RDMA port mlx5_0:1 on network device Bond0"},
		{"zone refused", docker + "IBDevice.cc:438 CRITICAL] IBDevice mlx5_0:1's zone is unknown!!!\n", finding.Critical, "did not open the device"},
		{"zone only", "IBDevice.cc:441 CRITICAL] IBDevice mlx5_0:1 can't set zone by IP, fallback to UNKNOWN\n", finding.Warning, "could not set the network zone of RDMA port mlx5_0:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := wclog.Parse(strings.NewReader(tt.text), "paste")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckPortAddrs("paste", lg.PortAddrs)
			if len(fs) != 1 || fs[0].ID != "rdma.port_no_address" || fs[0].Severity != tt.sev || !strings.Contains(fs[0].Summary, tt.sum) || fs[0].Subject.Device != "mlx5_0" {
				t.Errorf("findings %+v, want one rdma.port_no_address %s with %q", fs, tt.sev, tt.sum)
			}
		})
	}
}
