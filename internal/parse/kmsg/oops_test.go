package kmsg

import (
	"fmt"
	"strings"
	"testing"
)

// Lines of real crash reports (testdata/realworld-fresh12 of the analyze
// package): a ConnectX-5 page fault at boot (linux-rdma, "Re: system hang
// on start-up (mlx5?)", 2023-05-04) and an mlx5 general protection fault
// at shutdown (linux-rdma, "[BUG] mlx5_core general protection fault in
// mlx5_cmd_comp_handler", 2022-10-12); a WARN_ON of mlx5_ib on arm64
// (linux-pci, testdata/realworld dmesg-linux-pci-yang-cx5-flr.txt).
var (
	cx5BootOops = []string{
		"[   10.344324] mlx5_core 0000:02:00.0: mlx5_pcie_event:301:(pid 88): PCIe slot advertised sufficient power (27W).",
		"[   10.354339] BUG: unable to handle page fault for address: ffffffff8ff0ade0",
		"[   10.361206] #PF: supervisor read access in kernel mode",
		"[   10.379544] Oops: 0000 [#1] PREEMPT SMP PTI",
		"[   10.383721] CPU: 0 PID: 117 Comm: kworker/0:6 Not tainted 6.3.0-13028-g7222f123c983 #1",
		"[   10.398750] Workqueue: events work_for_cpu_fn",
		"[   10.403108] RIP: 0010:__bitmap_or+0x10/0x26",
		"[   10.426024] RSP: 0000:ffffb45a0078f7b0 EFLAGS: 00010097",
		"[   10.502046] Call Trace:",
		"[   10.504493]  <TASK>",
		"[   10.506589]  ? matrix_alloc_area.constprop.0+0x43/0x9a",
		"[   10.515914]  irq_matrix_reserve_managed+0x56/0x10c",
		"[   10.589711]  pci_msix_alloc_irq_at+0x47/0x5c",
		"[   10.593987]  mlx5_irq_alloc+0x99/0x319 [mlx5_core]",
		"[   10.598881]  ? xa_load+0x5e/0x68",
		"[   10.627549]  mlx5_load+0xb1/0x33e [mlx5_core]",
		"[   10.636824]  probe_one+0x2fa/0x3f6 [mlx5_core]",
		"[   10.641330]  local_pci_probe+0x47/0x8b",
		"[   10.675824]  </TASK>",
		"[   10.678007] Modules linked in: mlx5_core(+) ast drm_kms_helper crct10dif_pclmul",
		"[   10.697447] CR2: ffffffff8ff0ade0",
		"[   10.700758] ---[ end trace 0000000000000000 ]---",
		"[   10.712838] RIP: 0010:__bitmap_or+0x10/0x26",
		"[   10.811775] note: kworker/0:6[117] exited with irqs disabled",
	}
	mlx5ShutdownGPF = []string{
		"<6>[ 1246.608371] mlx5_core 0000:4b:00.0: Shutdown was called",
		"<4>[ 1246.608811] general protection fault, probably for non-canonical",
		"address 0xb028ffa964bb3e4b: 0000 [#1] SMP",
		"<4>[ 1246.615211] CPU: 95 PID: 5670 Comm: kworker/u256:6 Tainted: G",
		"<4>[ 1246.635401] Workqueue: mlx5_cmd_0000:4b:00.0 cmd_work_handler [mlx5_core]",
		"<4>[ 1246.642459] RIP: 0010:mlx5_cmd_comp_handler+0xda/0x490 [mlx5_core]",
		"<4>[ 1246.672167] RAX: ff25be460afc4580 RBX: ff25be460d196180 RCX:",
		"<4>[ 1246.758289] Call Trace:",
		"<4>[ 1246.765755]  <TASK>",
		"<4>[ 1246.772997]  ? dump_command+0x159/0x3d0 [mlx5_core]",
		"<4>[ 1246.780267]  cmd_work_handler+0x270/0x5d0 [mlx5_core]",
		"<4>[ 1246.787576]  process_one_work+0x1d6/0x370",
		"<4>[ 1246.823051]  ret_from_fork+0x1f/0x30",
		"<4>[ 1246.830076]  </TASK>",
	}
	mlx5IBWarn = []string{
		"[  446.132028] ------------[ cut here ]------------",
		"[  446.136629] Destroy of kernel CQ shouldn't fail",
		"[  446.136648] WARNING: CPU: 37 PID: 4328 at drivers/infiniband/core/cq.c:345 ib_free_cq+0x16c/0x174",
		"[  446.189868] CPU: 37 PID: 4328 Comm: bash Kdump: loaded Not tainted 5.16.0-pcie-iov+ #14",
		"[  446.213591] pc : ib_free_cq+0x16c/0x174",
		"[  446.295554] Call trace:",
		"[  446.297989]  ib_free_cq+0x16c/0x174",
		"[  446.301463]  mlx5_ib_destroy_gsi+0xac/0x110 [mlx5_ib]",
		"[  446.306507]  mlx5_ib_destroy_qp+0x64/0x70 [mlx5_ib]",
		"[  446.480000] ---[ end trace 29dab24e2e8b1b6a ]---",
	}
)

