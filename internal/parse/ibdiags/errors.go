package ibdiags

import (
	"errors"
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// Sentinel errors wrapped by ParseError.
var (
	// ErrMalformed says a line does not have the tool's format.
	ErrMalformed = errors.New("malformed line")
	// ErrNoData says the input holds nothing the parser recognises.
	ErrNoData = errors.New("no data")
)

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

func perr(src string, line int, input string, format string, a ...any) error {
	return &ParseError{Source: src, Line: line, Input: input, Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, a...)...)}
}

func noData(src, what string) error {
	return &ParseError{Source: src, Err: fmt.Errorf("%w: no %s found", ErrNoData, what)}
}
