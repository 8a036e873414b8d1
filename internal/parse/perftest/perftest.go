package perftest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrNoData means the input holds no perftest banner or result table.
	ErrNoData = errors.New("no perftest output")
	// ErrMalformed means a line has the expected shape but bad values.
	ErrMalformed = errors.New("malformed line")
)

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Note is a line the parser read but could not use.
type Note struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// Kind says whether a test measures bandwidth or latency.
type Kind string

// Test kinds.
const (
	KindBW  Kind = "bw"
	KindLat Kind = "lat"
)

// Result is one perftest run: banner and result table.
type Result struct {
	Source string `json:"source"`
	// Line is the line of the test title ("RDMA_Write BW Test").
	Line int `json:"line"`
	// Test is the title without padding: "RDMA_Write BW Test".
	Test string `json:"test"`
	// Verb is "write", "read", "send" or "atomic" ("" when unknown).
	Verb          string `json:"verb,omitempty"`
	Kind          Kind   `json:"kind"`
	Bidirectional bool   `json:"bidirectional,omitempty"`

	Device       string `json:"device,omitempty"`
	QPs          int    `json:"qps,omitempty"`
	Transport    string `json:"transport,omitempty"`
	Connection   string `json:"connection,omitempty"`
	MTU          int    `json:"mtu,omitempty"`
	LinkType     string `json:"link_type,omitempty"` // "IB" or "Ethernet"
	GIDIndex     *int   `json:"gid_index,omitempty"`
	CQModeration int    `json:"cq_moderation,omitempty"`
	RDMACM       bool   `json:"rdma_cm,omitempty"`
	DataExMethod string `json:"data_ex_method,omitempty"`

	Local  *Endpoint `json:"local,omitempty"`
	Remote *Endpoint `json:"remote,omitempty"`

	// Unit is the bandwidth unit the output used ("Gb/sec", "MB/sec",
	// "MiB/sec"); BW rows are converted to Gb/s at parse time.
	Unit string   `json:"unit,omitempty"`
	BW   []BWRow  `json:"bw,omitempty"`
	Lat  []LatRow `json:"lat,omitempty"`
	// PeakNotMeasured is set by "BW peak won't be measured" (-D mode):
	// the peak column is 0.00 and means nothing.
	PeakNotMeasured bool `json:"peak_not_measured,omitempty"`
	// Failures are the completion errors that ended the run ("Completion
	// with error at client", "Failed status 12: wr_id 0 syndrom 0x81").
	Failures []Failure `json:"failures,omitempty"`
	// Startup is set when the test could not start at all.
	Startup  []Startup `json:"startup,omitempty"`
	Warnings []string  `json:"warnings,omitempty"`
	Skipped  []Note    `json:"skipped,omitempty"`
	// Untitled is set for bandwidth rows pasted without their column
	// titles ("#bytes #iterations BW peak[MB/sec] …"): the unit is
	// read from the MsgRate column, the verb and device from the
	// command line above when the paste shows one.
	Untitled bool `json:"untitled,omitempty"`
}

// Endpoint is a "local address:" or "remote address:" line and the GID
// line after it (RoCE, or IB with -x).
type Endpoint struct {
	// QPN and PSN are "" when the paste masked them.
	LID string `json:"lid"`
	QPN string `json:"qpn"`
	PSN string `json:"psn"`
	// GID as perftest prints it: 16 decimal bytes joined by ':'
	// ("254:128:00:…" is fe80::…), "" when not printed.
	GID string `json:"gid,omitempty"`
	// GIDLine is the line of the GID, 0 when not printed.
	GIDLine int `json:"gid_line,omitempty"`
}

// Startup is a test that could not start: perftest's own messages, the
// first one the cause.
type Startup struct {
	Line int    `json:"line"`
	Text string `json:"text"`
	// Port and PortState: "Port number 1 state is Down" (0, "" otherwise).
	Port      int    `json:"port,omitempty"`
	PortState string `json:"port_state,omitempty"`
	// Device is set when the first message (the cause) says the local
	// device could not give the test a verbs resource: its attributes
	// (ibv_query_device), a queue pair, the test's IB resources as a
	// whole.
	Device bool `json:"device,omitempty"`
	// Midrun is set when the message is a failed exchange over the
	// test's TCP socket after both ends had printed their addresses and
	// the results header: the peer went away while the test ran.
	Midrun bool `json:"midrun,omitempty"`
	// CMEvent is the rdma_cm event a client connecting with -R got
	// instead of RDMA_CM_EVENT_ESTABLISHED ("Unexpected CM event bl blka
	// 8": RDMA_CM_EVENT_REJECTED), "" when none; CMEventNum its number.
	CMEvent    string `json:"cm_event,omitempty"`
	CMEventNum int    `json:"cm_event_num,omitempty"`
}

