// Package opensm reads the log of OpenSM, the subnet manager of
// linux-rdma/opensm, and the stack traces of its crashes.
//
// osm_log() writes each message as "Mon DD HH:MM:SS UUUUUU [TTTTTTTT]
// 0xLL -> text": the date (left out of some copies, as in a log trimmed
// to its microseconds), the microseconds, the thread, the message's
// level (0x01 error, 0x02 info, 0x03 both, 0x80 the "system" messages
// also sent to syslog) and the text. Errors carry a code of their own
// ("osm_vendor_bind: ERR 5426: Unable to register class 129 version 1").
// OpenSM logs "Entering MASTER state", "SUBNET UP", "Entering STANDBY
// state" as it takes the subnet, and "Exiting SM" when the process ends.
//
// A crash is read from a debugger's or a crash reporter's (apport)
// stack frames naming OpenSM's sources ("#0 0x00005636f04835a9 in
// get_next_switch (…) at osm_ucast_lash.c:337") and its "Signal: 11" or
// "SourcePackage: opensm" lines.
package opensm

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoLog says the text holds no OpenSM log line and no crash frame.
var ErrNoLog = errors.New("no OpenSM log line (\"UUUUUU [TTTTTTTT] 0xLL -> text\") and no stack frame of OpenSM's sources")

// Level bits of osm_log.h.
const (
	LevelError = 0x01
	LevelSys   = 0x80
)

// Entry is one log message.
type Entry struct {
	Line  int
	Level int
	// Code is the error code of an "ERR XXXX:" message ("5426").
	Code string
	Text string
	Raw  string
}

// Frame is one stack frame naming an OpenSM source file.
type Frame struct {
	Line     int
	Function string
	// Source is "osm_ucast_lash.c:337".
	Source string
	Raw    string
}

// Log is what a paste of OpenSM's log holds.
type Log struct {
	Entries []Entry
	// Version is the one "OpenSM 3.3.23" names.
	Version string
	Frames  []Frame
	// Signal is the crash report's "Signal: 11", 0 when none.
	Signal     int
	SignalLine int
}

// LogLine reads one log line: its level, and its text after "-> ".
func LogLine(l string) (level int, text string, ok bool) {
	t := strings.TrimSpace(l)
	i := strings.Index(t, " -> ")
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(t[:i])
	if len(f) < 3 {
		return 0, "", false
	}
	lv, th, us := f[len(f)-1], f[len(f)-2], f[len(f)-3]
	if !strings.HasPrefix(lv, "0x") || len(lv) != 4 || len(th) < 3 || th[0] != '[' || th[len(th)-1] != ']' || !isHex(th[1:len(th)-1]) || !isDigits(us) {
		return 0, "", false
	}
	n, err := strconv.ParseUint(lv[2:], 16, 8)
	if err != nil {
		return 0, "", false
	}
	if len(f) > 3 {
		// The date before: "Oct 29 10:12:01" (three fields), or
		// nothing the log has but a prefix of its own.
		if len(f) < 6 || !strings.Contains(f[len(f)-4], ":") {
			return 0, "", false
		}
	}
	return int(n), strings.TrimSpace(t[i+4:]), true
}

// FrameLine reads a stack frame that names one of OpenSM's source files
// ("osm_*.c", opensm.c, st.c of libopensm …): gdb's "#0 0x… in FUNC
// (ARGS) at osm_ucast_lash.c:337" or "#1 FUNC (ARGS) at FILE:LINE".
func FrameLine(l string) (Frame, bool) {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "#") {
		return Frame{}, false
	}
	f := strings.Fields(t)
	if len(f) < 2 || !isDigits(f[0][1:]) {
		return Frame{}, false
	}
	i := strings.LastIndex(t, " at ")
	if i < 0 {
		return Frame{}, false
	}
	src := strings.TrimSpace(t[i+4:])
	file, num, ok := strings.Cut(src[strings.LastIndexByte(src, '/')+1:], ":")
	if !ok || !isDigits(num) || !strings.HasPrefix(file, "osm_") || !strings.HasSuffix(file, ".c") {
		return Frame{}, false
	}
	rest := f[1:]
	if len(rest) > 2 && strings.HasPrefix(rest[0], "0x") && rest[1] == "in" {
		rest = rest[2:]
	}
	fn, _, _ := strings.Cut(rest[0], "(")
	return Frame{Function: fn, Source: file + ":" + num, Raw: t}, true
}

// ReportLine says whether l is a crash reporter's line naming OpenSM
// ("SourcePackage: opensm", "ExecutablePath: /usr/sbin/opensm").
func ReportLine(l string) bool {
	t := strings.TrimSpace(l)
	return t == "SourcePackage: opensm" || strings.HasPrefix(t, "ExecutablePath: ") && strings.HasSuffix(t, "/opensm")
}

// Parse reads OpenSM's log lines, crash frames and crash report lines
// from r; other lines are passed over (a paste mixes them with prose).
func Parse(r io.Reader, source string) (*Log, error) {
	lg := &Log{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	report := false
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if lv, text, ok := LogLine(l); ok {
			e := Entry{Line: n, Level: lv, Text: text, Raw: strings.TrimSpace(l)}
			if _, c, ok := strings.Cut(text, "ERR "); ok && len(c) >= 5 && c[4] == ':' && isHex(c[:4]) {
				e.Code = c[:4]
			}
			if v, ok := strings.CutPrefix(text, "OpenSM "); ok && lg.Version == "" && v != "" && v[0] >= '0' && v[0] <= '9' {
				lg.Version = strings.Fields(v)[0]
			}
			lg.Entries = append(lg.Entries, e)
			continue
		}
		if fr, ok := FrameLine(l); ok {
			fr.Line = n
			lg.Frames = append(lg.Frames, fr)
			continue
		}
		if ReportLine(l) {
			report = true
			continue
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Signal: "); ok {
			if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s > 0 && lg.Signal == 0 {
				lg.Signal, lg.SignalLine = s, n
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if !report && len(lg.Frames) == 0 {
		lg.Signal, lg.SignalLine = 0, 0 // a "Signal:" line of something else
	}
	if len(lg.Entries) == 0 && len(lg.Frames) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoLog}
	}
	return lg, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
