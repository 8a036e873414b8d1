package kmsg

import "testing"

// TestDetectLineCrashHead: the first line of a crash or warning report is
// a kernel line without its stamp (a mail quoting the report, dmesg -t);
// prose that only mentions a bug is not. The first line and the WARNING
// are from linux-nvme and linux-rdma mails quoting nvme-rdma and siw
// reports (analyze testdata/realworld-fresh64).
func TestDetectLineCrashHead(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"BUG: unable to handle kernel paging request at 0000000080000228", true},
		{"BUG: unable to handle page fault for address: ffffffff8ff0ade0", true},
		{"BUG: kernel NULL pointer dereference, address: 0000000000000010", true},
		{"Oops: 0000 [#1] SMP PTI", true},
		{"general protection fault, probably for non-canonical address 0xdead: 0000 [#1] SMP", true},
		{"kernel BUG at drivers/infiniband/core/cma.c:1234!", true},
		{"WARNING: CPU: 0 PID: 5342 at net/core/skbuff.c:7140 skb_splice_from_iter+0x173/0x320", true},
		{"Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008", true},
		{"BUG: the job hangs at 4 nodes", false},
		{"WARNING: the SM is not running", false},
		{"Oops: I pasted the wrong file", false},
	} {
		if got := DetectLine(tc.line); got != tc.want {
			t.Errorf("DetectLine(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
	if framePhase("nvme_rdma_shutdown_ctrl") != "" || framePhase("pci_device_shutdown") != "shutdown" {
		t.Errorf("framePhase: a driver's own shutdown of a controller is no host shutdown")
	}
}