// cmEvents are enum rdma_cm_event_type's names by number (rdma-core,
// librdmacm/rdma_cma.h).
var cmEvents = []string{
	"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR", "RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_ROUTE_ERROR",
	"RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE", "RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE",
	"RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_ESTABLISHED", "RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
	"RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR", "RDMA_CM_EVENT_ADDR_CHANGE", "RDMA_CM_EVENT_TIMEWAIT_EXIT",
}

// CMEventName is the name of rdma_cm event n ("" when out of range).
func CMEventName(n int) string {
	if n < 0 || n >= len(cmEvents) {
		return ""
	}
	return cmEvents[n]
}

// Failure is a work completion with an error status that ended a run.
type Failure struct {
	Line int `json:"line"`
	// Side is "client" or "server" when the output says so.
	Side string `json:"side,omitempty"`
	// Status is the ibv_wc_status code, -1 when no "Failed status" line
	// was printed.
	Status int `json:"status"`
	// Syndrome is the vendor syndrome ("0x81"), "" when not printed.
	Syndrome string `json:"syndrome,omitempty"`
	// Text is the line (or lines) that report it.
	Text string `json:"text"`
}

// BWRow is one bandwidth result, in Gb/s (10^9 bit/s).
type BWRow struct {
	Line       int     `json:"line"`
	Bytes      int64   `json:"bytes"`
	Iterations int64   `json:"iterations"`
	PeakGbps   float64 `json:"peak_gbps"`
	AvgGbps    float64 `json:"avg_gbps"`
	// MsgRateMpps is nil in old releases that print no MsgRate column.
	MsgRateMpps *float64 `json:"msg_rate_mpps,omitempty"`
}

// LatRow is one latency result in µs; fields the layout lacks are nil
// (duration mode prints only t_avg).
type LatRow struct {
	Line       int      `json:"line"`
	Bytes      int64    `json:"bytes"`
	Iterations int64    `json:"iterations"`
	Min        *float64 `json:"min_us,omitempty"`
	Max        *float64 `json:"max_us,omitempty"`
	Typical    *float64 `json:"typical_us,omitempty"`
	Avg        *float64 `json:"avg_us,omitempty"`
	Stdev      *float64 `json:"stdev_us,omitempty"`
	P99        *float64 `json:"p99_us,omitempty"`
	P999       *float64 `json:"p999_us,omitempty"`
}

// Median is t_typical when printed, else t_avg; ok is false when neither.
func (r LatRow) Median() (float64, bool) {
	if r.Typical != nil {
		return *r.Typical, true
	}
	if r.Avg != nil {
		return *r.Avg, true
	}
	return 0, false
}

// mibToGbps converts perftest's MB/sec (0x100000 bytes per second) to Gb/s.
const mibToGbps = 1048576 * 8 / 1e9

