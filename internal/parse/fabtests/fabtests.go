// Package fabtests reads the result tables and error lines of libfabric's
// fi_pingpong (util/pingpong.c show_perf: "bytes #sent #ack total time
// MB/sec usec/xfer Mxfers/sec", the #ack cell "=10" when every message
// was acknowledged, "-N"/"+N" otherwise) and of the fabtests benchmarks
// (fabtests/common/shared.c show_perf: "bytes iters total time MB/sec
// usec/xfer Mxfers/sec", with a leading "name" column under -b), and the
// error lines both print: PP_PRINTERR / FT_PRINTERR's "fi_getinfo():
// util/pingpong.c:1234, ret=-61 (No data available)", PP_ERR's "[error]
// util/pingpong.c:411 : failed to connect: Connection refused", and the
// data check's "Error at iteration=3 size=64 byte=0".
package fabtests

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoRun says the text holds no result table or error line.
var ErrNoRun = errors.New("no fi_pingpong/fabtests result table (bytes … MB/sec usec/xfer) or error line")

// Row is one result row.
type Row struct {
	// Size is the message size in bytes (the "1k", "64k", "1m" cells
	// read as powers of 1024, as size_str prints them).
	Size int64
	// Sent and Acked count the messages (Acked = Sent when the cell is
	// "=N").
	Sent, Acked       string
	MBps, UsecPerXfer float64
	Line              int
}

// Table is one result table: its header line and rows.
type Table struct {
	Line int
	// Pingpong says the header is fi_pingpong's (#sent, #ack), not the
	// fabtests' (iters).
	Pingpong bool
	Rows     []Row
}

// Message is an error line.
type Message struct {
	Text string
	// Call is the libfabric or socket call that failed ("fi_getinfo"),
	// "" for other messages.
	Call string
	// Ret is the return value of a PRINTERR line, 0 otherwise.
	Ret  int
	Line int
}

// Result is every table and error of a paste.
type Result struct {
	Tables []*Table
	Errors []Message
}

var (
	rePrintErr = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_/()]*)\(\): (\S+):(\d+)\s*, ret=(-?\d+) \((.*)\)$`)
	reErr      = regexp.MustCompile(`^\[error\] (\S+?):\s*(\d+)\s*: (.+)$`)
	reDataErr  = regexp.MustCompile(`^Error at iteration=\d+ size=\d+ byte=\d+$`)
)

// Header says whether t (blanks trimmed) is a result table's header.
func Header(t string) bool {
	f := strings.Fields(t)
	if len(f) > 0 && f[0] == "name" {
		f = f[1:]
	}
	switch len(f) {
	case 8:
		return f[0] == "bytes" && f[1] == "#sent" && f[2] == "#ack" && f[3] == "total" && f[5] == "MB/sec" && f[6] == "usec/xfer" && f[7] == "Mxfers/sec"
	case 7:
		return f[0] == "bytes" && f[1] == "iters" && f[2] == "total" && f[4] == "MB/sec" && f[5] == "usec/xfer" && f[6] == "Mxfers/sec"
	}
	return false
}

// ErrorLine reads an error line (blanks trimmed).
func ErrorLine(t string) (Message, bool) {
	if m := rePrintErr.FindStringSubmatch(t); m != nil {
		ret, _ := strconv.Atoi(m[4])
		return Message{Text: t, Call: m[1], Ret: ret}, true
	}
	if reErr.MatchString(t) || reDataErr.MatchString(t) {
		return Message{Text: t}, true
	}
	return Message{}, false
}

// size reads size_str's "64", "1k", "1.5k", "64k", "1m", "1g".
func size(s string) (int64, bool) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "g"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1<<40 {
		return 0, false
	}
	return int64(v * float64(mult)), true
}

// row reads a result row of a table.
func row(t string, tab *Table) (Row, bool) {
	f := strings.Fields(t)
	want := 7
	if tab.Pingpong {
		want = 8
	}
	if len(f) == want+1 {
		f = f[1:] // the name column of -b
	}
	if len(f) != want {
		return Row{}, false
	}
	var r Row
	var ok bool
	if r.Size, ok = size(f[0]); !ok {
		return Row{}, false
	}
	r.Sent = f[1]
	i := 2
	if tab.Pingpong {
		r.Acked = f[2]
		if a, eq := strings.CutPrefix(f[2], "="); eq {
			r.Acked = a
		}
		i = 3
	}
	if !strings.HasSuffix(f[i+1], "s") {
		return Row{}, false
	}
	var err error
	if r.MBps, err = strconv.ParseFloat(f[i+2], 64); err != nil {
		return Row{}, false
	}
	if r.UsecPerXfer, err = strconv.ParseFloat(f[i+3], 64); err != nil {
		return Row{}, false
	}
	return r, true
}

// Parse reads every table and error line; other lines are skipped.
func Parse(r io.Reader, source string) (*Result, error) {
	out := &Result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	var tab *Table
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		if Header(t) {
			tab = &Table{Line: n, Pingpong: strings.Contains(t, "#sent")}
			out.Tables = append(out.Tables, tab)
			continue
		}
		if m, ok := ErrorLine(t); ok {
			m.Line = n
			out.Errors = append(out.Errors, m)
			continue
		}
		if tab != nil {
			if rw, ok := row(t, tab); ok {
				rw.Line = n
				tab.Rows = append(tab.Rows, rw)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Line: n + 1, Err: err}
	}
	if len(out.Tables) == 0 && len(out.Errors) == 0 {
		return nil, &parse.Error{Source: source, Line: 1, Err: ErrNoRun}
	}
	return out, nil
}
