package analyze

import "testing"

// TestUCXHint: the cheap look before UCX line detection passes UCX's lines
// and the fatal handler's, and no kernel stamp.
func TestUCXHint(t *testing.T) {
	for l, want := range map[string]bool{
		"[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB": true,
		"[1590482937.540412] [gpu4:2417:0]     ib_mlx5_log.c:139  UCX  ERROR Transport retry":     true,
		"ucp_context.c:1321 UCX  WARN  network device 'mlx5_0:1' is not available":                true,
		"[  12.345678] mlx5_core 0000:17:00.0: Port module event: module 0, Cable unplugged":      false,
		"[Sun Feb 23 16:24:18 2025] mlx5_core 0000:17:00.0 ens1f0: Link down":                     false,
		"[+0.000844] pcieport 0000:00:1c.0: AER: Corrected error received":                        false,
		// openucx/ucx#7586: the paste cut the line's opening "[".
		"b5244:224582:0:224582] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)": true,
		"0000:17:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]":                   false,
		"gpu1:1:1 [0] NCCL INFO NET/IB : No device found.":                                                                          false,
	} {
		if got := ucxHint(l); got != want {
			t.Errorf("ucxHint(%q) = %v, want %v", l, got, want)
		}
	}
}

// TestDmesgStamped: the kernel run's fast path takes dmesg's stamps only.
func TestDmesgStamped(t *testing.T) {
	for l, want := range map[string]bool{
		"[   12.345678] mlx5_core 0000:17:00.0: Port module event":      true,
		"[  +0.000844] pcieport 0000:00:1c.0: AER: Corrected error":     true,
		"[1234567.000001] NVRM: Xid (PCI:0000:3b:00): 79, pid=1":        true,
		"[1590482937.540412] [gpu4:2417:0] ib_mlx5_log.c:139 UCX ERROR": false,
		"[Sun Feb 23 16:24:18 2025] mlx5_core 0000:17:00.0: x":          false,
		// A CONFIG_PRINTK_CALLER kernel's caller id, alone or after the
		// stamp (realworld-fresh32 lore netdev igb AER sample).
		"[  T292] pcieport 0000:00:1c.5: AER: broadcast resume message": true,
		"[  200.105524][  T292] igb 0000:09:00.0: AER:   TLP Header":    true,
		"[  200.105524] [    C3] igb 0000:09:00.0: x":                   true,
		"[T292] igb 0000:09:00.0: x":                                    false,
		"[12.5] [x] y":                                                  false,
		"[12.]":                                                         false,
		"gpu1:1:1 [0] NCCL INFO x":                                      false,
	} {
		if got := dmesgStamped(l); got != want {
			t.Errorf("dmesgStamped(%q) = %v, want %v", l, got, want)
		}
	}
}

// TestNCCLFailureMembers: a program's report of a failed NCCL or CUDA call
// and an NCCL 2.0-2.3 WARN line are NCCL log lines, so that a paste of
// them alone, or between prose, is read as an NCCL log (realworld-fresh20
// magnate3 and bigscience pastes; realworld horovod98); a "CUDA error" in
// prose and an ordinary log line are not.
func TestNCCLFailureMembers(t *testing.T) {
	for l, want := range map[string]Kind{
		"Failed, NCCL error one_device_per_thread.cu:17 'invalid usage (run with NCCL_DEBUG=WARN for details)'":                                              KindNCCLLog,
		"Failed: Cuda error allreduce.cu:41 'out of memory'":                                                                                                 KindNCCLLog,
		"[default3]:  what():  CUDA error: unknown error":                                                                                                    KindNCCLLog,
		"RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch/work/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8": KindNCCLLog,
		"machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed":                                                                                  KindNCCLLog,
		"we saw a CUDA error: unknown error on the node":                                                                                                     KindUnknown,
		"Failed to start the job, see the error below":                                                                                                       KindUnknown,
		"WARN: the disk is full": KindUnknown,
	} {
		if got := memberBesides(l); got != want {
			t.Errorf("memberBesides(%q) = %q, want %q", l, got, want)
		}
	}
}