var (
	reTitle = regexp.MustCompile(`^(\S.*\b(?:BW|Latency) Test)\s*$`)
	// perftest prints "local address: LID %#04x QPN %#06x PSN %#06x"
	// (BASIC_ADDR_FMT, src/perftest_communication.h); pastes mask the
	// QPN and PSN ("LID 0000 xxx"): the endpoint is read without them.
	reAddress = regexp.MustCompile(`^(local|remote) address:\s*LID (\S+)(?:\s+QPN (\S+) PSN (\S+))?`)
	reGIDLine = regexp.MustCompile(`^GID:\s*(\S+)`)
	reUnit    = regexp.MustCompile(`BW average\[([^\]]+)\]`)
	// reBWCommand is a bandwidth test's command line, its arguments
	// after it; reDevFlag the device they name.
	reBWCommand = regexp.MustCompile(`\bib_(write|read|send|atomic)_bw\b(.*)$`)
	reDevFlag   = regexp.MustCompile(`(?:^|\s)(?:-d|--ib-dev)[ =](\S+)`)
	// reLatOnly is a latency test run with --output=latency, which
	// prints its result as one number in usec and nothing else
	// (perftest_resources.c print_report_lat: the median, t_typical;
	// print_report_lat_duration, with -D/--duration: the average).
	reLatOnly  = regexp.MustCompile(`\bib_(write|read|send|atomic)_lat\b(.*\s--output[ =]latency\b.*)$`)
	reSizeFlag = regexp.MustCompile(`(?:^|\s)(?:-s|--size)[ =](\d+)\b`)
	reDurFlag  = regexp.MustCompile(`(?:^|\s)(?:-D|--duration)[ =]\d+\b`)
	// perftest's completion errors: "Completion with error at client",
	// "Failed status 12: wr_id 0 syndrom 0x81" (status is the
	// ibv_wc_status code); pastes flatten both onto one line.
	reCompletion = regexp.MustCompile(`Completion with error at (client|server)`)
	reFailed     = regexp.MustCompile(`Failed status (\d{1,3}):?\s*(?:wr_id \S+)?\s*(?:syndrome?\s*(0x[0-9a-fA-F]+))?`)
	// reStartup are perftest's own messages when a test cannot start
	// (perftest_resources.c, perftest_parameters.c): the port is not
	// ACTIVE ("Port number 1 state is Down"), the device cannot be
	// opened, the peer cannot be reached, the QP cannot be brought up.
	//
	// With rdma_cm (-R) the client connects through the RDMA connection
	// manager instead (perftest_communication.c rdma_client_connect):
	// "Unexpected CM event bl blka 8" names the rdma_cm event it got
	// instead of ESTABLISHED (its number, in librdmacm's enum), and the
	// tests' main adds "Unable to perform rdma_client function".
	reStartup = regexp.MustCompile(`^(?:Port number (\d+) state is (\w+)|Couldn't (?:get context for the device|set the link layer|connect to \S+|allocate MR|create QP\S*|init the resources)|Unable to open file descriptor for socket connection|[Ff]ailed to modify QP \S* ?to (?:INIT|RTR|RTS)|IB device \S+ not found|No IB devices found|(` + deviceFailures + `)|[Uu]nexpected CM event(?: bl blka)? (\d+)|Unable to perform rdma_(?:client|server) function)`)
	// qperf (linux-rdma/qperf src/rdma.c) prints the same verbs failure
	// lower-cased through its error(SYS, …): "failed to modify QP to RTR:
	// Invalid argument" below the test's "rc_bw:" banner.
	// deviceFailures are perftest's messages when the local device cannot
	// give the test a verbs resource (perftest_resources.c
	// create_reg_qp_main "Unable to create QP.", ctx_init "Failed to
	// create QP.", the tests' main "Couldn't create IB resources"; older
	// releases' "Couldn't get device attributes", today's "Failed to
	// query device attributes").
	deviceFailures = `Couldn't get device attributes|Failed to query device attributes|Unable to create QP|Failed to create QP|Couldn't create IB resources`
	// reExchange are the messages of a failed exchange over the test's
	// TCP socket (perftest_communication.c, the tests' main): "ethernet_
	// read_keys: Couldn't read remote address", "Unable to read to
	// socket/rdam_cm" (sic in old releases), "Failed to exchange data
	// between server and clients".
	reExchange = regexp.MustCompile(`^(?:\w+: )?(?:Couldn't (?:read|write|send|read/write) (?:remote|local) address|Unable to (?:read|write) (?:to|from) socket/\w+|Failed to exchange data between server and clients?)\b`)
)

type section int

const (
	secNone section = iota
	secBanner
	secResults
)

// ParseAll reads every perftest test in r (a session log may hold several).
// It fails when none is found; lines it cannot read become Skipped notes of
// their test.
func ParseAll(r io.Reader, source string) ([]*Result, error) {
	br := bufio.NewReaderSize(r, 4096)
	if head, _ := br.Peek(512); bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("{")) {
		data, err := io.ReadAll(io.LimitReader(br, 16<<20))
		if err != nil {
			return nil, &ParseError{Source: source, Err: err}
		}
		res, err := parseJSON(data, source)
		if err != nil {
			return nil, err
		}
		return []*Result{res}, nil
	}
	p := &textParser{source: source}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		p.n++
		if t := strings.TrimSpace(strings.TrimRight(sc.Text(), "\r")); t != "" {
			p.line(t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: p.n + 1, Err: err}
	}
	if len(p.out) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoData}
	}
	return p.out, nil
}

