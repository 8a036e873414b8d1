// Package parse is the parsing stage: one sub-package per tool format. This
// package holds the one error type of every parser of tool output
// and configuration text: which source, which line, what the line said,
// and why it was refused. Parsers alias it (type ParseError =
// parse.Error) and wrap their own sentinels, so callers match with
// errors.As and errors.Is, never on strings.
package parse

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

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

// Lines reads r line by line (a trailing CR dropped) and keeps what line
// accepts, numbered from 1 by number; it fails with none as an *Error
// naming source when no line was kept, and with the read error when
// reading fails. It is the loop of the parsers whose output is one value
// per recognised line.
func Lines[T any](r io.Reader, source string, line func(string) (T, bool), number func(*T, int), none error) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if v, ok := line(strings.TrimRight(sc.Text(), "\r")); ok {
			number(&v, n)
			out = append(out, v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &Error{Source: source, Err: none}
	}
	return out, nil
}
