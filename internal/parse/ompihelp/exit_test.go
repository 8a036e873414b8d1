package ompihelp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFindJobExit: mpirun's reports of a failed process. The first is
// from the Azure NHC debugging guide (AlizeeChen11/azurehpc-health-checks
// customTests/debugging-test-failure.md, realworld-fresh28).
func TestFindJobExit(t *testing.T) {
	tests := []struct {
		name, in string
		want     JobExit
		ok       bool
	}{
		{"non-zero exit", "Primary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n" +
			"--------------------------------------------------------------------------\n" +
			"mpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n  Process name: [[56171,1],6]\n  Exit code:    3\n",
			JobExit{Line: 13, Text: "mpirun detected that one or more processes exited with non-zero status, thus causing", Process: "[[56171,1],6]", Code: 3}, true},
		{"mpiexec, wrapped", "mpiexec detected that one or more processes exited with non-zero status, thus\ncausing\nthe job to be terminated. The first process to do so was:\n\nProcess name: [[49560,2],0]\nExit code:\u00a0 \u00a0 1\n",
			JobExit{Line: 10, Text: "mpiexec detected that one or more processes exited with non-zero status, thus", Process: "[[49560,2],0]", Code: 1}, true},
		{"signal", "mpirun noticed that process rank 0 with PID 1234 on node gpu1 exited on signal 9 (Killed).\n",
			JobExit{Line: 10, Text: "mpirun noticed that process rank 0 with PID 1234 on node gpu1 exited on signal 9 (Killed).", Signal: "9 (Killed)"}, true},
		{"prose", "the job exited with non-zero status and I do not know why\n", JobExit{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FindJobExit(strings.Split(tt.in, "\n"), 10)
			if ok != tt.ok {
				t.Fatalf("ok %v", ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzFindJobExit(f *testing.F) {
	f.Add("mpirun detected that one or more processes exited with non-zero status, thus causing\n\n  Process name: [[1,1],0]\n  Exit code:    3\n")
	f.Add("mpirun noticed that process rank 0 with PID 1 on node n exited on signal 9 (Killed).")
	f.Add(" exited on signal ")
	f.Fuzz(func(t *testing.T, s string) {
		e, ok := FindJobExit(strings.Split(s, "\n"), 1)
		if ok && e.Line < 1 {
			t.Fatalf("line %d", e.Line)
		}
	})
}
