// Package parse is the parsing stage: one sub-package per tool format. This
// package holds the one error type of every parser of tool output
// and configuration text: which source, which line, what the line said,
// and why it was refused. Parsers alias it (type ParseError =
// parse.Error) and wrap their own sentinels, so callers match with
// errors.As and errors.Is, never on strings.
package parse

import "fmt"

// maxInput bounds how much of the offending line an error repeats.
const maxInput = 120

// Error is a parse error at a line of a named source.
type Error struct {
	// Source names the file, command or paste ("cmd/dmesg.txt",
	// "ibnetdiscover", "ticket.txt").
	Source string
	// Line is 1-based; 0 when the error is about the whole input.
	Line int
	// Input is the offending line, when there is one.
	Input string
	Err   error
}

// Error renders `source line N: reason: "input"`.
func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %v", e.Source, e.Err)
	case e.Input == "":
		return fmt.Sprintf("%s line %d: %v", e.Source, e.Line, e.Err)
	}
	in := e.Input
	if r := []rune(in); len(r) > maxInput {
		in = string(r[:maxInput]) + "…"
	}
	return fmt.Sprintf("%s line %d: %v: %q", e.Source, e.Line, e.Err, in)
}

// Unwrap returns the reason, so errors.Is finds a parser's sentinel.
func (e *Error) Unwrap() error { return e.Err }
