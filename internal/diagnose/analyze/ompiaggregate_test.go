package analyze

import (
	"fmt"
	"testing"
)

// TestOMPIAggregateInsideNCCLTests: mpirun's folded line for a help message
// that is not about the network, printed among nccl-tests' result rows,
// stays in the nccl-tests span; one about the network opens an Open MPI
// span. The lines are from an alltoall_perf run (realworld-fresh46,
// nccl-tests-stored52913594292-rtx6000d-alltoall-16m-512m-collapse.txt).
func TestOMPIAggregateInsideNCCLTests(t *testing.T) {
	head := []string{
		"# nThread 1 nGpus 1 minBytes 1024 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0",
		"#",
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ",
	}
	row := "        1024            16     float    none      -1    55.66    0.02    0.02       0    29.21    0.04    0.03    N/A"
	for _, tt := range []struct {
		agg  string
		want string
	}{
		{"[R6KD-CX8aaS-GPU-11:02943] 15 more processes have sent help message help-mca-var.txt / mutually-exclusive-vars", "[nccl-tests 1-6]"},
		{"[login:1088026] 39 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected", "[nccl-tests 1-3 openmpi 4-6]"},
	} {
		ls := append(append([]string{}, head...), tt.agg,
			`[R6KD-CX8aaS-GPU-11:02943] Set MCA parameter "orte_base_help_aggregate" to 0 to see all help / error messages`, row)
		var got []string
		for _, sp := range Split(ls) {
			got = append(got, fmt.Sprintf("%s %d-%d", sp.Kind, sp.Start, sp.End))
		}
		if s := fmt.Sprint(got); s != tt.want {
			t.Errorf("%s: spans %s, want %s", tt.agg, s, tt.want)
		}
	}
}
