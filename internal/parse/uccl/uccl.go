// Package uccl reads the result rows of UCCL's P2P benchmarks
// (uccl-project/uccl p2p/benchmarks/benchmark_uccl.py, benchmark_nccl.py,
// benchmark_nixl.py): one row per message size,
//
//	[Client]   1.0 MB : 170.65 Gbps |  21.33 GB/s
//	[Client]   1.0 MB : 387.56 Gbps |  48.44 GB/s |  2770.55 us
//
// printed from f"[Client] {_pretty_size(size):>8} : {gbps:6.2f} Gbps |
// {gb_sec:6.2f} GB/s  | {lat * 1e6:8.2f} us" (the latency column in newer
// versions); _pretty_size writes B, KB, MB or GB with one decimal above
// bytes.
package uccl

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoData: no result row.
var ErrNoData = errors.New("no UCCL benchmark result row")

// Row is one result row.
type Row struct {
	Role  string  // "Client", "Server", "client 0"
	Size  float64 // bytes
	Label string  // the size as printed: "1.0 MB"
	Gbps  float64
	GBps  float64
	LatUS float64 // 0 when not printed
	Line  int
}

var units = map[string]float64{"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}

// Line reads one result row (Line left 0).
func Line(l string) (Row, bool) {
	l = strings.TrimSpace(l)
	if !strings.HasPrefix(l, "[") || !strings.Contains(l, " Gbps |") {
		return Row{}, false
	}
	role, rest, ok := strings.Cut(l[1:], "]")
	if !ok || role == "" || len(role) > 24 {
		return Row{}, false
	}
	size, rest, ok := strings.Cut(rest, " : ")
	if !ok {
		return Row{}, false
	}
	sf := strings.Fields(size)
	if len(sf) != 2 || units[sf[1]] == 0 {
		return Row{}, false
	}
	n, err := strconv.ParseFloat(sf[0], 64)
	if err != nil || n < 0 {
		return Row{}, false
	}
	r := Row{Role: role, Size: n * units[sf[1]], Label: sf[0] + " " + sf[1]}
	cols := strings.Split(rest, "|")
	if len(cols) < 2 || len(cols) > 3 {
		return Row{}, false
	}
	num := func(c, unit string) (float64, bool) {
		f := strings.Fields(c)
		if len(f) != 2 || f[1] != unit {
			return 0, false
		}
		v, err := strconv.ParseFloat(f[0], 64)
		return v, err == nil && v >= 0
	}
	if r.Gbps, ok = num(cols[0], "Gbps"); !ok {
		return Row{}, false
	}
	if r.GBps, ok = num(cols[1], "GB/s"); !ok {
		return Row{}, false
	}
	if len(cols) == 3 {
		if r.LatUS, ok = num(cols[2], "us"); !ok {
			return Row{}, false
		}
	}
	return r, true
}

// Parse reads the result rows of r (line numbers from 1); ErrNoData
// (naming source) when there is none.
func Parse(r io.Reader, source string) ([]Row, error) {
	return parse.Lines(r, source, Line, func(row *Row, n int) { row.Line = n }, ErrNoData)
}
