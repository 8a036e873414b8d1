// Package wclog reads the work-completion errors that RDMA applications
// and their libraries print outside the tool outputs ibdoctor reads by
// kind:
//
//   - libmlx5's dump of an error CQE (rdma-core providers/mlx5/cq.c: the
//     line "mlx5: <host>: got completion with error:", then the 64-byte
//     CQE as four rows of four big-endian words), printed for every
//     error completion but a flush or a transport retry exhaustion;
//   - libfabric log lines that carry a provider error
//     ("libfabric:ofi_rxm:cq:rxm_cq_read_write_error():819<warn>
//     fi_cq_readerr: err: 5, prov_err: remote access error (10)");
//   - any other log line that ends in the ibv_wc_status_str text of a
//     failed work completion, or names its IBV_WC_ constant, after a
//     colon or an equals sign ("… local_nic: mlx5_9, peer_nic:
//     192.168.1.161:16360@mlx5_7, …): transport retry counter exceeded"),
//     or, for the vaguest texts ("general error", "fatal error"), ends in
//     it after "): " on a line that names an RDMA device;
//   - HCCL's error CQE on an Ascend NPU's RoCE NIC, as PyTorch's
//     watchdog re-raises it (hccl.go);
//   - application log lines that name an ibv async event (async.go);
//   - libibverbs' warnings that it cannot use a device, printed into any
//     program's output (provider.go);
//   - a program's lines saying its RDMA transport could not start, no
//     RDMA device being usable (transport.go);
//   - a program's lines saying a queue pair could not be moved to INIT,
//     RTR or RTS (qpsetup.go);
//   - Mooncake's lines naming the RDMA device, LID and GID index (and
//     GID) its transfer engine uses (gid.go);
//   - SPDK's NVMe-oF host lines that a controller failed or a queue
//     pair could not connect, and Mooncake's transfer timeouts
//     (appfail.go);
//   - libfabric's debug lines that a provider's getinfo failed
//     (fabric.go).
//
// The error CQE is decoded (struct mlx5_err_cqe of providers/mlx5/mlx5dv.h:
// vendor_err_synd and syndrome in byte 54 and 55, s_wqe_opcode_qpn in
// 56..59, op_own in 63), its syndrome to the ibv_wc_status the provider
// reports. The RDMA devices a line names are kept. Judging is
// internal/rules/verbs's job.
package wclog

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxlog"
)

// ErrNoData is returned when no line is one this package reads: a
// work-completion error, an async event, a libibverbs provider warning,
// a transport that could not start or a queue pair that could not be
// connected.
var ErrNoData = errors.New("no work-completion error line")

// Source is what printed an error.
type Source string

// The sources.
const (
	SourceMlx5      Source = "libmlx5"
	SourceLibfabric Source = "libfabric"
	SourceApp       Source = "application"
	// SourceDPDK is DPDK's mlx5 poll-mode driver (dpdk.go).
	SourceDPDK Source = "DPDK mlx5"
)

// Error is one work-completion error.
type Error struct {
	// Line is 1-based in the input; Text the line as read (the dump's
	// first line).
	Line   int
	Text   string
	Source Source
	// Status is the ibv_wc_status, -1 when unknown; What the words the
	// line printed for it ("remote access error").
	Status nccllog.WCStatus
	What   string
	// CQE: the dump was read whole and decoded into Syndrome, Vendor,
	// Requester (the send queue's error, not the receive queue's), QPN
	// and, for a requester error, Opcode ("RDMA_READ").
	CQE              bool
	Syndrome, Vendor uint64
	Requester        bool
	QPN              uint32
	Opcode           string
	// Host is the host libmlx5 names; Provider the libfabric provider
	// ("ofi_rxm").
	Host     string
	Provider string
	// LocalNIC and PeerNIC are the RDMA devices a line names as its own
	// and its peer's ("local_nic: mlx5_9", "peer_nic: …@mlx5_7"), Peer
	// the peer's address; NICs every RDMA device name on the line.
	LocalNIC, PeerNIC, Peer string
	NICs                    []string
	// HCCL's reports (hccl.go): LocalIP the local NPU's RoCE address,
	// PeerHost the peer's server; Rank PyTorch's global rank
	// ("[rank11]:") and GroupRank the rank in the process group
	// ("[Rank 1]"), -1 when the line names none (0 for other sources:
	// read them only for SourceHCCL).
	LocalIP, PeerHost string
	Rank, GroupRank   int
	// Client is the kernel client whose queue pair failed, as the
	// Solaris hermon driver names it ("srpt", solaris.go).
	Client string
}

