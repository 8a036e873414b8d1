package perftest

import (
	"io"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// Check parses every perftest test in r and judges them: the entry point
// for `ibdoctor analyze`. Notes say what was skipped and why. The error is
// a *ParseError (ErrNoData when r holds no perftest output).
func Check(r io.Reader, source string, opts Options) ([]finding.Finding, []string, error) {
	rs, err := ParseAll(r, source)
	if err != nil {
		return nil, nil, err
	}
	a := Analyze(rs, opts)
	return a.Findings, a.Notes, nil
}
