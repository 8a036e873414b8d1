package ncclenv

import "strings"

// maxListEntries is NCCL's MAX_IB_DEVS / MAX_IFS: parseStringList stops
// after this many entries.
const maxListEntries = 32

// Entry is one element of an NCCL interface/HCA list.
type Entry struct {
	// Prefix is the name as written, untrimmed (NCCL does not trim: a
	// space makes the entry match nothing).
	Prefix string `json:"prefix"`
	// Port is the ":port" suffix, -1 when absent (any port).
	Port int `json:"port"`
}

// List is a parsed NCCL_IB_HCA or NCCL_SOCKET_IFNAME value.
type List struct {
	Raw string `json:"raw"`
	// Exclude is the leading '^': select everything the entries do not
	// match.
	Exclude bool `json:"exclude,omitempty"`
	// Exact is the '=' (after an optional '^'): names must match whole,
	// not as prefixes.
	Exact   bool    `json:"exact,omitempty"`
	Entries []Entry `json:"entries"`
}

// ParseList parses a list as NCCL does: an optional '^', an optional '=',
// then comma-separated names with an optional ":port" (atoi, so ":x" is
// port 0 and ":1:2" is port 1). Empty names are dropped; at most 32
// entries are kept. It never fails, like NCCL; rules report entries that
// match nothing.
func ParseList(s string) List {
	l := List{Raw: s}
	if strings.HasPrefix(s, "^") {
		l.Exclude = true
		s = s[1:]
	}
	if strings.HasPrefix(s, "=") {
		l.Exact = true
		s = s[1:]
	}
	for _, item := range strings.Split(s, ",") {
		if len(l.Entries) == maxListEntries {
			break
		}
		name, port, hasPort := strings.Cut(item, ":")
		if name == "" {
			continue
		}
		e := Entry{Prefix: name, Port: -1}
		if hasPort {
			e.Port = atoi(port)
		}
		l.Entries = append(l.Entries, e)
	}
	return l
}

// atoi mirrors C atoi: optional leading spaces and sign, then digits up to
// the first non-digit; 0 when there are none.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<30 {
			break
		}
	}
	if neg {
		return -n
	}
	return n
}

// MatchEntry reports whether one entry matches a name and port (port -1:
// any), as NCCL's matchIf/matchPort do, ignoring Exclude.
func (l List) MatchEntry(e Entry, name string, port int) bool {
	if l.Exact {
		if name != e.Prefix {
			return false
		}
	} else if !strings.HasPrefix(name, e.Prefix) {
		return false
	}
	return e.Port == -1 || port == -1 || e.Port == port
}

// Selects reports whether NCCL would use the device (or interface) name
// and port: matchIfList(...) ^ searchNot. An empty list selects
// everything.
func (l List) Selects(name string, port int) bool {
	if len(l.Entries) == 0 {
		return true
	}
	m := false
	for _, e := range l.Entries {
		if l.MatchEntry(e, name, port) {
			m = true
			break
		}
	}
	return m != l.Exclude
}
