// Package iplink reads `ip link` and `ip link show DEV` (iproute2): each
// interface's "N: NAME: <FLAGS> mtu M … state STATE …" line, and under
// it the "link/ether …" line and, on an SR-IOV physical function, one
// "vf N link/ether …, spoof checking …, link-state auto, trust off" line
// per virtual function (iproute2 ip/ipaddress.c print_vfinfo).
package iplink

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

// ErrNoLink says the text holds no interface line.
var ErrNoLink = errors.New("no ip link interface line (\"N: NAME: <FLAGS> mtu M … state STATE\")")

// VF is one virtual function line.
type VF struct {
	Num       int
	LinkState string // "auto", "enable", "disable"; "" when not printed
	Line      int
}

// Link is one interface.
type Link struct {
	Index int
	Name  string
	Flags []string
	MTU   int
	State string // "UP", "DOWN", "UNKNOWN" …
	Line  int
	Raw   string
	VFs   []VF
}

// Up says whether the interface is administratively up (the UP flag).
func (l *Link) Up() bool {
	for _, f := range l.Flags {
		if f == "UP" {
			return true
		}
	}
	return false
}

// HeadLine reads an interface line.
func HeadLine(l string) (Link, bool) {
	t := strings.TrimSpace(l)
	idx, rest, ok := strings.Cut(t, ": ")
	if !ok {
		return Link{}, false
	}
	n, err := strconv.Atoi(idx)
	if err != nil || n < 1 {
		return Link{}, false
	}
	name, rest, ok := strings.Cut(rest, ": <")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return Link{}, false
	}
	flags, rest, ok := strings.Cut(rest, ">")
	if !ok {
		return Link{}, false
	}
	lk := Link{Index: n, Name: name, Raw: t}
	if flags != "" {
		lk.Flags = strings.Split(flags, ",")
	}
	f := strings.Fields(rest)
	if len(f) < 2 || f[0] != "mtu" {
		return Link{}, false
	}
	lk.MTU, _ = strconv.Atoi(f[1])
	for i := 2; i+1 < len(f); i++ {
		if f[i] == "state" {
			lk.State = f[i+1]
		}
	}
	return lk, true
}

// VFLine reads a "vf N …" line.
func VFLine(l string) (VF, bool) {
	t := strings.TrimSpace(l)
	f := strings.Fields(t)
	if len(f) < 3 || f[0] != "vf" || !strings.HasPrefix(f[2], "link/") && f[2] != "MAC" {
		return VF{}, false
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 {
		return VF{}, false
	}
	v := VF{Num: n}
	if _, s, ok := strings.Cut(t, "link-state "); ok {
		v.LinkState = strings.TrimRight(strings.Fields(s + " ")[0], ",")
	}
	return v, true
}

// Parse reads the interfaces of r; lines that are neither an interface
// nor a VF line are passed over.
func Parse(r io.Reader, source string) ([]Link, error) {
	var out []Link
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if lk, ok := HeadLine(l); ok {
			lk.Line = n
			out = append(out, lk)
			continue
		}
		if v, ok := VFLine(l); ok && len(out) > 0 {
			v.Line = n
			out[len(out)-1].VFs = append(out[len(out)-1].VFs, v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoLink}
	}
	return out, nil
}