// Log is the errors of a text.
type Log struct {
	Source string
	Errors []Error
	// Async are the ibv async events application lines name.
	Async []Async
	// Providers are libibverbs' warnings of devices it cannot use.
	Providers []Provider
	// Transports are lines saying an RDMA transport could not start.
	Transports []Transport
	// Throughputs are Mooncake's transfer-engine metric lines.
	Throughputs []Throughput
	// QPSetups are lines saying a queue pair could not be moved to
	// INIT, RTR or RTS.
	QPSetups []QPSetup
	// GIDs are lines naming the GID index and GID a device uses.
	GIDs []GIDUse
	// AppFails are an application's lines that an RDMA connection or
	// transfer failed (SPDK's NVMe-oF host, Mooncake's store: appfail.go).
	AppFails []AppFail
	// Getinfos are libfabric's lines that a provider's getinfo failed
	// (fabric.go).
	Getinfos []Getinfo
	// PortAddrs are 3FS's lines that an RDMA port has no IP address or
	// network zone (threefs.go).
	PortAddrs []PortAddr
	// MPIFabrics are Intel MPI's and Charm++'s lines naming the fabric
	// they use, or an OFI abort (mpifabric.go).
	MPIFabrics []MPIFabric
	// Lines is how many lines were read.
	Lines int
}

// maxLine bounds one line.
const maxLine = 1 << 20

// Parse reads the work-completion errors of a text; ErrNoData (as a
// parse.Error) when it holds none.
func Parse(rd io.Reader, source string) (*Log, error) {
	lg := &Log{Source: source}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	n := 0
	var dump *Error
	var rows []uint32
	var client hermonClient
	flush := func() {
		if dump == nil {
			return
		}
		if len(rows) == 16 {
			decodeCQE(dump, rows)
		}
		lg.Errors = append(lg.Errors, *dump)
		dump, rows = nil, nil
	}
	for sc.Scan() {
		n++
		l := strings.TrimRight(sc.Text(), " \t\r")
		if dump != nil && len(rows) < 16 {
			row, ok := cqeRow, true
			if dump.Source == SourceDPDK {
				row = hexdumpRow
			}
			var w []uint32
			if w, ok = row(l); ok {
				rows = append(rows, w...)
				continue
			}
		}
		flush()
		if h, ok := dumpHeader(l); ok {
			dump = &Error{Line: n, Text: l, Source: SourceMlx5, Status: -1, Host: h}
			continue
		}
		if dpdkDumpHeader(l) {
			dump = &Error{Line: n, Text: strings.TrimSpace(l), Source: SourceDPDK, Status: -1}
			continue
		}
		if e, ok := dpdkCQEText(l); ok {
			e.Line = n
			lg.Errors = append(lg.Errors, e)
		} else if e, c, ok := hermonLine(l); ok || c != "" {
			lg.addHermon(n, e, c, ok, &client)
		} else if f, ok := MPIFabricLine(l); ok {
			f.Line = n
			lg.MPIFabrics = append(lg.MPIFabrics, f)
		} else if f, ok := AppFailLine(l); ok {
			f.Line = n
			lg.AppFails = append(lg.AppFails, f)
		} else if g, ok := GetinfoLine(l); ok {
			g.Line = n
			lg.Getinfos = append(lg.Getinfos, g)
		} else if pa, ok := PortAddrLine(l); ok {
			pa.Line = n
			lg.PortAddrs = append(lg.PortAddrs, pa)
		} else if e, ok := lineError(l); ok {
			e.Line = n
			lg.Errors = append(lg.Errors, e)
		} else if a, ok := asyncLine(l); ok {
			a.Line = n
			lg.Async = append(lg.Async, a)
		} else if p, ok := ProviderLine(l); ok {
			p.Line = n
			lg.Providers = append(lg.Providers, p)
		} else if t, ok := TransportLine(l); ok {
			t.Line = n
			lg.Transports = append(lg.Transports, t)
		} else if tp, ok := ThroughputLine(l); ok {
			tp.Line = n
			lg.Throughputs = append(lg.Throughputs, tp)
		} else if q, ok := QPSetupLine(l); ok {
			q.Line = n
			lg.QPSetups = append(lg.QPSetups, q)
		} else if g, ok := GIDLine(l); ok {
			g.Line = n
			lg.GIDs = append(lg.GIDs, g)
		} else if e := ErrnoLine(l); e > 0 {
			// perror's number on a line of its own ("errno: 110"),
			// for the latest QP line without one: threads that
			// print together put it a few lines after.
			for i := len(lg.QPSetups) - 1; i >= 0 && n-lg.QPSetups[i].Line <= errnoWithin; i-- {
				if q := &lg.QPSetups[i]; q.Errno == 0 {
					q.Errno = e
					if q.Err == "" {
						q.Err = errnoText(e)
					}
					break
				}
			}
		}
	}
	flush()
	lg.Lines = n
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Line: n + 1, Err: err}
	}
	if len(lg.Errors) == 0 && len(lg.Async) == 0 && len(lg.Providers) == 0 && len(lg.Transports) == 0 && len(lg.QPSetups) == 0 && len(lg.GIDs) == 0 && len(lg.AppFails) == 0 && len(lg.Getinfos) == 0 && len(lg.PortAddrs) == 0 && len(lg.MPIFabrics) == 0 && len(lg.Throughputs) == 0 {
		return nil, &parse.Error{Source: source, Err: ErrNoData}
	}
	return lg, nil
}

