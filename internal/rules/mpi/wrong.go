package mpi

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/mpicheck"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckWrongResults reports an MPI test's wrong-result lines (MPICH's
// "Did not get expected value", MTest's "Found N errors" with N > 0) as
// one critical mpi.wrong_results finding that cites the first three; nil
// when there are none.
func CheckWrongResults(file string, res []mpicheck.Result) []finding.Finding {
	if len(res) == 0 {
		return nil
	}
	var ev []finding.Evidence
	for _, r := range res[:min(len(res), 3)] {
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, r.Line), Value: r.Text})
	}
	lines := "1 line"
	if len(res) > 1 {
		lines = fmt.Sprintf("%d lines", len(res))
	}
	return []finding.Finding{catalog.New("mpi.wrong_results", finding.Subject{File: file},
		fmt.Sprintf("the MPI test reports wrong results (%s): %q; the data an MPI operation delivered differs from what it must be", lines, res[0].Text), ev...)}
}
