package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// Factory carries the streams and environment a command may use, so tests
// can run commands in-process and capture everything.
type Factory struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// Color says whether Out is a terminal that wants color (not NO_COLOR).
	Color bool
	// IsTTY says whether Out is a terminal (progress bars and the like).
	IsTTY  bool
	Now    func() time.Time
	Getenv func(string) string
	// Environ is the process environment (for --env of doctor).
	Environ func() []string
	// Version is the build's version string.
	Version string
}

// System returns the Factory of the running process. Color is on only when
// stdout is a terminal and NO_COLOR is unset or empty (no-color.org), and
// TERM is not "dumb".
func System(version string) *Factory {
	tty := term.IsTerminal(int(os.Stdout.Fd()))
	return &Factory{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		Color: ColorEnabled(tty, os.Getenv), IsTTY: tty, Now: time.Now, Getenv: os.Getenv, Environ: os.Environ,
		Version: version,
	}
}

// ColorEnabled says whether to color output: only on a terminal, never
// when NO_COLOR is set to a non-empty value (no-color.org) or TERM is
// "dumb".
func ColorEnabled(tty bool, getenv func(string) string) bool {
	return tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// ExitError makes main exit with Code. Err, when non-nil, is printed to
// stderr first; a nil Err exits silently (the command already reported).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit returns an ExitError for a finding-based exit code, or nil for 0.
func Exit(code int) error {
	if code == 0 {
		return nil
	}
	return &ExitError{Code: code}
}

// CannotRun wraps an error as exit code 3 (bad arguments, unreadable root).
func CannotRun(err error) error {
	if err == nil {
		return nil
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: finding.ExitCannot, Err: err}
}

// FlagErrorf reports a bad flag value; it exits 3.
func FlagErrorf(format string, a ...any) error {
	return &ExitError{Code: finding.ExitCannot, Err: fmt.Errorf(format, a...)}
}

// Format is the value of --format.
type Format string

// Output formats.
const (
	FormatText Format = "text"
	FormatJSON Format = "json"
	// FormatDrainReason is check's output for a scheduler's health hook:
	// one short reason line, then one line per finding.
	FormatDrainReason Format = "drain-reason"
)

// AddFormatFlag adds --format text|json (text default), validated by
// ValidateFormat. Extra formats (csv) may be allowed by a command.
func AddFormatFlag(cmd *cobra.Command, f *Format, extra ...Format) {
	*f = FormatText
	names := "text|json"
	for _, e := range extra {
		names += "|" + string(e)
	}
	cmd.Flags().VarP(&formatValue{f: f, extra: extra}, "format", "o", "output format: "+names)
}

type formatValue struct {
	f     *Format
	extra []Format
}

func (v *formatValue) String() string { return string(*v.f) }
func (v *formatValue) Type() string   { return "format" }
func (v *formatValue) Set(s string) error {
	switch Format(s) {
	case FormatText, FormatJSON:
		*v.f = Format(s)
		return nil
	}
	for _, e := range v.extra {
		if Format(s) == e {
			*v.f = e
			return nil
		}
	}
	return fmt.Errorf("unknown format %q (want text or json)", s)
}

// AddRootFlag adds --root DIR|FILE.tar.gz (default "/").
func AddRootFlag(cmd *cobra.Command, root *string) {
	cmd.Flags().StringVar(root, "root", "/", "node root to read: a directory holding sys/, proc/, dev/, or a bundle .tar.gz from 'ibdoctor collect'")
}

// WriteJSON writes v as indented JSON with a trailing newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