// Detect says whether a text holds a work-completion error line.
func Detect(text string) bool {
	for l := range strings.Lines(text) {
		if DetectLine(strings.TrimRight(l, "\r\n")) {
			return true
		}
	}
	return false
}

// DetectLine says whether a line is one this package reads: libmlx5's
// dump header, a libfabric log line, or a log line that reports a
// failed work completion or names an ibv async event, libibverbs'
// warning that it cannot use a device, a program's line that its RDMA
// transport could not start, or a line naming the GID a device uses.
func DetectLine(l string) bool {
	if !Hint(l) {
		return false
	}
	if _, ok := dumpHeader(l); ok {
		return true
	}
	if dpdkDumpHeader(l) {
		return true
	}
	if _, ok := dpdkCQEText(l); ok {
		return true
	}
	if _, ok := libfabricLine(l); ok {
		return true
	}
	if _, c, ok := hermonLine(l); ok || c != "" {
		return true
	}
	if _, ok := lineError(l); ok {
		return true
	}
	if _, ok := asyncLine(l); ok {
		return true
	}
	if _, ok := ProviderLine(l); ok {
		return true
	}
	if _, ok := TransportLine(l); ok {
		return true
	}
	if _, ok := ThroughputLine(l); ok {
		return true
	}
	if _, ok := QPSetupLine(l); ok {
		return true
	}
	if _, ok := AppFailLine(l); ok {
		return true
	}
	if _, ok := GetinfoLine(l); ok {
		return true
	}
	if _, ok := PortAddrLine(l); ok {
		return true
	}
	if _, ok := MPIFabricLine(l); ok {
		return true
	}
	_, ok := GIDLine(l)
	return ok
}

// Hint says cheaply whether a line may be one DetectLine accepts: every
// such line holds one of these words.
func Hint(l string) bool {
	return strings.Contains(l, "rror") || strings.Contains(l, "exceeded") || strings.Contains(l, "IBV_WC_") || strings.HasPrefix(l, "libfabric:") ||
		strings.Contains(l, "status") && completionWords(l) || asyncHint(l) ||
		strings.Contains(l, "libibverbs: W") || transportHint(l) || qpHint(l) || strings.Contains(l, ": CQE ") || gidHint(l) ||
		strings.Contains(l, "*ERROR*") || strings.Contains(l, "Failed to complete transfers") ||
		strings.Contains(l, "New RDMA Connection: ") || strings.Contains(l, "Final Negotiated Queue Depth: ") ||
		strings.Contains(l, "IBDevice") || strings.Contains(l, "IfAddr of ") || mpiFabricHint(l) || strings.Contains(l, throughputMark)
}

// errnoWithin bounds how many lines after a QP line its "errno: N" line
// is looked for.
const errnoWithin = 8

// dumpHeader matches libmlx5's "mlx5: cn10: got completion with error:"
// and returns the host.
func dumpHeader(l string) (string, bool) {
	t := strings.TrimSpace(l)
	rest, ok := strings.CutPrefix(t, "mlx5: ")
	if !ok {
		return "", false
	}
	host, ok := strings.CutSuffix(rest, ": got completion with error:")
	if !ok || host == "" || strings.ContainsAny(host, " \t") {
		return "", false
	}
	return host, true
}

