package analyze

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestJobExitBesideNCCLLog: mpirun's report that a process exited with a
// non-zero status next to an NCCL log is a job that died. The lines are
// from the Azure NHC debugging guide (AlizeeChen11/azurehpc-health-checks
// customTests/debugging-test-failure.md, realworld-fresh28).
func TestJobExitBesideNCCLLog(t *testing.T) {
	const (
		nhc  = "ERROR:  nhc:  Health check failed:  collect_nccl_allreduce_data: nccl_allreduce returned error code 3. FaultCode: NHCNA\n\n"
		exit = "--------------------------------------------------------------------------\n" +
			"Primary job  terminated normally, but 1 process returned\n" +
			"a non-zero exit code. Per user-direction, the job has been aborted.\n" +
			"--------------------------------------------------------------------------\n" +
			"--------------------------------------------------------------------------\n" +
			"mpirun detected that one or more processes exited with non-zero status, thus causing\n" +
			"the job to be terminated. The first process to do so was:\n\n" +
			"  Process name: [[56171,1],6]\n" +
			"  Exit code:    3\n" +
			"--------------------------------------------------------------------------\n\n"
		signal = "mpirun noticed that process rank 3 with PID 4242 on node gpu7 exited on signal 9 (Killed).\n\n"
		ib     = "gpu1:186:303 [6] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_2:1/IB [RO]; OOB eth0:10.0.0.4<0>\n" +
			"gpu1:186:303 [6] NCCL INFO Using network IB\n" +
			"gpu1:186:303 [6] NCCL INFO comm 0x55d0 rank 6 nranks 8 cudaDev 6 busId c5000 - Init COMPLETE\n"
		socket = "gpu1:186:303 [6] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n" +
			"gpu1:186:303 [6] NCCL INFO NET/IB : No device found.\n" +
			"gpu1:186:303 [6] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.4<0>\n" +
			"gpu1:186:303 [6] NCCL INFO Using network Socket\n"
	)
	tests := []struct {
		name, text string
		want       []string
		sum        []string
	}{
		{"nhc error and mpirun exit beside an IB log", nhc + exit + ib, []string{"nccl.call_failed/critical"},
			[]string{"process [[56171,1],6] exited with code 3", "ncclResult_t 3 is 'internal error'", "ncclInternalError"}},
		{"mpirun exit alone beside the log", exit + ib, []string{"nccl.call_failed/critical"}, []string{"exited with code 3"}},
		{"rank killed by a signal", signal + ib, []string{"nccl.call_failed/critical"}, []string{"exited on signal 9 (Killed)"}},
		{"healthy log, no exit report", ib, []string{}, nil},
		{"already critical: told there", exit + socket, []string{"nccl.socket_fallback/critical"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tt.text, Options{})
			var fs []finding.Finding
			for _, s := range fr.Segments {
				fs = append(fs, s.Findings...)
			}
			if diff := cmp.Diff(tt.want, ids(fs)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%+v", diff, fs)
			}
			for _, s := range tt.sum {
				if !strings.Contains(fs[0].Summary, s) {
					t.Errorf("summary %q lacks %q", fs[0].Summary, s)
				}
			}
		})
	}
}
