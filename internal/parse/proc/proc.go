// Package proc parses the procfs files the doctor reads from a node root:
// a job's resource limits (proc/<pid>/limits), the loaded kernel modules
// (proc/modules) and the boot time (proc/stat btime, proc/uptime).
package proc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	hostmodel "github.com/ibdoctor/ibdoctor/internal/model/host"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the parse error of this package.
type ParseError = parse.Error

// ErrMalformed is wrapped by every ParseError of ParseLimits and
// ParseModules.
var ErrMalformed = errors.New("malformed input")

// ParseLimits reads the "Max locked memory" line of proc/<pid>/limits
// (fs/proc/base.c proc_pid_limits: "%-25s %-20s %-20s %-10s" with
// "unlimited" or a decimal). An absent line or a bad value is an error
// naming the line.
func ParseLimits(r io.Reader, source string) (*hostmodel.Limit, error) {
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "Max locked memory")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			return nil, &ParseError{Source: source, Line: n, Input: line, Err: ErrMalformed}
		}
		l := &hostmodel.Limit{Source: source}
		var err error
		if l.Soft, l.SoftUnlimited, err = limitValue(f[0]); err == nil {
			l.Hard, l.HardUnlimited, err = limitValue(f[1])
		}
		if err != nil {
			return nil, &ParseError{Source: source, Line: n, Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
		}
		return l, nil
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: no \"Max locked memory\" line", ErrMalformed)}
}

func limitValue(s string) (uint64, bool, error) {
	if s == "unlimited" {
		return 0, true, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("limit %q", s)
	}
	return v, false, nil
}

// ParseModules reads proc/modules ("name size refcount deps state addr")
// and returns the module names in file order.
func ParseModules(r io.Reader, source string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var out []string
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 {
			return nil, &ParseError{Source: source, Line: n, Err: fmt.Errorf("%w: want name size refcount …", ErrMalformed)}
		}
		if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
			return nil, &ParseError{Source: source, Line: n, Err: fmt.Errorf("%w: size %q", ErrMalformed, f[1])}
		}
		out = append(out, f[0])
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	return out, nil
}
