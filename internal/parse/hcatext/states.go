package hcatext

import (
	"strconv"
	"strings"
	"unicode"
)

// The tools print a port state in many forms: ibstat "Active", ibv_devinfo
// "PORT_ACTIVE (4)", sysfs and ibstatus "4: ACTIVE", rdma "ACTIVE" (older
// iproute2 and some pastes in lower case), bare numbers ("state: 4"), and
// physical states as "LinkUp", "LINK_UP", "5: LinkUp" or "link_up".
// readState reads any of them; aliases[i] are the names of state i,
// compared without case, spaces, underscores and a "PORT_" prefix.
var (
	portStateAliases = [][]string{1: {"down"}, 2: {"init", "initializing", "initialize"}, 3: {"armed"}, 4: {"active"}, 5: {"activedefer"}}
	physStateAliases = [][]string{1: {"sleep"}, 2: {"polling"}, 3: {"disabled"}, 4: {"portconfigurationtraining", "training"},
		5: {"linkup"}, 6: {"linkerrorrecovery", "errorrecovery"}, 7: {"phytest", "test"}}
)

func normState(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "port_")
	s = strings.TrimPrefix(s, "ib_port_")
	return strings.Map(func(r rune) rune {
		if r == '_' || r == ' ' || r == '-' {
			return -1
		}
		return r
	}, s)
}

// readState returns the state number of v, 0 and false when v is none of
// the forms.
func readState(v string, aliases [][]string) (int, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	// "PORT_ACTIVE (4)", "DISABLED (3)": the number is authoritative.
	if i := strings.LastIndexByte(v, '('); i > 0 && strings.HasSuffix(v, ")") {
		if n, err := strconv.Atoi(strings.TrimSpace(v[i+1 : len(v)-1])); err == nil && n > 0 && n < len(aliases) {
			return n, true
		}
	}
	// "4: ACTIVE", "4".
	num, name, hasColon := strings.Cut(v, ":")
	if n, err := strconv.Atoi(strings.TrimSpace(num)); err == nil {
		if n > 0 && n < len(aliases) {
			return n, true
		}
		return 0, false
	}
	if !hasColon {
		name = v
	}
	// A name, perhaps with words after it ("Active (annotation)").
	cand := []string{name}
	if f := strings.FieldsFunc(name, func(r rune) bool { return r == '(' || unicode.IsSpace(r) }); len(f) > 0 {
		cand = append(cand, f[0])
	}
	for _, c := range cand {
		c = normState(c)
		for i, as := range aliases {
			for _, a := range as {
				if c == a {
					return i, true
				}
			}
		}
	}
	return 0, false
}

// cleanValue removes what people glue to a value when they annotate a
// paste: "0x248a0703005d07f1------>>>note", "Active <-- here", "4 # the
// SM". It cuts at the first arrow, run of dashes, " #" comment or
// non-ASCII character.
func cleanValue(v string) string {
	// Mail and web archives turn blanks into no-break spaces: blanks.
	v = strings.Map(func(r rune) rune {
		if r >= 0x80 && unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, v)
	cut := len(v)
	for _, m := range []string{"--", "->", "<-", "<<", ">>", "=>", " #", "\t#"} {
		if i := strings.Index(v, m); i >= 0 && i < cut {
			cut = i
		}
	}
	for i, r := range v {
		if r >= 0x80 && i < cut {
			cut = i
			break
		}
	}
	return strings.TrimSpace(v[:cut])
}

// redacted says whether a GUID or address was hidden by whoever pasted
// it ("...", "xxxx", "<redacted>", "****").
func redacted(v string) bool {
	t := strings.ToLower(strings.TrimSpace(v))
	if t == "" {
		return false
	}
	if strings.Contains(t, "redacted") || strings.Contains(t, "hidden") || strings.Contains(t, "masked") {
		return true
	}
	t = strings.TrimPrefix(t, "0x")
	return strings.Trim(t, ".x*#<>…:") == ""
}
