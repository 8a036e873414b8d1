// Package ompihelp reads the help messages Open MPI prints about the
// network: the blocks its show_help framework frames in dashes, worded as
// in the help files of open-mpi/ompi (opal/mca/btl/openib/
// help-mpi-btl-openib.txt and connect/help-mpi-btl-openib-cpc-base.txt,
// opal/mca/btl/base/help-mpi-btl-base.txt, opal/mca/btl/tcp/
// help-mpi-btl-tcp.txt, ompi/mca/bml/r2/help-mca-bml-r2.txt), the TCP
// BTL's "received unexpected process identifier" error line, and the
// lines mpirun prints when it folds the same message from many processes
// into one:
//
//	--------------------------------------------------------------------------
//	WARNING: There was an error initializing an OpenFabrics device.
//
//	  Local host:   lxbk1039
//	  Local device: mlx5_0
//	--------------------------------------------------------------------------
//	[lxbk1039:106838] 11 more processes have sent help message help-mpi-btl-openib.txt / error in device init
//
// A message is known by its first line; the "  Key: value" lines under it
// (Local host, Local device, Local port …) are read until the closing
// dashes. Other lines (the application's output, prose) are passed over.
// Judging the messages is internal/rules/mpi's job.
package ompihelp

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoData is returned when the input holds no Open MPI help message.
var ErrNoData = errors.New("no Open MPI help message about the network")

// ParseError is the shared parse error type.
type ParseError = parse.Error

// Topic names a help message as show_help does: its help file and topic.
type Topic struct {
	File string `json:"file"`
	Name string `json:"name"`
}

// The topics read.
var (
	NoActivePorts    = Topic{"help-mpi-btl-openib.txt", "no active ports found"}
	DeviceInitError  = Topic{"help-mpi-btl-openib.txt", "error in device init"}
	PortNotSelected  = Topic{"help-mpi-btl-openib.txt", "ib port not selected"}
	NoDevicesOfType  = Topic{"help-mpi-btl-openib.txt", "no devices right type"}
	RetryExceeded    = Topic{"help-mpi-btl-openib.txt", "pp retry exceeded"}
	RNRRetryExceeded = Topic{"help-mpi-btl-openib.txt", "pp rnr retry exceeded"}
	SRQRNRExceeded   = Topic{"help-mpi-btl-openib.txt", "srq rnr retry exceeded"}
	ErrorEvent       = Topic{"help-mpi-btl-openib.txt", "of error event"}
	NoLockedMemory   = Topic{"help-mpi-btl-openib.txt", "init-fail-no-mem"}
	NoCPCForPort     = Topic{"help-mpi-btl-openib-cpc-base.txt", "no cpcs for port"}
	NoNICs           = Topic{"help-mpi-btl-base.txt", "btl:no-nics"}
	UnreachableProc  = Topic{"help-mca-bml-r2.txt", "unreachable proc"}
	TCPConnectFail   = Topic{"help-mpi-btl-tcp.txt", "client connect fail"}
	// TCPWrongPeer is no help message but the TCP BTL's BTL_ERROR line
	// (opal/mca/btl/tcp/btl_tcp_endpoint.c
	// mca_btl_tcp_endpoint_recv_connect_ack, the prefix from
	// opal/mca/btl/base/btl_base_error.h): "[cu25][[13139,1],1]
	// [btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack]
	// received unexpected process identifier [[13139,1],4]": a connection
	// reached another process than the one dialled, and was closed.
	TCPWrongPeer = Topic{"btl_tcp_endpoint.c", "received unexpected process identifier"}
	// CreateQueue is help-mpi-btl-openib.txt's init-fail-create-q: an
	// ibv_create_cq/srq/qp call failed, openib is off for the device.
	CreateQueue = Topic{"help-mpi-btl-openib.txt", "init-fail-create-q"}
	// CompletionError is no help message but openib's BTL_PEER_ERROR
	// line in handle_wc (opal/mca/btl/openib/btl_openib_component.c;
	// ompi/mca/btl/openib before 2.0): "[[44095,1],45][btl_openib_
	// component.c:3492:handle_wc] from compute-6-13 to: compute-3-11 error
	// polling LP CQ with status LOCAL QP OPERATION ERROR status number 2
	// for wr_id 40c5e00 opcode 0  vendor error 111 qp_idx 0" (1.2 wrote
	// "error polling LP CQ with status … opcode 0" without the vendor
	// error): a work request completed in error. Fields: Status, Status
	// number, Vendor error, Peer host.
	CompletionError = Topic{"btl_openib_component.c", "handle_wc"}
	// PollError is openib's BTL_ERROR in poll_device: ibv_poll_cq itself
	// failed ("error polling HP CQ with -2 errno says Device or resource
	// busy"). Fields: Return, Errno says.
	PollError = Topic{"btl_openib_component.c", "poll_device"}
)