// textParser is the state of ParseAll over text output: the tests so far,
// the one being read and which part of it the current line is in.
type textParser struct {
	source      string
	out         []*Result
	cur         *Result
	latCols     []string // columns of the latency results header
	sec         section
	pendingPeak bool // "BW peak won't be measured" seen before its test
	n           int  // current line number
	// cmd is the last bandwidth test command line seen ("ib_send_bw -d
	// mlx5_0 …"), for rows pasted without a banner or column titles.
	cmd []string
	// latOnly is a latency test command line with --output=latency
	// whose number has not come yet.
	latOnly []string
}

// latOnlyValue reads the one number a --output=latency run prints
// ("1.846569"): ok is false for any other line.
func latOnlyValue(t string) (float64, bool) {
	if t == "" || t[0] < '0' || t[0] > '9' || strings.ContainsAny(t, " \t") {
		return 0, false
	}
	v, err := strconv.ParseFloat(t, 64)
	return v, err == nil && v > 0 && !math.IsInf(v, 0)
}

// latOnlyResult makes the test of a --output=latency run from its
// command line and the number it printed.
func (p *textParser) latOnlyResult(m []string, v float64) {
	p.newResult(map[string]string{"write": "RDMA_Write Latency Test", "read": "RDMA_Read Latency Test", "send": "Send Latency Test", "atomic": "Atomic Latency Test"}[m[1]])
	r := p.cur
	if d := reDevFlag.FindStringSubmatch(m[2]); d != nil {
		r.Device = d[1]
	}
	row := LatRow{Line: p.n, Bytes: 2} // perftest's default size for latency tests
	if sz := reSizeFlag.FindStringSubmatch(m[2]); sz != nil {
		row.Bytes, _ = strconv.ParseInt(sz[1], 10, 64)
	}
	if reDurFlag.MatchString(m[2]) {
		row.Avg = &v
	} else {
		row.Typical = &v
	}
	r.Lat = append(r.Lat, row)
	p.cur, p.sec = nil, secNone
}

// newResult starts a test at the current line from its banner title
// ("RDMA_Write BW Test"; "" when there is none).
func (p *textParser) newResult(title string) {
	cur := &Result{Source: p.source, Line: p.n, Test: title, PeakNotMeasured: p.pendingPeak}
	p.pendingPeak = false
	t := strings.ToLower(title)
	switch {
	case strings.Contains(t, "latency"):
		cur.Kind = KindLat
	default:
		cur.Kind = KindBW
	}
	for _, v := range []string{"write", "read", "send", "atomic"} {
		if strings.Contains(t, v) {
			cur.Verb = v
			break
		}
	}
	cur.Bidirectional = strings.Contains(t, "bidirectional")
	p.out = append(p.out, cur)
	p.cur = cur
	p.sec = secBanner
}

