package ncclenv

import (
	"regexp"
	"strings"
)

// reLogged is NCCL's own report of a variable it read ("NCCL_IB_GID_INDEX
// set by environment to 3."; init.cc, param.cc).
var reLogged = regexp.MustCompile(`\b(NCCL_[A-Z0-9_]+) set by environment to (\S+?)\.?$`)

// InlineSetting finds a setting of variable name on one line of a paste:
// a shell assignment ("export NCCL_IB_GID_INDEX=4", "NCCL_IB_GID_INDEX=3
// torchrun …"), a launcher flag ("-x NCCL_IB_GID_INDEX=3", "-e …",
// "--env …"), or NCCL's own "NCCL_IB_GID_INDEX set by environment to 3."
// Matching quotes and a trailing ';' or ',' are taken off the value. A
// shell comment ('#' first) sets nothing, and neither does a line that
// names the variable twice with different values (prose comparing them).
func InlineSetting(line, name string) (string, bool) {
	t := strings.TrimSpace(line)
	if t == "" || t[0] == '#' || !strings.Contains(t, name) {
		return "", false
	}
	if m := reLogged.FindStringSubmatch(t); m != nil && m[1] == name {
		return m[2], true
	}
	val, found := "", false
	for rest := t; ; {
		i := strings.Index(rest, name+"=")
		if i < 0 {
			break
		}
		before := rest[:i]
		rest = rest[i+len(name)+1:]
		if before != "" && !strings.ContainsAny(before[len(before)-1:], " \t;'\"`(") {
			continue // part of a longer name (MY_NCCL_IB_GID_INDEX=)
		}
		end := strings.IndexAny(rest, " \t;,)`")
		if end < 0 {
			end = len(rest)
		}
		v := strings.Trim(rest[:end], `"'`)
		if v == "" {
			continue
		}
		if found && v != val {
			return "", false
		}
		val, found = v, true
	}
	return val, found
}
