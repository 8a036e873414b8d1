package nccl

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ompihelp"
)

// TestJobDied: the Azure NHC report (AlizeeChen11/azurehpc-health-checks
// customTests/debugging-test-failure.md, realworld-fresh28) and the other
// forms of mpirun's report.
func TestJobDied(t *testing.T) {
	tests := []struct {
		name string
		ex   ompihelp.JobExit
		res  ResultLine
		sum  []string
		evs  int
	}{
		{"exit code and nccl result", ompihelp.JobExit{Line: 24, Text: "mpirun detected that one or more processes exited with non-zero status, thus causing", Process: "[[56171,1],6]", Code: 3},
			ResultLine{Line: 4, Text: "nccl_allreduce returned error code 3.", Code: 3},
			[]string{"process [[56171,1],6] exited with code 3", "ncclResult_t 3 is 'internal error': ncclInternalError"}, 2},
		{"unknown result", ompihelp.JobExit{Line: 1, Text: "x", Code: 1}, ResultLine{Line: 2, Text: "y", Code: 9}, []string{"a process exited with code 1", `"y"`}, 2},
		{"no code printed", ompihelp.JobExit{Line: 1, Text: "x"}, ResultLine{}, []string{"exited with non-zero status"}, 1},
		{"signal", ompihelp.JobExit{Line: 1, Text: "x", Signal: "9 (Killed)"}, ResultLine{}, []string{"exited on signal 9 (Killed)"}, 1},
	}
	for _, tt := range tests {
		f := JobDied("p.txt", tt.ex, tt.res)
		if f.ID != "nccl.call_failed" || f.Severity != finding.Critical || len(f.Evidence) != tt.evs {
			t.Errorf("%s: %s/%s with %d evidence", tt.name, f.ID, f.Severity, len(f.Evidence))
		}
		for _, s := range tt.sum {
			if !strings.Contains(f.Summary, s) {
				t.Errorf("%s: summary %q lacks %q", tt.name, f.Summary, s)
			}
		}
	}
}
