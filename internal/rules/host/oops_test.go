package host

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// kmsg.kernel_oops: a kernel crash is critical wherever it happened (the
// host must be drained and rebooted); a memory checker's report is critical
// in a driver of an RDMA or GPU device, a warning elsewhere; WARN_ON splats are a warning in such a driver and not reported
// elsewhere. The mlx5 lines are from linux-rdma threads
// (testdata/realworld-fresh12 of the analyze package: "system hang on
// start-up (mlx5?)", "[BUG] mlx5_core general protection fault in
// mlx5_cmd_comp_handler") and linux-pci (testdata/realworld
// dmesg-linux-pci-yang-cx5-flr.txt).
func TestCheckOops(t *testing.T) {
	cx5Boot := []string{
		"[   10.354339] BUG: unable to handle page fault for address: ffffffff8ff0ade0",
		"[   10.379544] Oops: 0000 [#1] PREEMPT SMP PTI",
		"[   10.383721] CPU: 0 PID: 117 Comm: kworker/0:6 Not tainted 6.3.0-13028-g7222f123c983 #1",
		"[   10.403108] RIP: 0010:__bitmap_or+0x10/0x26",
		"[   10.502046] Call Trace:",
		"[   10.593987]  mlx5_irq_alloc+0x99/0x319 [mlx5_core]",
		"[   10.636824]  probe_one+0x2fa/0x3f6 [mlx5_core]",
		"[   10.641330]  local_pci_probe+0x47/0x8b",
		"[   10.700758] ---[ end trace 0000000000000000 ]---",
	}
	gpf := []string{
		"<30>[ 1246.308327] systemd-shutdown[1]: Rebooting.",
		"<4>[ 1246.608811] general protection fault, probably for non-canonical",
		"address 0xb028ffa964bb3e4b: 0000 [#1] SMP",
		"<4>[ 1246.615211] CPU: 95 PID: 5670 Comm: kworker/u256:6 Tainted: G",
		"<4>[ 1246.635401] Workqueue: mlx5_cmd_0000:4b:00.0 cmd_work_handler [mlx5_core]",
		"<4>[ 1246.642459] RIP: 0010:mlx5_cmd_comp_handler+0xda/0x490 [mlx5_core]",
		"<4>[ 1246.758289] Call Trace:",
		"<4>[ 1246.780267]  cmd_work_handler+0x270/0x5d0 [mlx5_core]",
	}
	warn := func(at, fn string) []string {
		return []string{
			"[  446.136648] WARNING: CPU: 37 PID: 4328 at " + at + " " + fn,
			"[  446.189868] CPU: 37 PID: 4328 Comm: bash Kdump: loaded Not tainted 5.16.0-pcie-iov+ #14",
			"[  446.295554] Call trace:",
			"[  446.297989]  ib_free_cq+0x16c/0x174",
			"[  446.301463]  mlx5_ib_destroy_gsi+0xac/0x110 [mlx5_ib]",
			"[  446.480000] ---[ end trace 29dab24e2e8b1b6a ]---",
		}
	}
	nvidia := []string{
		"[ 77.0] BUG: kernel NULL pointer dereference, address: 0000000000000010",
		"[ 77.0] CPU: 5 PID: 4242 Comm: python Tainted: P           OE     5.15.0-112-generic #122-Ubuntu",
		"[ 77.0] RIP: 0010:_nv012454rm+0x437/0x4b0 [nvidia]",
		"[ 77.0] Call Trace:",
		"[ 77.0]  rm_ioctl+0x63/0xb0 [nvidia]",
		"[ 77.0] ---[ end trace 0000000000000000 ]---",
	}
	ext4 := []string{
		"[ 9.0] BUG: kernel NULL pointer dereference, address: 0000000000000008",
		"[ 9.0] RIP: 0010:ext4_find_extent+0x21/0x3a0",
		"[ 9.0] Call Trace:",
		"[ 9.0]  ext4_ext_map_blocks+0x6f/0x1000",
		"[ 9.0] ---[ end trace 0000000000000000 ]---",
	}
	rxeRegMR := []string{
		"Nov  2 17:49:39 localhost kernel: ------------[ cut here ]------------",
		"Nov  2 17:49:39 localhost kernel: WARNING: CPU: 0 PID: 2613 at",
		"kernel/dma/mapping.c:188 dma_map_sg_attrs+0x37/0x50",
		"Nov  2 17:49:39 localhost kernel: CPU: 0 PID: 2613 Comm: rping Tainted: G        W         5.10.0-rc2+ #21",
		"Nov  2 17:49:39 localhost kernel: RIP: 0010:dma_map_sg_attrs+0x37/0x50",
		"Nov  2 17:49:39 localhost kernel: Call Trace:",
		"Nov  2 17:49:39 localhost kernel: ib_umem_get+0x343/0x3b0 [ib_uverbs]",
		"Nov  2 17:49:39 localhost kernel: rxe_mem_init_user+0x4a/0x1e0 [rdma_rxe]",
		"Nov  2 17:49:39 localhost kernel: rxe_reg_user_mr+0x8e/0x150 [rdma_rxe]",
		"Nov  2 17:49:39 localhost kernel: ib_uverbs_reg_mr+0x156/0x280 [ib_uverbs]",
		"Nov  2 17:49:40 localhost kernel: ---[ end trace 62d4cee803ba06f3 ]---",
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		log  []string
		want []string // severity: summary
	}{
		{"page fault under mlx5_core's probe", cx5Boot,
			[]string{"critical: kernel oops (page fault) in __bitmap_or, called from mlx5_core's mlx5_irq_alloc while the driver was probing its device, task kworker/0:6 (pid 117) in the kernel log: the RDMA driver mlx5_core crashed; its devices are unusable and the host may hang until it is rebooted"}},
		{"GPF in mlx5_core, device from its command workqueue", gpf,
			[]string{"critical: kernel oops (general protection fault) in mlx5_core's mlx5_cmd_comp_handler while the host was shutting down, task kworker/u256:6 (pid 5670), device 0000:4b:00.0 in the kernel log: the RDMA driver mlx5_core crashed; its devices are unusable and the host may hang until it is rebooted"}},
		{"the same crash twice: counted", cat(cx5Boot, cx5Boot),
			[]string{"critical: kernel oops (page fault) in __bitmap_or, called from mlx5_core's mlx5_irq_alloc while the driver was probing its device, task kworker/0:6 (pid 117), 2 times in the kernel log: the RDMA driver mlx5_core crashed; its devices are unusable and the host may hang until it is rebooted"}},
		{"NVIDIA driver", nvidia,
			[]string{"critical: kernel oops (NULL pointer dereference) in nvidia's _nv012454rm, task python (pid 4242) in the kernel log: the GPU driver nvidia crashed; its devices are unusable and the host may hang until it is rebooted"}},
		// analyze testdata/realworld-fresh39 dmesg-rxedev33-iser-logout-null-deref-ib-rxe.txt
		// (linux-rdma rxe-dev issue 33): the iSER initiator over Soft-RoCE at logout, the
		// faulting function on the old x86 "IP:" line, no trace in the paste.
		{"NULL dereference in the iSER initiator ib_iser: critical", []string{
			"[14904.750248] BUG: unable to handle kernel NULL pointer dereference at 0000000000000070",
			"[14904.751136] IP: [<ffffffffa06869ba>] iser_cq_tasklet_fn+0x6a/0x230 [ib_iser]",
			"[14904.751136] PGD 0 ",
			"[14904.751136] Oops: 0000 [#1] SMP DEBUG_PAGEALLOC ",
			"[14904.751136] CPU: 2 PID: 17142 Comm: iscsid Not tainted 4.0.0-rc4+ #13",
		}, []string{"critical: kernel oops (NULL pointer dereference) in ib_iser's iser_cq_tasklet_fn, task iscsid (pid 17142) in the kernel log: the RDMA driver ib_iser crashed; its devices are unusable and the host may hang until it is rebooted"}},
		// The frame layout of a Lustre client's LNet o2ib driver (lnet/klnds/o2iblnd).
		{"a crash under Lustre's ko2iblnd: critical", []string{
			"[ 50.0] BUG: kernel NULL pointer dereference, address: 0000000000000008",
			"[ 50.0] RIP: 0010:kiblnd_cq_completion+0x1c/0x90 [ko2iblnd]",
			"[ 50.0] Call Trace:",
			"[ 50.0]  __ib_process_cq+0x5d/0x150 [ib_core]",
			"[ 50.0] ---[ end trace 0000000000000000 ]---",
		}, []string{"critical: kernel oops (NULL pointer dereference) in ko2iblnd's kiblnd_cq_completion in the kernel log: the RDMA driver ko2iblnd crashed; its devices are unusable and the host may hang until it is rebooted"}},
		{"a crash outside the RDMA and GPU drivers: critical", ext4,
			[]string{"critical: kernel oops (NULL pointer dereference) in ext4_find_extent in the kernel log: the kernel crashed outside the RDMA and GPU drivers; the host is unstable until it is rebooted, so drain it"}},
		// analyze testdata/realworld-fresh52 dmesg-ksmbd529-smbdirect-ib-disconnects-then-null-deref-oops.txt
		// (ksmbd over SMB Direct on InfiniBand): the file server's worker crashed in the workqueue code.
		{"a NULL dereference in __queue_work under ksmbd: critical", []string{
			"[1731802.586344] BUG: kernel NULL pointer dereference, address: 0000000000000102",
			"[1731802.586403] #PF: supervisor read access in kernel mode",
			"[1731802.586491] Oops: 0000 [#1] SMP NOPTI",
			"[1731802.586519] CPU: 14 PID: 1189285 Comm: ksmbd:r5445 Tainted: P           O      5.12.19 #1",
			"[1731802.586615] RIP: 0010:__queue_work+0x1c/0x3c0",
		}, []string{"critical: kernel oops (NULL pointer dereference) in __queue_work, task ksmbd:r5445 (pid 1189285) in the kernel log: the kernel crashed outside the RDMA and GPU drivers; the host is unstable until it is rebooted, so drain it"}},
		{"kernel BUG at, in a filesystem: critical", []string{
			"[ 7.0] kernel BUG at fs/ext4/inode.c:2731!",
			"[ 7.0] invalid opcode: 0000 [#1] SMP PTI",
			"[ 7.0] RIP: 0010:ext4_writepages+0xd0f/0xe00",
		}, []string{"critical: kernel oops (kernel BUG at fs/ext4/inode.c:2731) in ext4_writepages in the kernel log: the kernel crashed outside the RDMA and GPU drivers; the host is unstable until it is rebooted, so drain it"}},
		{"WARN_ONs of one RDMA driver: one warning", cat(warn("drivers/infiniband/core/cq.c:345", "ib_free_cq+0x16c/0x174"),
			warn("include/rdma/ib_verbs.h:3688", "mlx5_ib_dev_res_cleanup+0xc4/0x150 [mlx5_ib]")),
			[]string{"warning: 2 kernel warnings (WARN_ON) in ib_free_cq, called from mlx5_ib's mlx5_ib_destroy_gsi; mlx5_ib's mlx5_ib_dev_res_cleanup, task bash (pid 4328) in the kernel log: a check in the RDMA driver mlx5_ib failed; it went on, but the device may be left in a bad state"}},
		// The hung task of a netdev patch mail (2021) in igb: not an RDMA or GPU driver.
		{"a hung task elsewhere: not reported", []string{
			"[  967.723577] INFO: task ip:6024 blocked for more than 120 seconds.",
			"[  967.723594] task:ip              state:D stack:    0 pid: 6024 ppid:  5957 flags:0x00004000",
			"[  967.723603] Call Trace:",
			"[  967.723657]  rtnl_lock+0x15/0x20",
			"[  967.723665]  igb_resume+0xee/0x1d0 [igb]",
		}, nil},
		// The same report, as a task waiting on an mlx5 firmware command would print it.
		{"a hung task in mlx5_core: warning", []string{
			"[  967.723577] INFO: task kworker/u98:2:6024 blocked for more than 120 seconds.",
			"[  967.723594] task:kworker/u98:2   state:D stack:    0 pid: 6024 ppid:     2 flags:0x00004000",
			"[  967.723603] Call Trace:",
			"[  967.723610]  __schedule+0x2de/0x890",
			"[  967.723665]  mlx5_cmd_invoke+0x1a3/0x4a0 [mlx5_core]",
			"[  967.723700]  mlx5_cmd_exec+0x1a/0x40 [mlx5_core]",
		}, []string{"warning: 1 hung task (blocked for minutes) in mlx5_core's mlx5_cmd_invoke, task kworker/u98:2 (pid 6024) in the kernel log: a task waited in the RDMA driver mlx5_core and did not come back (a firmware command or the device not answering); the device is likely stuck until the driver is reloaded or the host rebooted"}},
		// analyze testdata/realworld-fresh74 dmesg-linuxrdma-e810-irdma-hung-task-rdma_dev_change_netns.txt
		// (linux-rdma, 6.1.4 with irdma): a hung task in ib_core with linkwatch blocked behind it.
		{"a hung task in ib_core with another blocked behind it: critical", []string{
			"[  257.719496] INFO: task kworker/87:0:470 blocked for more than 122 seconds.",
			"[  257.740949] task:kworker/87:0    state:D stack:0     pid:470 ppid:2      flags:0x00004000",
			"[  257.749307] Workqueue: events linkwatch_event",
			"[  257.752000] Call Trace:",
			"[  257.769487]  __mutex_lock.constprop.0+0x372/0x6c0",
			"[  257.783007]  linkwatch_event+0xa/0x30",
			"[  257.812109] INFO: task kworker/39:1:614 blocked for more than 123 seconds.",
			"[  257.833519] task:kworker/39:1    state:D stack:0     pid:614 ppid:2      flags:0x00004000",
			"[  257.850252] Call Trace:",
			"[  257.863617]  __mutex_lock.constprop.0+0x372/0x6c0",
			"[  257.868325]  ib_get_eth_speed+0x65/0x190 [ib_core]",
			"[  257.883417]  irdma_query_port+0xb3/0x110 [irdma]",
		}, []string{"critical: 1 hung task (blocked for minutes) in ib_core's ib_get_eth_speed, task kworker/39:1 (pid 614) in the kernel log: a task waited in the RDMA driver ib_core and did not come back (a firmware command or the device not answering); the device is likely stuck until the driver is reloaded or the host rebooted; the log reports 2 hung tasks: the others are blocked behind the lock this one holds (rtnl, the RDMA core's devices lock, a workqueue), so network and RDMA configuration on the host hangs until it is rebooted"}},
		// Oracle Linux on Azure loading MLNX_OFED's mlx5_core, the paste
		// cut after the header (analyze testdata/realworld-fresh16): the
		// source file places it in devlink, which every mlx5 HCA registers with.
		{"a WARN_ON in devlink, cut after its header: warning", []string{
			"[53902.557426] ------------[ cut here ]------------",
			"[53902.558411] WARNING: CPU: 0 PID: 14451 at net/core/devlink.c:8047 devlink_alloc+0x37/0x1cc",
		}, []string{"warning: 1 kernel warning (WARN_ON) in devlink_alloc (net/core/devlink.c:8047) in the kernel log: a check in the RDMA NIC driver devlink failed; it went on, but the device may be left in a bad state"}},
		{"a WARN_ON in built-in mlx5 code, no module named: warning", []string{
			"[ 5.0] WARNING: CPU: 1 PID: 1 at drivers/net/ethernet/mellanox/mlx5/core/eswitch.c:1012 esw_vport_setup+0x5f/0x70",
		}, []string{"warning: 1 kernel warning (WARN_ON) in esw_vport_setup (drivers/net/ethernet/mellanox/mlx5/core/eswitch.c:1012) in the kernel log: a check in the RDMA driver mlx5_core failed; it went on, but the device may be left in a bad state"}},
		// netdev, "[net 01/10] net/mlx5e: Don't clone flow post action
		// attributes second time" (analyze testdata/realworld-fresh37).
		{"KASAN use-after-free in mlx5_core: critical", []string{
			"Feb 21 09:02:00 c-237-177-40-045 kernel: BUG: KASAN: use-after-free in mlx5_cmd_set_fte+0x200d/0x24c0 [mlx5_core]",
			"Feb 21 09:02:00 c-237-177-40-045 kernel:  kasan_report+0xbb/0x1a0",
			"Feb 21 09:02:00 c-237-177-40-045 kernel: page dumped because: kasan: bad access detected",
		}, []string{"critical: kernel memory-safety report (KASAN use-after-free) in mlx5_core's mlx5_cmd_set_fte in the kernel log: the kernel's memory checker caught the RDMA driver mlx5_core touching memory it does not own (a driver bug); kernel memory may be corrupted, so its devices and the host are unreliable until it is rebooted"}},
		// A memory checker's report outside the device drivers stays a warning:
		// the access was caught and the kernel went on.
		{"KFENCE elsewhere: warning", []string{
			"[ 8.0] BUG: KFENCE: use-after-free read in ext4_find_extent+0xb3/0x143",
			"[ 8.0] Call Trace:",
			"[ 8.0]  ext4_ext_map_blocks+0x6f/0x1000",
			"[ 8.0] ---[ end trace 0000000000000000 ]---",
		}, []string{"warning: kernel memory-safety report (KFENCE use-after-free read) in ext4_find_extent in the kernel log: the kernel's memory checker caught a bad access outside the RDMA and GPU drivers (a kernel bug) and the kernel went on; kernel memory may be corrupted, so reboot the host once its jobs end"}},
		// ksmbd's SMB Direct module unload (analyze testdata/realworld-fresh68):
		// refcount_warn_saturate's WARN_ON after "underflow; use-after-free"
		// is a use-after-free bug, reported wherever it is; its saturation
		// ("leaking memory") is a plain WARN_ON.
		{"refcount_t underflow elsewhere: warning", []string{
			"[  960.663271] ------------[ cut here ]------------",
			"[  960.663280] refcount_t: underflow; use-after-free.",
			"[  960.663297] WARNING: CPU: 11 PID: 10680 at lib/refcount.c:28 refcount_warn_saturate+0xe2/0xf0",
		}, []string{"warning: kernel memory-safety report (refcount_t underflow; use-after-free) in the kernel log: the kernel's refcount_t check caught an object's reference count dropped below zero or taken from zero (lib/refcount.c: a reference put once too often or taken on a freed object, a kernel bug) and the kernel went on; the object may be freed while still in use, so kernel memory may be corrupted: reboot the host once its jobs end, and find the module from the call trace (the frames after refcount_warn_saturate)"}},
		{"refcount_t saturated elsewhere: not reported", []string{
			"[  960.663280] refcount_t: saturated; leaking memory.",
			"[  960.663297] WARNING: CPU: 11 PID: 10680 at lib/refcount.c:22 refcount_warn_saturate+0xe2/0xf0",
		}, nil},
		{"UBSAN in mlx5_ib's source: warning", []string{
			"[ 12.0] UBSAN: array-index-out-of-bounds in drivers/infiniband/hw/mlx5/qp.c:4123:20",
			"[ 12.0] index 1 is out of range for type 'u32 [1]'",
		}, []string{"warning: 1 undefined-behaviour report (UBSAN array-index-out-of-bounds) in drivers/infiniband/hw/mlx5/qp.c:4123:20 in the kernel log: the kernel's undefined-behaviour checker flagged code of the RDMA driver mlx5_ib; it went on, often harmlessly (an index past a one-element array used as a flexible array), but an index or shift out of range can corrupt memory: report it to the driver's maintainers"}},
		{"UBSAN elsewhere: not reported", []string{
			"[ 12.0] UBSAN: shift-out-of-bounds in fs/ext4/super.c:4100:25",
			"[ 12.0] Call Trace:",
			"[ 12.0]  ext4_fill_super+0x6f/0x1000",
		}, nil},
		// linux-rdma, iSER over siw (analyze testdata/realworld-fresh64):
		// the WARN_ON in siw's send path, then iSER's QP event and the
		// iSCSI connection dropping: critical.
		{"WARN_ON in siw then a QP request error: critical", []string{
			"[ 2157.532917] WARNING: CPU: 0 PID: 5342 at net/core/skbuff.c:7140 skb_splice_from_iter+0x173/0x320",
			"[ 2157.533064] Call Trace:",
			"[ 2157.533101]  tcp_sendmsg_locked+0x368/0xe40",
			"[ 2157.533111]  siw_tx_hdt+0x695/0xa40 [siw]",
			"[ 2157.533269]  ret_from_fork_asm+0x1a/0x30",
			"[ 2157.533301] iser: iser_qp_event_callback: qp event QP request error (2)",
			"[ 2157.533348]  connection26:0: detected conn error (1011)",
		}, []string{"critical: 1 kernel warning (WARN_ON) in skb_splice_from_iter, called from siw's siw_tx_hdt in the kernel log: a check in the RDMA driver siw failed; it went on, but the device may be left in a bad state; then an RDMA queue pair or the connection over it failed (\"iser: iser_qp_event_callback: qp event QP request error (2)\"): the warning was no harmless check, the transfers over the driver broke"}},
		{"a QP event of no error after a WARN_ON: warning", []string{
			"[ 2157.532917] WARNING: CPU: 0 PID: 5342 at net/core/skbuff.c:7140 skb_splice_from_iter+0x173/0x320",
			"[ 2157.533064] Call Trace:",
			"[ 2157.533111]  siw_tx_hdt+0x695/0xa40 [siw]",
			"[ 2157.533301] iser: iser_qp_event_callback: qp event communication established (1)",
		}, []string{"warning: 1 kernel warning (WARN_ON) in skb_splice_from_iter, called from siw's siw_tx_hdt in the kernel log: a check in the RDMA driver siw failed; it went on, but the device may be left in a bad state"}},
		// linux-rdma (analyze testdata/realworld-fresh66): Bugzilla 216561,
		// rdmavt's WARN() at boot, the report wrapped by the mail; the
		// driver went on and nothing failed after it.
		{"WARN() in rdmavt with its message: warning", []string{
			"[   25.091609] ------------[ cut here ]------------",
			"[   25.096234] memcpy: detected field-spanning write (size 80) of single field \"&wqe->wr\" at drivers/infiniband/sw/rdmavt/qp.c:2043 (size 40)",
			"[   25.108705] WARNING: CPU: 1 PID: 1618 at",
			"drivers/infiniband/sw/rdmavt/qp.c:2043 rvt_post_one_wr+0x4e3/0x6d0 [rdmavt]",
			"[   25.214243] CPU: 1 PID: 1618 Comm: kworker/u101:1 Tainted: G          I",
			"[   25.260085] Call Trace:",
			"[   25.260089]  rvt_post_send+0xa9/0x150 [rdmavt]",
			"[   25.413820] ---[ end trace 0000000000000000 ]---",
		}, []string{"warning: 1 kernel warning (WARN_ON) in rdmavt's rvt_post_one_wr (\"memcpy: detected field-spanning write (size 80) of single field \"&wqe->wr\" at drivers/infiniband/sw/rdmavt/qp.c:2043 (size 40)\"), task kworker/u101:1 (pid 1618) in the kernel log: a check in the RDMA driver rdmavt failed; it went on, but the device may be left in a bad state"}},
		// linux-rdma, "Re: rping over Soft-RoCE fails on 5.10-rc2" (analyze
		// testdata/realworld-fresh66): the WARN in the DMA mapping of a
		// memory registration, then rxe's error for that call: rping's
		// reg_mr failed.
		{"WARN_ON in a verb, then an error of a driver in its trace: critical", append(slices.Clone(rxeRegMR),
			"Nov  2 17:49:40 localhost kernel: rdma_rxe: err -12 from rxe_umem_get"),
			[]string{"critical: 1 kernel warning (WARN_ON) in dma_map_sg_attrs, called from ib_uverbs's ib_umem_get, task rping (pid 2613) in the kernel log: a check in the RDMA driver ib_uverbs failed; it went on, but the device may be left in a bad state; right after it rdma_rxe, which the warning's call trace runs through, logged an error (\"rdma_rxe: err -12 from rxe_umem_get\"): the call the warning was in failed and returned the error to task rping (pid 2613), so the warning was no harmless check"}},
		{"the driver's error a minute later: warning", append(slices.Clone(rxeRegMR),
			"Nov  2 17:50:40 localhost kernel: rdma_rxe: err -12 from rxe_umem_get"),
			[]string{"warning: 1 kernel warning (WARN_ON) in dma_map_sg_attrs, called from ib_uverbs's ib_umem_get, task rping (pid 2613) in the kernel log: a check in the RDMA driver ib_uverbs failed; it went on, but the device may be left in a bad state"}},
		{"an error of a driver outside the trace: warning", append(slices.Clone(rxeRegMR),
			"Nov  2 17:49:40 localhost kernel: bnxt_re 0000:19:00.0: Failed to allocate HW context"),
			[]string{"warning: 1 kernel warning (WARN_ON) in dma_map_sg_attrs, called from ib_uverbs's ib_umem_get, task rping (pid 2613) in the kernel log: a check in the RDMA driver ib_uverbs failed; it went on, but the device may be left in a bad state"}},
		{"a WARN_ON in built-in rxe code, no module named: warning", []string{
			"[ 5.0] WARNING: CPU: 1 PID: 1 at drivers/infiniband/sw/rxe/rxe_mr.c:100 rxe_mr_init+0x5f/0x70",
		}, []string{"warning: 1 kernel warning (WARN_ON) in rxe_mr_init (drivers/infiniband/sw/rxe/rxe_mr.c:100) in the kernel log: a check in the RDMA driver rdma_rxe failed; it went on, but the device may be left in a bad state"}},
		{"a WARN_ON elsewhere: not reported", []string{
			"[ 5.0] WARNING: CPU: 1 PID: 1 at fs/sysfs/dir.c:31 sysfs_warn_dup+0x5f/0x70",
			"[ 5.0] Call Trace:",
			"[ 5.0]  sysfs_create_dir_ns+0xb3/0xc0",
			"[ 5.0] ---[ end trace 0000000000000000 ]---",
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range checkOops(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.log...)}) {
				if f.ID != "kmsg.kernel_oops" {
					t.Errorf("ID %s", f.ID)
				}
				got = append(got, string(f.Severity)+": "+f.Summary)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestFoldedOopsCount: a streamed log folds the crash reports past the
// evidence into one event that still counts them.
func TestFoldedOopsCount(t *testing.T) {
	f := NewKernelFolder()
	e := kmsg.Event{Kind: kmsg.KindOops, IsError: true, Detail: "page fault", Func: "__bitmap_or", Driver: "mlx5_core", DriverFunc: "mlx5_irq_alloc"}
	for i := range 10 {
		e.Record = kmsg.Record{Line: i + 1, Text: "BUG: unable to handle page fault for address: ffffffff8ff0ade0"}
		f.Add(e)
	}
	fs := CheckPastedKernelEvents("dmesg.txt", f.Events())
	if len(fs) != 1 || !strings.Contains(fs[0].Summary, "10 times") || len(fs[0].Evidence) != maxEvidence {
		t.Fatalf("%+v", fs)
	}
}