// cqeRow reads a row of the dump: four words of eight hex digits.
func cqeRow(l string) ([]uint32, bool) {
	f := strings.Fields(l)
	if len(f) != 4 {
		return nil, false
	}
	w := make([]uint32, 4)
	for i, s := range f {
		if len(s) != 8 {
			return nil, false
		}
		v, err := strconv.ParseUint(s, 16, 32)
		if err != nil {
			return nil, false
		}
		w[i] = uint32(v)
	}
	return w, true
}

// CQE opcodes (op_own >> 4) of an error CQE (mlx5dv.h MLX5_CQE_REQ_ERR,
// MLX5_CQE_RESP_ERR).
const (
	cqeReqErr  = 0xd
	cqeRespErr = 0xe
)

// wqeOpcodes names the send opcodes of a requester error's WQE (mlx5dv.h
// MLX5_OPCODE_*).
var wqeOpcodes = map[uint32]string{
	0x00: "NOP", 0x08: "RDMA_WRITE", 0x09: "RDMA_WRITE_IMM", 0x0a: "SEND", 0x0b: "SEND_IMM",
	0x0c: "LSO", 0x0e: "TSO", 0x0f: "LOCAL_INVALIDATE", 0x10: "RDMA_READ", 0x11: "ATOMIC_CS",
	0x12: "ATOMIC_FA", 0x14: "ATOMIC_MASKED_CS", 0x15: "ATOMIC_MASKED_FA", 0x25: "UMR",
}

// decodeCQE reads the words of a whole dump into e.
func decodeCQE(e *Error, w []uint32) {
	e.CQE = true
	e.Syndrome = uint64(w[13] & 0xff)
	e.Vendor = uint64(w[13] >> 8 & 0xff)
	e.QPN = w[14] & 0xffffff
	op := w[15] & 0xff >> 4
	e.Requester = op == cqeReqErr
	if e.Requester {
		if name, ok := wqeOpcodes[w[14]>>24]; ok {
			e.Opcode = name
		}
	}
	if st, ok := ucxlog.SyndromeStatus(e.Syndrome); ok && (op == cqeReqErr || op == cqeRespErr) {
		e.Status = st
		e.What = st.Info().Text
	}
}

// reLibfabric is libfabric's log prefix (src/log.c): "libfabric:", the
// pid in later releases ("libfabric:1428:efa:cq:…") and the time after it
// in the latest ("libfabric:12345:1612345678::verbs:…"), the provider,
// the subsystem, "func():line" and "<level>".
var reLibfabric = regexp.MustCompile(`^libfabric:(?:\d+:(?:\d+::)?)?([\w.;-]+):(\w+):[\w.]+\(\):\d+<(\w+)> ?(.*)$`)

// libfabricLine reads a libfabric log line: provider, level, message.
func libfabricLine(l string) ([]string, bool) {
	if !strings.HasPrefix(l, "libfabric:") {
		return nil, false
	}
	m := reLibfabric.FindStringSubmatch(l)
	return m, m != nil
}

// efaCompletionError reads the EFA provider's report of a failed send or
// receive (libfabric prov/efa/src/rdm/efa_rdm_ope.c efa_rdm_txe_handle_error
// and efa_rdm_rxe_handle_error: "err: %d, message: %s (%d)", at the warn level
// in libfabric 1.18-1.21 and for internal operations ("EFA provider internal
// txe failure err: …"), at info later): what follows "message: ", the
// provider's text (efa_errno.h: "Unresponsive remote …", "Invalid address …",
// with " My EFA addr: … Peer host id: …" from efa_rdm_write_error_msg in
// later releases) and the provider error number in parentheses.
func efaCompletionError(msg string) (string, bool) {
	i := strings.Index(msg, "err: ")
	if i < 0 || (i > 0 && !strings.HasSuffix(msg[:i], "failure ")) {
		return "", false
	}
	rest := msg[i+len("err: "):]
	if _, ok := leadingDigits(rest); !ok {
		return "", false
	}
	_, what, ok := strings.Cut(rest, ", message: ")
	return what, ok && strings.TrimSpace(what) != ""
}

// leadingDigits reads the decimal number s starts with.
func leadingDigits(s string) (int, bool) {
	n, end := 0, 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		n = n*10 + int(s[end]-'0')
		end++
	}
	return n, end > 0
}

// statusTexts are the ibv_wc_status_str texts read in application
// lines: the statuses of failed work requests whose words say so
// unmistakably ("fatal error" and "general error" are read only by
// their IBV_WC_ names).
var statusTexts = func() []statusText {
	var out []statusText
	for _, c := range []nccllog.WCStatus{1, 2, 4, 5, 7, 8, 9, 10, 11, 12, 13, 20} {
		out = append(out, statusText{strings.ToLower(c.Info().Text), c.Info().Text, c})
	}
	return out
}()

