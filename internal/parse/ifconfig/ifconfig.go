// Package ifconfig reads the interface blocks of ifconfig(8) in the three
// layouts it is pasted in:
//
//   - Linux net-tools 2.x (lib/interface.c ife_print_long): "ib0:
//     flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 2044", then indented
//     "inet …", "infiniband 80:00:… txqueuelen 256  (InfiniBand)",
//     "RX errors 0  dropped 0  overruns 0  frame 0" and "TX errors 0
//     dropped 0 overruns 0  carrier 0  collisions 0" lines;
//   - Linux net-tools 1.60: "ib0       Link encap:UNSPEC  HWaddr 80-00-…"
//     (or "Link encap:InfiniBand"), then "UP BROADCAST RUNNING MULTICAST
//     MTU:2044  Metric:1" and "RX packets:… errors:0 dropped:0 overruns:0
//     frame:0";
//   - FreeBSD (sbin/ifconfig): "mce0: flags=8863<UP,BROADCAST,RUNNING,…>
//     metric 0 mtu 1500", then tab-indented "media: …" and "status:
//     active" or "status: no carrier", where drivers that report a reason
//     add it in parentheses (mlx5en: "status: no carrier (FEC sync loss)").
//
// A block whose lines a web page flattened into one line is read too.
package ifconfig

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoInterface says the text holds no interface block.
var ErrNoInterface = errors.New("no ifconfig interface line (\"NAME: flags=N<FLAGS>  mtu M\" or \"NAME  Link encap:TYPE\")")

// Iface is one interface block.
type Iface struct {
	Name  string
	Flags []string
	MTU   int
	// HWType is the link type: "Ethernet", "InfiniBand", "UNSPEC" (an
	// IPoIB interface on net-tools builds without InfiniBand support),
	// "" when not printed.
	HWType string
	// Status is FreeBSD's "status:" value ("active", "no carrier") and
	// StatusWhy the reason the driver gave in parentheses.
	Status, StatusWhy string
	StatusLine        int
	// RX and TX counters; ErrLine is the line of the first non-zero error
	// or drop count.
	RXPackets, RXErrors, RXDropped int64
	TXPackets, TXErrors, TXDropped int64
	RXLine, TXLine                 int
	Line                           int
	Raw                            string
}

// Has says whether the interface carries the flag.
func (i *Iface) Has(flag string) bool {
	for _, f := range i.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// reHead is the head of a net-tools 2.x or FreeBSD block, found anywhere
// on a line (a flattened page puts the command before it).
var reHead = regexp.MustCompile(`(?:^|\s)([A-Za-z][\w.@-]*): flags=([0-9a-fA-F]+)<([A-Z0-9_,]*)>(?:\s+metric \d+)?\s+mtu (\d+)`)

// reOldHead is net-tools 1.60's head line.
var reOldHead = regexp.MustCompile(`^([A-Za-z][\w.:@-]*)\s+Link encap:(\S+(?: Loopback)?)`)

// reOldFlags is net-tools 1.60's flags line.
var reOldFlags = regexp.MustCompile(`^((?:[A-Z]+ )*[A-Z]+)\s+MTU:(\d+)`)

// reHW is the new layout's hardware line: "infiniband 80:00:…  txqueuelen 256  (InfiniBand)".
var reHW = regexp.MustCompile(`^(?:ether|infiniband|unspec|loop)\b.*\(([A-Za-z ]+)\)\s*$`)

// reStatus is FreeBSD's link status.
var reStatus = regexp.MustCompile(`(?:^|\s)status: (active|no carrier)(?: \(([^)]*)\))?`)

// reNewRX / reNewTX / reOld… are the counter lines of both Linux layouts.
var (
	reNewPackets = regexp.MustCompile(`^([RT]X) packets (\d+)`)
	reNewErrors  = regexp.MustCompile(`^([RT]X) errors (\d+)\s+dropped (\d+)`)
	reOldCounts  = regexp.MustCompile(`^([RT]X) packets:(\d+) errors:(\d+) dropped:(\d+)`)
)

// HeadLine reads an interface's first line.
func HeadLine(l string) (Iface, bool) {
	if strings.Contains(l, ": flags=") {
		m := reHead.FindStringSubmatch(l)
		if m == nil {
			return Iface{}, false
		}
		i := Iface{Name: m[1], Raw: strings.TrimSpace(l)}
		if m[3] != "" {
			i.Flags = strings.Split(m[3], ",")
		}
		i.MTU, _ = strconv.Atoi(m[4])
		return i, true
	}
	if strings.Contains(l, " Link encap:") {
		m := reOldHead.FindStringSubmatch(l)
		if m == nil {
			return Iface{}, false
		}
		return Iface{Name: m[1], HWType: m[2], Raw: strings.TrimSpace(l)}, true
	}
	return Iface{}, false
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// attr reads one line of an interface's block into i.
func (i *Iface) attr(l string, n int) {
	t := strings.TrimSpace(l)
	if m := reStatus.FindStringSubmatch(l); m != nil && i.Status == "" {
		i.Status, i.StatusWhy, i.StatusLine = m[1], m[2], n
	}
	if m := reOldFlags.FindStringSubmatch(t); m != nil && i.Flags == nil {
		i.Flags = strings.Fields(m[1])
		i.MTU, _ = strconv.Atoi(m[2])
		return
	}
	if m := reHW.FindStringSubmatch(t); m != nil && i.HWType == "" {
		i.HWType = m[1]
		return
	}
	if m := reNewPackets.FindStringSubmatch(t); m != nil {
		if m[1] == "RX" {
			i.RXPackets = atoi(m[2])
		} else {
			i.TXPackets = atoi(m[2])
		}
		return
	}
	m := reNewErrors.FindStringSubmatch(t)
	if m == nil {
		if o := reOldCounts.FindStringSubmatch(t); o != nil {
			if o[1] == "RX" {
				i.RXPackets = atoi(o[2])
			} else {
				i.TXPackets = atoi(o[2])
			}
			m = []string{o[0], o[1], o[3], o[4]}
		}
	}
	if m != nil {
		if m[1] == "RX" {
			i.RXErrors, i.RXDropped, i.RXLine = atoi(m[2]), atoi(m[3]), n
		} else {
			i.TXErrors, i.TXDropped, i.TXLine = atoi(m[2]), atoi(m[3]), n
		}
	}
}

// Parse reads the interfaces of r. An indented line, or the head line
// itself, belongs to the interface above it; a blank line or a line at
// the margin ends it.
func Parse(r io.Reader, source string) ([]Iface, error) {
	var out []Iface
	open := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if i, ok := HeadLine(l); ok {
			i.Line = n
			i.attr(l, n)
			out = append(out, i)
			open = true
			continue
		}
		if strings.TrimSpace(l) == "" || l[0] != ' ' && l[0] != '\t' {
			open = false
			continue
		}
		if open {
			out[len(out)-1].attr(l, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoInterface}
	}
	return out, nil
}
