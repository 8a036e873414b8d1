package kmsg

import "strings"

// oopsFrame is one call-trace frame read by parseFrame.
type oopsFrame struct {
	fn, mod string
	unsure  bool // "? func+…": a return address found on the stack
}

// parseFrame reads t as reOopsFrame does, by hand: it runs on every line
// of a call trace, and kernel logs with many crash reports reach
// gigabytes. FuzzParseFrame holds it to the expression.
func parseFrame(t string) (oopsFrame, bool) {
	var f oopsFrame
	s := trimRE2Space(t)
	for k := 0; k < 2 && strings.HasPrefix(s, "["); k++ {
		j := 1
		if j < len(s) && s[j] == '<' {
			j++
		}
		h := j
		for j < len(s) && isHexDigit(s[j]) {
			j++
		}
		if j == h {
			break
		}
		if j < len(s) && s[j] == '>' {
			j++
		}
		if j >= len(s) || s[j] != ']' {
			break
		}
		s = trimRE2Space(s[j+1:])
	}
	if strings.HasPrefix(s, "? ") {
		f.unsure, s = true, s[2:]
	}
	j := 0
	for j < len(s) && (isWordByte(s[j]) || s[j] == '.' || s[j] == '$') {
		j++
	}
	if j == 0 || !strings.HasPrefix(s[j:], "+0x") {
		return oopsFrame{}, false
	}
	f.fn, s = s[:j], s[j+len("+0x"):]
	s, ok := skipHex(s)
	if !ok || !strings.HasPrefix(s, "/0x") {
		return oopsFrame{}, false
	}
	if s, ok = skipHex(s[len("/0x"):]); !ok {
		return oopsFrame{}, false
	}
	if strings.HasPrefix(s, " [") {
		r := s[2:]
		k := 0
		for k < len(r) && isWordByte(r[k]) {
			k++
		}
		if k > 0 && k < len(r) && r[k] == ']' {
			f.mod, s = r[:k], r[k+1:]
		}
	}
	if trimRE2Space(s) != "" {
		return oopsFrame{}, false
	}
	return f, true
}

// skipHex cuts one or more leading hex digits; false when there are none.
func skipHex(s string) (string, bool) {
	j := 0
	for j < len(s) && isHexDigit(s[j]) {
		j++
	}
	return s[j:], j > 0
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isWordByte is RE2's \w: [0-9A-Za-z_].
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// trimRE2Space cuts RE2's \s ([\t\n\f\r ]) from the start of s.
func trimRE2Space(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\f' || s[0] == '\r') {
		s = s[1:]
	}
	return s
}
