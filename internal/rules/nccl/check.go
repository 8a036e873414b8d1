package nccl

import (
	"io"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// CheckTests parses nccl-tests output from r and judges it: the entry point
// for `ibdoctor analyze`. Notes say what was skipped and why. The error is
// a *ParseError (ErrNoData when r holds no nccl-tests output).
func CheckTests(r io.Reader, source string, opts TestsOptions) ([]finding.Finding, []string, error) {
	out, err := ParseTests(r, source)
	if err != nil {
		return nil, nil, err
	}
	a := AnalyzeTests(out, opts)
	return a.Findings, a.Notes, nil
}

// CheckLog parses an NCCL log from r and judges it: the entry point for
// `ibdoctor analyze`.
func CheckLog(r io.Reader, source string, opts LogOptions) ([]finding.Finding, []string, error) {
	lg, err := ParseLog(r, source)
	if err != nil {
		return nil, nil, err
	}
	a := AnalyzeLog(lg, opts)
	return a.Findings, a.Notes, nil
}
