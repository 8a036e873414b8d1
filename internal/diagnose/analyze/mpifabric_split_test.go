package analyze

import "testing"

// TestSplitMPIFabricAndQuotedOops: Intel MPI's "[0] MPI startup(): …"
// rank lines are no ibnetdiscover port columns, and a crash report quoted
// without its stamps starts a kernel run at its header (testdata
// realworld-fresh63 and realworld-fresh64).
func TestSplitMPIFabricAndQuotedOops(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		at    int
		want  Kind
	}{
		{"impi 2019", []string{"Aha, it worked, but it is using sockets:", "[0] MPI startup(): libfabric provider: sockets", "Calculating PI using 32 processes..."}, 2, KindVerbsLog},
		{"unstamped oops", []string{"On 6/5/19 8:41 AM, someone wrote:", "nvme nvme0: Removing ctrl: NQN \"testnqn1\"", "BUG: unable to handle kernel paging request at 0000000080000228", "PGD 0 P4D 0", "Oops: 0000 [#1] SMP PTI", "Call Trace:", "  nvme_rdma_destroy_io_queues+0x52/0x60 [nvme_rdma]"}, 3, KindKernel},
	} {
		var got Kind
		for _, sp := range Split(tc.lines) {
			if sp.Start <= tc.at && tc.at <= sp.End {
				got = sp.Kind
			}
		}
		if got != tc.want {
			t.Errorf("%s: line %d in %q, want %q (%+v)", tc.name, tc.at, got, tc.want, Split(tc.lines))
		}
	}
}
