package kmsg

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDriverErrorCatchAll: lines of the RDMA and GPU drivers that say they
// failed, in wordings no pattern knows, are KindDriverError events with
// the driver and device they name; benign lines, other drivers' lines and
// lines a pattern takes are not. Sources: the analyze corpus
// (internal/diagnose/analyze/testdata, folder and file named), else the
// kernel file that prints the line.
func TestDriverErrorCatchAll(t *testing.T) {
	tests := []struct {
		name, text string
		want       *Event // nil: no catch-all event
	}{
		// Caught.
		{"mlx5 function (realworld/dmesg-linux-pci-yang-cx5-flr.txt)",
			"mlx5_core 0000:01:00.2: up_rel_func:90:(pid 4328): failed to free uar index 17",
			&Event{Driver: "mlx5_core", PCI: "0000:01:00.2", Detail: "up_rel_func:90:(pid 4328): failed to free uar index 17"}},
		{"mlx5 probe aborted (realworld-fresh15/dmesg-innova2flex8-mlx5-fw-preinit-timeout-probe-failed.txt)",
			"mlx5_core 0000:03:00.0: mlx5_function_setup:1236:(pid 182): Firmware over 120000 MS in pre-initializing state, aborting",
			&Event{Driver: "mlx5_core", PCI: "0000:03:00.0", Detail: "mlx5_function_setup:1236:(pid 182): Firmware over 120000 MS in pre-initializing state, aborting"}},
		{"RDMA device (realworld-fresh10/dmesg-ucx6264-create-mkey-limits-exceeded.txt)",
			"infiniband mlx5_0: create_mkey_warn:158:(pid 0): async reg mr failed. status -121",
			&Event{Driver: "infiniband", Interface: "mlx5_0", Detail: "create_mkey_warn:158:(pid 0): async reg mr failed. status -121"}},
		// ksmbd's SMB Direct (RDMA) transport: a send completion flushed as its QP went to the error
		// state (analyze testdata/realworld-fresh52 dmesg-T-ksmbd499-arm-smbdirect-send-wr-flushed-slab-leak.txt);
		// ksmbd's lines about SMB over TCP are not RDMA's.
		{"ksmbd smb_direct", "ksmbd: smb_direct: Send error. status='WR flushed (5)', opcode=0",
			&Event{Driver: "ksmbd", Detail: "smb_direct: Send error. status='WR flushed (5)', opcode=0"}},
		{"ksmbd over TCP: none", "ksmbd: Failed to send message: -107", nil},
		// The driver's VBIOS read before a failed RmInitAdapter (which a pattern takes: KindGPUInitFailed).
		{"NVRM GPU",
			"NVRM: GPU 0000:07:00.0: Failed to copy vbios to system memory.",
			&Event{Driver: "NVRM", PCI: "0000:07:00.0", Detail: "GPU 0000:07:00.0: Failed to copy vbios to system memory."}},
		{"NVRM without a device (realworld-fresh9/dmesg-opengpu1151-rtx5090-xid79-no-timestamps.txt)",
			"NVRM: _threadNodeCheckTimeout: API_GPU_ATTACHED_SANITY_CHECK failed!",
			&Event{Driver: "NVRM", Detail: "_threadNodeCheckTimeout: API_GPU_ATTACHED_SANITY_CHECK failed!"}},
		{"mlx4 (realworld-fresh18/dmesg-wener-cx2-fatal-aer-sdes-mlx4-catas-reset.txt)",
			"mlx4_en 0000:04:00.0: Internal error detected, restarting device",
			&Event{Driver: "mlx4_en", PCI: "0000:04:00.0", Detail: "Internal error detected, restarting device"}},
		{"nvidia-peermem peer_err (realworld/dmesg-gpud-xid-readme-ctime.txt)",
			"nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
			&Event{Driver: "nvidia-peermem", Detail: "ERROR detected invalid context, skipping further processing"}},
		// An Xid the Xid row does not read (no code after the address: a constructed line).
		{"Xid in another form", "NVRM: Xid (PCI:0000:9b:00) GPU reset requested",
			&Event{Driver: "NVRM", Detail: "Xid (PCI:0000:9b:00) GPU reset requested"}},
		// A netdev's line (netdev_err: "<driver> <bdf> <netdev>: "), and a negative errno as the only failure word.
		{"netdev, errno",
			"mlx5_core 0000:3b:00.0 ens1f0: mlx5e_open_locked: err -12",
			&Event{Driver: "mlx5_core", PCI: "0000:3b:00.0", Interface: "ens1f0", Detail: "mlx5e_open_locked: err -12"}},
		// An Ethernet NIC of a cluster node (netdev_err of e1000e), an NVMe
		// controller (dev_printk of the class device, drivers/nvme/host/core.c),
		// an RDMA upper layer's pr_fmt prefix (drivers/infiniband/ulp/srp/ib_srp.c).
		{"Ethernet NIC", "e1000e 0000:00:1f.6 eno1: failed to initialize",
			&Event{Driver: "e1000e", PCI: "0000:00:1f.6", Interface: "eno1", Detail: "failed to initialize"}},
		{"NVMe controller", "nvme nvme0: I/O 1010 QID 3 timeout, aborting",
			&Event{Driver: "nvme", Interface: "nvme0", Detail: "I/O 1010 QID 3 timeout, aborting"}},
		{"RDMA upper layer", "ib_srp: Connection 0/8 to fe80:0000:0000:0000:0002:c903:0010:7fb5 failed",
			&Event{Driver: "ib_srp", Detail: "Connection 0/8 to fe80:0000:0000:0000:0002:c903:0010:7fb5 failed"}},

		// Not caught: benign lines (drivererr.go benignDriverPrefixes and benignDriverSubstrings).
		{"unsigned module (kernel/module/signing.c)", "nvidia: module verification failed: signature and/or required key missing - tainting kernel", nil},
		{"optional firmware file (drivers/base/firmware_loader/main.c)", "bnxt_en 0000:41:00.0: Direct firmware load for bnxt_en/bnxt_pkg.bin failed with error -2", nil},
		{"AER report (dmesg-gpu-node.txt)", "mlx5_core 0000:3b:00.0: AER:   device [15b3:1021] error status/mask=00000001/00000000", nil},
		{"AER, older kernel (realworld/dmesg-linux-pci-yang-cx5-flr.txt)", "mlx5_core 0000:01:00.1:   device [15b3:1019] error status/mask=00002000/00000000", nil},
		{"AER recovery (realworld/dmesg-returnn-1500.txt)", "nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)", nil},
		{"capability absent", "mlx5_core 0000:3b:00.0: mlx5e_ktls_init: kTLS not supported", nil},
		{"EOPNOTSUPP", "bnxt_re: bnxt_re_query_hwrm_intf_version: failed to query (-95)", nil},
		// Not caught: no failure word, another driver, a word inside another, prose naming a driver.
		{"no failure word", "mlx5_core 0000:3b:00.0: firmware version: 28.39.1002", nil},
		{"other driver", "snd_hda_intel 0000:00:1f.3: azx_get_response timeout, switching to polling mode", nil},
		{"optional firmware, the loader's line (drivers/base/firmware_loader/main.c)", "r8169 0000:03:00.0: firmware: failed to load rtl_nic/rtl8168h-2.fw (-2)", nil},
		{"a chip's XID, not NVIDIA's (realworld/dmesg-linux-pci-bz220775-diff.txt)", "r8169 0000:0a:00.0 eth1: RTL8126A, 9c:6b:00:96:ce:15, XID 64a, IRQ 169", nil},
		{"NVMe shutdown latency (drivers/nvme/host/core.c)", "nvme nvme0: Shutdown timeout set to 10 seconds", nil},
		// lag/port_sel and bonding name a failover (a LAG moving traffic to the live port), not a failure.
		{"failover", "mlx5_core 0000:3b:00.0: lag map active ports: 1, failover to port 2", nil},
		{"inside a word", "mlx5_core 0000:3b:00.0: terrors", nil},
		{"failover then a failure", "mlx5_core 0000:3b:00.0: failover failed", &Event{Driver: "mlx5_core", PCI: "0000:3b:00.0", Detail: "failover failed"}},
		{"prose", "mlx5_core driver fails to load as it cannot find the device", nil},
		// Taken by a pattern, not the catch-all.
		{"pattern", "mlx5_core 0000:41:00.0: mlx5_cmd_out_err:803:(pid 1440): SET_ROCE_ADDRESS(0x761) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x63c66), err(-22)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *Event
			for _, e := range Events([]Record{{Line: 1, Priority: -1, Text: tt.text}}) {
				if e.Kind == KindDriverError {
					e.Record, e.Kind, e.IsError = Record{}, "", false
					got = &e
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestDriverErrorInCrashReport: a driver line inside a kernel crash
// report belongs to the report, not to the catch-all.
func TestDriverErrorInCrashReport(t *testing.T) {
	recs := []Record{
		{Line: 1, Priority: -1, Text: "mlx5_core 0000:3b:00.0: up_rel_func:90:(pid 4328): failed to free uar index 17"},
		{Line: 2, Priority: -1, Text: "BUG: kernel NULL pointer dereference, address: 0000000000000008"},
		{Line: 3, Priority: -1, Text: "mlx5_core 0000:3b:00.0: up_rel_func:90:(pid 4328): failed to free uar index 18"},
		{Line: 4, Priority: -1, Text: "RIP: 0010:mlx5_cmd_comp_handler+0x1a/0x3e0 [mlx5_core]"},
	}
	var lines []int
	for _, e := range Events(recs) {
		if e.Kind == KindDriverError {
			lines = append(lines, e.Record.Line)
		}
	}
	if !cmp.Equal(lines, []int{1}) {
		t.Errorf("driver errors on lines %v, want [1]", lines)
	}
}

// TestDriverErrorAllocatesNothing: a record the catch-all rejects costs
// no allocation (it runs over every record of gigabyte logs).
func TestDriverErrorAllocatesNothing(t *testing.T) {
	for _, text := range []string{
		"pci 0000:00:01.0: [8086:1901] type 01 class 0x060400",
		"mlx5_core 0000:3b:00.0: firmware version: 28.39.1002",
		"mlx5_core 0000:3b:00.0 ens1f0: Link up",
		"mlx5_core 0000:3b:00.0: mlx5e_ktls_init: kTLS not supported",
	} {
		if n := testing.AllocsPerRun(100, func() { driverErrorClass(text) }); n != 0 {
			t.Errorf("%q: %.0f allocations, want 0", text, n)
		}
	}
}

// BenchmarkDriverErrorClass measures the catch-all on a line of another
// source, a driver line that reports no failure and one that does.
func BenchmarkDriverErrorClass(b *testing.B) {
	for _, bb := range []struct{ name, text string }{
		{"other", "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none."},
		{"driver-ok", "mlx5_core 0000:3b:00.0: E-Switch: Total vports 10, per vport: max uc(128) max mc(2048)"},
		{"driver-error", "mlx5_core 0000:01:00.2: up_rel_func:90:(pid 4328): failed to free uar index 17"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				driverErrorClass(bb.text)
			}
		})
	}
}