type statusText struct {
	text, exact string // lower-cased, and as printed
	st          nccllog.WCStatus
}

// statusOf is the status whose text is what (any case).
func statusOf(what string) (nccllog.WCStatus, bool) {
	what = strings.ToLower(what)
	for _, t := range statusTexts {
		if t.text == what {
			return t.st, true
		}
	}
	return -1, false
}

// statusNames are the IBV_WC_ names of the failed statuses.
var statusNames = func() map[string]nccllog.WCStatus {
	m := map[string]nccllog.WCStatus{}
	for c, info := range nccllog.WCStatuses() {
		if c > 0 {
			m[info.Name] = nccllog.WCStatus(c)
		}
	}
	return m
}()

var reWCName = regexp.MustCompile(`IBV_WC_[A-Z_]+`)

// lineError reads a libfabric error line or an application line that
// reports a failed work completion.
func lineError(l string) (Error, bool) {
	e := Error{Text: l, Status: -1}
	if m, ok := libfabricLine(l); ok {
		_, after, found := strings.Cut(m[4], "prov_err: ")
		if !found {
			after, found = efaCompletionError(m[4])
		}
		if !found {
			return e, false
		}
		e.Source, e.Provider = SourceLibfabric, m[1]
		what := strings.TrimSpace(after)
		if i := strings.LastIndex(what, " ("); i > 0 && strings.HasSuffix(what, ")") {
			what = what[:i]
		}
		if i := strings.Index(what, " My EFA addr: "); i > 0 {
			what = what[:i]
		}
		e.What = what
		e.Status, _ = statusOf(what)
		nics(&e, l)
		return e, e.What != ""
	}
	if e, ok := hcclLine(l); ok {
		return e, true
	}
	if strings.IndexByte(l, ':') < 0 && strings.IndexByte(l, '=') < 0 {
		// reportShape needs one before the status; a number after the
		// word "status" needs neither ("status 12 (…)").
		return numericError(e, l)
	}
	for _, t := range statusTexts {
		// As ibv_wc_status_str spells it: applications print that text.
		i := strings.Index(l, t.exact)
		if i < 0 || !reportShape(l[:i], l[i+len(t.exact):]) {
			continue
		}
		e.Source, e.Status, e.What = SourceApp, t.st, t.exact
		nics(&e, l)
		return e, true
	}
	if e, ok := vagueEnd(e, l); ok {
		return e, true
	}
	if !strings.Contains(l, "IBV_WC_") {
		return numericError(e, l)
	}
	for _, loc := range reWCName.FindAllStringIndex(l, -1) {
		st, ok := statusNames[l[loc[0]:loc[1]]]
		if !ok || !reportShape(l[:loc[0]], l[loc[1]:]) {
			continue
		}
		e.Source, e.Status, e.What = SourceApp, st, l[loc[0]:loc[1]]
		nics(&e, l)
		return e, true
	}
	return numericError(e, l)
}

// vagueStatuses are the ibv_wc_status_str texts too vague to be read
// after any colon ("fatal error" and "general error", IBV_WC_FATAL_ERR and
// IBV_WC_GENERAL_ERR): vagueEnd reads them in one shape only.
var vagueStatuses = []nccllog.WCStatus{19, 21}

// vagueEnd reads a line that ends in a vague status text right after
// "): ", the parenthesised details of a failed transfer before it, on a
// line that names an RDMA device: Mooncake's transfer engine prints
// ibv_wc_status_str(wc.status) so ("Worker: Process failed for slice
// (opcode: 0, …, local_nic: erdma_0, peer_nic: 10.0.0.41:7712@erdma_0,
// dest_rkey: 39908608, retry_cnt: 0): general error",
// src/transfer_engine/worker_pool.cpp). Only lines ending in "error" are
// looked at further.
func vagueEnd(e Error, l string) (Error, bool) {
	if !strings.HasSuffix(l, " error") {
		return e, false
	}
	for _, st := range vagueStatuses {
		text := st.Info().Text
		head, ok := strings.CutSuffix(l, "): "+text)
		if !ok || head == "" {
			continue
		}
		nics(&e, l)
		if len(e.NICs) == 0 && e.LocalNIC == "" {
			return Error{Text: l, Status: -1}, false
		}
		e.Source, e.Status, e.What = SourceApp, st, text
		return e, true
	}
	return e, false
}

