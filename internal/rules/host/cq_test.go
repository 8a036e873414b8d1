package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// kmsg.cq_error: CQ error events (an overrun) are a warning naming the
// queues; kernel error completions are a warning when every one is a
// flush, critical with any other status. The lines are from
// ofiwg/libfabric#4525 and linux-nvme/nvme-cli#3268
// (analyze testdata/realworld-fresh11) and an NVMe over RDMA host posted
// to linux-rdma (kernel 5.18-rc6).
func TestCheckCQ(t *testing.T) {
	overrun := []string{
		"[359142.397077] mlx5_core 0000:02:00.0: mlx5_eq_int:556:(pid 0): CQ error on CQN 0x40a, syndrom 0x1",
		"[359142.398833] mlx5_core 0000:02:00.0: mlx5_eq_int:556:(pid 0): CQ error on CQN 0x406, syndrom 0x1",
	}
	flush := []string{
		"[15601.662156] infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:",
		"[15601.662158] infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9",
		"[15601.662159] infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:",
		"[15601.662161] infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9",
		"[15601.662163] infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:",
	}
	for _, tt := range []struct {
		name string
		log  []string
		want []string // severity: summary fragment, one per finding
		// cause is the one cause kept (the catalog's list cut to the case).
		cause string
	}{
		{"CQ overrun", overrun, []string{"warning: 0000:02:00.0: 2 CQ error events in the kernel log (CQN 0x40a (1034), CQN 0x406 (1030)); syndrome 0x1: CQ overrun"}, "CQ overrun:"},
		{"flushes only", flush, []string{"warning: rocep33s0f0: 3 error completions in the kernel log (Responder) on CQN 0x406 (1030) polled by the kernel for a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB): Work Request Flushed Error (5, IBV_WC_WR_FLUSH_ERR), vendor syndrome 0xf9. Flushed work requests are fallout"}, "flushed work requests:"},
		// The syndrome line again with the retry-exceeded syndromes of
		// openucx/ucx#1920 (synd 0x15 vend 0x81): the failure is named
		// before the flushes; two syndrome lines are two completions.
		{"a retry exceeded among flushes", append(flush[:2:2], "[15601.7] infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x15, vendor syndrome 0x81"),
			[]string{"critical: rocep33s0f0: 2 error completions in the kernel log (Responder) on CQN 0x406 (1030) polled by the kernel for a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB): transport retry counter exceeded (12, IBV_WC_RETRY_EXC_ERR), Work Request Flushed Error (5, IBV_WC_WR_FLUSH_ERR), vendor syndrome 0x81, 0xf9. The work request failed"}, ""},
		{"WC error line", []string{"[ 4879.122028] infiniband mlx5_4: mlx5_handle_error_cqe:332:(pid 0): WC error: 4, Message: local protection error"},
			[]string{"critical: mlx5_4: 1 error completion in the kernel log polled by the kernel for a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB): local protection error (4, IBV_WC_LOC_PROT_ERR). The work request failed"}, "remote access, remote operation, local protection errors:"},
		// NVMe over RDMA's own line for the same completion (the linux-rdma thread above).
		{"a consumer's failed completion", []string{"[  408.380230] nvme nvme15: RECV for CQE 0x00000000ce392ed9 failed with status local protection error (4)"},
			[]string{"critical: nvme15: 1 error completion in the kernel log polled by the kernel for a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB): local protection error (4, IBV_WC_LOC_PROT_ERR). The work request failed"}, "remote access, remote operation, local protection errors:"},
		{"an error cqe cut before its syndrome", flush[:1], []string{"warning: rocep33s0f0: 1 error completion in the kernel log (Responder) on CQN 0x406 (1030) polled by the kernel for a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB). The status is not in the paste"}, ""},
		// linux-rdma, "Spurious instability with NFSoRDMA under moderate load" (2021, analyze
		// testdata/realworld-fresh12): an NFS server's error CQEs dumped in hex, syndrome 0x13.
		{"dumped error CQEs", []string{
			"[561889.198889] infiniband mlx5_0: dump_cqe:272:(pid 709): dump error cqe",
			"[561889.198945] 00000000: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
			"[561889.198984] 00000010: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
			"[561889.199023] 00000020: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
			"[561889.199061] 00000030: 00 00 00 00 00 00 88 13 08 00 01 13 07 47 67 d2",
			"[985074.602880] infiniband mlx5_0: dump_cqe:272:(pid 599): dump error cqe",
			"[985074.602921] 00000000: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
			"[985074.602946] 00000010: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
			"[985074.602970] 00000020: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
			"[985074.602994] 00000030: 00 00 00 00 00 00 88 13 08 00 01 46 f2 93 0b d3",
		}, []string{"critical: mlx5_0: 2 error completions in the kernel log (Requestor) polled by the kernel for a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB): remote access error (10, IBV_WC_REM_ACCESS_ERR), vendor syndrome 0x88. The work request failed"}, "remote access, remote operation, local protection errors:"},
		{"a dump cut before its last line: the status is not known", []string{
			"[561889.198889] infiniband mlx5_0: dump_cqe:272:(pid 709): dump error cqe",
			"[561889.198945] 00000000: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		}, []string{"warning: mlx5_0: 1 error completion in the kernel log polled by the kernel for a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB). The status is not in the paste"}, ""},
		// kvcache-ai/Mooncake#3299 (analyze testdata/realworld-fresh40,
		// dmesg-mooncake3299-mlx5-bond-qp-local-length-error.txt): mlx5_ib's
		// QP error syndrome lines of user QPs on two bonds, one finding each.
		{"QP error lines", []string{
			"[Wed Jul 29 14:40:27 2026] mlx5_bond_0/1: QP 51291 error: local length error (0x8e 0x0 0x0)",
			"[Wed Jul 29 14:40:27 2026] mlx5_bond_1/1: QP 114233 error: local length error (0x8e 0x0 0x0)",
			"[Wed Jul 29 14:40:27 2026] mlx5_bond_1/1: QP 114235 error: local length error (0x8e 0x0 0x0)",
		}, []string{
			"critical: mlx5_bond_0: 1 queue pair error in the kernel log on QP 51291: local length error (1, IBV_WC_LOC_LEN_ERR), vendor syndrome 0x8e. The HCA moved the queue pair to the error state",
			"critical: mlx5_bond_1: 2 queue pair errors in the kernel log on QP 114233, QP 114235: local length error (1, IBV_WC_LOC_LEN_ERR), vendor syndrome 0x8e. The HCA moved the queue pair to the error state: its owner (an application's RDMA connection, or a kernel consumer's) fails its work and has to reconnect; rdma resource show qp link mlx5_bond_1/1 lqpn 114233 names the process",
		}, ""},
		// The text is ib_wc_status_msg of the CQE syndrome: 0x12 (remote
		// invalid request) prints as "invalid EE context state" (a
		// linux-rdma report shows "unrecognized status (0x41 …)" for
		// syndromes past the table).
		{"QP error text is the CQE syndrome", []string{"[  1.0] rocep2s0/1: QP 137 error: invalid EE context state (0x0 0x0 0x0)"},
			[]string{"critical: rocep2s0: 1 queue pair error in the kernel log on QP 137: remote invalid request error (9, IBV_WC_REM_INV_REQ_ERR)"}, ""},
		{"QP error with an unknown syndrome", []string{"[  1.0] rocep2s0/1: QP 137 error: unrecognized status (0x41 0x0 0x0)"},
			[]string{"critical: rocep2s0: 1 queue pair error in the kernel log on QP 137: a syndrome the driver does not map, vendor syndrome 0x41"}, ""},
		{"QP error of a flush is fallout", []string{"[  1.0] rocep2s0/1: QP 137 error: WR flushed (0x0 0x0 0x0)"},
			[]string{"warning: rocep2s0: 1 queue pair error in the kernel log on QP 137: Work Request Flushed Error (5, IBV_WC_WR_FLUSH_ERR)"}, "flushed work requests:"},
		{"a hex line without a dump before it: nothing", []string{"[561889.199061] 00000030: 00 00 00 00 00 00 88 13 08 00 01 13 07 47 67 d2"}, nil, ""},
		{"other mlx5 debug lines: nothing", []string{"[564689.021492] infiniband mlx5_0: mlx5_ib_create_cq:962:(pid 202927): cqn 0xc1"}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := checkCQ(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.log...)})
			if len(fs) != len(tt.want) {
				t.Fatalf("%d findings, want %d: %v", len(fs), len(tt.want), fs)
			}
			for i, f := range fs {
				if f.ID != "kmsg.cq_error" {
					t.Errorf("ID %s", f.ID)
				}
				if got := string(f.Severity) + ": " + f.Summary; !strings.HasPrefix(got, tt.want[i]) {
					t.Errorf("got  %s\nwant %s…", got, tt.want[i])
				}
				if tt.cause != "" && (len(f.Causes) != 1 || !strings.HasPrefix(f.Causes[0], tt.cause)) {
					t.Errorf("causes %q, want the one starting %q", f.Causes, tt.cause)
				}
			}
		})
	}
}
