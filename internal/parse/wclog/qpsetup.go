package wclog

import (
	"regexp"
	"strconv"
	"strings"
)

// QPSetup is a program's line saying that ibv_modify_qp(3) could not move
// one of its queue pairs to the next state of the connection: INIT, RTR
// (Ready To Receive, where the path to the peer is set) or RTS (Ready To
// Send). Every RC connection goes through those three steps before it
// carries a byte.
type QPSetup struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	// State is the state the queue pair was to reach ("INIT", "RTR",
	// "RTS"), "" when the line does not say.
	State string
	// Errno is the error number the line (or an "errno: N" line right
	// after it) gives, 0 when none; Err the strerror(3) text as printed
	// ("Connection timed out"), "" when none.
	Errno int
	Err   string
	// Device is the RDMA device the line names, "" when none.
	Device string
	// Stalled: the queue pair reached the state but the connection
	// still never came up, the peer's first message not arriving (3FS's
	// accept timeout, ibsocket.go). Peer and PeerDevice are the peer's
	// host and device:port as the line names them; Port the local port
	// as printed ("mlx5_1:1, ifaddrs [], zones [UNKNOWN], ETHERNET,
	// ACTIVE"), LinkLayer its link layer ("ETHERNET" is RoCE) and NoAddr
	// that its network device has no IP address.
	Stalled                bool
	Peer, PeerDevice, Port string
	LinkLayer              string
	NoAddr                 bool
}

// qpErrnos are the strerror(3) texts (glibc) of the error numbers
// ibv_modify_qp returns, with the numbers of Linux's asm-generic/errno.h.
var qpErrnos = []struct {
	text  string
	errno int
}{
	{"Operation not permitted", 1},
	{"No such file or directory", 2},
	{"Resource temporarily unavailable", 11},
	{"Cannot allocate memory", 12},
	{"No such device", 19},
	{"Invalid argument", 22},
	{"No data available", 61},
	{"Network is unreachable", 101},
	{"Connection timed out", 110},
	{"No route to host", 113},
	{"Operation not supported", 95},
}

// reQPErrno finds an error number on a QP line: "[110]", "errno: 110",
// "errno=110", "(110)", "failed with 110", "ret=-110", "ret: 110".
var reQPErrno = regexp.MustCompile(`(?:\[|\(|errno[:= ]+|failed with (?:error )?|ret(?:urn(?:ed)?)?[:= ]+|rc[:= ]+)-?(\d{1,3})\b`)

// reErrnoLine is a line that gives only an error number ("errno: 110"),
// as a program prints perror's number after its message.
var reErrnoLine = regexp.MustCompile(`^\s*errno\s*[:=]?\s*(\d{1,3})\s*$`)

// qpHint is QPSetupLine's cheap gate.
func qpHint(l string) bool {
	return (strings.Contains(l, "QP") || strings.Contains(l, "qp") || strings.Contains(l, "Qp")) &&
		(strings.Contains(l, "odify") || strings.Contains(l, "ODIFY")) || strings.Contains(l, "IBSocket ")
}

// QPSetupLine reads a program's line that a queue pair could not be moved
// to INIT, RTR or RTS (Line left 0): it names modifying a QP ("Failed to
// modify QP to RTR", "ibv_modify_qp failed", "modify_qp to RTS error")
// and says it failed. Written by hand in rdma-core's examples
// (rc_pingpong.c pp_connect_ctx: "Failed to modify QP to RTR"), and by
// programs built the same way: Mooncake's transfer engine
// (rdma_endpoint.cpp: "[Handshake] Failed to modify QP to RTR, check mtu,
// gid, peer lid, peer qp num: Connection timed out [110]"), UCCL,
// DeepEP's and others' verbs code. NCCL's own lines ("NCCL WARN Call to
// ibv_modify_qp failed") are NCCL's parser's. 3FS's lines that an
// accepted RDMA connection never came up are read too (ibsocket.go).
func QPSetupLine(l string) (QPSetup, bool) {
	if !qpHint(l) || strings.Contains(l, "NCCL WARN") || strings.Contains(l, "NCCL INFO") {
		return QPSetup{}, false
	}
	if q, ok := ibSocketLine(l); ok {
		return q, true
	}
	// ASCII-only lower case keeps every byte offset of l: strings.ToLower
	// turns each invalid UTF-8 byte into a 3-byte U+FFFD, and "at" below
	// indexes l.
	low := asciiLower(l)
	at := strings.Index(low, "modify qp")
	if at < 0 {
		at = strings.Index(low, "modify_qp")
	}
	if at < 0 {
		at = strings.Index(low, "modify the qp")
	}
	if at < 0 {
		return QPSetup{}, false
	}
	// "error" counts after the call only: prose that tells of "an
	// error by call of: ibv_modify_qp" is not the program's report.
	if !strings.Contains(low, "fail") && !strings.Contains(low[at:], "error") && !strings.Contains(low, "couldn't") &&
		!strings.Contains(low, "could not") && !strings.Contains(low, "unable") && !strings.Contains(low, "cannot") {
		return QPSetup{}, false
	}
	q := QPSetup{Text: l}
	rest := l[at:]
	for _, st := range []string{"RTR", "RTS", "INIT"} {
		if i := strings.Index(rest, st); i >= 0 && (i+len(st) == len(rest) || !isWordByte(rest[i+len(st)])) && (i == 0 || !isWordByte(rest[i-1]) || rest[i-1] == '_') {
			q.State = st
			break
		}
	}
	for _, e := range qpErrnos {
		if strings.Contains(l, e.text) {
			q.Err, q.Errno = e.text, e.errno
			break
		}
	}
	if q.Errno == 0 {
		// A bare number counts only when it is one ibv_modify_qp
		// returns: "QP[3]" or "qp 7" is a queue pair's index.
		for _, m := range reQPErrno.FindAllStringSubmatch(rest, -1) {
			if n, err := strconv.Atoi(m[1]); err == nil {
				if text := errnoText(n); text != "" {
					q.Errno, q.Err = n, text
					break
				}
			}
		}
	}
	q.Device = reNIC.FindString(l)
	return q, true
}

// errnoText is the strerror(3) text of an error number ibv_modify_qp
// returns, "" for any other number.
func errnoText(n int) string {
	for _, e := range qpErrnos {
		if e.errno == n {
			return e.text
		}
	}
	return ""
}

// ErrnoLine reads a line that gives only an error number ("errno: 110"),
// 0 when it is not one.
func ErrnoLine(l string) int {
	m := reErrnoLine.FindStringSubmatch(l)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// asciiLower lower-cases the ASCII letters of s and leaves every other
// byte as it is, so that an index into the result is one into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
