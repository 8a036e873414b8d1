package nccllog

import (
	"strconv"
	"strings"
)

// ProgramBW is a bus bandwidth a program printed beside its NCCL log in
// its own words, not nccl-tests' table: "Bus Bandwidth: 0.01 GB/s"
// under "Message Size: 1 MB" (a ring benchmark's result block). GBps is
// the bandwidth in GB/s; Size the message size the program printed in
// the lines before it, in bytes (0 when none).
type ProgramBW struct {
	Source string  `json:"source"`
	Line   int     `json:"line"`
	GBps   float64 `json:"gbps"`
	Size   int64   `json:"size,omitempty"`
	Text   string  `json:"text"`
}

// programSizeWithin bounds how many lines before its bandwidth a
// program's "Message Size:" line is taken for it.
const programSizeWithin = 6

// programBusBW reads "Bus Bandwidth: 0.01 GB/s" ("busbw = 12.3 GB/s",
// MB/s too): the bandwidth in GB/s. The words start the line (after
// blanks, a '#' or a list dash) and the unit ends it.
func programBusBW(line string) (float64, bool) {
	t := strings.TrimLeft(line, " \t#-*")
	low := strings.ToLower(t)
	var rest string
	switch {
	case strings.HasPrefix(low, "bus bandwidth"):
		rest = t[len("bus bandwidth"):]
	case strings.HasPrefix(low, "busbw"):
		rest = t[len("busbw"):]
	default:
		return 0, false
	}
	v, unit, ok := valueUnit(rest)
	if !ok {
		return 0, false
	}
	switch unit {
	case "GB/s":
		return v, true
	case "MB/s":
		return v / 1000, true
	}
	return 0, false
}

// programMsgSize reads "Message Size: 1 MB" (KB, MB, GB, their binary
// forms, or bytes): the size in bytes.
func programMsgSize(line string) (int64, bool) {
	t := strings.TrimLeft(line, " \t#-*")
	if !strings.HasPrefix(strings.ToLower(t), "message size") {
		return 0, false
	}
	v, unit, ok := valueUnit(t[len("message size"):])
	if !ok {
		return 0, false
	}
	mult := map[string]float64{"B": 1, "bytes": 1, "KB": 1 << 10, "KiB": 1 << 10, "MB": 1 << 20, "MiB": 1 << 20, "GB": 1 << 30, "GiB": 1 << 30}[unit]
	if mult == 0 {
		return 0, false
	}
	return int64(v * mult), true
}

// valueUnit reads ": 0.01 GB/s" (or "= …"): a non-negative number and
// the one word after it, which ends the line.
func valueUnit(s string) (float64, string, bool) {
	s = strings.TrimLeft(s, " \t")
	if s == "" || s[0] != ':' && s[0] != '=' {
		return 0, "", false
	}
	f := strings.Fields(s[1:])
	if len(f) != 2 {
		return 0, "", false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, "", false
	}
	return v, f[1], true
}

// programLine reads a program's message size or bus bandwidth line
// (see ProgramBW); it says whether the line was one. Only lines that
// hold "andwidth", "busbw" or "essage " are looked at further.
func (p *Parser) programLine(n int, raw string) bool {
	if strings.Contains(raw, "essage ") {
		if sz, ok := programMsgSize(raw); ok {
			p.msgSize, p.msgSizeLine = sz, n
			return true
		}
		return false
	}
	if !strings.Contains(raw, "andwidth") && !strings.Contains(raw, "busbw") {
		return false
	}
	bw, ok := programBusBW(raw)
	if !ok {
		return false
	}
	b := ProgramBW{Source: p.source, Line: n, GBps: bw, Text: strings.TrimSpace(raw)}
	if p.msgSizeLine > 0 && n-p.msgSizeLine <= programSizeWithin {
		b.Size = p.msgSize
	}
	p.lg.ProgramBW = append(p.lg.ProgramBW, b)
	return true
}
