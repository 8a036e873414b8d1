// Package ucxlog parses UCX logs: the lines UCX (openucx) prints to
// stderr, as MPI jobs, ucx_perftest and UCX-based frameworks paste them.
//
// Two line shapes (src/ucs/debug/log.c and src/ucs/debug/assert.c):
//
//	[1661938336.553723] [vhost-node1:1499693:6]           flush.c:26   UCX  ERROR req …: error during flush: Endpoint timeout
//	[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)
//
// The first is ucs_log's: time, [host:pid:thread], file:line, the
// component ("UCX") and the level. The second is ucs_log_fatal_error's,
// printed for a message at or above UCX_LOG_LEVEL_TRIGGER (the error that
// aborts the process): [host:pid:thread:tid], file:line, message, no level.
// Open MPI's pml_ucx prints "[host:pid] pml_ucx.c:421  Error: …" beside
// them. Lines of other shapes (backtraces, source listings, the
// application's own output) are passed over.
//
// Work-completion errors are decoded: the mlx5 CQE syndrome of
// ib_mlx5_log.c (uct_ib_mlx5_completion_with_err) and the
// ibv_wc_status_str text of the verbs transports (rc_verbs_iface.c,
// ud_verbs.c) both give the ibv_wc_status. Judging the log is
// internal/rules/ucx's job.
package ucxlog

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// ErrNoData is returned when no line is a UCX log line.
var ErrNoData = errors.New("no UCX log line")

// Level is a UCX log level (ucs_log_level_names), "FATAL" for a line of
// the fatal handler.
type Level string

// The levels rules look at.
const (
	LevelFatal Level = "FATAL"
	LevelError Level = "ERROR"
	LevelWarn  Level = "WARN"
)

var levels = map[string]bool{"FATAL": true, "ERROR": true, "WARN": true, "DIAG": true, "INFO": true,
	"DEBUG": true, "TRACE": true, "REQ": true, "DATA": true, "ASYNC": true, "FUNC": true, "POLL": true, "PRINT": true}

// Record is one UCX log line.
type Record struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	// Time is the UNIX time of ucs_log's stamp, 0 when the line has none.
	Time float64
	// Host and PID name the process ("master", 19546); PID 0 when absent.
	Host string
	PID  int
	// File and SrcLine are the UCX source location ("ib_mlx5_log.c", 139).
	File    string
	SrcLine int
	// Level is the log level; a fatal-handler line is LevelFatal.
	Level Level
	// Msg is the message after the prefix.
	Msg string
}

// Proc names the process: "host:pid".
func (r Record) Proc() string {
	if r.PID == 0 {
		return r.Host
	}
	return r.Host + ":" + strconv.Itoa(r.PID)
}

// Serious says whether the line reports an error: level ERROR or FATAL
// (a message that starts "Error:" or "Fatal:" is read as that level).
func (r Record) Serious() bool {
	return r.Level == LevelFatal || r.Level == LevelError
}

// Completion is a work-completion error a UCX transport reported.
type Completion struct {
	// Record is the line that reported it (its first line).
	Record Record
	// What is UCX's own words ("Transport retry count exceeded").
	What string
	// Device and Port are the HCA port ("mlx5_0", 1); Port 0 when the
	// line does not name one (the verbs transports do not).
	Device string
	Port   int
	// LinkLayer is "IB", "RoCE" or "" as printed.
	LinkLayer string
	// Syndrome and Vendor are the mlx5 CQE syndrome and vendor syndrome;
	// HasSyndrome is false for the verbs transports, which print the
	// ibv_wc_status text instead.
	Syndrome, Vendor uint64
	HasSyndrome      bool
	// Status is the ibv_wc_status the syndrome or text stands for, -1
	// when unknown.
	Status nccllog.WCStatus
	// QP describes the work request from the line after ("DCI QP 0xa9f
	// wqe[0]: SEND s-e [rqpn 0xa66 rlid 703] …"), "" when none follows.
	QP string
	// RemoteLID is the peer's LID from that line (rlid N or dlid=N), 0
	// when absent.
	RemoteLID int
}

// Log is a parsed UCX log.
type Log struct {
	Source  string
	Records []Record
	// Completions are the work-completion errors, in order.
	Completions []Completion
	// Lines is how many lines were read.
	Lines int
	// NetDevices is the UCX_NET_DEVICES a line of the paste sets
	// ("mlx5_bond_0:1"), "" when none does.
	NetDevices string
}

// ParseError is the shared parse error type.
type ParseError = parse.Error

// maxLine bounds one line; longer ones are cut (a log line is short).
const maxLine = 1 << 20

// Parse reads a UCX log. Lines that are not UCX's are passed over;
// ErrNoData (as a ParseError) when none is.
func Parse(rd io.Reader, source string) (*Log, error) {
	lg := &Log{Source: source}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	n := 0
	for sc.Scan() {
		n++
		r, ok := ParseLine(sc.Text())
		if !ok {
			if v := NetDevices(sc.Text()); v != "" && lg.NetDevices == "" {
				lg.NetDevices = v
			}
			continue
		}
		r.Line = n
		lg.Records = append(lg.Records, r)
	}
	lg.Lines = n
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if len(lg.Records) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoData}
	}
	lg.Completions = completions(lg.Records)
	return lg, nil
}

