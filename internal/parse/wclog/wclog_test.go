package wclog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRealErrors: the work-completion errors of real pastes (testdata/README.md),
// each rendered with its source, status, decoded CQE and devices.
func TestRealErrors(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"lf4283-mlx5-dump-rxm-remote-access.log", []string{
			`1 libmlx5 host=cn10 status=10 "remote access error" cqe synd=0x13 vend=0x88 requester qpn=0x12abe RDMA_READ nics=[] local= peer=@`,
			`6 libfabric provider=ofi_rxm status=10 "remote access error" nics=[] local= peer=@`,
		}},
		{"mooncake955-retry-exceeded.log", []string{
			`1 application status=12 "transport retry counter exceeded" nics=[mlx5_9 mlx5_7] local=mlx5_9 peer=192.168.1.161:16360@mlx5_7`,
		}},
		// The pid after "libfabric:"; EFA's provider errors are no ibv_wc_status.
		{"cdisdk-efa-pingpong-warn.log", []string{
			`5 libfabric provider=efa status=-1 "unknown error" nics=[] local= peer=@`,
			`6 libfabric provider=efa status=-1 "Unknown error -13" nics=[] local= peer=@`,
		}},
		// The EFA RDM provider's "err: %d, message: %s (%d)" of a failed
		// send (efa_rdm_txe_handle_error), the peer's address cut off.
		{"awsofinccl346-efa-txe-invalid-address.log", []string{
			`1 libfabric provider=efa status=-1 "Invalid address" nics=[] local= peer=@`,
			`2 libfabric provider=efa status=-1 "Invalid address" nics=[] local= peer=@`,
		}},
		// An IBV_WC_ name after a colon; "failed with error 12" is no status line.
		{"nbs2690-recv-retry-exc-err.log", []string{
			`3 application status=12 "IBV_WC_RETRY_EXC_ERR" nics=[] local= peer=@`,
		}},
		// "general error" is read only ending the line after "): " on a
		// line that names a device; the async event is no completion.
		{"mooncake117-erdma-general-error-async.log", []string{
			`1 application status=21 "general error" nics=[erdma_0] local=erdma_0 peer=10.0.0.41:7712@erdma_0`,
		}},
		// The dump lost its last row: read, not decoded.
		{"ucx1569-dump-cut.log", []string{
			`3 libmlx5 host=vegas06 status=-1 "" nics=[] local= peer=@`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lg, err := Parse(f, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range lg.Errors {
				s := fmt.Sprintf("%d %s", e.Line, e.Source)
				if e.Host != "" {
					s += " host=" + e.Host
				}
				if e.Provider != "" {
					s += " provider=" + e.Provider
				}
				s += fmt.Sprintf(" status=%d %q", int(e.Status), e.What)
				if e.CQE {
					dir := "responder"
					if e.Requester {
						dir = "requester"
					}
					s += fmt.Sprintf(" cqe synd=%#x vend=%#x %s qpn=%#x %s", e.Syndrome, e.Vendor, dir, e.QPN, e.Opcode)
				}
				s += fmt.Sprintf(" nics=%v local=%s peer=%s@%s", e.NICs, e.LocalNIC, e.Peer, e.PeerNIC)
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestNumericStatus: an application line that prints the ibv_wc_status
// as a number next to completion wording (ruihong123/dLSM#7: "number 0
// got bad completion with status: 0xc, vendor syndrome: 0x81"), decoded
// with rdma-core's enum ibv_wc_status (libibverbs/verbs.h); success,
// numbers past the enum, numbers glued to words, lines without completion
// wording and the wordings NCCL and perftest parse themselves are not read.
func TestNumericStatus(t *testing.T) {
	for _, tc := range []struct {
		line   string
		status int // -1: not read
		vendor uint64
	}{
		{"number 0 got bad completion with status: 0xc, vendor syndrome: 0x81", 12, 0x81},
		{"number 1 got bad completion with status: 0x5, vendor syndrome: 0xf9", 5, 0xf9},
		{"poll_cq: completion error, wc.status=12 vendor_err=0x81", 12, 0x81},
		{"bad CQE status 13 (qp 0x1a2)", 13, 0},
		{"work completion failed: status = 10, vendor err 136", 10, 136},
		{"completion with status 12", 12, 0},
		{"wc_status: 0x4 on qp 7", 4, 0},
		// SPDK's NVMe-oF RDMA target, nvmf_rdma_log_wc_status in
		// lib/nvmf/rdma.c: the status in parentheses, its text cut by
		// the paste (spdk/spdk#2328, realworld-fresh31's README row).
		{"[2022-01-17 16:03:57.637929] rdma.c:3769:nvmf_rdma_log_wc_status: *ERROR*: Error on CQ 0x20155a0, (qp state 1 ibv_state 6) request 0x139974757082280, type DATA, status: (12): transport retry counter e", 12, 0},
		{"rdma.c:3769:nvmf_rdma_log_wc_status: *ERROR*: Error on CQ 0x7f4e64011b20, (qp state 1 ibv_state 6) request 0x139974729471144, type DATA, status: (5): Work Request Flushed Error", 5, 0},
		// libiscsi's iSER initiator prints a failed completion's
		// fields by name, the vendor error with %x and no 0x (lib/iser.c
		// iser_rcv_completion: "wr id %lx status %d vend_err %x";
		// sahlberg/libiscsi#376, realworld-fresh39's README row), and
		// programs like it print wr_id and vendor_err.
		{"libiscsi:3 wr id 5559208da690 status 1 vend_err d7", 1, 0xd7},
		{"wr id 7f12a0 status 12 vend_err 81", 12, 0x81},
		{"wr_id=0x1 status=5 vendor_err=0xf9", 5, 0xf9},
		{"libiscsi:3 wr id 5559208da690 status 0 vend_err 0", -1, 0},
		{"libiscsi:3 wr id 5559208da690 status 1", -1, 0}, // no completion field but the id: a request's status
		{"vend_err d7 status 1", -1, 0},
		{"Error on CQ 0x1, status: (12", -1, 0},
		{"Error on CQ 0x1, status: (0): success", -1, 0},
		{"CQ resize done, status: (12)", -1, 0},
		{"Error on CQL statement, status: (12)", -1, 0},
		{"number 0 got completion with status: 0x0", -1, 0},
		{"completion with status: 99", -1, 0},
		{"completion with status: 12abc", -1, 0},
		{"completion with xstatus: 12", -1, 0},
		{"HTTP status: 404 for /metrics", -1, 0},
		{"job status 12 of 40 done", -1, 0},
		// A job's or a task's completion is no work completion.
		{"Job completion status: 1", -1, 0},
		{"task completion status 2 (see log)", -1, 0},
		{"newcomer status 3", -1, 0},
		// A failed glog assertion on the completion's status: UCCL's
		// DCHECK with the status streamed after "error: "
		// (uccl-project/uccl#293, realworld-fresh44's README row), and
		// CHECK_EQ's "(12 vs. 0)".
		{"F20250821 13:22:09.976752 3186121 rdma_io.cc:811] Check failed: wc->status == IBV_WC_SUCCESS RC send CQ state error: 12, 0", 12, 0},
		{"F0101 00:00:00.000000 1 poll.cc:42] Check failed: wc.status == IBV_WC_SUCCESS (5 vs. 0) ", 5, 0},
		{"F0101 00:00:00.000000 1 poll.cc:42] Check failed: wc->status == IBV_WC_SUCCESS RC recv CQ state error: 0, 0", -1, 0},
		{"F0101 00:00:00.000000 1 poll.cc:42] Check failed: wc->status == IBV_WC_SUCCESS RC send CQ state error", -1, 0},
		{"if (wc->status == IBV_WC_SUCCESS) count: 12", -1, 0},
		{"NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 vendor err 129 (Send)", -1, 0},
		{" Completion with error at client Failed status 12: wr_id 0 syndrom 0x81", -1, 0},
	} {
		e, ok := lineError(tc.line)
		if tc.status < 0 {
			if ok {
				t.Errorf("%q read as status %d", tc.line, int(e.Status))
			}
			continue
		}
		if !ok || int(e.Status) != tc.status || e.Vendor != tc.vendor || e.Source != SourceApp {
			t.Errorf("%q: ok=%v status=%d vendor=%#x source=%s, want status %d vendor %#x", tc.line, ok, int(e.Status), e.Vendor, e.Source, tc.status, tc.vendor)
		}
		if !Hint(tc.line) || !DetectLine(tc.line) {
			t.Errorf("%q: not detected", tc.line)
		}
	}
}

// TestNotErrors: prose that names a status, and lines that only look
// alike, are not read.
func TestNotErrors(t *testing.T) {
	prose, err := os.ReadFile(filepath.Join("testdata", "charm2532-prose.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{
		strings.TrimSpace(string(prose)),
		"I keep getting transport retry counter exceeded errors when the job scales past 64 nodes",
		"mlx5: got completion with error:",
		"libfabric:ofi_rxm:core:ofi_check_info():1008<info> Supported: FI_MSG",
	} {
		if _, ok := lineError(l); ok {
			t.Errorf("read as an error: %q", l)
		}
		if _, ok := dumpHeader(l); ok {
			t.Errorf("read as a dump: %q", l)
		}
	}
	if _, err := Parse(strings.NewReader(string(prose)), "prose"); !errors.Is(err, ErrNoData) {
		t.Errorf("prose: err %v, want ErrNoData", err)
	}
	// A libfabric line that is not an error is still that library's log.
	if !DetectLine("libfabric:ofi_rxm:core:ofi_check_info():1008<info> Supported: FI_MSG") {
		t.Error("libfabric info line not detected")
	}
}

// TestVagueEnd: "general error" and "fatal error" (ibv_wc_status_str of
// IBV_WC_GENERAL_ERR and IBV_WC_FATAL_ERR) are read only ending a line
// after "): " on a line that names an RDMA device, as Mooncake's transfer
// engine prints a failed slice (kvcache-ai/Mooncake#117, the sample's
// README row); anywhere else they are words of any program.
func TestVagueEnd(t *testing.T) {
	for _, tc := range []struct {
		line   string
		status int // -1: not read
		local  string
	}{
		{"E0222 20:07:21.119704 2179433 worker_pool.cpp:291] Worker: Process failed for slice (opcode: 0, source_addr: 0x7f5cfc000000, length: 65536, dest_addr: 140123979120640, local_nic: erdma_0, peer_nic: 10.0.0.41:7712@erdma_0, dest_rkey: 39908608, retry_cnt: 0): general error", 21, "erdma_0"},
		{"Worker: Process failed for slice (opcode: 1, local_nic: mlx5_2, peer_nic: 10.1.0.2:1234@mlx5_3): fatal error", 19, "mlx5_2"},
		{"transfer to mlx5_0 failed (qp 12): general error", 21, ""},
		// No device: a program's own vague error.
		{"E0222 12:00:00.000000 1 main.cc:9] open(config.yaml): general error", -1, ""},
		{"upload (part 3): fatal error", -1, ""},
		// Not after "): ", or not ending the line.
		{"local_nic: mlx5_0: general error", -1, ""},
		{"Process failed (local_nic: mlx5_0): general error, retrying", -1, ""},
		{"Process failed (local_nic: mlx5_0): a general error", -1, ""},
	} {
		e, ok := lineError(tc.line)
		if tc.status < 0 {
			if ok {
				t.Errorf("%q read as status %d", tc.line, int(e.Status))
			}
			continue
		}
		if !ok || int(e.Status) != tc.status || e.LocalNIC != tc.local || e.Source != SourceApp {
			t.Errorf("%q: ok=%v status=%d local=%q, want status %d local %q", tc.line, ok, int(e.Status), e.LocalNIC, tc.status, tc.local)
		}
		if !DetectLine(tc.line) {
			t.Errorf("%q: not detected", tc.line)
		}
	}
}

// TestAsyncLine: an application line that names an ibv async event by
// its ibv_event_type_str text (rdma-core libibverbs/enum_strs.c), after
// "async" and "event", with the device it names; the line of
// kvcache-ai/Mooncake#117 (the sample's README row) first.
func TestAsyncLine(t *testing.T) {
	for _, tc := range []struct {
		line, event, name, device string // event "": not read
	}{
		{"W0222 20:07:21.119717 2179435 worker_pool.cpp:399] Worker: Received context async event local work queue catastrophic error for context erdma_0",
			"local work queue catastrophic error", "IBV_EVENT_QP_FATAL", "erdma_0"},
		{"[2025-01-02 10:00:00] rdma: async event on mlx5_1: port error (1)", "port error", "IBV_EVENT_PORT_ERR", "mlx5_1"},
		{"ERROR async event: local catastrophic error for device foo3", "local catastrophic error", "IBV_EVENT_DEVICE_FATAL", "foo3"},
		{"Async event GID table change on rocep1s0f0", "GID table change", "IBV_EVENT_GID_CHANGE", "rocep1s0f0"},
		{"got ASYNC EVENT: SRQ catastrophic error", "SRQ catastrophic error", "IBV_EVENT_SRQ_ERR", ""},
		// No async, no event, the text inside a word, before "async".
		{"port error on mlx5_0", "", "", ""},
		{"async: port error", "", "", ""},
		{"async event handler started for mlx5_0", "", "", ""},
		{"async event: transport error", "", "", ""},
		{"port error, then the async event thread exited", "", "", ""},
		{"async event: report errors", "", "", ""},
		{"async event: CQ errors_total=3", "", "", ""},
	} {
		a, ok := asyncLine(tc.line)
		if tc.event == "" {
			if ok {
				t.Errorf("%q read as async event %q", tc.line, a.Event)
			}
			continue
		}
		if !ok || a.Event != tc.event || a.Name != tc.name || a.Device != tc.device {
			t.Errorf("%q: ok=%v %q %s device %q, want %q %s %q", tc.line, ok, a.Event, a.Name, a.Device, tc.event, tc.name, tc.device)
		}
		if !Hint(tc.line) || !DetectLine(tc.line) {
			t.Errorf("%q: not detected", tc.line)
		}
	}
	lg, err := Parse(strings.NewReader("W0222 20:07:21.119717 2179435 worker_pool.cpp:399] Worker: Received context async event local work queue catastrophic error for context erdma_0\n"), "x")
	if err != nil || len(lg.Async) != 1 || lg.Async[0].Line != 1 || len(lg.Errors) != 0 {
		t.Fatalf("Parse of an async line alone: %+v, %v", lg, err)
	}
}

// TestProviderLine: libibverbs' warnings that lose a device, as any
// program prints them (spdk/spdk#272, realworld-fresh27's README row: an
// SPDK nvmf_tgt log), and the program's lines that say it then found no
// RDMA device; a driver that did not load alone, and a prefixed or other
// warning, are not read.
func TestProviderLine(t *testing.T) {
	for _, tc := range []struct {
		line, name string // name "": not read
	}{
		{"libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs1", "uverbs1"},
		{"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2", "bnxt_re2"},
		{"libibverbs: Warning: couldn't load driver 'libmlx5-rdmav2.so': libmlx5-rdmav2.so: cannot open shared object file: No such file or directory", ""},
		{"libibverbs: Warning: couldn't stat '/sys/class/infiniband/mlx5_7'.", ""},
		// LUMI EAP note (realworld-fresh73): the container lacked the
		// provider configuration, NCCL ran on NET/Socket.
		{"libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.", "/etc/libibverbs.d"},
		{"the log said no userspace device-specific driver found for uverbs1", ""},
	} {
		p, ok := ProviderLine(tc.line)
		if tc.name == "" {
			if ok {
				t.Errorf("%q read as %+v", tc.line, p)
			}
			continue
		}
		if !ok || p.Name != tc.name || !Hint(tc.line) || !DetectLine(tc.line) {
			t.Errorf("%q: ok=%v %+v, want %s", tc.line, ok, p, tc.name)
		}
	}
	lg, err := Parse(strings.NewReader("rdma.c:1136:spdk_nvmf_rdma_create: *NOTICE*: *** RDMA Transport Init ***\nlibibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs1\nlibibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0\n"), "x")
	if err != nil || len(lg.Providers) != 2 || lg.Providers[0].Line != 2 || lg.Providers[1].Name != "uverbs0" {
		t.Fatalf("Parse: %+v, %v", lg, err)
	}
	for l, want := range map[string]bool{
		"rdma.c:1144:spdk_nvmf_rdma_create: *ERROR*: rdma_create_event_channel() failed, No such device": true,
		"No IB devices found":               true,
		" Failed to get IB devices list":    true,
		"nvme_rdma.c: 999: no RDMA devices": true,
		"No RDMA device available":          true,
		"nvmf.c: 255:spdk_nvmf_tgt_listen: *ERROR*: Transport initialization failed": false,
		"found 2 RDMA devices":                                  false,
		" Did not detect devices":                               true,
		"node1:123:123 [0] NCCL INFO NET/IB : No device found.": true,
	} {
		if NoDevice(l) != want {
			t.Errorf("NoDevice(%q) = %v", l, !want)
		}
	}
	// ibv_devinfo -d rxe0 as rxe_cfg runs it (linux-rdma, Soft-RoCE with a
	// provider of another uverbs ABI, realworld-fresh59).
	for l, want := range map[string]string{
		"IB device 'rxe0' wasn't found":     "rxe0",
		"  IB device 'mlx5_0' wasn't found": "mlx5_0",
		"IB device '' wasn't found":         "",
		"IB device 'rxe0' was found":        "",
		"IB device 'a b' wasn't found":      "",
	} {
		if got, ok := DeviceNotFound(l); got != want || ok != (want != "") {
			t.Errorf("DeviceNotFound(%q) = %q, %v", l, got, ok)
		}
	}
}

// TestHCCLLine: HCCL's error CQE on an Ascend NPU's RoCE NIC as PyTorch's
// watchdog re-raises it (vllm-project/vllm-ascend#7384, realworld-fresh31's
// README row), with and without PyTorch's "[rankN]:" tag; the other HCCL
// errors and prose that names a CQE are not read.
func TestHCCLLine(t *testing.T) {
	const line = "[E313 06:55:06.502248200 compiler_depend.ts:1693] [Rank 1] HCCL watchdog thread terminated with exception: [PID: 335] 2026-03-13-06:55:06.896.485 Execution_Error_ROCE_CQE(EI0013): An error CQE occurred during operator execution. Local information: server xx.xx.xx.199, device ID 3, device IP 10.20.13.9. Peer information: server xx.xx.xx.195, device ID 3, device IP 10.20.13.5."
	for _, tc := range []struct {
		line string
		want string // "" when not read
	}{
		{line, `HCCL rank=-1/1 "Execution_Error_ROCE_CQE(EI0013): An error CQE occurred during operator execution" local=NPU 3@10.20.13.9 on xx.xx.xx.199 peer=NPU 3@10.20.13.5 on xx.xx.xx.195`},
		{"[rank11]:" + line, `HCCL rank=11/1 "Execution_Error_ROCE_CQE(EI0013): An error CQE occurred during operator execution" local=NPU 3@10.20.13.9 on xx.xx.xx.199 peer=NPU 3@10.20.13.5 on xx.xx.xx.195`},
		{"Execution_Error_ROCE_CQE(EI0013)", `HCCL rank=-1/-1 "Execution_Error_ROCE_CQE(EI0013)" local=@ on  peer=@ on `},
		{"An error CQE occurred during operator execution.", ""},
		{"see ROCE_CQE(EI0013) in the docs", ""},
		{"Execution_Error_ROCE_CQE(EI0013 cut", ""},
	} {
		e, ok := hcclLine(tc.line)
		got := ""
		if ok {
			got = fmt.Sprintf("%s rank=%d/%d %q local=%s@%s on %s peer=%s@%s on %s", e.Source, e.Rank, e.GroupRank, e.What, e.LocalNIC, e.LocalIP, e.Host, e.PeerNIC, e.Peer, e.PeerHost)
		}
		if got != tc.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tc.line, got, tc.want)
		}
		if ok && !DetectLine(tc.line) {
			t.Errorf("%q not detected", tc.line)
		}
	}
}

// TestTransportLine: an application's lines that its RDMA transport
// could not start. Mooncake's transfer engine (kvcache-ai/Mooncake#1384,
// realworld-fresh31's README row: rdma_context.cpp and
// rdma_transport.cpp) and SPDK's NVMe-oF target (spdk/spdk#272,
// realworld-fresh27's README row: lib/nvmf/transport.c and nvmf.c); lines
// that name no RDMA context, and SPDK's "Transport initialization
// failed" alone (no transport named), are not read.
func TestTransportLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string // "" when not read
	}{
		{"W0115 05:20:19.944772   309 rdma_context.cpp:588] User-specified GID index 0 on mlx5_8/ has no associated network device, may not be optimal for RDMA operations", "dev=mlx5_8 gid=0 nonetdev"},
		{"E0115 05:20:19.945159   309 rdma_context.cpp:81] Failed to open device mlx5_8 on port  with GID 0", "dev=mlx5_8 gid=0"},
		{"W0115 05:20:19.945183   309 rdma_transport.cpp:656] Disable device mlx5_8", "dev=mlx5_8 gid="},
		{"E0115 05:20:19.945191   309 rdma_transport.cpp:662] RdmaTransport: No available RNIC", "fatal dev= gid="},
		{"E0115 05:20:19.945197   309 rdma_transport.cpp:106] RdmaTransport: cannot initialize RDMA resources", "fatal dev= gid="},
		{"transport.c:  76:spdk_nvmf_transport_create: *ERROR*: Unable to create new transport of type RDMA", "fatal dev= gid="},
		{"conf.c: 284:spdk_nvmf_parse_subsystem: *ERROR*: Failed to listen on transport RDMA address 10.0.0.12:4420", "fatal dev= gid="},
		{"nvmf.c: 255:spdk_nvmf_tgt_listen: *ERROR*: Transport initialization failed", ""},
		// LDMS 4.3 (ovis-hpc/ovis ldms/src/ldmsd/ldmsd.c, lib/src/zap/rdma/zap_rdma.c) on a node without rdma_ucm.
		{"Fri Dec 13 07:57:32 2019: INFO      : z_rdma_listen: rdma_create_event_channel failed. zerr 7", "fatal dev= gid="},
		{"Fri Dec 13 07:57:32 2019: ERROR     : Error 7 listening on the 'rdma' transport.", "fatal dev= gid="},
		{"Fri Dec 13 07:57:32 2019: INFO      : Listening on sock:10001", ""},
		// brpc's RDMA endpoint as FalconFS logs it (falconfs issue 30): glog lines of rdma_endpoint.cpp and rdma_helper.cpp.
		{"W0630 16:15:24.209332 1166934 rdma_endpoint.cpp:1046] Fail to create comp channel for CQ: Too many open files [24]", "fatal dev= gid="},
		{"E0630 16:15:24.209450 1166934 rdma_helper.cpp:544] rdma_recv_block_type incorrect (valid value: default/large/huge)", "fatal dev= gid="},
		{"I0630 16:15:22.485301 1166934 rdma_helper.cpp:485] RDMA LID: 0", ""},
		{"W0630 16:15:24.209332 1 socket.cpp:10] Fail to create socket: Too many open files [24]", ""},
		// kvcache-ai/Mooncake#535: ibv_create_cq failed on a broken NIC.
		{"E0620 17:20:15.656373   293 rdma_context.cpp:116] Failed to create completion queue: Cannot allocate memory [12]", "dev= gid= resource=Cannot allocate memory [12]"},
		{"Failed to create completion queue: Cannot allocate memory", ""},
		{"Failed to open device /dev/sda", ""},
		{"systemd: Disable device sda1", ""},
		{"I0115 05:20:19.917309   309 transfer_engine_impl.cpp:232] Topology discovery complete. Found 1 HCAs.", ""},
		{"NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>", ""},
	} {
		tr, ok := TransportLine(tc.line)
		got := ""
		if ok {
			got = fmt.Sprintf("dev=%s gid=%s", tr.Device, tr.GID)
			if tr.Fatal {
				got = "fatal " + got
			}
			if tr.NoNetdev {
				got += " nonetdev"
			}
			if tr.Resource != "" {
				got += " resource=" + tr.Resource
			}
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
		}
		if ok != DetectLine(tc.line) && ok {
			t.Errorf("%q: read but not detected", tc.line)
		}
		if ok && !Hint(tc.line) {
			t.Errorf("%q: read but Hint refuses it", tc.line)
		}
	}
}

// TestQPSetupLine: lines that a queue pair could not be moved to INIT,
// RTR or RTS, from real programs: rdma-core's rc_pingpong, Mooncake's
// transfer engine (GitHub kvcache-ai/Mooncake issue 204), UCCL on AMD
// ionic NICs (uccl-project/uccl issue 641); and lines that look like
// them but are not.
func TestQPSetupLine(t *testing.T) {
	tests := []struct {
		line  string
		ok    bool
		state string
		errno int
		dev   string
	}{
		{"Failed to modify QP to RTR", true, "RTR", 0, ""},
		{"Failed to modify QP to RTR: Connection timed out", true, "RTR", 110, ""},
		{"E0331 12:03:04.222625 56060 rdma_endpoint.cpp:385] [Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Connection timed out [110]", true, "RTR", 110, ""},
		{"ibv_modify_qp failed with 22 (to RTS) on mlx5_3", true, "RTS", 22, "mlx5_3"},
		{"modify_qp to INIT error: Invalid argument", true, "INIT", 22, ""},
		{"Failed to modify QP[3] to RTR", true, "RTR", 0, ""}, // a queue pair's index, not an errno
		{"unable to modify the QP: ret=-113", true, "", 113, ""},
		{"Modify QP to RTR done", false, "", 0, ""},
		{"NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out", false, "", 0, ""}, // NCCL's parser reads it
		{"QP modified to RTS", false, "", 0, ""},
		{">>> But launching any example I always get an error by call of: ibv_modify_qp", false, "", 0, ""}, // prose of a linux-rdma mail
		// DeepSeek 3FS (deepseek-ai/3FS issue 175, mgmtd_main-err.log):
		// IBSocket.cc's accept timeout names the local port, Listener.cc's
		// line only the peer's device.
		{"[2025-03-15T10:06:53.201396617+00:00 SvrConn0:  228 IBSocket.cc:738 CRITICAL] IBSocket RDMA://localhost.localdomain/mlx5_0:1/953 accept timeout, port {mlx5_1:1, ifaddrs [], zones [UNKNOWN], ETHERNET, ACTIVE}", true, "RTR", 0, "mlx5_1"},
		{"[2025-03-15T10:06:53.201434547+00:00 SvrConn0:  228 Listener.cc:218 ERROR] IBSocket RDMA://localhost.localdomain/mlx5_0:1/953 still in ACCEPTED state after wait 15s", true, "RTR", 0, ""},
		{"[x IBSocket.cc:509 INFO] IBSocket RDMA://h/mlx5_0:1/953 turn to READY from ACCEPTED.", false, "", 0, ""},
		{"[x IBSocket.cc:492 INFO] IBSocket RDMA://h/mlx5_0:1/953 closed.", false, "", 0, ""},
		{"IBSocket [accept RDMA://10.0.0.1] accept timeout", false, "", 0, ""}, // no peer described: not 3FS's layout
	}
	for _, tt := range tests {
		q, ok := QPSetupLine(tt.line)
		if ok != tt.ok || q.State != tt.state || q.Errno != tt.errno || q.Device != tt.dev {
			t.Errorf("QPSetupLine(%q) = %+v, %v; want state %q errno %d device %q, %v", tt.line, q, ok, tt.state, tt.errno, tt.dev, tt.ok)
		}
		if ok && !DetectLine(tt.line) {
			t.Errorf("DetectLine(%q) = false", tt.line)
		}
	}
}

// TestIBSocketLine: 3FS's accept timeout is a connection stalled at RTR;
// the port in braces gives the device, its link layer and whether its
// network device has an address (deepseek-ai/3FS issue 175).
func TestIBSocketLine(t *testing.T) {
	for _, tt := range []struct {
		line                   string
		dev, peer, peerDev, ll string
		noAddr                 bool
	}{
		{"[2025-03-15T10:06:53.201396617+00:00 SvrConn0:  228 IBSocket.cc:738 CRITICAL] IBSocket RDMA://localhost.localdomain/mlx5_0:1/953 accept timeout, port {mlx5_1:1, ifaddrs [], zones [UNKNOWN], ETHERNET, ACTIVE}",
			"mlx5_1", "localhost.localdomain", "mlx5_0:1", "ETHERNET", true},
		{"[t SvrConn0: 1 IBSocket.cc:758 CRITICAL] IBSocket RDMA://stor1/mlx5_2:1/77 accept timeout, port {mlx5_3:1, ifaddrs [192.168.3.25], zones [A], ETHERNET, ACTIVE}",
			"mlx5_3", "stor1", "mlx5_2:1", "ETHERNET", false},
		{"[t SvrConn0: 1 IBSocket.cc:758 CRITICAL] IBSocket RDMA://stor1/mlx5_2:1/77 accept timeout, port {mlx5_3:1, ifaddrs [], zones [UNKNOWN], INFINIBAND, ACTIVE}",
			"mlx5_3", "stor1", "mlx5_2:1", "INFINIBAND", true},
	} {
		q, ok := QPSetupLine(tt.line)
		if !ok || !q.Stalled || q.Device != tt.dev || q.Peer != tt.peer || q.PeerDevice != tt.peerDev || q.LinkLayer != tt.ll || q.NoAddr != tt.noAddr {
			t.Errorf("QPSetupLine(%q) = %+v, %v", tt.line, q, ok)
		}
	}
}

// TestQPSetupErrnoLine: UCCL prints perror's number on a line of its own,
// threads interleaving their lines; the number goes to the latest QP line
// without one, within a few lines.
func TestQPSetupErrnoLine(t *testing.T) {
	text := "Failed to modify QP to RTR\nFailed to modify QP to RTS\nerrno: 110\nerrno: 22\n" +
		strings.Repeat("x\n", errnoWithin+1) + "Failed to modify QP to INIT\n" + strings.Repeat("x\n", errnoWithin+1) + "errno: 12\n"
	lg, err := Parse(strings.NewReader(text), "uccl.log")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range lg.QPSetups {
		got = append(got, fmt.Sprintf("%d:%s:%d:%s", q.Line, q.State, q.Errno, q.Err))
	}
	want := []string{"1:RTR:22:Invalid argument", "2:RTS:110:Connection timed out", fmt.Sprintf("%d:INIT:0:", 5+errnoWithin+1)}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
