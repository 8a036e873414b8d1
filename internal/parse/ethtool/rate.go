package ethtool

import (
	"strconv"
	"strings"
)

// ParseRate reads a per-second counter value of a rate view of `ethtool
// -S` (a watch loop or a script that prints each counter's change per
// second, "rx_nodesc_drop_cnt: 451.3k/s"): a decimal with an optional k,
// M or G multiplier, then "/s". ok false for anything else ("8.0", "k/s").
func ParseRate(v string) (perSec float64, ok bool) {
	s, ok := strings.CutSuffix(strings.TrimSpace(v), "/s")
	if !ok || s == "" {
		return 0, false
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1e3
	case 'M':
		mult = 1e6
	case 'G':
		mult = 1e9
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false // no sign, no "Inf"/"NaN"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return f * mult, true
}

// RateLine reads one "name: 451.3k/s" line of a rate view; ok false for
// any other line (a counter total, prose). Lines that do not end in "/s"
// are turned away before any parsing.
func RateLine(t string) (name string, perSec float64, ok bool) {
	t = strings.TrimSpace(t)
	if !strings.HasSuffix(t, "/s") {
		return "", 0, false
	}
	i := strings.LastIndex(t, ": ")
	if i <= 0 {
		return "", 0, false
	}
	name = strings.TrimSpace(t[:i])
	if name == "" || strings.ContainsAny(name, " \t") {
		return "", 0, false
	}
	if perSec, ok = ParseRate(t[i+2:]); !ok {
		return "", 0, false
	}
	return name, perSec, true
}
