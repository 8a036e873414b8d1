package kmsg

import "time"

// DetectLine reports whether one line is a kernel log line: a /dev/kmsg
// record, or a line with a dmesg or journal timestamp (a journal line of
// another program counts: it belongs to the same paste). `ibdoctor
// analyze` uses it to find where a kernel log starts and ends inside a
// paste of several tools' outputs.
func DetectLine(line string) bool {
	if line == "" {
		return false
	}
	// Every form starts with a digit (/dev/kmsg "6,…;", ISO stamps), "["
	// (dmesg), "<" (dmesg -r) or a capital (journal "Mar 05"): other lines
	// are rejected without parsing.
	switch c := line[0]; {
	case c >= '0' && c <= '9':
		if _, err := ParseRecord([]byte(line)); err == nil {
			return true
		}
	case c == '[', c == '<', c >= 'A' && c <= 'Z':
	default:
		return false
	}
	_, kind, err := parseTextLine(line, 2000, time.UTC)
	return err == nil && kind != lineBare
}