// line reads one trimmed, non-empty line.
func (p *textParser) line(t string) {
	if m := reLatOnly.FindStringSubmatch(t); m != nil {
		p.latOnly = m
		return
	}
	if m := p.latOnly; m != nil {
		if v, ok := latOnlyValue(t); ok {
			p.latOnly = nil
			p.latOnlyResult(m, v)
			return
		}
		if !strings.HasPrefix(t, "#") {
			p.latOnly = nil // the number did not follow
		}
	}
	if strings.Contains(t, "BW peak won't be measured") {
		if p.cur != nil && len(p.cur.BW) == 0 && p.sec != secNone {
			p.cur.PeakNotMeasured = true
		} else {
			p.pendingPeak = true
		}
		return
	}
	if qperfBanner(t) {
		// qperf prints the test's name before it runs it (linux-rdma/qperf
		// src/qperf.c): "rc_bw:"; its error or results follow.
		p.newResult("qperf " + strings.TrimSuffix(t, ":"))
		p.sec = secNone
		return
	}
	if c, f := reCompletion.FindStringSubmatch(t), reFailed.FindStringSubmatch(t); c != nil || f != nil {
		if p.cur == nil {
			p.newResult("")
			p.sec = secNone
		}
		addFailure(p.cur, p.n, t, c, f)
		return
	}
	m := reStartup.FindStringSubmatch(t)
	if m == nil && reExchange.MatchString(t) {
		m = []string{t, "", "", "", ""}
	}
	if m != nil {
		if p.cur == nil {
			p.newResult("")
			p.sec = secNone
		}
		// The first message is the cause; the ones after it ("Couldn't
		// set the link layer", "Couldn't get context") its consequences.
		if len(p.cur.Startup) == 0 {
			st := Startup{Line: p.n, Text: t, PortState: m[2], Device: m[3] != ""}
			st.Port, _ = strconv.Atoi(m[1])
			if len(m) > 4 && m[4] != "" {
				st.CMEventNum, _ = strconv.Atoi(m[4])
				if st.CMEvent = CMEventName(st.CMEventNum); st.CMEvent == "" {
					st.CMEvent = "event " + m[4]
				}
			}
			// After both addresses and the results header the test
			// was running: an exchange that fails then lost the peer.
			st.Midrun = p.sec == secResults && p.cur.Local != nil && p.cur.Remote != nil &&
				len(p.cur.BW) == 0 && len(p.cur.Lat) == 0 && reExchange.MatchString(t)
			p.cur.Startup = append(p.cur.Startup, st)
		} else {
			p.cur.Startup[0].Text += " / " + t
		}
		if p.cur.Device == "" && p.cmd != nil {
			if d := reDevFlag.FindStringSubmatch(p.cmd[2]); d != nil {
				p.cur.Device = d[1]
			}
		}
		return
	}
	if !strings.Contains(t, ":") && strings.HasSuffix(t, " Test") {
		if m := reTitle.FindStringSubmatch(t); m != nil {
			p.newResult(m[1])
			return
		}
	}
	if m := reBWCommand.FindStringSubmatch(t); m != nil {
		p.cmd = m
	}
	if p.cur != nil && p.cur.Untitled && p.sec == secResults {
		if unit, ok := UntitledBWRow(t); ok && unit == p.cur.Unit {
			p.row(t)
			return
		}
		// Anything else ends the untitled rows ("Node C output:").
		p.cur, p.sec = nil, secNone
	}
	if p.cur == nil || p.sec == secBanner && len(p.cur.BW) == 0 {
		if unit, ok := UntitledBWRow(t); ok {
			p.untitled(unit)
			p.row(t)
			return
		}
	}
	if p.cur == nil {
		// A results header without a banner (pasted tables).
		if !strings.HasPrefix(t, "#bytes") {
			return
		}
		p.newResult("")
	}
	switch {
	case strings.HasPrefix(t, "----"):
		if p.sec == secResults && (len(p.cur.BW) > 0 || len(p.cur.Lat) > 0) {
			p.sec = secNone
		}
	case strings.HasPrefix(t, "#bytes"):
		p.resultsHeader(t)
	case strings.Contains(t, "address:") && p.endpoint(t):
	case strings.HasPrefix(t, "GID:") && p.gid(t):
	case p.sec == secResults && t[0] >= '0' && t[0] <= '9':
		p.row(t)
	case p.sec == secBanner:
		bannerPairs(t, func(k, v string) { setBanner(p.cur, k, v) })
	case strings.Contains(t, "WARNING") || strings.Contains(t, "Conflicting CPU frequency"):
		p.cur.Warnings = append(p.cur.Warnings, t)
	}
}

// untitled starts bandwidth results whose column titles the paste left
// out, in unit, under the banner being read or, without one, as a test of
// its own named by the last command line.
func (p *textParser) untitled(unit string) {
	if p.cur == nil || p.sec != secBanner {
		title := ""
		if m := p.cmd; m != nil {
			title = map[string]string{"write": "RDMA_Write BW Test", "read": "RDMA_Read BW Test", "send": "Send BW Test", "atomic": "Atomic BW Test"}[m[1]]
		}
		p.newResult(title)
		if m := p.cmd; m != nil {
			if d := reDevFlag.FindStringSubmatch(m[2]); d != nil {
				p.cur.Device = d[1]
			}
		}
	}
	p.cur.Kind, p.cur.Unit, p.cur.Untitled = KindBW, unit, true
	p.sec = secResults
}