// numericError reads an application line that prints a failed work
// completion's ibv_wc_status as a number next to completion wording:
// "number 0 got bad completion with status: 0xc, vendor syndrome: 0x81"
// (ruihong123/dLSM, printing wc.status and wc.vendor_err in hex),
// "completion error: wc.status=12", "bad CQE status 12 (…)". The number
// follows the word "status" after optional ':' or '=' and ends at a
// boundary; status 0 (success) and numbers beyond the enum
// (rdma-core libibverbs/verbs.h enum ibv_wc_status) are not read. A
// "vendor syndrome"/"vendor_err"/"vendor err" number after it is kept as
// Vendor (libmlx5 copies the CQE's vendor_err_synd into wc.vendor_err,
// providers/mlx5/cq.c). No regexp runs: lines without "status" and
// completion wording are refused by substring tests.
func numericError(e Error, l string) (Error, bool) {
	if !strings.Contains(l, "status") || !completionWords(l) {
		return e, false
	}
	// Wordings with parsers of their own, which read them also inside
	// prose: NCCL's IB transport ("Got completion from peer … with
	// status=12 …", src/transport/net_ib.cc) and perftest ("Failed status
	// 12: wr_id 0 syndrom 0x81", src/perftest_resources.c).
	if strings.Contains(l, "Got completion ") || strings.Contains(l, "Failed status ") {
		return e, false
	}
	check := -1 // where a failed assertion's message starts, after "status == IBV_WC_SUCCESS"
	for rest, off := l, 0; ; {
		i := strings.Index(rest, "status")
		if i < 0 {
			if check >= 0 {
				return checkFailedStatus(e, l, check)
			}
			return e, false
		}
		at := off + i
		rest, off = rest[i+len("status"):], at+len("status")
		if at > 0 && isWordByte(l[at-1]) {
			continue // "wc_status" is fine ('_' is no word byte here), "xstatus" is not
		}
		if at > 0 && l[at-1] == '.' && !strings.HasSuffix(strings.ToLower(l[max(0, at-4):at-1]), "wc") {
			continue // a field of the work completion ("wc.status"), not prose's ".status"
		}
		if t, ok := strings.CutPrefix(strings.TrimLeft(rest, " "), "== IBV_WC_SUCCESS"); ok && check < 0 && strings.Contains(l[:at], "Check failed: ") {
			check = len(l) - len(t)
			continue
		}
		v, n, ok := numberAfter(rest)
		if !ok {
			v, n, ok = parenNumberAfter(rest)
		}
		if !ok || v <= 0 || v >= uint64(len(nccllog.WCStatuses())) {
			continue
		}
		if !numberEnds(rest[n:]) {
			continue
		}
		e.Source, e.Status = SourceApp, nccllog.WCStatus(v)
		e.What = strings.TrimSpace(l[at : off+n])
		if j := strings.Index(rest[n:], "vend_err"); j >= 0 {
			// libiscsi prints wc->vendor_err with %x and no 0x
			// (lib/iser.c, iser_rcv_completion: "wr id %lx status
			// %d vend_err %x").
			if x, m, ok := hexAfter(rest[n+j+len("vend_err"):]); ok && numberEnds(rest[n+j+len("vend_err")+m:]) {
				e.Vendor = x
			}
		} else if j := strings.Index(rest[n:], "vendor"); j >= 0 {
			vr := rest[n+j+len("vendor"):]
			k := 0
			for k < len(vr) && (vr[k] == ' ' || vr[k] == '_' || vr[k] >= 'a' && vr[k] <= 'z') {
				k++
			}
			switch strings.Trim(vr[:k], " _") {
			case "err", "error", "syndrome", "synd":
				if x, m, ok := numberAfter(vr[k:]); ok && numberEnds(vr[k+m:]) {
					e.Vendor = x
				}
			}
		}
		nics(&e, l)
		return e, true
	}
}

