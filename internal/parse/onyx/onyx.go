// Package onyx reads NVIDIA Onyx switch `show roce` (NVIDIA Onyx User
// Manual, RoCE Commands): "RoCE mode : lossless" (lossy, semi-lossless,
// N/A when RoCE is not configured), "Port trust mode: L3", the
// Application TLV (Selector, Protocol, Priority), the port
// congestion-control block ("Mode: ecn, absolute", Min, Max), "PFC :
// enabled" with its "switch-priority 3: enabled" lines, and the RoCE used
// TCs table.
package onyx

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

// ErrNoMode says the text holds no "RoCE mode :" line.
var ErrNoMode = errors.New("no Onyx show roce \"RoCE mode : …\" line")

// RoCE is one `show roce` output. Lines are 0 when absent.
type RoCE struct {
	Mode     string // lossless, lossy, semi-lossless, N/A
	ModeLine int
	Trust    string // L2, L3, both
	// AppPriority is the RoCE application TLV's priority (-1 when absent).
	AppPriority int
	AppLine     int
	// CC is the port congestion-control mode ("ecn, absolute"); CCLine
	// its line.
	CC     string
	CCLine int
	// PFC is "enabled" or "disabled"; PFCPrio the switch-priorities with
	// their state (true: enabled).
	PFC      string
	PFCLine  int
	PFCPrio  map[int]bool
	PrioLine map[int]int
}

// ModeLine says whether t (trimmed) is show roce's mode line.
func ModeLine(t string) bool {
	k, v, ok := strings.Cut(t, ":")
	if !ok || strings.TrimSpace(k) != "RoCE mode" {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "lossless", "lossy", "semi-lossless", "n/a":
		return true
	}
	return false
}

// ParseRoCE reads one show roce output from r.
func ParseRoCE(r io.Reader, source string) (*RoCE, error) {
	o := &RoCE{AppPriority: -1, PFCPrio: map[int]bool{}, PrioLine: map[int]int{}}
	block := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case k == "RoCE mode" && ModeLine(t):
			o.Mode, o.ModeLine = v, n
		case k == "Port trust mode":
			o.Trust = v
		case k == "Application TLV" || k == "Port congestion-control" || k == "RoCE used TCs" || k == "RoCE buffer pools":
			block = k
		case k == "Priority" && block == "Application TLV":
			if p, err := strconv.Atoi(v); err == nil && p >= 0 && p < 8 {
				o.AppPriority, o.AppLine = p, n
			}
		case k == "Mode" && block == "Port congestion-control":
			o.CC, o.CCLine = v, n
		case k == "PFC":
			o.PFC, o.PFCLine = strings.ToLower(v), n
			block = "PFC"
		case strings.HasPrefix(k, "switch-priority ") && block == "PFC":
			p, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(k, "switch-priority ")))
			if err == nil && p >= 0 && p < 8 {
				o.PFCPrio[p] = strings.EqualFold(v, "enabled")
				o.PrioLine[p] = n
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if o.ModeLine == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoMode}
	}
	return o, nil
}