// UntitledBWRow says whether t is a bandwidth result row of five numbers
// (#bytes, #iterations, BW peak, BW average, MsgRate) and in which unit:
// perftest prints MsgRate[Mpps] = BW average × unit ÷ #bytes ÷ 10^6, with
// the unit 0x100000 bytes/s for MB/sec and 125000000 for Gb/sec
// (--report_gbits), so the row itself says which it is. ok is false for
// any other line, and for a row whose numbers fit neither unit or both.
func UntitledBWRow(t string) (unit string, ok bool) {
	if t == "" || t[0] < '0' || t[0] > '9' {
		return "", false
	}
	f := strings.Fields(t)
	if len(f) != 5 {
		return "", false
	}
	bytes, err1 := strconv.ParseInt(f[0], 10, 64)
	_, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || bytes <= 0 {
		return "", false
	}
	var v [3]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[2+i], 64)
		if err != nil || x < 0 || !strings.Contains(f[2+i], ".") {
			return "", false
		}
		v[i] = x
	}
	avg, rate := v[1], v[2]
	if avg <= 0 {
		return "", false
	}
	fits := func(perUnit float64) bool {
		want := avg * perUnit / float64(bytes) / 1e6
		// The printed rounding: MsgRate to 6 decimals, the average to 2.
		return math.Abs(rate-want) <= 0.5e-6+want*(0.01+0.005/avg)
	}
	mb, gb := fits(0x100000), fits(125e6)
	switch {
	case mb && !gb:
		return "MB/sec", true
	case gb && !mb:
		return "Gb/sec", true
	}
	return "", false
}

// resultsHeader reads a "#bytes ..." header: it opens the results and
// says whether they are bandwidth or latency, and in which columns.
func (p *textParser) resultsHeader(t string) {
	p.sec = secResults
	if strings.Contains(t, "BW peak") || strings.Contains(t, "BW average") {
		p.cur.Kind = KindBW
		if m := reUnit.FindStringSubmatch(t); m != nil {
			p.cur.Unit = m[1]
		}
	} else {
		p.cur.Kind = KindLat
		p.latCols = latColumns(t)
	}
}

// endpoint reads a "local address:" or "remote address:" line; false when
// the line is not one.
func (p *textParser) endpoint(t string) bool {
	m := reAddress.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	ep := &Endpoint{LID: m[2], QPN: m[3], PSN: m[4]}
	if m[1] == "local" {
		p.cur.Local = ep
	} else {
		p.cur.Remote = ep
	}
	return true
}

// gid reads the "GID:" line that follows an address line into the last
// endpoint read; false when the line is not one.
func (p *textParser) gid(t string) bool {
	m := reGIDLine.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	switch {
	case p.cur.Remote != nil:
		p.cur.Remote.GID, p.cur.Remote.GIDLine = m[1], p.n
	case p.cur.Local != nil:
		p.cur.Local.GID, p.cur.Local.GIDLine = m[1], p.n
	}
	return true
}

// row reads a bandwidth or latency result row; an unreadable one becomes
// a Skipped note.
func (p *textParser) row(t string) {
	var err error
	if p.cur.Kind == KindBW {
		err = parseBWRow(p.cur, p.n, t)
	} else {
		err = parseLatRow(p.cur, p.n, t, p.latCols)
	}
	if err != nil {
		p.cur.Skipped = append(p.cur.Skipped, Note{p.n, err.Error()})
	}
}

// addFailure records a completion error: a "Failed status" line right
// after a "Completion with error" line completes it.
func addFailure(r *Result, line int, t string, c, f []string) {
	if c == nil && len(r.Failures) > 0 {
		last := &r.Failures[len(r.Failures)-1]
		if last.Status < 0 && line-last.Line <= 3 {
			last.Status, _ = strconv.Atoi(f[1])
			last.Syndrome = f[2]
			last.Text += " / " + t
			return
		}
	}
	fl := Failure{Line: line, Status: -1, Text: t}
	if c != nil {
		fl.Side = c[1]
	}
	if f != nil {
		fl.Status, _ = strconv.Atoi(f[1])
		fl.Syndrome = f[2]
	}
	r.Failures = append(r.Failures, fl)
}

// bannerPairs calls fn for each "Key : value" of a banner line; a line may
// hold two ("Dual-port       : OFF\t\tDevice         : mlx5_0"), and keys
// have spaces ("Data ex. method").
func bannerPairs(t string, fn func(key, val string)) {
	for {
		i := strings.IndexByte(t, ':')
		if i < 0 {
			return
		}
		key := strings.TrimSpace(t[:i])
		rest := strings.TrimLeft(t[i+1:], " \t")
		val := rest
		if j := strings.IndexAny(rest, " \t"); j >= 0 {
			val, rest = rest[:j], rest[j:]
		} else {
			rest = ""
		}
		if key != "" && val != "" {
			fn(key, val)
		}
		t = rest
	}
}

