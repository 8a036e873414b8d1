package mpi

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/mpicheck"
)

// TestCheckWrongResults: no line, no finding; wrong results are one
// critical finding citing at most the first three lines.
func TestCheckWrongResults(t *testing.T) {
	if fs := CheckWrongResults("t.txt", nil); fs != nil {
		t.Fatalf("no line: %+v", fs)
	}
	var res []mpicheck.Result
	for i := range 5 {
		res = append(res, mpicheck.Result{Line: 10 + i, Text: "Did not get expected value for reduce scatter"})
	}
	fs := CheckWrongResults("t.txt", res)
	if len(fs) != 1 || fs[0].ID != "mpi.wrong_results" || fs[0].Severity != finding.Critical {
		t.Fatalf("findings %+v", fs)
	}
	if len(fs[0].Evidence) != 3 || fs[0].Evidence[0].Source != "t.txt:10" || !strings.Contains(fs[0].Summary, "(5 lines)") {
		t.Errorf("finding %+v", fs[0])
	}
}