// starts are the first lines of the messages read, as the help files
// word them (blanks collapsed); second, when set, tells apart two
// messages that share a first line by the start of the next.
var starts = []struct {
	topic         Topic
	first, second string
	anywhere      bool // first may follow other text on the line ("%s: A high-performance …")
}{
	{topic: NoActivePorts, first: "WARNING: There is at least non-excluded one OpenFabrics device found,"},
	{topic: DeviceInitError, first: "WARNING: There was an error initializing an OpenFabrics device."},
	{topic: PortNotSelected, first: "By default, for Open MPI 4.0 and later, infiniband ports on a device"},
	{topic: NoDevicesOfType, first: "WARNING: No OpenFabrics devices of the right type were found within"},
	{topic: RetryExceeded, first: "The InfiniBand retry count between two MPI processes has been"},
	{topic: RNRRetryExceeded, first: `The OpenFabrics "receiver not ready" retry count on a per-peer`},
	{topic: SRQRNRExceeded, first: `The OpenFabrics "receiver not ready" retry count on a shared receive`},
	{topic: ErrorEvent, first: "The OpenFabrics stack has reported a network error event."},
	{topic: NoLockedMemory, first: "The OpenFabrics (openib) BTL failed to initialize while trying to", second: "allocate some locked memory."},
	{topic: CreateQueue, first: "The OpenFabrics (openib) BTL failed to initialize while trying to", second: "create an internal queue."},
	{topic: CreateQueue, first: "The OpenIB BTL failed to initialize while trying to create an internal"}, // Open MPI 1.2
	{topic: NoCPCForPort, first: "No OpenFabrics connection schemes reported that they were able to be"},
	{topic: NoNICs, first: ": A high-performance Open MPI point-to-point messaging module", anywhere: true},
	{topic: UnreachableProc, first: "At least one pair of MPI processes are unable to reach each other for"},
	// Both wordings of the topic ("… peer MPI process. This should not
	// happen.", "… peer MPI process via TCP.") start so.
	{topic: TCPConnectFail, first: "WARNING: Open MPI failed to TCP connect to a peer MPI process"},
}

// Message is one help message.
type Message struct {
	Topic Topic `json:"topic"`
	// Line is the line of its first sentence; Text that line.
	Line int    `json:"line"`
	Text string `json:"text"`
	// Fields are its "Key: value" lines ("Local host" → "gpu7"), Keys
	// their order.
	Fields map[string]string `json:"fields,omitempty"`
	Keys   []string          `json:"-"`
	// Host, Device and Port are read from the fields: Local host (Host,
	// Process 1 is on host), Local device (Local adapter, Device), Local
	// port; Module is the BTL of btl:no-nics ("openib").
	Host   string `json:"host,omitempty"`
	Device string `json:"device,omitempty"`
	Port   int    `json:"port,omitempty"`
	Module string `json:"module,omitempty"`
}

// Aggregate is mpirun's "[host:pid] N more processes have sent help
// message FILE / TOPIC".
type Aggregate struct {
	Line  int    `json:"line"`
	Host  string `json:"host"`
	More  int    `json:"more"`
	Topic Topic  `json:"topic"`
	Text  string `json:"text"`
}

// Log is what a paste holds of Open MPI's help messages.
type Log struct {
	Source     string      `json:"source"`
	Messages   []Message   `json:"messages"`
	Aggregates []Aggregate `json:"aggregates,omitempty"`
}