func setBanner(r *Result, key, val string) {
	atoi := func(s string) int {
		s = strings.TrimSuffix(s, "[B]")
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0
		}
		return v
	}
	switch key {
	case "Device":
		r.Device = val
	case "Number of qps":
		r.QPs = atoi(val)
	case "Transport type":
		r.Transport = val
	case "Connection type":
		r.Connection = val
	case "Mtu":
		r.MTU = atoi(val)
	case "Link type":
		r.LinkType = val
	case "GID index":
		if v, err := strconv.Atoi(val); err == nil && v >= 0 && v <= 255 {
			r.GIDIndex = &v
		}
	case "CQ Moderation":
		r.CQModeration = atoi(val)
	case "rdma_cm QPs":
		r.RDMACM = val == "ON"
	case "Data ex. method":
		r.DataExMethod = val
	}
}

// latColumns maps the latency header to field names in order.
func latColumns(h string) []string {
	var cols []string
	for _, c := range []struct{ key, name string }{
		{"t_min", "min"}, {"t_max", "max"}, {"t_typical", "typical"}, {"t_avg", "avg"},
		{"t_stdev", "stdev"}, {"99% percentile", "p99"}, {"99.9% percentile", "p999"},
	} {
		if i := strings.Index(h, c.key); i >= 0 {
			cols = append(cols, fmt.Sprintf("%06d %s", i, c.name))
		}
	}
	// Order by position in the header.
	for i := 1; i < len(cols); i++ {
		for j := i; j > 0 && cols[j] < cols[j-1]; j-- {
			cols[j], cols[j-1] = cols[j-1], cols[j]
		}
	}
	for i := range cols {
		cols[i] = cols[i][7:]
	}
	return cols
}

func parseNum(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s %q", ErrMalformed, what, s)
	}
	return v, nil
}

func parseCounts(f []string) (int64, int64, error) {
	b, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || b < 0 {
		return 0, 0, fmt.Errorf("%w: #bytes %q", ErrMalformed, f[0])
	}
	it, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || it < 0 {
		return 0, 0, fmt.Errorf("%w: #iterations %q", ErrMalformed, f[1])
	}
	return b, it, nil
}

func parseBWRow(r *Result, line int, t string) error {
	f := strings.Fields(t)
	if len(f) < 4 {
		return fmt.Errorf("%w: bandwidth row has %d columns, want 5 (4 in old releases)", ErrMalformed, len(f))
	}
	row := BWRow{Line: line}
	var err error
	if row.Bytes, row.Iterations, err = parseCounts(f); err != nil {
		return err
	}
	if row.PeakGbps, err = parseNum(f[2], "BW peak"); err != nil {
		return err
	}
	if row.AvgGbps, err = parseNum(f[3], "BW average"); err != nil {
		return err
	}
	if len(f) >= 5 {
		v, err := parseNum(f[4], "MsgRate")
		if err != nil {
			return err
		}
		row.MsgRateMpps = &v
	}
	switch r.Unit {
	case "Gb/sec", "":
	case "MB/sec", "MiB/sec":
		row.PeakGbps *= mibToGbps
		row.AvgGbps *= mibToGbps
	default:
		return fmt.Errorf("%w: unknown bandwidth unit %q", ErrMalformed, r.Unit)
	}
	r.BW = append(r.BW, row)
	return nil
}

func parseLatRow(r *Result, line int, t string, cols []string) error {
	f := strings.Fields(t)
	if len(cols) == 0 {
		return fmt.Errorf("%w: latency row without a column header", ErrMalformed)
	}
	if len(f) < 2+len(cols) {
		return fmt.Errorf("%w: latency row has %d columns, want %d", ErrMalformed, len(f), 2+len(cols))
	}
	row := LatRow{Line: line}
	var err error
	if row.Bytes, row.Iterations, err = parseCounts(f); err != nil {
		return err
	}
	for i, c := range cols {
		v, err := parseNum(f[2+i], c)
		if err != nil {
			return err
		}
		p := &v
		switch c {
		case "min":
			row.Min = p
		case "max":
			row.Max = p
		case "typical":
			row.Typical = p
		case "avg":
			row.Avg = p
		case "stdev":
			row.Stdev = p
		case "p99":
			row.P99 = p
		case "p999":
			row.P999 = p
		}
	}
	r.Lat = append(r.Lat, row)
	return nil
}

