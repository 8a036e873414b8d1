package nccltests

import (
	"errors"
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrNoData means the input holds no nccl-tests header, row or report.
	ErrNoData = errors.New("no data of the expected format")
	// ErrMalformed means a line has the expected shape but bad values.
	ErrMalformed = errors.New("malformed line")
)

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Note is a line the parser read but could not use, kept so that reports
// can say "skipped" instead of silently dropping it.
type Note struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// String renders "line N: reason".
func (n Note) String() string { return fmt.Sprintf("line %d: %s", n.Line, n.Reason) }

// maxLine bounds one input line; a longer line is an error naming it.
const maxLine = 1 << 20

// maxJSON bounds a JSON report read into memory.
const maxJSON = 64 << 20