// Count is how many processes sent topic: its messages and the processes
// the aggregate lines add.
func (lg *Log) Count(t Topic) int {
	n := 0
	for _, m := range lg.Messages {
		if m.Topic == t {
			n++
		}
	}
	for _, a := range lg.Aggregates {
		if a.Topic == t {
			n += a.More
		}
	}
	return n
}

// Has says whether topic appears as a message or an aggregate line.
func (lg *Log) Has(t Topic) bool { return lg.Count(t) > 0 }

var (
	reAggregate = regexp.MustCompile(`^\[([^\]:\s]+):(\d+)\] (\d+) more process(?:es)? ha(?:s|ve) sent help message (\S+) / (.+?)\s*$`)
	// reWrongPeer is the TCPWrongPeer line: BTL_ERROR's "[node][name]
	// [file:line:func] " prefix, then the message and the peer's name.
	reWrongPeer = regexp.MustCompile(`^\[([^\]\s]+)\](\[\[\d+,\d+\],\d+\])\[[\w.]+:\d+:\w+\] received unexpected process identifier (\S+)`)
	reField     = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*(?: [A-Za-z0-9_]+){0,5}):\s+(\S.*?)\s*$`)
)

// maxLine bounds one line.
const maxLine = 1 << 20

// maxBody bounds the lines read under a message's first line when no
// closing dashes come.
const maxBody = 40

// Parse reads the help messages of a paste; ErrNoData (as a ParseError)
// when there is none.
func Parse(rd io.Reader, source string) (*Log, error) {
	lg := &Log{Source: source}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	var ls []string
	for sc.Scan() {
		ls = append(ls, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: len(ls) + 1, Err: err}
	}
	n, body := 0, 0
	var cur *Message
	// prevFirst is the previous non-blank line, when it could start a
	// two-line match (a mail archive puts a blank line between every
	// two), prevN its number.
	prevFirst, prevN := "", 0
	for n < len(ls) {
		n++
		t := collapse(ls[n-1])
		if m, used, ok := wcLines(ls[n-1:]); ok {
			m.Line = n
			lg.Messages = append(lg.Messages, m)
			cur, prevFirst = nil, ""
			n += used - 1
			continue
		}
		if a, ok := aggregateLine(t); ok {
			a.Line = n
			lg.Aggregates = append(lg.Aggregates, a)
			cur = nil
			continue
		}
		if m, ok := wrongPeerLine(t); ok {
			m.Line = n
			lg.Messages = append(lg.Messages, m)
			cur, prevFirst = nil, ""
			continue
		}
		if m, ok := startLine(t, prevFirst); ok {
			m.Line = n
			if m.Topic == NoLockedMemory || m.Topic == CreateQueue && strings.HasPrefix(m.Text, "The OpenFabrics") {
				m.Line, m.Text = prevN, prevFirst
			}
			lg.Messages = append(lg.Messages, m)
			cur, body, prevFirst = &lg.Messages[len(lg.Messages)-1], 0, ""
			continue
		}
		if t != "" {
			prevFirst, prevN = t, n
		}
		if cur == nil {
			continue
		}
		if isDashes(t) || body >= maxBody {
			cur = nil
			continue
		}
		body++
		if f := reField.FindStringSubmatch(t); f != nil {
			cur.field(f[1], f[2])
		}
	}
	if len(lg.Messages) == 0 && len(lg.Aggregates) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoData}
	}
	return lg, nil
}

// field records one "Key: value" line of m.
func (m *Message) field(k, v string) {
	if m.Fields == nil {
		m.Fields = map[string]string{}
	}
	if _, ok := m.Fields[k]; !ok {
		m.Keys = append(m.Keys, k)
	}
	m.Fields[k] = v
	switch k {
	case "Local host", "Host", "Process 1 is on host":
		if m.Host == "" {
			m.Host = v
		}
	case "Local device", "Local adapter", "Device":
		if m.Device == "" {
			m.Device = v
		}
	case "Local port":
		m.Port, _ = strconv.Atoi(v)
	case "Module":
		m.Module = v
	}
}

// collapse trims t and folds its runs of blanks into one space, as the
// help files' first lines are compared.
func collapse(l string) string {
	return strings.Join(strings.Fields(l), " ")
}

// startLine reads t (collapsed) as the first line of a known message;
// prev is the line above, for the messages told apart by their second
// line.
func startLine(t, prev string) (Message, bool) {
	for _, s := range starts {
		switch {
		case s.second != "":
			if strings.HasPrefix(t, s.second) && strings.HasPrefix(prev, s.first) {
				return Message{Topic: s.topic, Text: prev}, true
			}
		case s.anywhere:
			if i := strings.Index(t, s.first); i > 0 {
				return Message{Topic: s.topic, Text: t, Module: strings.TrimSpace(t[:i])}, true
			}
		case strings.HasPrefix(t, s.first):
			return Message{Topic: s.topic, Text: t}, true
		}
	}
	return Message{}, false
}

// wrongPeerLine reads the TCP BTL's "received unexpected process
// identifier" line: the host and process that logged it (Host, Fields
// "Process") and the process that answered ("Peer process").
func wrongPeerLine(t string) (Message, bool) {
	if !strings.Contains(t, "unexpected process identifier") {
		return Message{}, false
	}
	m := reWrongPeer.FindStringSubmatch(t)
	if m == nil {
		return Message{}, false
	}
	return Message{Topic: TCPWrongPeer, Text: t, Host: m[1],
		Fields: map[string]string{"Process": m[2], "Peer process": m[3]}, Keys: []string{"Process", "Peer process"}}, true
}

// AggregateLine reads l as mpirun's folded "[host:pid] N more processes
// have sent help message FILE / TOPIC" line.
func AggregateLine(l string) (Aggregate, bool) { return aggregateLine(collapse(l)) }

// Known says whether t is a topic this package reads (a message about the
// network); mpirun folds every other help message the same way
// ("help-mca-var.txt / mutually-exclusive-vars").
func (t Topic) Known() bool {
	if t == TCPWrongPeer {
		return true
	}
	for _, s := range starts {
		if s.topic == t {
			return true
		}
	}
	return false
}

// aggregateLine reads mpirun's folded "N more processes have sent help
// message" line.
func aggregateLine(t string) (Aggregate, bool) {
	if !strings.Contains(t, "sent help message ") {
		return Aggregate{}, false
	}
	m := reAggregate.FindStringSubmatch(t)
	if m == nil {
		return Aggregate{}, false
	}
	more, err := strconv.Atoi(m[3])
	if err != nil || more <= 0 {
		return Aggregate{}, false
	}
	return Aggregate{Host: m[1], More: more, Topic: Topic{File: m[4], Name: m[5]}, Text: t}, true
}

func isDashes(t string) bool {
	return len(t) >= 20 && strings.Trim(t, "-") == ""
}

// Hint says, cheaply, whether l may be a line StartLine takes: every one
// names "Open" (OpenFabrics, Open MPI), "MPI", "help message", the
// "InfiniBand retry count" or an "unexpected process identifier".
// Callers test it before StartLine on every line of a log.
func Hint(l string) bool {
	return strings.Contains(l, "Open") || strings.Contains(l, "MPI") || strings.Contains(l, "help message") ||
		strings.Contains(l, "InfiniBand retry") || strings.Contains(l, "unexpected process identifier") ||
		strings.Contains(l, "handle_wc") || strings.Contains(l, "poll_device") || strings.Contains(l, "error polling")
}

// StartLine says whether a line is the first line of a help message this
// package reads, or mpirun's aggregate line for one: what a paste's Open
// MPI output is recognised by.
func StartLine(l string) bool {
	t := collapse(l)
	if _, ok := aggregateLine(t); ok {
		return true
	}
	if _, ok := wrongPeerLine(t); ok {
		return true
	}
	if wcStart(t) {
		return true
	}
	for _, s := range starts {
		if s.anywhere && strings.Index(t, s.first) > 0 || !s.anywhere && strings.HasPrefix(t, s.first) {
			return true
		}
	}
	return false
}

// Detect says whether text holds an Open MPI help message about the
// network.
func Detect(text string) bool {
	for l := range strings.Lines(text) {
		if StartLine(l) {
			return true
		}
	}
	return false
}
