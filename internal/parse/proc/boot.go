package proc

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseBootTime reads the btime line of proc/stat (fs/proc/stat.c:
// "btime %llu", seconds since the epoch): the first such line with a
// positive value.
func ParseBootTime(b []byte, source string) (time.Time, error) {
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && s > 0 {
				return time.Unix(s, 0).UTC(), nil
			}
		}
	}
	return time.Time{}, &ParseError{Source: source, Err: fmt.Errorf("%w: no \"btime\" line with a positive value", ErrMalformed)}
}

// ParseUptime reads proc/uptime (fs/proc/uptime.c: "%lu.%02lu %lu.%02lu",
// seconds up and idle): the time since boot, less than about 317 years.
func ParseUptime(b []byte, source string) (time.Duration, error) {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, &ParseError{Source: source, Err: fmt.Errorf("%w: empty", ErrMalformed)}
	}
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil || up < 0 || up >= 1e10 {
		return 0, &ParseError{Source: source, Line: 1, Err: fmt.Errorf("%w: uptime %q", ErrMalformed, f[0])}
	}
	return time.Duration(up * float64(time.Second)), nil
}
