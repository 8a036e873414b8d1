package ibtools

import (
	"errors"
	"fmt"
)

// Sentinel errors wrapped by ParseError.
var (
	// ErrMalformed says a line does not have the tool's format.
	ErrMalformed = errors.New("malformed line")
	// ErrNoData says the input holds nothing the parser recognises.
	ErrNoData = errors.New("no data")
)

// ParseError is a parse failure at one line of one source (a file name or a
// tool name).
type ParseError struct {
	Source string
	Line   int
	Input  string
	Err    error
}

// Error names the source, the line and the offending input.
func (e *ParseError) Error() string {
	in := e.Input
	if len(in) > 120 {
		in = in[:120] + "…"
	}
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.Source, e.Err)
	}
	return fmt.Sprintf("%s line %d: %v: %q", e.Source, e.Line, e.Err, in)
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

func perr(src string, line int, input string, format string, a ...any) error {
	return &ParseError{Source: src, Line: line, Input: input, Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, a...)...)}
}

func noData(src, what string) error {
	return &ParseError{Source: src, Err: fmt.Errorf("%w: no %s found", ErrNoData, what)}
}
