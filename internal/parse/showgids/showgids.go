// Package showgids reads the table MLNX_OFED's show_gids script prints:
// "DEV PORT INDEX GID IPv4 VER DEV" rows (the RoCE GID table of each port
// with its version and netdev) and "n_gids_found=N".
package showgids

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

// ErrNoTable says the text holds no show_gids row.
var ErrNoTable = errors.New("no show_gids row (\"mlx5_0  1  3  0000:…:ffff:0a0a:0a01 10.10.10.1  v2  ens1f0\")")

// GID is one row.
type GID struct {
	Device string
	Port   int
	Index  int
	GID    string
	// IPv4 is the address of an IPv4-mapped GID, "" for others.
	IPv4 string
	// Ver is "v1" or "v2".
	Ver    string
	NetDev string
	Line   int
}

// Table is a show_gids output.
type Table struct {
	GIDs []GID
	// Found is n_gids_found, -1 when not printed.
	Found   int
	Skipped []int
}

// Header says whether t is show_gids' column header.
func Header(t string) bool {
	f := strings.Fields(t)
	return len(f) >= 6 && f[0] == "DEV" && f[1] == "PORT" && f[2] == "INDEX" && f[3] == "GID"
}

// Parse reads a show_gids output.
func Parse(r io.Reader, source string) (*Table, error) {
	tb := &Table{Found: -1}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		if t == "" || Header(t) || strings.Trim(t, "- ") == "" {
			continue
		}
		if v, ok := strings.CutPrefix(t, "n_gids_found="); ok {
			if k, err := strconv.Atoi(v); err == nil {
				tb.Found = k
			}
			continue
		}
		f := strings.Fields(t)
		if len(f) < 5 || len(f) > 7 {
			tb.Skipped = append(tb.Skipped, n)
			continue
		}
		port, err1 := strconv.Atoi(f[1])
		idx, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || !strings.Contains(f[3], ":") {
			tb.Skipped = append(tb.Skipped, n)
			continue
		}
		g := GID{Device: f[0], Port: port, Index: idx, GID: f[3], Line: n}
		rest := f[4:]
		if len(rest) > 0 && strings.Count(rest[0], ".") == 3 {
			g.IPv4, rest = rest[0], rest[1:]
		}
		if len(rest) > 0 && (rest[0] == "v1" || rest[0] == "v2") {
			g.Ver, rest = rest[0], rest[1:]
		}
		if len(rest) > 0 {
			g.NetDev = rest[0]
		}
		tb.GIDs = append(tb.GIDs, g)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if len(tb.GIDs) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoTable}
	}
	return tb, nil
}
