// Package systemctl reads `systemctl status UNIT…` output (systemd's
// src/systemctl/systemctl-show.c print_status_info): a head line per unit,
// "● name.service - Description" (the bullet is "×" for a failed unit and
// "○" for an inactive one since systemd 249, absent in older releases),
// its Loaded:, Active:, Main PID: … fields, and the journal lines printed
// under it after a blank line.
package systemctl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNoData is returned when the text holds no unit head line.
var ErrNoData = errors.New("no systemctl status unit")

// ParseError names the source of an error.
type ParseError struct {
	Source string
	Line   int
	Err    error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Source, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Source, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Line is one numbered line (from 1).
type Line struct {
	N    int
	Text string
}

// Unit is one unit's status block.
type Unit struct {
	Name        string // "nvidia-fabricmanager.service"
	Description string
	Head        Line
	// Loaded is the Loaded: value ("loaded (/usr/lib/…; enabled; …)",
	// "not-found (Reason: …)", "masked").
	Loaded string
	// State and Sub are the Active: line's words: "active" "running",
	// "failed" "", "activating" "auto-restart", "inactive" "dead".
	State, Sub string
	// Result is the "(Result: exit-code)" of a failed or restarting unit.
	Result string
	Active Line
	// Exit is the Main PID line of a process that exited
	// ("1234 (code=exited, status=1/FAILURE)"), "" when running.
	Exit string
	// Journal holds the lines printed under the unit after its fields.
	Journal []Line
}

// Healthy says the unit is active (running, exited, listening…).
func (u *Unit) Healthy() bool { return u.State == "active" || u.State == "reloading" }

// Failed says the unit failed or keeps restarting after failures.
func (u *Unit) Failed() bool {
	return u.State == "failed" || u.State == "activating" && u.Sub == "auto-restart"
}

// HeadLine reads a unit's head line: "● opensm.service - OpenSM",
// "× nvidia-fabricmanager.service - NVIDIA fabric manager service",
// "opensm.service - LSB: Start opensm" (older systemd).
func HeadLine(l string) (name, desc string, ok bool) {
	t := strings.TrimSpace(l)
	for _, b := range []string{"●", "×", "○", "*", "↻"} {
		if r, cut := strings.CutPrefix(t, b+" "); cut {
			t = r
			break
		}
	}
	name, desc, ok = strings.Cut(t, " - ")
	if !ok || strings.ContainsAny(name, " \t") || !unitName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(desc), true
}

// unitName says whether n names a systemd unit ("x.service", "x@y.service",
// "x.socket", "x.target", "x.mount", "x.timer", "x.path").
func unitName(n string) bool {
	i := strings.LastIndexByte(n, '.')
	if i <= 0 {
		return false
	}
	switch n[i+1:] {
	case "service", "socket", "target", "mount", "timer", "path", "device", "scope", "slice", "swap", "automount":
		return true
	}
	return false
}

// IsHead says whether l and the line after it begin a unit block: a head
// line followed by its Loaded: field.
func IsHead(l, next string) bool {
	_, _, ok := HeadLine(l)
	return ok && strings.HasPrefix(strings.TrimSpace(next), "Loaded:")
}

// field reads "Name: value" of an indented field line.
func field(l string) (name, value string, ok bool) {
	t := strings.TrimSpace(l)
	name, value, ok = strings.Cut(t, ": ")
	if !ok || name == "" || strings.ContainsAny(name, "[]()") || len(name) > 16 || l == t {
		return "", "", false
	}
	return name, strings.TrimSpace(value), true
}

// activeWords reads an Active: value: "failed (Result: exit-code) since
// …", "active (running) since …", "activating (auto-restart) (Result:
// exit-code) since …", "inactive (dead)".
func activeWords(v string) (state, sub, result string) {
	state, rest, _ := strings.Cut(v, " ")
	for {
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, "(") {
			break
		}
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			break
		}
		in := rest[1:end]
		if r, ok := strings.CutPrefix(in, "Result: "); ok {
			result = r
		} else if sub == "" {
			sub = in
		}
		rest = rest[end+1:]
	}
	return state, sub, result
}

// Parse reads every unit block of r (line numbers from 1). Lines before
// the first head line are left out; a unit cut before its Active: line
// has State "". It fails with ErrNoData when r holds no head line.
func Parse(r io.Reader, source string) ([]Unit, error) {
	var out []Unit
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	var u *Unit
	fields := false
	for i, l := range lines {
		n := i + 1
		next := ""
		if i+1 < len(lines) {
			next = lines[i+1]
		}
		if IsHead(l, next) {
			name, desc, _ := HeadLine(l)
			out = append(out, Unit{Name: name, Description: desc, Head: Line{n, l}})
			u, fields = &out[len(out)-1], true
			continue
		}
		if u == nil {
			continue
		}
		if strings.TrimSpace(l) == "" {
			fields = false
			continue
		}
		if fields {
			name, v, ok := field(l)
			switch {
			case !ok:
				// A CGroup tree line or a Drop-In path: no field.
			case name == "Loaded":
				u.Loaded = v
			case name == "Active":
				u.State, u.Sub, u.Result = activeWords(v)
				u.Active = Line{n, l}
			case name == "Main PID" || name == "Process" && u.Exit == "":
				// "1234 (code=exited, status=1/FAILURE)", "1234
				// ExecStart=/usr/bin/x (code=exited, status=1/FAILURE)"
				if i := strings.Index(v, "(code="); i > 0 && !strings.Contains(v[i:], "status=0/SUCCESS") {
					pid, _, _ := strings.Cut(v, " ")
					u.Exit = pid + " " + v[i:]
				}
			}
			continue
		}
		u.Journal = append(u.Journal, Line{n, l})
	}
	if len(out) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoData}
	}
	return out, nil
}
