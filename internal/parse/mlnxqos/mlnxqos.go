// Package mlnxqos reads `mlnx_qos -i IFACE` (MLNX_OFED, Mellanox/mlnx-tools
// python/mlnx_qos pretty_print): "DCBX mode: OS controlled", "Priority
// trust state: dscp", the dscp2prio rows, "Cable len: 7", the "PFC
// configuration:" table ("priority 0 1 … 7", "enabled 0 0 0 1 0 0 0 0",
// "buffer …") and the "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%"
// lines with their " priority:  3" (older releases " up:  3") members.
package mlnxqos

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

// ErrNoPFC says the text holds no "PFC configuration:" enabled row.
var ErrNoPFC = errors.New("no mlnx_qos PFC configuration (\"enabled  0 0 0 1 0 0 0 0\")")

// ErrBadRow says a PFC row does not hold eight 0/1 values.
var ErrBadRow = errors.New("PFC enabled row without eight 0/1 values")

// TC is one traffic class line and the priorities under it.
type TC struct {
	TC         int
	TSA        string // ets, strict, vendor
	BW         int    // ETS bandwidth share in percent (-1 when not ets)
	Priorities []int
	Line       int
}

// QoS is one mlnx_qos output.
type QoS struct {
	DCBX  string // "OS controlled", "Firmware controlled"
	Trust string // "pcp", "dscp"
	// PFC is the enabled row: PFC[p] says priority p is lossless.
	PFC     [8]bool
	PFCLine int
	PFCRaw  string
	TCs     []TC
}

// Enabled returns the priorities with PFC on.
func (q *QoS) Enabled() []int {
	var out []int
	for p, on := range q.PFC {
		if on {
			out = append(out, p)
		}
	}
	return out
}

// Header says whether t (trimmed) starts an mlnx_qos output: its DCBX
// or trust line, or the PFC table's title.
func Header(t string) bool {
	return strings.HasPrefix(t, "DCBX mode: ") || strings.HasPrefix(t, "Priority trust state: ") ||
		strings.HasPrefix(t, "Priority trust mode: ") || t == "PFC configuration:"
}

// Parse reads one mlnx_qos output from r.
func Parse(r io.Reader, source string) (*QoS, error) {
	q := &QoS{}
	var cur *TC
	inPFC := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		f := strings.Fields(t)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "DCBX mode: "):
			q.DCBX = strings.TrimSpace(strings.TrimPrefix(t, "DCBX mode: "))
		case strings.HasPrefix(t, "Priority trust state: ") || strings.HasPrefix(t, "Priority trust mode: "):
			_, v, _ := strings.Cut(t, ": ")
			q.Trust = strings.TrimSpace(v)
		case t == "PFC configuration:":
			inPFC = true
		case inPFC && f[0] == "enabled" && q.PFCLine == 0:
			if len(f) != 9 {
				return nil, &ParseError{Source: source, Line: n, Input: t, Err: ErrBadRow}
			}
			for i, v := range f[1:] {
				if v != "0" && v != "1" {
					return nil, &ParseError{Source: source, Line: n, Input: t, Err: ErrBadRow}
				}
				q.PFC[i] = v == "1"
			}
			q.PFCLine, q.PFCRaw = n, t
		case strings.HasPrefix(t, "tc: "):
			inPFC = false
			tc, ok := tcLine(t)
			if !ok {
				cur = nil
				continue
			}
			tc.Line = n
			q.TCs = append(q.TCs, tc)
			cur = &q.TCs[len(q.TCs)-1]
		case cur != nil && len(f) == 2 && (f[0] == "priority:" || f[0] == "up:"):
			if p, err := strconv.Atoi(f[1]); err == nil && p >= 0 && p < 8 {
				cur.Priorities = append(cur.Priorities, p)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if q.PFCLine == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoPFC}
	}
	return q, nil
}

// tcLine reads "tc: 0 ratelimit: unlimited, tsa: ets, bw: 10%".
func tcLine(t string) (TC, bool) {
	f := strings.Fields(strings.ReplaceAll(t, ",", " "))
	if len(f) < 2 {
		return TC{}, false
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 || n > 7 {
		return TC{}, false
	}
	tc := TC{TC: n, BW: -1}
	for i := 2; i+1 < len(f); i++ {
		switch f[i] {
		case "tsa:":
			tc.TSA = f[i+1]
		case "bw:":
			if b, err := strconv.Atoi(strings.TrimSuffix(f[i+1], "%")); err == nil {
				tc.BW = b
			}
		}
	}
	return tc, true
}