// DetectLine says whether a line is a UCX log line.
func DetectLine(l string) bool {
	if _, ok := endpointError(l); ok {
		return true
	}
	if strings.IndexByte(l, ']') < 0 && !strings.Contains(l, " UCX ") || !strings.Contains(l, ".c") && !strings.Contains(l, ".h:") && !strings.Contains(l, ".inl:") {
		return false
	}
	_, ok := ParseLine(l)
	return ok
}

// Detect says whether text holds UCX log lines: two, or one that is an
// error (a paste of the one line a job died with).
func Detect(text string) bool {
	n := 0
	for l := range strings.Lines(text) {
		if r, ok := ParseLine(strings.TrimRight(l, "\r\n")); ok {
			n++
			if n >= 2 || r.Serious() {
				return true
			}
		}
	}
	return false
}

// ParseLine reads one line; ok false when it is not a UCX log line. The
// UCX prefix may follow what a launcher put before it (Open MPI's
// --timestamp-output --tag-output "Sun Oct  1 17:18:44 2017[1,7]<stdout>:").
func ParseLine(l string) (Record, bool) {
	if r, ok := endpointError(l); ok {
		return r, true
	}
	if r, ok := parseAt(l, l); ok {
		return r, true
	}
	rest := l
	for range 6 {
		i := strings.IndexByte(rest[min(1, len(rest)):], '[')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		if r, ok := parseAt(l, rest); ok {
			return r, true
		}
	}
	return midLine(l)
}

// parseAt reads the UCX line that starts at t, a suffix of l.
func parseAt(l, t string) (Record, bool) {
	r := Record{Text: l}
	t = strings.TrimSpace(t)
	if t == "" {
		return r, false
	}
	// [1590482937.540412]
	// (a paste may have lost its "[").
	if end := strings.IndexByte(t, ']'); end > 0 && (t[0] == '[' || t[0] >= '0' && t[0] <= '9') {
		stamp := strings.TrimPrefix(t[:end], "[")
		if f, err := strconv.ParseFloat(stamp, 64); err == nil && strings.IndexByte(stamp, '.') > 0 {
			r.Time = f
			t = strings.TrimSpace(t[end+1:])
		}
	}
	// A line cut to "ucp_context.c:1321 UCX  WARN  …": no stamp, no
	// process, the component and level still say it is UCX's.
	if r.Time == 0 && !strings.HasPrefix(t, "[") {
		if b, ok := bare(l, strings.TrimLeft(t, "> \t")); ok { // mail quoting kept
			return b, true
		}
	}
	// [host:pid:thread(:tid)] — a paste may have lost the "[".
	t = strings.TrimPrefix(t, "[")
	end := strings.IndexByte(t, ']')
	if end <= 0 {
		return r, false
	}
	parts := strings.Split(t[:end], ":")
	t = strings.TrimSpace(t[end+1:])
	switch {
	case len(parts) >= 2 && len(parts) <= 4:
		r.Host = strings.TrimSpace(parts[0])
		pid, err := strconv.Atoi(strings.TrimSpace(parts[1]))
		if err != nil || pid <= 0 || r.Host == "" || strings.ContainsAny(r.Host, " \t[") {
			return r, false
		}
		r.PID = pid
	case len(parts) == 1 && r.Time != 0:
		// ucs_log before the log is initialised: "[thread]" only.
	default:
		return r, false
	}
	// file.c:line
	sp := strings.IndexAny(t, " \t")
	if sp < 0 {
		return r, false
	}
	file, line, ok := strings.Cut(t[:sp], ":")
	if !ok || !sourceFile(file) {
		return r, false
	}
	n, err := strconv.Atoi(line)
	if err != nil || n <= 0 {
		return r, false
	}
	r.File, r.SrcLine = file, n
	t = strings.TrimSpace(t[sp:])
	// COMP LEVEL of ucs_log ("UCX  ERROR").
	if f := strings.Fields(t); len(f) >= 2 && isComponent(f[0]) && levels[f[1]] {
		r.Level = Level(f[1])
		_, rest, _ := strings.Cut(t, f[1])
		r.Msg = strings.TrimSpace(rest)
		return r, true
	}
	r.Msg = t
	switch {
	case len(parts) == 4 && r.Time == 0:
		r.Level = LevelFatal // ucs_log_fatal_error: the line the process aborted on
	case hasPrefixFold(t, "Error:") || hasPrefixFold(t, "Error "):
		r.Level = LevelError // pml_ucx.c's "Error: ucp_ep_create(…) failed"
	case hasPrefixFold(t, "Warning:"):
		r.Level = LevelWarn
	}
	if hasPrefixFold(t, "FATAL:") || hasPrefixFold(t, "Fatal:") || strings.HasPrefix(t, "UCX Fatal:") {
		r.Level = LevelFatal
	}
	return r, true
}

