package host

import (
	"slices"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// TestCheckKernelLog runs only the kernel-log rules: events in the log
// give the doctor's findings, while the since-boot AER counters and the
// other triage rules (memlock, NCCL environment) are left out.
func TestCheckKernelLog(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(in *Input)
		want   []string
	}{
		{"healthy", func(*Input) {}, nil},
		{"xid from the log", func(in *Input) {
			in.Kernel = logOf("[ 9051.331270] NVRM: Xid (PCI:0000:03:00): 48, pid=20816, name=python3, DBE")
		}, []string{"gpu.xid/critical"}},
		{"aer from the log", func(in *Input) {
			in.Kernel = logOf("[10033.500112] pcieport 0000:01:00.0: AER: Uncorrectable (Non-Fatal) error received: 0000:02:01.0",
				"[10033.500140] pcieport 0000:02:01.0: AER: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer, (Requester ID)")
		}, []string{"pcie.aer_errors/critical"}},
		{"aer counters are not events", func(in *Input) {
			in.Snap.PCIDevice("0000:04:00.0").AER = &snapshot.AER{NonFatal: 1}
		}, nil},
		{"other triage rules are not run", func(in *Input) {
			in.Modules = []string{"mlx5_ib"} // no nvidia_peermem: Run would warn
		}, nil},
		{"health and module events", func(in *Input) {
			in.Kernel = logOf("[5.0] mlx5_core 0000:04:00.0: mlx5_health_check:1234:(pid 0): Fatal error 1 detected",
				"[6.0] mlx5_core 0000:04:00.0: Port module event[error]: module 0, Cable error, Bus stuck (I2C or data shorted)")
		}, []string{"kmsg.mlx5_health/critical", "kmsg.module_event/critical"}},
		// The agent judges stalled queues, lost LNet peers and slot power too (lines as in txtimeout_test.go).
		{"transmit timeouts, a lost LNet peer, slot power", func(in *Input) {
			in.Kernel = logOf("[7.0] mlx5_core 0000:04:00.0 enp4s0f0: TX timeout on queue: 3, SQ: 0x1a, CQ: 0x2b, SQ Cons: 0x1 SQ Prod: 0x1, usecs since last trans: 15137000",
				"[8.0] LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed out tx for 172.31.126.87@o2ib: 403055 seconds",
				"[9.0] mlx5_core 0000:04:00.0: mlx5_pcie_event:299:(pid 1): Detected insufficient power on the PCIe slot (27W).")
		}, []string{"kmsg.rdma_peer_unreachable/critical", "kmsg.tx_timeout/warning", "pcie.slot_power/warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := healthyInput()
			tt.mutate(in)
			got := ids(CheckKernelLog(in))
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if in.logOnly {
				t.Error("logOnly left set")
			}
		})
	}
}
