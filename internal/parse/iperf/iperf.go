// Package iperf reads the result lines of iperf (2.x) and iperf3, the
// TCP throughput tests often run beside an RDMA test on the same path.
//
// iperf 2 (iperf2 src/ReportOutputs.c) prints "[  3]  0.0-10.0 sec  22.3
// GBytes  19.2 Gbits/sec" (2.1 and later: "[  1] 0.0000-10.0040 sec  10.9
// GBytes  9.39 Gbits/sec" with more columns after it), "[SUM]" for the
// total of parallel streams; iperf3 (esnet/iperf src/iperf_api.c) prints
// "[  5]   0.00-10.00  sec  27.4 GBytes  23.5 Gbits/sec    0
// sender" and a "receiver" line, "[SUM]" with -P. Both print a "[ ID]
// Interval …" header above them.
package iperf

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

// ErrNoResult says the text holds no iperf result line.
var ErrNoResult = errors.New("no iperf or iperf3 result line (\"[  3]  0.0-10.0 sec  22.3 GBytes  19.2 Gbits/sec\")")

// Rate is one result line.
type Rate struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	// Start and End are the interval's seconds.
	Start, End float64
	// Gbps is the rate in Gbit/s (iperf's units are decimal: 1 Gbit =
	// 10^9 bits).
	Gbps float64
	// Sum: a "[SUM]" line (parallel streams added up).
	Sum bool
	// Role is iperf3's "sender" or "receiver" on its summary lines, ""
	// elsewhere.
	Role string
}

// Result is every result line of a paste.
type Result struct {
	Rates []Rate
}

// IsHeader matches the column header both versions print: "[ ID]
// Interval       Transfer     Bandwidth" (iperf3: "Bitrate").
func IsHeader(t string) bool {
	t = strings.TrimSpace(t)
	return strings.HasPrefix(t, "[ ID] Interval") && strings.Contains(t, "Transfer")
}

// IsConnectLine matches the line both print when a test's connection is
// up: "[  3] local 192.168.0.19 port 52514 connected with 192.168.0.20
// port 5001" (iperf 2), "[  5] local 10.0.0.1 port 43210 connected to
// 10.0.0.2 port 5201" (iperf3).
func IsConnectLine(t string) bool {
	t = strings.TrimSpace(t)
	end := strings.IndexByte(t, ']')
	if !strings.HasPrefix(t, "[") || end < 0 {
		return false
	}
	if _, err := strconv.Atoi(strings.TrimSpace(t[1:end])); err != nil {
		return false
	}
	rest := strings.TrimSpace(t[end+1:])
	return strings.HasPrefix(rest, "local ") && strings.Contains(rest, " port ") &&
		(strings.Contains(rest, " connected with ") || strings.Contains(rest, " connected to "))
}

var rateUnits = map[string]float64{
	"bits/sec": 1e-9, "Kbits/sec": 1e-6, "Mbits/sec": 1e-3, "Gbits/sec": 1, "Tbits/sec": 1e3,
}

var byteUnits = map[string]bool{"Bytes": true, "KBytes": true, "MBytes": true, "GBytes": true, "TBytes": true}

// RateLine reads one result line; Line is left 0.
func RateLine(l string) (Rate, bool) {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "[") {
		return Rate{}, false
	}
	end := strings.IndexByte(t, ']')
	if end < 0 {
		return Rate{}, false
	}
	id := strings.TrimSpace(t[1:end])
	r := Rate{Text: t, Sum: id == "SUM"}
	if !r.Sum {
		if _, err := strconv.Atoi(id); err != nil {
			return Rate{}, false
		}
	}
	f := strings.Fields(t[end+1:])
	// The interval: "0.0-10.0 sec", "0.0- 1.0 sec" (iperf 2 pads).
	i := 0
	iv := ""
	for i < len(f) && f[i] != "sec" {
		iv += f[i]
		i++
	}
	if i == len(f) || i > 3 {
		return Rate{}, false
	}
	a, b, ok := strings.Cut(iv, "-")
	if !ok {
		return Rate{}, false
	}
	var err1, err2 error
	r.Start, err1 = strconv.ParseFloat(a, 64)
	r.End, err2 = strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil || !(r.Start >= 0 && r.End >= r.Start && r.End < 1e9) {
		return Rate{}, false
	}
	f = f[i+1:]
	// Transfer, then the rate.
	if len(f) < 4 || !byteUnits[f[1]] {
		return Rate{}, false
	}
	if _, err := strconv.ParseFloat(f[0], 64); err != nil {
		return Rate{}, false
	}
	mul, ok := rateUnits[f[3]]
	if !ok {
		return Rate{}, false
	}
	v, err := strconv.ParseFloat(f[2], 64)
	if err != nil || !(v >= 0 && v <= 1e12) {
		return Rate{}, false
	}
	r.Gbps = v * mul
	if last := f[len(f)-1]; last == "sender" || last == "receiver" {
		r.Role = last
	}
	return r, true
}

// Parse reads every result line of a paste; other lines are skipped.
func Parse(rd io.Reader, source string) (*Result, error) {
	res := &Result{}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		if r, ok := RateLine(sc.Text()); ok {
			r.Line = n
			res.Rates = append(res.Rates, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if len(res.Rates) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoResult}
	}
	return res, nil
}

// Best returns the test's throughput: the highest rate among the whole
// test's lines (iperf3's sender and receiver lines, a "[SUM]" line, or,
// in iperf 2, a line whose interval starts at 0 and is the longest), ok
// false when none.
func (res *Result) Best() (Rate, bool) {
	longest := 0.0
	for _, r := range res.Rates {
		if r.Start == 0 && r.End > longest {
			longest = r.End
		}
	}
	var best Rate
	found := false
	for _, r := range res.Rates {
		whole := r.Role != "" || r.Start == 0 && r.End == longest && longest > 0
		if whole && (!found || r.Gbps > best.Gbps) {
			best, found = r, true
		}
	}
	return best, found
}