// bare reads "file.c:line COMP LEVEL message" without the prefix, and
// "file.c:line message" when the file is one of UCX's own transports
// ("ib_mlx5_log.c:132  Transport retry count exceeded on mlx5_0:1/IB …",
// openucx/ucx#5634, pasted without the prefix or the level).
func bare(l, t string) (Record, bool) {
	f := strings.Fields(t)
	if len(f) < 2 {
		return Record{}, false
	}
	file, line, ok := strings.Cut(f[0], ":")
	n, err := strconv.Atoi(line)
	if !ok || err != nil || n <= 0 || !sourceFile(file) {
		return Record{}, false
	}
	if len(f) >= 3 && isComponent(f[1]) && levels[f[2]] {
		_, rest, _ := strings.Cut(t, " "+f[2])
		return Record{Text: l, File: file, SrcLine: n, Level: Level(f[2]), Msg: strings.TrimSpace(rest)}, true
	}
	if !ucxFile(file) {
		return Record{}, false
	}
	return Record{Text: l, File: file, SrcLine: n, Msg: strings.TrimSpace(strings.TrimPrefix(t, f[0]))}, true
}

// midLine reads "file.c:line UCX  LEVEL message" that follows words a
// person or a log collector put before it ("Pod log says: ib_mlx5dv_md.c:1100
// UCX  ERROR mlx5_1: ..."): the file:line, a UCX component (UCX, UCS,
// UCT, UCP: ucs_log's "%s:%d %s %s") and a level must all be there.
func midLine(l string) (Record, bool) {
	f := strings.Fields(l)
	for i := 1; i+3 < len(f) && i <= 8; i++ {
		if !strings.HasPrefix(f[i+1], "UC") || !isComponent(f[i+1]) || !levels[f[i+2]] {
			continue
		}
		at := strings.Index(l, f[i]+" ")
		if at <= 0 {
			continue
		}
		if r, ok := bare(l, l[at:]); ok && r.Level != "" {
			return r, true
		}
	}
	return Record{}, false
}

// ucxFile says whether a source file's name is UCX's alone (its uct/ib
// transports and the ucp, uct and ucs layers), so a line that starts
// with it is UCX's even without the prefix and the level.
func ucxFile(file string) bool {
	for _, p := range []string{"ib_mlx5", "rc_mlx5", "dc_mlx5", "ud_mlx5", "rc_verbs", "ud_verbs", "ucp_", "uct_", "ucs_"} {
		if strings.HasPrefix(file, p) {
			return true
		}
	}
	return false
}

// sourceFile says whether s names a C or C++ source file ("ucp_ep.c",
// "ucp_test.cc").
func sourceFile(s string) bool {
	for _, ext := range []string{".c", ".cc", ".cpp", ".h", ".inl"} {
		if b, ok := strings.CutSuffix(s, ext); ok && b != "" && !strings.ContainsAny(b, " /\\[]") {
			return true
		}
	}
	return false
}

// isComponent matches a log component name: "UCX", "UCT", all capitals.
func isComponent(s string) bool {
	if len(s) < 2 || len(s) > 8 {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// The lines a UCP program prints when an endpoint fails, with UCX's own
// status text (ucs_status_string): the endpoint's error handler of UCX's
// examples/ucp_client_server.c (err_cb: "error handling callback was
// invoked with status %d (%s)") and its request_finalize ("unable to %s
// UCX message (%s)", send or receive). Programs built on the example
// print the same words.
const (
	epErrHandler = "error handling callback was invoked with status "
	epErrRequest = "unable to "
)

// endpointError reads one of those lines as an error record: its Msg is
// the line, File empty.
func endpointError(l string) (Record, bool) {
	t := strings.TrimSpace(l)
	if i := strings.Index(t, epErrHandler); i >= 0 {
		rest := t[i+len(epErrHandler):]
		num, text, ok := strings.Cut(rest, " (")
		if _, err := strconv.Atoi(num); !ok || err != nil || !strings.HasSuffix(text, ")") {
			return Record{}, false
		}
		return Record{Text: l, Level: LevelError, Msg: t[i:]}, true
	}
	if strings.HasPrefix(t, epErrRequest) {
		verb, rest, ok := strings.Cut(t[len(epErrRequest):], " UCX message (")
		if !ok || verb != "send" && verb != "receive" || !strings.HasSuffix(rest, ")") {
			return Record{}, false
		}
		return Record{Text: l, Level: LevelError, Msg: t}, true
	}
	return Record{}, false
}

// NetDevices returns the value a line sets UCX_NET_DEVICES to (a shell
// "export UCX_NET_DEVICES=mlx5_bond_0:1;", mpirun's "-x
// UCX_NET_DEVICES=ib0"), "" when it sets none or "all".
func NetDevices(l string) string {
	const key = "UCX_NET_DEVICES="
	i := strings.Index(l, key)
	if i < 0 {
		return ""
	}
	v := l[i+len(key):]
	if end := strings.IndexAny(v, " \t;'\"&|`"); end >= 0 {
		v = v[:end]
	}
	if v == "all" {
		return ""
	}
	return v
}
