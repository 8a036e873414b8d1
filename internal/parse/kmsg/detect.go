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
	if crashHead(line) {
		return true // an unstamped crash report: "BUG: unable to handle …"
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

// reCrashHead matches the first line of the kernel's crash and warning
// reports, which no other program prints: x86 page faults
// (arch/x86/mm/fault.c "BUG: unable to handle kernel paging request at",
// since 4.19 "BUG: unable to handle page fault for address:", "BUG:
// kernel NULL pointer dereference, address:"), the "Oops: 0000 [#1]"
// line (die()), "general protection fault" (traps.c), "kernel BUG at
// file:line!" (BUG()), the WARN_ON header "WARNING: CPU: 0 PID: 5342 at"
// (kernel/panic.c __warn), arm64's "Unable to handle kernel …" and
// "Internal error: Oops", and the KASAN/KFENCE headers. A kernel log
// pasted without its stamps (dmesg -t, a console capture, a mail quoting
// the report) still starts its report with one of them.
var reCrashHead = regexp.MustCompile(`^(?:BUG: (?:unable to handle (?:kernel |page fault)|kernel NULL pointer dereference|KASAN: |KFENCE: )|Oops: [0-9a-f]{4} \[#\d+\]|general protection fault[,:]|kernel BUG at \S+:\d+!|WARNING: CPU: \d+ PID: \d+ at |Unable to handle kernel (?:NULL pointer dereference|paging request)|Internal error: Oops)`)

// crashHead reports whether an unstamped line starts a kernel crash or
// warning report (reCrashHead).
func crashHead(line string) bool {
	switch line[0] {
	case 'B', 'O', 'g', 'k', 'W', 'U', 'I':
		return reCrashHead.MatchString(line)
	}
	return false
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