// checkFailedStatus reads the status of a failed glog assertion on a
// work completion, the message from msg on: CHECK_EQ prints both values
// after the condition ("Check failed: wc.status == IBV_WC_SUCCESS (12 vs.
// 0)", glog's CHECK_OP), and a CHECK with a streamed message prints the
// status where the message puts it, after a colon: UCCL's
// "F20250821 13:22:09.976752 3186121 rdma_io.cc:811] Check failed:
// wc->status == IBV_WC_SUCCESS RC send CQ state error: 12, 0"
// (uccl-project/uccl, SharedIOContext::_rc_poll_send_cq_normal:
// DCHECK(wc->status == IBV_WC_SUCCESS) << "RC send CQ state error: " <<
// wc->status << ", " << wc->byte_len). The first number after a colon is
// read; 0 and numbers beyond the enum are not.
func checkFailedStatus(e Error, l string, msg int) (Error, bool) {
	tail := l[msg:]
	read := func(v uint64, text string) (Error, bool) {
		if v == 0 || v >= uint64(len(nccllog.WCStatuses())) {
			return e, false
		}
		e.Source, e.Status, e.What = SourceApp, nccllog.WCStatus(v), text
		nics(&e, l)
		return e, true
	}
	if t, ok := strings.CutPrefix(strings.TrimLeft(tail, " "), "("); ok {
		n := numLen(t)
		if n > 0 && strings.HasPrefix(t[n:], " vs. ") {
			v, err := strconv.ParseUint(t[:n], 0, 32)
			if err != nil {
				return e, false
			}
			return read(v, "wc.status "+t[:n])
		}
	}
	i := strings.IndexByte(tail, ':')
	if i < 0 {
		return e, false
	}
	v, n, ok := numberAfter(tail[i:])
	if !ok || !numberEnds(tail[i+n:]) {
		return e, false
	}
	return read(v, strings.TrimSpace(tail[:i+n]))
}

// completionWords says whether a line speaks of a work completion: a
// work completion or CQE named as such ("wc.status", "WC", "cqe"), or a
// completion that went wrong ("got bad completion with status: 0xc,
// vendor syndrome: 0x81"), or an error on a CQ, or the fields of a
// struct ibv_wc printed by name: its work request id and vendor error
// ("wr id 5559208da690 status 1 vend_err d7", libiscsi's lib/iser.c
// iser_rcv_completion). A job's or a task's "completion status: 1"
// alone is no verbs completion.
func completionWords(l string) bool {
	if wordIn(l, "wc") || wordIn(l, "WC") || strings.Contains(l, "cqe") || strings.Contains(l, "CQE") {
		return true
	}
	if (strings.Contains(l, "wr id ") || strings.Contains(l, "wr_id")) && (strings.Contains(l, "vend_err") || strings.Contains(l, "vendor_err")) {
		return true
	}
	// An error on a completion queue ("Error on CQ 0x20155a0, …",
	// SPDK's lib/nvmf/rdma.c nvmf_rdma_log_wc_status).
	if strings.Contains(l, "rror") && wordIn(l, "CQ") {
		return true
	}
	return strings.Contains(l, "ompletion") && (strings.Contains(l, "completion with status") || strings.Contains(l, "vendor") || strings.Contains(l, "yndrome") ||
		strings.Contains(l, "bad ") || strings.Contains(l, "rror") || strings.Contains(l, "fail"))
}

// wordIn says whether w occurs in l with no letter or digit on either
// side ("wc.status", "wc->status", "struct ibv_wc wc"; not "newcomer").
func wordIn(l, w string) bool {
	for off := 0; ; {
		i := strings.Index(l[off:], w)
		if i < 0 {
			return false
		}
		at := off + i
		end := at + len(w)
		if (at == 0 || !isWordByte(l[at-1])) && (end == len(l) || !isWordByte(l[end])) {
			return true
		}
		off = at + 1
	}
}

