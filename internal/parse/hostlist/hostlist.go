// Package hostlist reads the host lists a job is placed on: Slurm hostlist
// expressions ("gpu[001-128,130]", "rack[1-2]-gpu[01-04]"), expanded in the
// order Slurm's `scontrol show hostnames` prints them, and host files (one
// host per line, optional "slots=N" and '#' comments, as mpirun's
// --hostfile and `scontrol show hostnames` output).
package hostlist

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// MaxHosts bounds one expansion: "n[0-99999999]" must not allocate
// millions of names.
const MaxHosts = 1 << 20

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("bad host list")

// Expand expands one Slurm hostlist expression: comma-separated items,
// each a name with zero or more bracketed ranges ("gpu[001-004,010]",
// "r[1-2]n[1-3]"). Zero padding follows the range's first number, as Slurm
// does ("[08-11]" gives 08, 09, 10, 11).
func Expand(expr string) ([]string, error) {
	var out []string
	for _, item := range splitTop(expr) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		names, err := expandItem(item, MaxHosts-len(out))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		out = append(out, names...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no host in %q", ErrSyntax, expr)
	}
	return out, nil
}

// splitTop splits at commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func expandItem(item string, budget int) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if strings.ContainsAny(item, "]") || strings.ContainsAny(item, " \t") {
			return nil, fmt.Errorf("%w: stray ']' or blank", ErrSyntax)
		}
		return []string{item}, nil
	}
	end := strings.IndexByte(item[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("%w: '[' without ']'", ErrSyntax)
	}
	end += open
	prefix, body, rest := item[:open], item[open+1:end], item[end+1:]
	if strings.ContainsAny(prefix, "]") {
		return nil, fmt.Errorf("%w: stray ']'", ErrSyntax)
	}
	vals, err := expandRanges(body, budget)
	if err != nil {
		return nil, err
	}
	tails := []string{""}
	if rest != "" {
		if tails, err = expandItem(rest, budget/max(len(vals), 1)); err != nil {
			return nil, err
		}
	}
	if len(vals)*len(tails) > budget {
		return nil, fmt.Errorf("%w: more than %d hosts", ErrSyntax, MaxHosts)
	}
	out := make([]string, 0, len(vals)*len(tails))
	for _, v := range vals {
		for _, t := range tails {
			out = append(out, prefix+v+t)
		}
	}
	return out, nil
}

// expandRanges expands "001-004,010" into its numbers, keeping the width
// of each range's first number.
func expandRanges(body string, budget int) ([]string, error) {
	if body == "" {
		return nil, fmt.Errorf("%w: empty brackets", ErrSyntax)
	}
	var out []string
	for _, r := range strings.Split(body, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err := number(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = number(hi); err != nil {
				return nil, err
			}
		}
		if b < a {
			return nil, fmt.Errorf("%w: range %s runs backwards", ErrSyntax, r)
		}
		if b-a+1 > uint64(budget-len(out)) {
			return nil, fmt.Errorf("%w: more than %d hosts", ErrSyntax, MaxHosts)
		}
		width := len(lo)
		for v := a; v <= b; v++ {
			s := strconv.FormatUint(v, 10)
			if len(s) < width {
				s = strings.Repeat("0", width-len(s)) + s
			}
			out = append(out, s)
		}
	}
	return out, nil
}

func number(s string) (uint64, error) {
	if s == "" || len(s) > 18 {
		return 0, fmt.Errorf("%w: bad number %q", ErrSyntax, s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: bad number %q", ErrSyntax, s)
	}
	return v, nil
}

// Parse reads a host file: one host, or one hostlist expression, per line;
// '#' starts a comment; words after the first ("slots=8", "max_slots=8")
// are ignored. A file whose only line is an expression is expanded too.
func Parse(r io.Reader, source string) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		names, err := Expand(f[0])
		if err != nil {
			return nil, &parse.Error{Source: source, Line: n, Input: sc.Text(), Err: err}
		}
		if len(out)+len(names) > MaxHosts {
			return nil, &parse.Error{Source: source, Line: n, Err: fmt.Errorf("%w: more than %d hosts", ErrSyntax, MaxHosts)}
		}
		out = append(out, names...)
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Line: n + 1, Err: err}
	}
	if len(out) == 0 {
		return nil, &parse.Error{Source: source, Err: fmt.Errorf("%w: no host", ErrSyntax)}
	}
	return out, nil
}
