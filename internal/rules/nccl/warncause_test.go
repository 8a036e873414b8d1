package nccl

import "testing"

// TestCallFailedNamesTheCause: when NCCL warned what failed, the finding
// says so instead of listing the usual suspects of ncclSystemError
// (NVIDIA/nccl#726, realworld-fresh47: an NVML driver/library mismatch);
// with no warning, the first trace line of an INFO log names the
// function that failed (NVIDIA/nccl#1332, realworld-fresh54), and
// nccl-tests' "'%s / %s'" loses its empty second part.
func TestCallFailedNamesTheCause(t *testing.T) {
	tests := []struct {
		name, input string
		has, lacks  []string
	}{
		{"nvml mismatch",
			"f11n13:3580085:3580108 [0] NCCL INFO Using network IB\n" +
				"f11n13:3580085:3580108 [0] misc/nvmlwrap.cc:98 NCCL WARN nvmlInit_v2() failed: Driver/library version mismatch\n" +
				"f11n13:3580085:3580108 [0] NCCL INFO misc/nvmlwrap.cc:179 -> 2\n",
			[]string{"NCCL warned first (line 2)", "kernel module and the user-space driver libraries"},
			[]string{"NCCL_SOCKET_IFNAME", "/dev/shm"}},
		{"trace without warning",
			"busybox2-68df6c586-ntvlv:11537:11571 [3] NCCL INFO transport/net_ib.cc:282 -> 2\n" +
				"busybox2-68df6c586-ntvlv:11537:11571 [3] NCCL INFO transport/net_ib.cc:305 -> 2\n" +
				"busybox2-68df6c586-ntvlv:11537:11537 [3] NCCL INFO group.cc:95 -> 2\n" +
				"busybox2-68df6c586-ntvlv: Test NCCL failure common.cu:961 'unhandled system error (run with NCCL_DEBUG=INFO for details) / '\n",
			[]string{`trace starts at "transport/net_ib.cc:282 -> 2" (line 1)`, "details)' on busybox2"},
			[]string{"/ '"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := checkText(t, tt.input)
			if len(a.Findings) == 0 || a.Findings[0].ID != "nccl.call_failed" {
				t.Fatalf("findings %v", ids(a.Findings))
			}
			summaryHas(t, a, tt.has, tt.lacks)
		})
	}
}