// isWordByte: letters and digits (a status glued to a longer word is not
// the word "status").
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parenNumberAfter reads a number in parentheses after optional blanks
// and one ':' or '=': SPDK's NVMe-oF RDMA target prints a failed
// completion as "Error on CQ 0x20155a0, (qp state 1 ibv_state 6) request
// 0x…, type DATA, status: (12): transport retry counter exceeded"
// (lib/nvmf/rdma.c, nvmf_rdma_log_wc_status: wc.status in parentheses,
// then ibv_wc_status_str). It returns the value and how many bytes of s
// it took, the closing parenthesis included.
func parenNumberAfter(s string) (uint64, int, bool) {
	t := strings.TrimLeft(s, " \t")
	if t != "" && (t[0] == ':' || t[0] == '=') {
		t = strings.TrimLeft(t[1:], " \t")
	}
	if t == "" || t[0] != '(' {
		return 0, 0, false
	}
	skip := len(s) - len(t) + 1
	n := numLen(t[1:])
	if n == 0 || 1+n >= len(t) || t[1+n] != ')' {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(t[1:1+n], 0, 32)
	if err != nil {
		return 0, 0, false
	}
	return v, skip + n + 1, true
}

// numberAfter reads, after optional blanks and one ':' or '=', a hex
// ("0xc") or decimal ("12") number: its value and how many bytes of s
// it took.
func numberAfter(s string) (uint64, int, bool) {
	t := strings.TrimLeft(s, " \t")
	if t != "" && (t[0] == ':' || t[0] == '=') {
		t = strings.TrimLeft(t[1:], " \t")
	}
	skip := len(s) - len(t)
	n := numLen(t)
	if n == 0 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(t[:n], 0, 32)
	if err != nil {
		return 0, 0, false
	}
	return v, skip + n, true
}

// hexAfter reads, after optional blanks and one ':' or '=', a hex
// number with or without "0x" ("d7", "0xd7"): its value and how many
// bytes of s it took.
func hexAfter(s string) (uint64, int, bool) {
	t := strings.TrimLeft(s, " \t")
	if t != "" && (t[0] == ':' || t[0] == '=') {
		t = strings.TrimLeft(t[1:], " \t")
	}
	skip := len(s) - len(t)
	digits := strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X")
	skip += len(t) - len(digits)
	n := 0
	for n < len(digits) && n < 8 && (digits[n] >= '0' && digits[n] <= '9' || digits[n] >= 'a' && digits[n] <= 'f' || digits[n] >= 'A' && digits[n] <= 'F') {
		n++
	}
	if n == 0 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(digits[:n], 16, 32)
	if err != nil {
		return 0, 0, false
	}
	return v, skip + n, true
}

// numLen is the length of the hex or decimal number s starts with.
func numLen(s string) int {
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		n := 2
		for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] >= 'a' && s[n] <= 'f' || s[n] >= 'A' && s[n] <= 'F') {
			n++
		}
		if n == 2 {
			return 0
		}
		return n
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// numberEnds says whether a number is followed by what ends it in a
// log line: the line's end, a blank, or punctuation; not a letter or
// digit ("12abc", "0x5g").
func numberEnds(after string) bool {
	return after == "" || !isWordByte(after[0]) && after[0] != '.' || after[0] == '.' && (len(after) == 1 || after[1] == ' ')
}

// reportShape says whether a status found between before and after is
// what a log line reports, not words of prose: it follows a colon or an
// equals sign (or the word "status"), and ends the line or is followed
// by a number in parentheses, a comma, a bracket or a period.
func reportShape(before, after string) bool {
	b := strings.TrimRight(before, " \t")
	if !(strings.HasSuffix(b, ":") || strings.HasSuffix(b, "=") || strings.HasSuffix(strings.ToLower(b), "status")) {
		return false
	}
	a := strings.TrimSpace(after)
	return a == "" || a[0] == '(' || a[0] == ',' || a[0] == '[' || a[0] == '.' || a[0] == ';'
}

// reNIC matches RDMA device names as drivers name them: mlx4_0,
// mlx5_bond_0, bnxt_re0, irdma0, efa_0, hns_0, erdma_0, rxe0, and the
// names udev gives them (rocep33s0f0, ibp12s0).
var reNIC = regexp.MustCompile(`\b(?:mlx[45]_(?:bond_)?\d+|bnxt_re\d+|irdma\d+|efa_\d+|hns_\d+|erdma_\d+|rxe\d+|rocep\w+|ibp\w+)\b`)

// reLocalNIC and rePeerNIC find a line's own and peer devices: Mooncake's
// "local_nic: mlx5_9, peer_nic: 192.168.1.161:16360@mlx5_7".
var (
	reLocalNIC = regexp.MustCompile(`\blocal[_ ](?:nic|device|dev)[:=] *([\w.-]+)`)
	rePeerNIC  = regexp.MustCompile(`\b(?:peer|remote)[_ ](?:nic|device|dev)[:=] *([^\s,)]+)`)
)

// nics fills the devices a line names.
func nics(e *Error, l string) {
	for _, n := range reNIC.FindAllString(l, -1) {
		if !contains(e.NICs, n) {
			e.NICs = append(e.NICs, n)
		}
	}
	if m := reLocalNIC.FindStringSubmatch(l); m != nil {
		e.LocalNIC = m[1]
	}
	if m := rePeerNIC.FindStringSubmatch(l); m != nil {
		peer, dev, ok := strings.Cut(m[1], "@")
		if ok {
			e.Peer, e.PeerNIC = peer, dev
		} else {
			e.PeerNIC = peer
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
