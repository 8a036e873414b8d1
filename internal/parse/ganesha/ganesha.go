// Package ganesha reads NFS-Ganesha's log lines (src/log/log_functions.c:
// "DATE TIME : epoch EPOCH : HOST : PROGRAM-PID[THREAD] FUNCTION
// :COMPONENT :LEVEL :MESSAGE") that come from its RDMA transport: the
// component TIRPC (libntirpc, whose RDMA transport is src/rpc_rdma.c and
// src/svc_rdma.c) with a function or message naming RDMA
// ("xdr_rdma_reg_mr", "rpc_rdma_…").
package ganesha

import (
	"errors"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoLine is returned when the text holds no RDMA line of Ganesha's.
var ErrNoLine = errors.New("no NFS-Ganesha RDMA log line found")

// Line is one RDMA log line of NFS-Ganesha.
type Line struct {
	// Line is 1-based; Text the line as read.
	Line int
	Text string
	// Level is the log level ("EVENT", "WARN", "CRIT", "MAJ",
	// "FATAL", "INFO", "DEBUG", "FULL_DEBUG"); Msg the message after it.
	Level, Msg string
}

// RDMALine reads one line: ok when it is a Ganesha log line of the TIRPC
// component that names RDMA.
func RDMALine(l string) (Line, bool) {
	// The stamp is not required: a paste's stamps may have been cut.
	_, rest, ok := strings.Cut(l, " :TIRPC :")
	if !ok {
		return Line{}, false
	}
	lvl, msg, ok := strings.Cut(rest, " :")
	if !ok || lvl == "" || strings.ToUpper(lvl) != lvl || strings.Contains(lvl, " ") {
		return Line{}, false
	}
	if !strings.Contains(strings.ToLower(msg), "rdma") {
		return Line{}, false
	}
	return Line{Text: strings.TrimSpace(l), Level: lvl, Msg: strings.TrimSpace(msg)}, true
}

// Parse reads Ganesha's RDMA lines; ErrNoLine (as a parse.Error) when
// there is none.
func Parse(rd io.Reader, source string) ([]Line, error) {
	return parse.Lines(rd, source, RDMALine, func(g *Line, n int) { g.Line = n }, ErrNoLine)
}

// Failure says whether a line's level is one Ganesha logs failures at
// (log_levels_t: NIV_FATAL, NIV_MAJ, NIV_CRIT, NIV_WARN).
func (g Line) Failure() bool {
	switch g.Level {
	case "FATAL", "MAJ", "CRIT", "WARN":
		return true
	}
	return false
}
