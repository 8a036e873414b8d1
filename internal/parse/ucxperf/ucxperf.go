// Package ucxperf parses the result tables of ucx_perftest (openucx,
// src/tools/perf): the "=== tag_bw ===" banner of newer versions, the
// boxed header
//
//	+--------------+--------------+------------------------------+---------------------+-----------------------+
//	|              |              |       overhead (usec)        |   bandwidth (MB/s)  |  message rate (msg/s) |
//	+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+
//	|    Stage     | # iterations | 50.0%ile | average | overall |  average |  overall |  average  |  overall  |
//
// (older versions: "latency (usec)" and "| # iterations | typical |"
// without the Stage column), the progress rows ("[thread 0]   622  0.240
// …" or bare numbers) and the "Final:" row. Each row ends in seven
// numbers: latency typical (or percentile), average and overall in usec,
// bandwidth average and overall in MB/s, message rate average and overall
// in msg/s.
//
// With -f (perftest.c's TEST_FLAG_PRINT_CSV) ucx_perftest prints CSV
// instead: a header naming the batch files (-b) first, then
// "iterations,typical_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr"
// (newer versions: "iterations,50.0%ile_lat,…"), and one row per batch
// line with that line's name in the batch columns and the same seven
// numbers; each row is a finished run, read as a Test with its Final
// row and the batch names as Label. Judging is the caller's job.
package ucxperf

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoTable is returned when no ucx_perftest table header is found.
var ErrNoTable = errors.New("no ucx_perftest result table")

// Row is one result row.
type Row struct {
	Line       int     `json:"line"`
	Iterations int64   `json:"iterations"`
	LatTypical float64 `json:"lat_typical_us"`
	LatAvg     float64 `json:"lat_avg_us"`
	LatOverall float64 `json:"lat_overall_us"`
	BWAvg      float64 `json:"bw_avg_mbs"`
	BWOverall  float64 `json:"bw_overall_mbs"`
	RateAvg    float64 `json:"rate_avg"`
	RateAll    float64 `json:"rate_overall"`
}

// Test is one table: the test the banner (or the command line's -t)
// names, "" when neither is there, its rows and its Final row (nil when
// the run printed none: it was cut or failed).
type Test struct {
	Name string `json:"name,omitempty"`
	// Label is the batch line's name of a CSV row ("1" for the msg_pow2
	// line that sets 1-byte messages); "" in the table form.
	Label string `json:"label,omitempty"`
	// CSV says the test is one row of the -f output.
	CSV   bool  `json:"csv,omitempty"`
	Line  int   `json:"line"`
	Rows  []Row `json:"rows"`
	Final *Row  `json:"final,omitempty"`
}

// Header says whether t (a trimmed line) is the units row of the table:
// "|  …  | overhead (usec) | bandwidth (MB/s) | message rate (msg/s) |".
func Header(t string) bool {
	return len(t) > 0 && t[0] == '|' && strings.Contains(t, "bandwidth (MB/s)") &&
		(strings.Contains(t, "latency (usec)") || strings.Contains(t, "overhead (usec)"))
}

// CSVHeader returns how many batch-name columns lead the CSV header t
// ("msg_pow2,iterations,typical_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr"),
// -1 when t is not that header.
func CSVHeader(t string) int {
	f := strings.Split(t, ",")
	if len(f) < 8 {
		return -1
	}
	tail := f[len(f)-8:]
	if tail[0] != "iterations" || !strings.HasSuffix(tail[1], "_lat") || strings.Join(tail[2:], ",") != "avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr" {
		return -1
	}
	return len(f) - 8
}

// Banner returns the test name of "====== tag_bw ======", "" when t is
// not such a banner.
func Banner(t string) string {
	if !strings.HasPrefix(t, "==") || !strings.HasSuffix(t, "==") {
		return ""
	}
	f := strings.Fields(strings.Trim(t, "="))
	if len(f) != 1 || !testName(f[0]) {
		return ""
	}
	return f[0]
}

// testName accepts ucx_perftest's test names: lower case words joined
// by "_" (tag_bw, ucp_put_bw, am_lat, stream_lat …).
func testName(s string) bool {
	if !strings.Contains(s, "_") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Parse reads every table of a text. Lines outside the tables (the
// command, prose, UCX log lines) are skipped; a "-t NAME" on a command
// line names the next table that has no banner.
func Parse(r io.Reader, source string) ([]*Test, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var out []*Test
	var cur *Test
	name := ""
	csvCols := -1
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		if k := CSVHeader(t); k >= 0 {
			csvCols, cur = k, nil
			continue
		}
		if csvCols >= 0 {
			if label, row, ok := readCSVRow(t, csvCols); ok {
				row.Line = n
				r := row
				out = append(out, &Test{Name: name, Label: label, CSV: true, Line: n, Final: &r})
				continue
			}
			csvCols = -1
		}
		if b := Banner(t); b != "" {
			name, cur = b, nil
			continue
		}
		if Header(t) {
			cur = &Test{Name: name, Line: n}
			out = append(out, cur)
			name = ""
			continue
		}
		if cur == nil {
			if v := CommandTest(t); v != "" {
				name = v
			}
			continue
		}
		if t[0] == '|' || t[0] == '+' {
			continue
		}
		row, final, ok := readRow(t)
		if !ok {
			continue
		}
		row.Line = n
		if final {
			r := row
			cur.Final = &r
			cur = nil
			continue
		}
		cur.Rows = append(cur.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &parse.Error{Source: source, Err: ErrNoTable}
	}
	return out, nil
}

// CommandTest returns the test a ucx_perftest command line names with
// "-t NAME", "" when t is not one.
func CommandTest(t string) string {
	if i := strings.Index(t, " -t "); i >= 0 && strings.Contains(t, "perftest") {
		if f := strings.Fields(t[i+4:]); len(f) > 0 && testName(f[0]) {
			return f[0]
		}
	}
	return ""
}

// readCSVRow reads a CSV row: cols batch names, then iterations and
// the seven numbers.
func readCSVRow(t string, cols int) (string, Row, bool) {
	f := strings.Split(t, ",")
	if len(f) != cols+8 {
		return "", Row{}, false
	}
	row, _, ok := readRow(strings.Join(f[cols:], " "))
	if !ok {
		return "", Row{}, false
	}
	return strings.Join(f[:cols], ","), row, true
}

// readRow reads "Final:  1000  0.240 1675.942 1671.351 46615.58 46743.62
// 597 598", "[thread 0]  622 …" or a bare row of eight numbers.
func readRow(t string) (Row, bool, bool) {
	final := false
	if rest, ok := strings.CutPrefix(t, "Final:"); ok {
		t, final = rest, true
	} else if strings.HasPrefix(t, "[thread ") {
		if i := strings.IndexByte(t, ']'); i > 0 {
			t = t[i+1:]
		}
	}
	f := strings.Fields(t)
	if len(f) != 8 {
		return Row{}, false, false
	}
	it, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || it < 0 {
		return Row{}, false, false
	}
	var v [7]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil || x < 0 || x != x {
			return Row{}, false, false
		}
		v[i] = x
	}
	return Row{Iterations: it, LatTypical: v[0], LatAvg: v[1], LatOverall: v[2], BWAvg: v[3], BWOverall: v[4], RateAvg: v[5], RateAll: v[6]}, final, true
}
