package wclog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any input parses or fails with an error, never panics, and
// every error points at a line of the input.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.log"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(string(b))
		}
	}
	f.Add("mlx5: h: got completion with error:\n00000000 00000000 00000000 00000000\nffffffff")
	f.Add("libfabric:x:y:z():1<warn> prov_err: (")
	f.Add("libfabric:1:2::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid address My EFA addr: x (7)\nlibfabric:efa:cq:f():1<warn> EFA provider internal rxe failure err: , message: ")
	f.Add("0: [0] init_tmi_provider(): TMI provider initialized: psm2 (1.3)\n[0] MPI startup(): libfabric provider: sockets\nCharm++>ofi> provider: verbs;ofi_rxm\nReason: OFI::LrtsInit::fi_tsend error\n[0] MPI startup(): \n")
	f.Add("PMD: net_mlx5: unexpected CQE error 13 (0x0d) syndrome 0x04\nUnexpected CQE error syndrome 0x04 CQN = 512 SQN = 4418 wqe_counter = 25")
	f.Add("warp17> MLX5 Error CQE: at [0x7f6a7d20c000], len=64\n00000000: 00 73 65 65 6E 00 00 00 00 00 00 00 00 00 00 00 | .seen...........\n00000030: 00 00 00 00 9D 00 53 04 0A 00 15 42 00 19 B0 D2 | ......S....B....")
	f.Add("number 0 got bad completion with status: 0xc, vendor syndrome: 0x81")
	f.Add("Mar 30 21:04:53 h genunix: [ID 937861 kern.info] mcxnex0: CQE ERR: IB Client 'srpt'\nMar 30 21:04:53 h genunix: [ID 204426 kern.warning] WARNING: mcxnex0: CQE ERR: cqe ff QPN 0x40064 indx 0x1d81 status 0x13 vendor syndrome 0x88\nhermon1: CQE remote access error")
	f.Add("wc.status=0x vendor_err=0x")
	f.Add("W0222 20:07:21.119717 2179435 worker_pool.cpp:399] Worker: Received context async event local work queue catastrophic error for context erdma_0")
	f.Add("x (local_nic: erdma_0): general error")
	f.Add("IBDevice.cc:386 WARNING] IfAddr of mlx5_0:1 -> Bond0 not found, maybe running in container!\nIBDevice.cc:441 CRITICAL] IBDevice mlx5_0:1 can't set zone by IP, fallback to UNKNOWN\nx RoCE v2 GID not found\nIBDevice :1's zone is unknown!!!")
	f.Add("rdma.c:1075:spdk_nvmf_rdma_qpair_initialize: *ERROR*: rdma_create_qp failed: errno 12: Cannot allocate memory\nrdma.c: 545:spdk_nvmf_rdma_update_ibv_state: *ERROR*: QP#0: bad state updated: 192, maybe hardware issue\n[rdma] rdma.c: 320:spdk_nvmf_rdma_conn_create: New RDMA Connection: 0x1b594f0\nrdma.c:1:nvmf_rdma_x: *ERROR*: RDMA CQ resize failed: errno ")
	f.Add("libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs1\nrdma_create_event_channel() failed, No such device")
	f.Add("Error on CQ 0x1, (qp state 1 ibv_state 6) request 0x2, type DATA, status: (12): transport retry counter e")
	f.Add("[Rank 1] x: Execution_Error_ROCE_CQE(EI0013): An error CQE. Local information: server a, device ID 3, device IP 1.2.3.4. Peer information: device IP , device ID")
	f.Add("W0 x.cpp:1] User-specified GID index 0 on mlx5_8/ has no associated network device\nE0 x.cpp:2] Failed to open device mlx5_8 on port  with GID \nW0 rdma_transport.cpp:3] Disable device \nRdmaTransport: No available RNIC")
	f.Add("Failed to modify QP to RTR: Connection timed out\nerrno: 110\nE0 x.cpp:3] [Handshake] Failed to modify QP to RTS: [22]")
	f.Add("I0 rdma_context.cpp:594] Using user-specified GID index: 3 on mlx5_3/ (with network device)\nI0 rdma_context.cpp:140] RDMA device: mlx5_3, LID: 0, GID: (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:21:06:1e:14\nW0 x] GID is NULL, please check your GID index")
	f.Add("[t IBSocket.cc:738 CRITICAL] IBSocket RDMA://h/mlx5_0:1/953 accept timeout, port {mlx5_1:1, ifaddrs [], zones [UNKNOWN], ETHERNET, ACTIVE}\nIBSocket RDMA://h/ still in ACCEPTED state after wait 15s\nIBSocket RDMA:// accept timeout, port {")
	f.Add("libiscsi:3 wr id 5559208da690 status 1 vend_err d7\nwr_id 1 status 12 vend_err \nwr id 2 status 4 vend_err 0xffffffffff")
	f.Fuzz(func(t *testing.T, s string) {
		lg, err := Parse(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		for _, e := range lg.Errors {
			if e.Line < 1 || e.Line > lg.Lines {
				t.Fatalf("error line %d of %d", e.Line, lg.Lines)
			}
		}
		for _, p := range lg.Providers {
			if p.Line < 1 || p.Line > lg.Lines || p.Name == "" {
				t.Fatalf("provider warning %+v of %d lines", p, lg.Lines)
			}
		}
		for _, q := range lg.QPSetups {
			if q.Line < 1 || q.Line > lg.Lines || q.Errno < 0 || (q.Err != "" && q.Errno == 0 && errnoText(q.Errno) != "") {
				t.Fatalf("QP setup line %+v of %d lines", q, lg.Lines)
			}
		}
		for _, g := range lg.GIDs {
			if g.Line < 1 || g.Line > lg.Lines || g.Kind == "" || (g.Kind != GIDNull && (g.Device == "" || g.Index < 0)) {
				t.Fatalf("GID line %+v of %d lines", g, lg.Lines)
			}
		}
		for _, a := range lg.Async {
			if a.Line < 1 || a.Line > lg.Lines || a.Event == "" || a.Name == "" {
				t.Fatalf("async event %+v of %d lines", a, lg.Lines)
			}
		}
	})
}
