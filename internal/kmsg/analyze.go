package kmsg

import "time"

// DetectLine reports whether one line is a kernel log line: a /dev/kmsg
// record, or a line with a dmesg or journal timestamp (a journal line of
// another program counts: it belongs to the same paste). `ibdoctor
// analyze` uses it to find where a kernel log starts and ends inside a
// paste of several tools' outputs.
func DetectLine(line string) bool {
	if line == "" || line[0] == ' ' || line[0] == '\t' {
		return false
	}
	if _, err := ParseRecord([]byte(line)); err == nil {
		return true
	}
	_, kind, err := parseTextLine(line, 2000, time.UTC)
	return err == nil && kind != lineBare
}
