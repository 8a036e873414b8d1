// Package osu parses the result tables of the OSU Micro-Benchmarks (OMB,
// mvapich.cse.ohio-state.edu/benchmarks; util/osu_util.h prints them):
// the title line "# OSU MPI Latency Test v5.6.2" (MPI, OpenSHMEM, UPC,
// UPC++ and the CUDA/NCCL variants; "# OSU OpenSHMEM Put Test v5.0"),
// option lines such as "# Window creation: MPI_Win_allocate", the column
// header ("# Size          Latency (us)", "# Size      Bandwidth (MB/s)",
// "# Size                  MB/s        Messages/s", "# Size       Avg
// Latency(us)" with Min/Max Latency and Iterations under -f) and the rows:
// a message size in bytes, then one number per column; OMB 7's "#
// Datatype: MPI_CHAR." line under the header is skipped. Pastes that lost
// the "#" (markdown turned it into a heading) are read the same. A line
// after the last row that says the run stopped (a hang marker, an error,
// a signal) is kept as the table's Stop. Judging is the caller's job.
package osu

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoTable is returned when no OSU table header is found.
var ErrNoTable = errors.New("no OSU Micro-Benchmarks result table")

// Row is one result row: the message size and the columns' numbers.
type Row struct {
	Line   int       `json:"line"`
	Size   int64     `json:"size"`
	Values []float64 `json:"values"`
}

// Table is one benchmark's output.
type Table struct {
	// Title is the benchmark's title without "#" ("OSU MPI Latency Test
	// v5.6.2"), "" when the paste starts at the column header.
	Title     string   `json:"title,omitempty"`
	TitleLine int      `json:"title_line,omitempty"`
	Line      int      `json:"line"` // the column header's
	Columns   []string `json:"columns"`
	Rows      []Row    `json:"rows"`
	// Stop is the line after the last row that says the run stopped
	// there ("<hang>", an error, a signal); "" when none does.
	Stop     string `json:"stop,omitempty"`
	StopLine int    `json:"stop_line,omitempty"`
}

// Title says whether t (a trimmed line) is an OSU benchmark's title.
func Title(t string) bool {
	t = strings.TrimSpace(strings.TrimLeft(t, "#"))
	if !strings.HasPrefix(t, "OSU ") {
		return false
	}
	i := strings.LastIndex(t, " Test")
	return i > 0 && (strings.HasPrefix(t[i:], " Test v") || t[i:] == " Test")
}

// ColumnHeader returns the column names of an OSU column header ("#
// Size   Latency (us)"), nil when t is not one.
func ColumnHeader(t string) []string {
	t = strings.TrimSpace(strings.TrimLeft(t, "#"))
	rest, ok := strings.CutPrefix(t, "Size")
	if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
		return nil
	}
	if !strings.Contains(rest, "Latency") && !strings.Contains(rest, "MB/s") && !strings.Contains(rest, "Bandwidth") && !strings.Contains(rest, "Messages/s") {
		return nil
	}
	var cols []string
	for _, c := range splitWide(rest) {
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil
	}
	return cols
}

// splitWide splits s at runs of two or more blanks (or a tab): OSU's
// column names hold single spaces ("Avg Latency(us)").
func splitWide(s string) []string {
	s = strings.ReplaceAll(s, "\t", "  ")
	var out []string
	for _, p := range strings.Split(s, "  ") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Metric is "latency", "bandwidth" or "rate" by the table's first column.
func (t *Table) Metric() string {
	if len(t.Columns) == 0 {
		return ""
	}
	c := t.Columns[0]
	switch {
	case strings.Contains(c, "Latency"):
		return "latency"
	case strings.Contains(c, "MB/s") || strings.Contains(c, "Bandwidth"):
		return "bandwidth"
	}
	return "rate"
}

// Collective says whether the title names a collective benchmark
// (osu_allreduce, osu_bcast, osu_alltoall, OpenSHMEM collect …), whose
// latency grows with the number of processes.
func (t *Table) Collective() bool {
	l := strings.ToLower(t.Title)
	for _, w := range []string{"reduce", "bcast", "broadcast", "allgather", "alltoall", "gather", "scatter", "barrier", "scan", "collect", "all-to-all"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// StopLine says whether t, the first line after a table's rows, says the
// run stopped: a hang marker ("<hang>", "hangs here"), an error, an
// abort or a signal.
func StopLine(t string) bool {
	l := strings.ToLower(t)
	for _, w := range []string{"hang", "hung", "stuck", "error", "abort", "killed", "signal", "segmentation fault", "timed out", "timeout", "bad termination", "fatal", "failed", "exceeded"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// Parse reads every table of a text. Lines outside the tables are
// skipped; a table ends at a line that is not a row.
func Parse(r io.Reader, source string) ([]*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var out []*Table
	var cur *Table
	title, titleLine := "", 0
	ended := false // cur's rows ended; the next line may say why
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "```") {
			continue
		}
		if Title(t) {
			title, titleLine, cur = strings.TrimSpace(strings.TrimLeft(t, "#")), n, nil
			continue
		}
		if cols := ColumnHeader(t); cols != nil {
			cur = &Table{Title: title, TitleLine: titleLine, Line: n, Columns: cols}
			out = append(out, cur)
			title, titleLine, ended = "", 0, false
			continue
		}
		if cur == nil {
			continue
		}
		if !ended {
			if optionLine(t) {
				continue
			}
			if row, ok := readRow(t, len(cur.Columns)); ok {
				row.Line = n
				cur.Rows = append(cur.Rows, row)
				continue
			}
			ended = true
			if len(cur.Rows) > 0 && StopLine(t) {
				cur.Stop, cur.StopLine = t, n
			}
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &parse.Error{Source: source, Err: ErrNoTable}
	}
	return out, nil
}

// optionLine says whether t, inside a table, is one of the option lines
// OMB 7 prints under the column header and before each data type's rows
// ("# Datatype: MPI_CHAR.", with -T a line per type); the "#" may be
// lost in a paste. It does not end the table.
func optionLine(t string) bool {
	u := strings.TrimSpace(strings.TrimLeft(t, "#"))
	return strings.HasPrefix(u, "Datatype:") || strings.HasPrefix(t, "#") && ColumnHeader(t) == nil && !Title(t)
}

// readRow reads "8192   10.49": a size, then cols numbers (the last may
// be an integer iteration count).
func readRow(t string, cols int) (Row, bool) {
	f := strings.Fields(t)
	if len(f) != cols+1 {
		return Row{}, false
	}
	size, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || size < 0 {
		return Row{}, false
	}
	v := make([]float64, cols)
	for i := range v {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil || x < 0 || x != x || x > 1e300 {
			return Row{}, false
		}
		v[i] = x
	}
	return Row{Size: size, Values: v}, true
}
