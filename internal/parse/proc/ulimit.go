package proc

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	hostmodel "github.com/ibdoctor/ibdoctor/internal/model/host"
)

// ParseUlimit reads the locked-memory limit from pasted `ulimit -a`
// output of bash ("max locked memory       (kbytes, -l) 64"), zsh ("-l:
// locked-in-memory size (kbytes)  64") or dash ("locked memory(kbytes)
// 64"), in KiB, or from a pasted /proc/<pid>/limits ("Max locked memory
// 65536  65536  bytes"). `ulimit -a` shows the soft limit only: the
// Limit then has HardUnknown. line is the number (1-based) of the line
// read. A paste without such a line is an error; so is a bad value, naming
// its line.
func ParseUlimit(r io.Reader, source string) (l *hostmodel.Limit, line int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		t := strings.TrimSpace(text)
		if strings.HasPrefix(t, "Max locked memory") {
			l, err := ParseLimits(strings.NewReader(t), source)
			if err != nil {
				return nil, n, &ParseError{Source: source, Line: n, Input: text, Err: ErrMalformed}
			}
			return l, n, nil
		}
		if !memlockRow(t) {
			continue
		}
		f := strings.Fields(t)
		v, unlimited, err := limitValue(f[len(f)-1])
		if err != nil || v > 1<<53 {
			return nil, n, &ParseError{Source: source, Line: n, Input: text, Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
		}
		return &hostmodel.Limit{Source: source, Soft: v << 10, SoftUnlimited: unlimited, HardUnknown: true}, n, nil
	}
	if err := sc.Err(); err != nil {
		return nil, n + 1, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	return nil, 0, &ParseError{Source: source, Err: fmt.Errorf("%w: no locked-memory line (ulimit -a's \"max locked memory\")", ErrMalformed)}
}

// memlockRow matches the locked-memory row of `ulimit -a` in bash, zsh
// and dash, all in KiB.
func memlockRow(t string) bool {
	return strings.HasPrefix(t, "max locked memory") && strings.Contains(t, "(kbytes, -l)") ||
		strings.HasPrefix(t, "-l: locked-in-memory size (kbytes)") ||
		strings.HasPrefix(t, "locked memory(kbytes)") || strings.HasPrefix(t, "locked memory(kb)")
}

// UlimitLine says whether l is a row of `ulimit -a` (bash: "open files
// (-n) 1024", "max locked memory (kbytes, -l) 64"; zsh: "-n: file
// descriptors 256"), dash's locked-memory row, or /proc/<pid>/limits'
// "Max locked memory" row: a name, the option letter, and a number or
// "unlimited" last. Cheap for lines that end otherwise.
func UlimitLine(l string) bool {
	t := strings.TrimRight(l, " \t\r")
	if t == "" {
		return false
	}
	if c := t[len(t)-1]; !(c >= '0' && c <= '9' || c == 'd' || c == 's') {
		return false
	}
	t = strings.TrimLeft(t, " \t")
	if strings.HasPrefix(t, "Max locked memory ") || memlockRow(t) {
		return true
	}
	sp := strings.LastIndexAny(t, " \t")
	if sp < 0 {
		return false
	}
	if _, _, err := limitValue(t[sp+1:]); err != nil && !strings.HasPrefix(t, "Max ") {
		return false
	}
	head := strings.TrimRight(t[:sp], " \t")
	// bash: "… (-n)" or "… (kbytes, -l)" before the value.
	if len(head) > 5 && strings.HasSuffix(head, ")") && head[len(head)-3] == '-' && isLetter(head[len(head)-2]) &&
		(head[len(head)-4] == '(' || head[len(head)-4] == ' ') && strings.IndexByte(head, '(') > 0 {
		return true
	}
	// dash: "time(seconds)", "locked memory(kbytes)" before the value.
	if o := strings.IndexByte(head, '('); o > 0 && head[o-1] != ' ' && strings.HasSuffix(head, ")") && isLetter(head[0]) && strings.Trim(head[o+1:len(head)-1], "abcdefghijklmnopqrstuvwxyz") == "" {
		return true
	}
	// /proc/<pid>/limits: "Max open files  1024  4096  files".
	if strings.HasPrefix(head, "Max ") {
		f := strings.Fields(t)
		if len(f) >= 4 && isLetter(f[len(f)-1][0]) && f[len(f)-1] != "unlimited" {
			f = f[:len(f)-1] // the unit
		}
		_, _, err := limitValue(f[len(f)-2])
		return len(f) >= 4 && err == nil
	}
	// zsh: "-n: file descriptors" before the value.
	return len(head) > 4 && head[0] == '-' && isLetter(head[1]) && head[2] == ':' && head[3] == ' '
}

// IsLimitsHeader matches the column header of /proc/<pid>/limits:
// "Limit  Soft Limit  Hard Limit  Units".
func IsLimitsHeader(t string) bool {
	return strings.Join(strings.Fields(t), " ") == "Limit Soft Limit Hard Limit Units"
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