// oopsSummary is what a test compares of a KindOops event.
func oopsSummary(e Event) string {
	s := fmt.Sprintf("line %d %s crash=%v func=%s driver=%s/%s task=%s/%s pci=%s",
		e.Record.Line, e.Detail, e.IsError, e.Func, e.Driver, e.DriverFunc, e.Task, e.TaskPID, e.PCI)
	if e.Phase != "" {
		s += " phase=" + e.Phase
	}
	if e.Source != "" {
		s += " src=" + e.Source
	}
	return s
}

// TestOopsEvents: a crash report gives one KindOops event naming the
// faulting function, the first module of its trace and the task, when
// it ends (end marker, next report, the first line after the trace, the
// end of the log); user-space faults, stack dumps without a crash header
// and a lone "RIP:" line give none.
func TestOopsEvents(t *testing.T) {
	join := func(parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return strings.Join(all, "\n") + "\n"
	}
	for _, tt := range []struct {
		name string
		log  string
		want []string
	}{
		{"ConnectX-5 page fault at boot: the module of the first sure frame", join(cx5BootOops),
			[]string{"line 2 page fault crash=true func=__bitmap_or driver=mlx5_core/mlx5_irq_alloc task=kworker/0:6/117 pci= phase=probe"}},
		{"GPF in mlx5_core at shutdown, wrapped by the mail, log ends in the trace", join(mlx5ShutdownGPF),
			[]string{"line 2 general protection fault crash=true func=mlx5_cmd_comp_handler driver=mlx5_core/mlx5_cmd_comp_handler task=kworker/u256:6/5670 pci=0000:4b:00.0 phase=shutdown"}},
		{"WARN_ON of ib_core called from mlx5_ib (arm64)", join(mlx5IBWarn),
			[]string{"line 3 WARNING crash=false func=ib_free_cq driver=mlx5_ib/mlx5_ib_destroy_gsi task=bash/4328 pci= src=drivers/infiniband/core/cq.c:345"}},
		{"two reports: the second ends the first", join(mlx5IBWarn[2:9], cx5BootOops[1:]),
			[]string{"line 1 WARNING crash=false func=ib_free_cq driver=mlx5_ib/mlx5_ib_destroy_gsi task=bash/4328 pci= src=drivers/infiniband/core/cq.c:345",
				"line 8 page fault crash=true func=__bitmap_or driver=mlx5_core/mlx5_irq_alloc task=kworker/0:6/117 pci= phase=probe"}},
		{"a trace ends at the second line after it that is no frame", join(mlx5ShutdownGPF[1:], []string{
			"[ 1247.0] mlx5_core 0000:4b:00.1: Shutdown was called", "[ 1247.1] reboot: Restarting system",
			"[ 1247.2]  mlx4_foo+0x1/0x2 [mlx4_core]"}),
			[]string{"line 1 general protection fault crash=true func=mlx5_cmd_comp_handler driver=mlx5_core/mlx5_cmd_comp_handler task=kworker/u256:6/5670 pci=0000:4b:00.0"}},
		// Older x86 kernels: "[<addr>]" before each frame, the RIP line with two addresses, "kernel BUG at" then "invalid opcode".
		{"kernel BUG at, old x86 format", join([]string{
			"[ 5.1] kernel BUG at drivers/infiniband/core/cma.c:1234!",
			"[ 5.1] invalid opcode: 0000 [#1] SMP",
			"[ 5.1] CPU: 3 PID: 812 Comm: kworker/3:1 Tainted: G           OE   4.4.0-101-generic #124",
			"[ 5.1] RIP: 0010:[<ffffffffc04a1234>]  [<ffffffffc04a1234>] cma_comp_exch+0x64/0x70 [rdma_cm]",
			"[ 5.1] Call Trace:",
			"[ 5.1]  [<ffffffffc04a5678>] cma_work_handler+0x3a/0xb0 [rdma_cm]",
			"[ 5.1]  [<ffffffff8109a0e5>] process_one_work+0x165/0x480",
			"[ 5.1] Code: 48 8b 43 08 <0f> 0b",
			"[ 5.1] RIP  [<ffffffffc04a1234>] cma_comp_exch+0x64/0x70 [rdma_cm]",
			"[ 5.1] ---[ end trace 5a1b2c3d4e5f6a7b ]---",
		}), []string{"line 1 kernel BUG at drivers/infiniband/core/cma.c:1234 crash=true func=cma_comp_exch driver=rdma_cm/cma_comp_exch task=kworker/3:1/812 pci="}},
		// testdata/realworld-fresh39 dmesg-rxedev33-iser-logout-null-deref-ib-rxe.txt (linux-rdma
		// rxe-dev issue 33): a 4.0 kernel names the faulting function and module on the
		// "IP:" line under the header, and the paste ends before any register or trace.
		{"old x86 IP: line under the header, report cut before its trace", join([]string{
			"[14904.748106] iser: iser_conn_terminate: conn ffff8807c021a000 failed to post beacon",
			"[14904.750248] BUG: unable to handle kernel NULL pointer dereference at 0000000000000070",
			"[14904.751136] IP: [<ffffffffa06869ba>] iser_cq_tasklet_fn+0x6a/0x230 [ib_iser]",
			"[14904.751136] PGD 0 ",
			"[14904.751136] Oops: 0000 [#1] SMP DEBUG_PAGEALLOC ",
			"[14904.751136] Modules linked in: sd_mod ib_iser libiscsi scsi_transport_iscsi ib_rxe rdma_ucm rdma_cm ib_core",
			"[14904.751136] CPU: 2 PID: 17142 Comm: iscsid Not tainted 4.0.0-rc4+ #13",
		}), []string{"line 2 NULL pointer dereference crash=true func=iser_cq_tasklet_fn driver=ib_iser/iser_cq_tasklet_fn task=iscsid/17142 pci="}},
		{"an IP: line that is no faulting instruction", join([]string{
			"[ 1.0] BUG: unable to handle kernel NULL pointer dereference at 0000000000000070",
			"[ 1.0] IP: 10.0.0.1 netmask 255.255.255.0",
			"[ 1.0] CPU: 2 PID: 17142 Comm: iscsid Not tainted 4.0.0-rc4+ #13",
		}), []string{"line 1 NULL pointer dereference crash=true func= driver=/ task=iscsid/17142 pci="}},
		{"WARN_ON in a module: its own function, not a frame's", join([]string{
			"[  447.355712] WARNING: CPU: 37 PID: 4328 at include/rdma/ib_verbs.h:3688 mlx5_ib_dev_res_cleanup+0xc4/0x150 [mlx5_ib]",
			"[  447.5] Call trace:",
			"[  447.523888]  mlx5_ib_dev_res_cleanup+0xc4/0x150 [mlx5_ib]",
			"[  447.529270]  mlx5r_remove+0x54/0x80 [mlx5_ib]",
		}), []string{"line 1 WARNING crash=false func=mlx5_ib_dev_res_cleanup driver=mlx5_ib/mlx5_ib_dev_res_cleanup task=/4328 pci= phase=removal src=include/rdma/ib_verbs.h:3688"}},
		// A paste cut right after the splat's header (Oracle Linux 8.5 on
		// Azure with MLNX_OFED, realworld-fresh16): the source file is all
		// that places it.
		{"WARN_ON header alone, cut", join([]string{
			"[53902.557426] ------------[ cut here ]------------",
			"[53902.558411] WARNING: CPU: 0 PID: 14451 at net/core/devlink.c:8047 devlink_alloc+0x37/0x1cc",
		}), []string{"line 2 WARNING crash=false func=devlink_alloc driver=/ task=/14451 pci= src=net/core/devlink.c:8047"}},
		{"a crash in built-in code: no driver", join([]string{
			"[ 9.0] BUG: kernel NULL pointer dereference, address: 0000000000000008",
			"[ 9.0] RIP: 0010:ext4_find_extent+0x21/0x3a0",
			"[ 9.0] Call Trace:",
			"[ 9.0]  ext4_ext_map_blocks+0x6f/0x1000",
			"[ 9.0] ---[ end trace 0000000000000000 ]---",
		}), []string{"line 1 NULL pointer dereference crash=true func=ext4_find_extent driver=/ task=/ pci="}},
		{"only '?' frames name a module: taken until a sure one does", join([]string{
			"[ 9.0] general protection fault: 0000 [#1] SMP NOPTI",
			"[ 9.0] RIP: 0010:kfree+0x5c/0x170",
			"[ 9.0] Call Trace:",
			"[ 9.0]  ? ib_uverbs_close+0x20/0x90 [ib_uverbs]",
			"[ 9.0]  __fput+0x96/0x250",
		}), []string{"line 1 general protection fault crash=true func=kfree driver=ib_uverbs/ib_uverbs_close task=/ pci="}},
		// netdev, "[PATCH] net: called rtnl_unlock() before runpm resumes devices" (2021): a hung task in igb.
		{"hung task: the task of its header, the module of its trace", join([]string{
			"[  967.723577] INFO: task ip:6024 blocked for more than 120 seconds.",
			"[  967.723588]       Not tainted 5.12.0-rc3+ #1",
			"[  967.723592] \"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
			"[  967.723594] task:ip              state:D stack:    0 pid: 6024 ppid:  5957 flags:0x00004000",
			"[  967.723603] Call Trace:",
			"[  967.723610]  __schedule+0x2de/0x890",
			"[  967.723657]  rtnl_lock+0x15/0x20",
			"[  967.723665]  igb_resume+0xee/0x1d0 [igb]",
			"[  967.723687]  ? pci_pm_default_resume+0x30/0x30",
		}), []string{"line 1 hung task crash=false func= driver=igb/igb_resume task=ip/6024 pci="}},
		{"soft lockup", join([]string{
			"[ 2000.1] watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [kworker/12:1:456]",
			"[ 2000.1] CPU: 12 PID: 456 Comm: kworker/12:1 Tainted: G           OE     5.15.0-91-generic #101-Ubuntu",
			"[ 2000.1] RIP: 0010:mlx5_cmd_exec_cb+0x40/0x90 [mlx5_core]",
			"[ 2000.1] Call Trace:",
			"[ 2000.1]  <IRQ>",
			"[ 2000.1]  mlx5_eq_comp_int+0x9f/0x1c0 [mlx5_core]",
		}), []string{"line 1 soft lockup crash=false func=mlx5_cmd_exec_cb driver=mlx5_core/mlx5_cmd_exec_cb task=kworker/12:1/456 pci="}},
		// netdev, "[net 01/10] net/mlx5e: Don't clone flow post action
		// attributes second time" (2023, analyze testdata/realworld-fresh37
		// dmesg-netdev-mlx5e-kasan-uaf-post-act.txt): a KASAN report, the
		// function and module on its header, ended by the allocation stack.
		{"KASAN use-after-free in mlx5_core", join([]string{
			"Feb 21 09:02:00 c-237-177-40-045 kernel: BUG: KASAN: use-after-free in mlx5_cmd_set_fte+0x200d/0x24c0 [mlx5_core]",
			"Feb 21 09:02:00 c-237-177-40-045 kernel: page dumped because: kasan: bad access detected",
			"Feb 21 09:02:00 c-237-177-40-045 kernel: Call Trace:",
			"Feb 21 09:02:00 c-237-177-40-045 kernel:  <TASK>",
			"Feb 21 09:02:00 c-237-177-40-045 kernel:  dump_stack_lvl+0x57/0x7d",
			"Feb 21 09:02:00 c-237-177-40-045 kernel:  kasan_report+0xbb/0x1a0",
			"Feb 21 09:02:00 c-237-177-40-045 kernel:  mlx5_cmd_set_fte+0x200d/0x24c0 [mlx5_core]",
			"Feb 21 09:02:00 c-237-177-40-045 kernel:  mlx5_cmd_create_fte+0x80/0xb0 [mlx5_core]",
			"Feb 21 09:02:00 c-237-177-40-045 kernel: Allocated by task 13476:",
			"Feb 21 09:02:00 c-237-177-40-045 kernel:  kasan_save_stack+0x1e/0x40",
			"Feb 21 09:02:00 c-237-177-40-045 kernel:  mlx5_packet_reformat_alloc+0x7b/0x230 [mlx5_core]",
		}), []string{"line 1 KASAN use-after-free crash=true func=mlx5_cmd_set_fte driver=mlx5_core/mlx5_cmd_set_fte task=/ pci="}},
		// Older KASAN header (before Linux 4.12: " at addr" on it) in
		// built-in code: the module of the first sure frame.
		{"KASAN slab-out-of-bounds, old header, module from the trace", join([]string{
			"[ 30.1] BUG: KASAN: slab-out-of-bounds in memcpy+0x1d/0x40 at addr ffff880069437950",
			"[ 30.1] Read of size 8 by task kworker/3:1/812",
			"[ 30.1] Call Trace:",
			"[ 30.1]  kasan_report+0x5b/0x70",
			"[ 30.1]  ib_umem_get+0x1b2/0x400 [ib_core]",
			"[ 30.1] ---[ end trace 0000000000000000 ]---",
		}), []string{"line 1 KASAN slab-out-of-bounds crash=true func=memcpy driver=ib_core/ib_umem_get task=/ pci="}},
		// A KASAN header whose function a mail or forum editor wrapped to
		// the next line, without its timestamp (linux-rdma, "rdma_rxe:
		// qp#17 moved to error state" during NVMe-oF, analyze testdata
		// realworld-fresh59): the function and module are on that line.
		{"KASAN header wrapped before its function", join([]string{
			"[    7.345365] rdma_rxe: qp#17 moved to error state",
			"==================================================================",
			"[   8.861048] BUG: KASAN: stack-out-of-bounds in",
			"rxe_post_send+0x12f3/0x1880 [rdma_rxe] at addr ffff88001f787838",
			"which will flows to the infiniband driver code.that is",
		}), []string{"line 3 KASAN stack-out-of-bounds crash=true func=rxe_post_send driver=rdma_rxe/rxe_post_send task=/ pci="}},
		// Documentation/dev-tools/kfence.rst, its use-after-free example.
		{"KFENCE use-after-free read", join([]string{
			"[ 8.0] BUG: KFENCE: use-after-free read in test_use_after_free_read+0xb3/0x143",
			"[ 8.0] Use-after-free read at 0xffffffffb673dfe0 (in kfence-#24):",
			"[ 8.0]  test_use_after_free_read+0xb3/0x143",
		}), []string{"line 1 KFENCE use-after-free read crash=true func=test_use_after_free_read driver=/ task=/ pci="}},
		// lib/ubsan.c ubsan_prologue's header and out-of-bounds line, in mlx5_core's source.
		{"UBSAN array index out of bounds: a warning, the module from the trace", join([]string{
			"[ 12.0] UBSAN: array-index-out-of-bounds in drivers/net/ethernet/mellanox/mlx5/core/en_main.c:2345:17",
			"[ 12.0] index 1 is out of range for type 'struct mlx5_wqe_data_seg [1]'",
			"[ 12.0] CPU: 2 PID: 900 Comm: kworker/2:1 Not tainted 6.5.0 #1",
			"[ 12.0] Call Trace:",
			"[ 12.0]  <TASK>",
			"[ 12.0]  __ubsan_handle_out_of_bounds+0xc6/0x110",
			"[ 12.0]  mlx5e_build_rq_param+0x2f1/0x340 [mlx5_core]",
			"[ 12.0]  </TASK>",
			"[ 12.0] ================================================================================",
		}), []string{"line 1 UBSAN array-index-out-of-bounds crash=false func= driver=mlx5_core/mlx5e_build_rq_param task=kworker/2:1/900 pci= src=drivers/net/ethernet/mellanox/mlx5/core/en_main.c:2345:17"}},
		{"KASAN and UBSAN words that are no report header", join([]string{
			"[ 1.0] BUG: KASAN: in progress",
			"[ 1.0] kasan: KernelAddressSanitizer initialized",
			"[ 1.0] UBSAN: reports are on",
		}), nil},
		{"user-space general protection fault: KindCrash, not an oops", join([]string{
			"[ 10.0] traps: ucx_perftest[99] general protection fault ip:7f0c3a2b1c40 sp:7ffd5a1e2f10 error:0 in libuct_ib.so.0.0.0[7f0c3a290000+16000]",
		}), nil},
		// gpud testdata (testdata/realworld dmesg-gpud-testdata-xid119.txt): the NVIDIA driver dumps its stack on purpose.
		{"a stack dump without a crash header", join([]string{
			"[Sun Feb 23 16:24:18 2025] CPU: 17 PID: 2024380 Comm: nvidia-smi Tainted: P           OE     5.15.0-112-generic #122-Ubuntu",
			"[Sun Feb 23 16:24:18 2025] Call Trace:",
			"[Sun Feb 23 16:24:18 2025]  <TASK>",
			"[Sun Feb 23 16:24:18 2025]  os_dump_stack+0xe/0x14 [nvidia]",
			"[Sun Feb 23 16:24:18 2025]  </TASK>",
		}), nil},
		{"a lone RIP line, a BUG that is no crash", join([]string{
			"[ 10.712838] RIP: 0010:__bitmap_or+0x10/0x26",
			"[ 87.412596] BUG: Bad rss-counter state mm:(____ptrval____) idx:0 val:-1",
		}), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.log), "dmesg", TextOptions{Year: 2024})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range Events(l.Records) {
				if e.Kind == KindOops {
					got = append(got, oopsSummary(e))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestOopsWithOtherEvents: the record that ends a report (the second after
// its trace that is no frame) keeps its own event, after the report's.
func TestOopsWithOtherEvents(t *testing.T) {
	log := strings.Join(append(mlx5ShutdownGPF[1:], "<4>[ 1246.9] Modules linked in: mlx5_ib mlx5_core", "<4>[ 1247.0] mlx5_core 0000:4b:00.0 ens1f0np0: Link down"), "\n")
	l, err := ParseText(strings.NewReader(log), "dmesg", TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range Events(l.Records) {
		kinds = append(kinds, fmt.Sprintf("%s@%d", e.Kind, e.Record.Line))
	}
	if got, want := strings.Join(kinds, " "), "oops@1 link@15"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// TestOopsPartKeepsReports: a reader that keeps only the records OopsPart
// names (the agent) reads the same reports as one that keeps them all;
// the register dump, hex and plain driver lines are not kept.
func TestOopsPartKeepsReports(t *testing.T) {
	log := strings.Join(append(append(append([]string{}, cx5BootOops...), mlx5IBWarn...), append([]string{"<30>[ 1246.308327] systemd-shutdown[1]: Rebooting."}, mlx5ShutdownGPF...)...), "\n")
	l, err := ParseText(strings.NewReader(log), "dmesg", TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []Record
	for _, r := range l.Records {
		if OopsPart(r.Text) {
			kept = append(kept, r)
		}
	}
	var all, some []string
	for _, e := range Events(l.Records) {
		if e.Kind == KindOops {
			all = append(all, oopsSummary(e))
		}
	}
	for _, e := range Events(kept) {
		if e.Kind == KindOops {
			some = append(some, oopsSummary(e))
		}
	}
	if len(all) != 3 || strings.Join(all, "\n") != strings.Join(some, "\n") {
		t.Errorf("all records\n%s\nthose OopsPart keeps\n%s", strings.Join(all, "\n"), strings.Join(some, "\n"))
	}
	for _, text := range []string{"RAX: 0000000000000000 RBX: ffffffff8ff0adc0 RCX: 0000000000000004", "mlx5_core 0000:02:00.0: firmware version: 16.35.2000", " ? xa_load+0x5e/0x68", "#PF: supervisor read access in kernel mode"} {
		if OopsPart(text) {
			t.Errorf("OopsPart(%q)", text)
		}
	}
	// The faulting instruction of older x86 page faults (arch/x86/mm/fault.c show_fault_oops).
	if text := "IP: [<ffffffffa06869ba>] iser_cq_tasklet_fn+0x6a/0x230 [ib_iser]"; !OopsPart(text) {
		t.Errorf("OopsPart(%q) false", text)
	}
}

// FuzzParseFrame holds the hand-written frame reader to reOopsFrame.
func FuzzParseFrame(f *testing.F) {
	for _, s := range []string{
		" mlx5_irq_alloc+0x99/0x319 [mlx5_core]",
		" ? xa_load+0x5e/0x68",
		"[<ffffffffa0123456>] func+0x1/0x2 [mod]",
		"[c000000000abcdef] [c000000000123456] func+0x1/0x2 [mod]",
		"  ib_free_cq+0x16c/0x174 \r",
		"func+0x1/0x2 [mod] x",
		"func+0x/0x2",
		"[<>] f+0x1/0x1",
		"[abc>]\tf.cold$1+0xA/0xb [m_1]  ",
		"? ? f+0x1/0x1",
		"f+0x1/0x1 [m",
		"\vf+0x1/0x1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := reOopsFrame.FindStringSubmatch(s)
		fr, ok := parseFrame(s)
		if ok != (m != nil) {
			t.Fatalf("parseFrame(%q) ok=%v, expression matched=%v", s, ok, m != nil)
		}
		if ok && (fr.unsure != (m[1] != "") || fr.fn != m[2] || fr.mod != m[3]) {
			t.Fatalf("parseFrame(%q) = %+v, expression %q", s, fr, m[1:])
		}
	})
}

// TestOopsPartSanitizers: a reader that keeps only OopsPart records keeps
// the headers of KASAN, KFENCE and UBSAN reports (mm/kasan/report.c,
// mm/kfence/report.c, lib/ubsan.c), not the lines around them.
func TestOopsPartSanitizers(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"BUG: KASAN: use-after-free in mlx5_cmd_set_fte+0x200d/0x24c0 [mlx5_core]", true},
		{"BUG: KASAN: double-free in ib_dealloc_pd_user+0x40/0x90 [ib_core]", true},
		{"BUG: KFENCE: out-of-bounds read in test_out_of_bounds_read+0xa6/0x234", true},
		{"UBSAN: shift-out-of-bounds in drivers/infiniband/hw/mlx5/qp.c:4123:20", true},
		{"page dumped because: kasan: bad access detected", false},
		{"kasan: KernelAddressSanitizer initialized", false},
		{"UBSAN: reports are on", false},
	} {
		if got := OopsPart(tt.text); got != tt.want {
			t.Errorf("OopsPart(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestWarnWrappedMessageModules: a WARN() report a mail client wrapped
// (Bugzilla 216561, linux-rdma: rdmavt's rvt_post_one_wr on Linux 6.0,
// analyze testdata/realworld-fresh66): the header's source, function and
// module come from the line after "at", the message between "cut here"
// and the header is kept with its unstamped wrapped part, and the
// modules of the trace are listed. The rxe report of the same collection
// (syslog, wrapped after "at", no module on the header) lists the two
// RDMA modules its trace runs through.
func TestWarnWrappedMessageModules(t *testing.T) {
	for _, tt := range []struct {
		name, log               string
		src, fn, drv, mods, msg string
	}{
		{"rdmavt, wrapped after at, with a message", strings.Join([]string{
			"[   25.091609] ------------[ cut here ]------------",
			"[   25.096234] memcpy: detected field-spanning write (size 80) of single field",
			`"&wqe->wr" at drivers/infiniband/sw/rdmavt/qp.c:2043 (size 40)`,
			"[   25.108705] WARNING: CPU: 1 PID: 1618 at",
			"drivers/infiniband/sw/rdmavt/qp.c:2043 rvt_post_one_wr+0x4e3/0x6d0 [rdmavt]",
			"[   25.119232] Modules linked in: opa_vnic rfkill rpcrdma intel_rapl_msr",
			"[   25.214243] CPU: 1 PID: 1618 Comm: kworker/u101:1 Tainted: G          I",
			"[   25.235839] RIP: 0010:rvt_post_one_wr+0x4e3/0x6d0 [rdmavt]",
			"[   25.260085] Call Trace:",
			"[   25.260089]  rvt_post_send+0xa9/0x150 [rdmavt]",
			"[   25.260098]  ib_send_mad+0x251/0x430 [ib_core]",
			"[   25.260125]  ? __kmalloc+0x19b/0x360",
			"[   25.413820] ---[ end trace 0000000000000000 ]---",
		}, "\n"), "drivers/infiniband/sw/rdmavt/qp.c:2043", "rvt_post_one_wr", "rdmavt", "rdmavt ib_core",
			`memcpy: detected field-spanning write (size 80) of single field "&wqe->wr" at drivers/infiniband/sw/rdmavt/qp.c:2043 (size 40)`},
		{"rxe in syslog, wrapped after at, no message", strings.Join([]string{
			"Nov  2 17:49:39 localhost kernel: ------------[ cut here ]------------",
			"Nov  2 17:49:39 localhost kernel: WARNING: CPU: 0 PID: 2613 at",
			"kernel/dma/mapping.c:188 dma_map_sg_attrs+0x37/0x50",
			"Nov  2 17:49:39 localhost kernel: Call Trace:",
			"Nov  2 17:49:39 localhost kernel: ib_umem_get+0x343/0x3b0 [ib_uverbs]",
			"Nov  2 17:49:39 localhost kernel: ? __check_object_size+0x46/0x180",
			"Nov  2 17:49:39 localhost kernel: rxe_mem_init_user+0x4a/0x1e0 [rdma_rxe]",
			"Nov  2 17:49:39 localhost kernel: ib_uverbs_reg_mr+0x156/0x280 [ib_uverbs]",
			"Nov  2 17:49:40 localhost kernel: ---[ end trace 62d4cee803ba06f3 ]---",
		}, "\n"), "kernel/dma/mapping.c:188", "dma_map_sg_attrs", "ib_uverbs", "ib_uverbs rdma_rxe", ""},
		{"wrapped after the source file", strings.Join([]string{
			"[ 9.0] WARNING: CPU: 10 PID: 855 at kernel/dma/debug.c:571",
			"add_dma_entry+0x36a/0x4c0 [mlx5_core]",
		}, "\n"), "kernel/dma/debug.c:571", "add_dma_entry", "mlx5_core", "mlx5_core", ""},
		{"a stamped line after the message ends it", strings.Join([]string{
			"[ 9.0] ------------[ cut here ]------------",
			"[ 9.0] Destroy of kernel CQ shouldn't fail",
			"[ 9.0] mlx5_core 0000:01:00.0: some other line",
			"[ 9.0] WARNING: CPU: 1 PID: 7 at drivers/infiniband/core/cq.c:345 ib_free_cq+0x16c/0x174",
		}, "\n"), "drivers/infiniband/core/cq.c:345", "ib_free_cq", "", "", "Destroy of kernel CQ shouldn't fail"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.log+"\n"), "dmesg", TextOptions{Year: 2020})
			if err != nil {
				t.Fatal(err)
			}
			var e Event
			n := 0
			for _, x := range Events(l.Records) {
				if x.Kind == KindOops {
					e, n = x, n+1
				}
			}
			if n != 1 {
				t.Fatalf("%d oops events, want 1", n)
			}
			if e.Source != tt.src || e.Func != tt.fn || e.Driver != tt.drv || e.Modules != tt.mods || e.Message != tt.msg {
				t.Errorf("src %q fn %q driver %q modules %q message %q,\nwant %q %q %q %q %q", e.Source, e.Func, e.Driver, e.Modules, e.Message,
					tt.src, tt.fn, tt.drv, tt.mods, tt.msg)
			}
		})
	}
}