// Detect says whether text looks like perftest output.
func Detect(text string) bool {
	if strings.Contains(text, `"test_info"`) && strings.Contains(text, `"BW_average"`) {
		return true // --out_json
	}
	if reCompletion.MatchString(text) || reFailed.MatchString(text) && strings.Contains(text, "wr_id") {
		return true // a run that died on a completion error
	}
	if strings.Contains(text, "Couldn't get context for the device") || strings.Contains(text, "Couldn't set the link layer") {
		return true // a run that could not start (these two are perftest's alone)
	}
	if latOnlyRuns(text) > 0 {
		return true // latency tests run with --output=latency: one number each
	}
	if strings.Contains(text, "Unexpected CM event bl blka ") || strings.Contains(text, "Unable to perform rdma_client function") {
		return true // an rdma_cm (-R) client that could not connect (these are perftest's alone)
	}
	if failedStart(text) {
		return true // a test's command line, then its message that it could not start
	}
	if untitledRows(text) >= 2 {
		return true // bandwidth rows without their column titles
	}
	return strings.Contains(text, "#bytes") && (strings.Contains(text, "BW average[") || strings.Contains(text, "t_min[usec]") || strings.Contains(text, "t_avg[usec]")) ||
		strings.Contains(text, " BW Test") && strings.Contains(text, "Link type") ||
		strings.Contains(text, " Latency Test") && strings.Contains(text, "Link type")
}

// reTestCommand is a perftest test's command line, or a qperf client's
// running one of its verbs tests ("qperf 173.168.100.103 rc_bw").
var reTestCommand = regexp.MustCompile(`\bib_(write|read|send|atomic)_(bw|lat)\b|\bqperf\b.* (?:rc|uc|ud|xrc)_[a-z_]+\b`)

// failedStart says whether text holds a perftest command line followed,
// within three lines, by perftest's own message that the test could not
// start or exchange its keys ("Couldn't connect to 192.168.125.211:18515"
// after "# ib_write_bw -d rocep133s0f0 192.168.125.211"): alone, "Couldn't
// connect to" is any program's.
func failedStart(text string) bool {
	left := 0
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			continue
		case reTestCommand.MatchString(t):
			left = 3
			continue
		case left > 0 && (reStartup.MatchString(t) || reExchange.MatchString(t)):
			return true
		}
		if left > 0 {
			left--
		}
	}
	return false
}

// latOnlyRuns counts the --output=latency command lines of text that the
// number they print follows (blank and "#" comment lines between).
func latOnlyRuns(text string) int {
	n, cmd := 0, false
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		switch {
		case reLatOnly.MatchString(t):
			cmd = true
		case !cmd, t == "", strings.HasPrefix(t, "#"):
		default:
			if _, ok := latOnlyValue(t); ok {
				n++
			}
			cmd = false
		}
	}
	return n
}

// untitledRows counts the lines of text that UntitledBWRow accepts.
func untitledRows(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		if _, ok := UntitledBWRow(strings.TrimSpace(line)); ok {
			n++
		}
	}
	return n
}

// GIDLinkLocal says whether a GID as perftest prints it ("254:128:…") is
// an IPv6 link-local address (fe80::/64).
func GIDLinkLocal(gid string) bool {
	p := strings.Split(gid, ":")
	return len(p) == 16 && p[0] == "254" && p[1] == "128"
}

// GIDZero says whether a GID as perftest prints it is all zeros: the
// port's GID table has nothing at the index the test used (RoCE fills
// an entry per IP address of the netdev, so a netdev without one, as in
// a pod whose RDMA interface got no address, leaves it empty).
func GIDZero(gid string) bool {
	p := strings.Split(gid, ":")
	if len(p) != 16 {
		return false
	}
	for _, b := range p {
		if strings.Trim(b, "0") != "" {
			return false
		}
	}
	return true
}

// qperfBanner tells a qperf verbs test's banner ("rc_bw:", "ud_lat:",
// "rc_rdma_read_bw:"): its name alone, with a colon.
func qperfBanner(t string) bool {
	if !strings.HasSuffix(t, "_bw:") && !strings.HasSuffix(t, "_lat:") {
		return false
	}
	if !strings.HasPrefix(t, "rc_") && !strings.HasPrefix(t, "uc_") && !strings.HasPrefix(t, "ud_") && !strings.HasPrefix(t, "xrc_") {
		return false
	}
	for i := 0; i < len(t)-1; i++ {
		if c := t[i]; c != '_' && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}
