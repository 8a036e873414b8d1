package kmsg

import (
	"regexp"
	"strings"
	"time"
)

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
	case c == '[', c == '<', c >= 'A' && c <= 'Z', c >= 0x80, c == ' ':
		// Also journal stamps of other locales ("фев 12", " 3月 27").
	case devLine(line):
		return true // an unstamped kernel line: "pci 0000:00:01.1: …"
	case decodedPrefix(line):
		return true // dmesg -x: "kern  :warn  : …", stamped or not
	case strings.HasPrefix(line, syslogKernelTag):
		// A syslog line whose date and host were cut: "kernel: [ 13.2] …".
	default:
		return false
	}
	_, kind, err := parseTextLine(line, 2000, time.UTC)
	return err == nil && (kind != lineBare || devLine(line))
}

// reDevLine matches the kernel's dev_printk prefix of a PCI device
// ("pci 0000:00:01.1: …", "mlx5_core 0000:03:00.0: …", "mlx5_core
// 0000:01:00.1 eth1: …") and the NVRM and mlx5 driver prefixes: what a
// kernel log pasted without timestamps (dmesg -t, grep output, a diff
// of two boots) still shows on every line.
var reDevLine = regexp.MustCompile(`^(?:[a-z][a-z0-9_.-]* [0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7][: ]|NVRM: |mlx5_core(?:\.[a-z]+)?: |pci_bus [0-9a-fA-F]{4}:[0-9a-fA-F]{2}: )`)

// devLine reports whether an unstamped line is a kernel message by its
// device prefix.
func devLine(line string) bool {
	return reDevLine.MatchString(line)
}

// decodedPrefix reports whether line starts with the facility and level
// names `dmesg -x` (--decode) prints: "kern  :warn  : ".
func decodedPrefix(line string) bool {
	fac, rest, ok := strings.Cut(line, ":")
	if !ok || !facilities[strings.TrimSpace(fac)] {
		return false
	}
	lvl, _, ok := strings.Cut(rest, ":")
	_, known := levels[strings.TrimSpace(lvl)]
	return ok && known
}
