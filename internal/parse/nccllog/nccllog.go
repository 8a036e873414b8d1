package nccllog

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Log is a parsed NCCL_DEBUG=INFO log of one or many ranks (one file may
// hold the interleaved output of every process of a job).
type Log struct {
	Source string `json:"source"`
	// Version is the NCCL version ("2.19.3+cuda12.3"), "" when not logged.
	Version string `json:"version,omitempty"`
	// Procs are the processes seen, keyed by host and pid, in first-seen
	// order. Lines without a "host:pid:tid" prefix belong to a process
	// with an empty host.
	Procs []*Proc `json:"procs"`
	// Events are the warnings that rules judge, in line order.
	Events []Event `json:"events,omitempty"`
	// NCCLLines counts lines that carried an NCCL prefix.
	NCCLLines int `json:"nccl_lines"`
}

// Proc is what one process logged about its setup.
type Proc struct {
	// Source is the file the process logged to (logs merged with
	// Merge keep where each line came from).
	Source string `json:"source"`
	Host   string `json:"host,omitempty"`
	Pid    int    `json:"pid,omitempty"`
	// Ranks are the communicator ranks of this process ("comm 0x… rank R
	// nranks N … Init COMPLETE"); one process may drive several GPUs.
	Ranks  []int `json:"ranks,omitempty"`
	NRanks int   `json:"nranks,omitempty"`
	// NNodes is the node count of the communicator ("comm 0x… rank 0
	// nRanks 2 nNodes 1 …", NCCL 2.12 and later), 0 when not logged;
	// NNodesLine is where.
	NNodes     int `json:"nnodes,omitempty"`
	NNodesLine int `json:"nnodes_line,omitempty"`
	// Network is what "Using network X" said: "IB", "Socket" or a plugin
	// name; "" when the line is absent (older NCCL).
	Network     string `json:"network,omitempty"`
	NetworkLine int    `json:"network_line,omitempty"`
	// IBDevices are from "NET/IB : Using [0]mlx5_0:1/IB [1]…".
	IBDevices []IBDevice `json:"ib_devices,omitempty"`
	IBLine    int        `json:"ib_line,omitempty"`
	// IBNoDevice is the line of "NET/IB : No device found." (NCCL 2.3:
	// "Net/IB: call to devices() returned 0 devices."), 0 when absent;
	// IBNoDeviceText is that message.
	IBNoDevice     int    `json:"ib_no_device,omitempty"`
	IBNoDeviceText string `json:"ib_no_device_text,omitempty"`
	// NoVerbs is the line of "Failed to open libibverbs.so[.1]": the image
	// lacks rdma-core, so NCCL cannot use IB at all; 0 when absent.
	NoVerbs int `json:"no_verbs,omitempty"`
	// SocketIfs are from "NET/Socket : Using [0]eth0:10.0.0.1<0> …".
	SocketIfs  []string `json:"socket_ifs,omitempty"`
	SocketLine int      `json:"socket_line,omitempty"`
	// IBDisable is the value of "NCCL_IB_DISABLE set by environment to N."
	// (-1 when not logged) and its line.
	IBDisable     int `json:"ib_disable"`
	IBDisableLine int `json:"ib_disable_line,omitempty"`
	// GDR lists "GPU Direct RDMA Enabled/Disabled for HCA n 'name'" of the
	// IB transport.
	GDR []GDRState `json:"gdr,omitempty"`
	// Channels is the channel count from "Channel 00/08 : …" lines.
	Channels int `json:"channels,omitempty"`
	// Trees is set when the log shows tree connections ("Trees [0] …").
	Trees bool `json:"trees,omitempty"`
	// Via counts network connections by transport: "NET/IB", "NET/IB/GDRDMA",
	// "NET/Socket", or a plugin name.
	Via map[string]int `json:"via,omitempty"`
	// Env holds "NCCL_X set by environment to V" (NCCL_ALGO, NCCL_PROTO,
	// NCCL_IB_HCA, …): the overrides that explain many performance
	// complaints.
	Env map[string]string `json:"env,omitempty"`
	// FirstLine is the first line of this process.
	FirstLine int `json:"first_line"`
}

// IBDevice is one entry of "NET/IB : Using": device, port, link layer.
type IBDevice struct {
	Name      string `json:"name"`
	Port      int    `json:"port"`
	LinkLayer string `json:"link_layer"` // IB or RoCE
}

// GDRState is one "GPU Direct RDMA … for HCA" line.
type GDRState struct {
	HCA     string `json:"hca"`
	Enabled bool   `json:"enabled"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
}

// EventKind classifies an Event.
type EventKind string

// Event kinds.
const (
	EventCompletion EventKind = "completion" // NET/IB work-completion error
	EventResource   EventKind = "resource"   // a verbs call failed
	EventTimeout    EventKind = "timeout"    // watchdog or NCCL timeout
	EventWarn       EventKind = "warn"       // any other NCCL WARN
)

// Event is one warning line that rules judge.
type Event struct {
	Kind   EventKind `json:"kind"`
	Source string    `json:"source"`
	Line   int       `json:"line"`
	Host   string    `json:"host,omitempty"`
	Pid    int       `json:"pid,omitempty"`
	Text   string    `json:"text"`

	// Completion errors: "Got completion from peer P with status=S
	// opcode=O len=L vendor err V (Req) … hca H".
	Peer      string   `json:"peer,omitempty"`
	Status    WCStatus `json:"status,omitempty"`
	Opcode    int      `json:"opcode,omitempty"`
	VendorErr int      `json:"vendor_err,omitempty"`
	HCA       string   `json:"hca,omitempty"`
	Req       string   `json:"req,omitempty"`

	// Resource errors: "Call to ibv_reg_mr failed with error E".
	Call  string `json:"call,omitempty"`
	Error string `json:"error,omitempty"`

	// Timeouts: PyTorch "[Rank R] Watchdog caught collective operation
	// timeout: WorkNCCL(SeqNum=S, OpType=O, …, Timeout(ms)=T) ran for M
	// milliseconds". Rank is -1 when the line does not say.
	Rank      int    `json:"rank"`
	SeqNum    int64  `json:"seq_num,omitempty"`
	OpType    string `json:"op_type,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
	RanForMS  int64  `json:"ran_for_ms,omitempty"`
}

var (
	reVersion   = regexp.MustCompile(`(?:^|NCCL INFO |^)NCCL version (\S+)`)
	reComm      = regexp.MustCompile(`comm 0x[0-9a-fA-F]+ rank (\d+) n[Rr]anks (\d+)(?: nNodes (\d+))?`)
	reIBUsing   = regexp.MustCompile(`^NET/IB ?: Using (.*)$`)
	reIBDev     = regexp.MustCompile(`\[(\d+)\]([^:\s\[\]]+):(\d+)/(IB|RoCE)`)
	reSockUsing = regexp.MustCompile(`^NET/Socket ?: Using (.*)$`)
	reSockIf    = regexp.MustCompile(`\[\d+\]([^:\s]+):`)
	reNetwork   = regexp.MustCompile(`^Using network (.+?)\s*$`)
	reIBDisable = regexp.MustCompile(`NCCL_IB_DISABLE set by environment to (\d+)`)
	reEnvSet    = regexp.MustCompile(`^(NCCL_[A-Z0-9_]+) set by environment to (.*?)\.?\s*$`)
	reGDR       = regexp.MustCompile(`^NET/(IB|[^:/]*?) ?: GPU Direct RDMA (?:\([^)]*\) )?(Enabled|enabled|Disabled|disabled) for (?:GPU \S+ / )?HCA (\d+)(?: '([^']*)')?`)
	reChannel   = regexp.MustCompile(`^Channel (\d+)/(\d+) :`)
	reVia       = regexp.MustCompile(`via NET/([^/\s]+)/\d+(/GDRDMA)?`)
	reCompl     = regexp.MustCompile(`Got completion (?:from peer (\S+) )?with (?:error |status=)(?:[^()=,]*\()?(\d+)\)?`)
	reOpcode    = regexp.MustCompile(`opcode[ =](?:[^()=,]*\()?(\d+)`)
	reVendor    = regexp.MustCompile(`vendor[ _]err[ =]?(\d+)`)
	reReq       = regexp.MustCompile(`\((Send|Recv|Flush|Read|Write|Unknown)\)`)
	reHCA       = regexp.MustCompile(` hca (\S+)`)
	// reCall ends at the line's end, where a paste may close a quote
	// around the message ("…ibv_create_qp failed“").
	reCall = regexp.MustCompile(`Call to (ibv_\w+) failed(?: with error (.+?))?[\s"'“”‘’.)\]]*$`)
	// reLegacy is a line of NCCL 2.0-2.3, which printed no "NCCL" before
	// the level: "host:pid:tid [dev] INFO msg", "host:pid:tid [dev]
	// misc/ibvwrap.cu:269 WARN msg" (the host field as pasted: "machine
	// [0] …" where the poster hid it).
	reLegacy   = regexp.MustCompile(`^(\S+) \[\d+\] (?:[\w./-]+\.(?:cu|cc|c|h):\d+ (WARN)|(INFO)) (.*)$`)
	reWatchdog = regexp.MustCompile(`(?:\[Rank (\d+)\] )?Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+).*?Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds`)
	reTimeout  = regexp.MustCompile(`(?i)\btime(?:d)? ?out\b`)
	// reAnyRank finds the rank of a PyTorch line that does not put it
	// right before "Watchdog": "[PG ID 0 PG GUID 0(default_pg) Rank 1]",
	// or the launcher's "[rank1]:" prefix.
	reAnyRank = regexp.MustCompile(`\bRank (\d+)\]|\[rank(\d+)\]:`)
	// reDetected is PyTorch 2.x's "[PG ID 0 … Rank 1] Exception (either an
	// error or timeout) detected by watchdog at work: 808".
	reDetected = regexp.MustCompile(`detected by watchdog at work: (\d+)`)
)

// splitNCCLLine splits "host:pid:tid [dev] [file.cc:line] NCCL LEVEL msg".
// Pasted logs drop the host ("[0] NCCL INFO …") or everything before
// "NCCL WARN"; those lines keep an empty host and pid 0. Hand-written
// because it runs on every line of logs that reach gigabytes.
func splitNCCLLine(line string) (host string, pid int, level, msg string, ok bool) {
	rest := line
	off := 0
	for {
		i := strings.Index(rest, "NCCL ")
		if i < 0 {
			return "", 0, "", "", false
		}
		after := rest[i+len("NCCL "):]
		for _, lv := range []string{"INFO", "WARN", "ABORT", "TRACE"} {
			if strings.HasPrefix(after, lv) && (len(after) == len(lv) || after[len(lv)] == ' ') {
				level, msg = lv, strings.TrimSpace(after[len(lv):])
				prefix := line[:off+i]
				if f := strings.Fields(prefix); len(f) > 0 {
					host, pid = splitHostPid(f[0])
				}
				return host, pid, level, msg, true
			}
		}
		off += i + len("NCCL ")
		rest = after
	}
}

// splitHostPid reads "host:pid:tid"; anything else gives "", 0.
func splitHostPid(tok string) (string, int) {
	j := strings.LastIndexByte(tok, ':')
	if j <= 0 {
		return "", 0
	}
	i := strings.LastIndexByte(tok[:j], ':')
	if i <= 0 {
		return "", 0
	}
	pid, err := strconv.Atoi(tok[i+1 : j])
	if _, err2 := strconv.Atoi(tok[j+1:]); err != nil || err2 != nil || pid < 0 {
		return "", 0
	}
	return tok[:i], pid
}

// quotedCompletion finds a completion error of the IB transport or a net
// plugin quoted without the NCCL line prefix ("… NET/IBP:Got completion
// from peer 7.6.13.83<36315> with status=12 …" in a sentence) and returns
// it from "NET/IB" on.
func quotedCompletion(line string) (string, bool) {
	i := strings.Index(line, "NET/IB")
	if i < 0 || !strings.Contains(line[i:], "Got completion ") || !reCompl.MatchString(line[i:]) {
		return "", false
	}
	return strings.TrimSpace(line[i:]), true
}

// legacyLine matches an NCCL 2.0-2.3 line (see reLegacy): host, "WARN"
// or "", "INFO" or "", message; nil for any other line.
func legacyLine(line string) []string {
	if !strings.Contains(line, " WARN ") && !strings.Contains(line, " INFO ") {
		return nil
	}
	return reLegacy.FindStringSubmatch(line)
}

// anyRank is the rank a watchdog line names: r when the pattern caught
// it, else "Rank N]" or "[rankN]:" anywhere in the line; -1 when none.
func anyRank(line, r string) int {
	if r == "" {
		if m := reAnyRank.FindStringSubmatch(line); m != nil {
			r = m[1] + m[2]
		}
	}
	if v, err := strconv.Atoi(r); err == nil {
		return v
	}
	return -1
}

func watchdog(line string) []string {
	if !strings.Contains(line, "Watchdog caught") {
		return nil
	}
	return reWatchdog.FindStringSubmatch(line)
}

// Parse reads an NCCL_DEBUG=INFO log (any mix of ranks, with other
// program output around it, CRLF or LF). It fails only when the input holds
// no NCCL line and no watchdog timeout.
func Parse(r io.Reader, source string) (*Log, error) {
	lg := &Log{Source: source}
	procs := map[string]*Proc{}
	proc := func(host string, pid, line int) *Proc {
		key := host + ":" + strconv.Itoa(pid)
		p := procs[key]
		if p == nil {
			p = &Proc{Source: source, Host: host, Pid: pid, IBDisable: -1, FirstLine: line}
			procs[key] = p
			lg.Procs = append(lg.Procs, p)
		}
		return p
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(strings.TrimRight(sc.Text(), "\r"))
		if line == "" {
			continue
		}
		if !strings.Contains(line, "NCCL") {
			// Neither an NCCL 2.4+ line nor a ProcessGroupNCCL watchdog;
			// perhaps an NCCL 2.0-2.3 one, or a net plugin's completion
			// error quoted without its prefix ("… NET/IBP:Got completion
			// from peer … with status=12 …" in a sentence).
			if msg, ok := quotedCompletion(line); ok {
				lg.NCCLLines++
				parseWarn(lg, proc("", 0, n), source, n, msg)
				continue
			}
			if m := legacyLine(line); m != nil {
				lg.NCCLLines++
				host, pid := splitHostPid(m[1])
				p := proc(host, pid, n)
				if m[2] == "WARN" {
					parseWarn(lg, p, source, n, m[4])
				} else {
					parseInfo(p, n, m[4])
				}
			}
			continue
		}
		if m := watchdog(line); m != nil {
			ev := Event{Kind: EventTimeout, Source: source, Line: n, Text: line, Rank: anyRank(line, m[1]), OpType: m[3]}
			ev.SeqNum, _ = strconv.ParseInt(m[2], 10, 64)
			ev.TimeoutMS, _ = strconv.ParseInt(m[4], 10, 64)
			ev.RanForMS, _ = strconv.ParseInt(m[5], 10, 64)
			lg.Events = append(lg.Events, ev)
			lg.NCCLLines++
			continue
		}
		if m := reDetected.FindStringSubmatch(line); m != nil && strings.Contains(line, "ProcessGroupNCCL") {
			ev := Event{Kind: EventTimeout, Source: source, Line: n, Text: line, Rank: anyRank(line, "")}
			ev.SeqNum, _ = strconv.ParseInt(m[1], 10, 64)
			lg.Events = append(lg.Events, ev)
			lg.NCCLLines++
			continue
		}
		if lg.Version == "" && strings.Contains(line, "NCCL version") {
			if m := reVersion.FindStringSubmatch(line); m != nil {
				lg.Version = m[1]
			}
		}
		// Pasted logs often indent lines or drop the host; find the
		// NCCL prefix wherever the line starts.
		host, pid, level, msg, ok := splitNCCLLine(line)
		if !ok {
			if msg, ok := quotedCompletion(line); ok {
				lg.NCCLLines++
				parseWarn(lg, proc("", 0, n), source, n, msg)
			}
			continue
		}
		lg.NCCLLines++
		p := proc(host, pid, n)
		switch {
		case level == "WARN" || level == "ABORT":
			parseWarn(lg, p, source, n, msg)
		case strings.Contains(msg, "Got completion ") && reCompl.MatchString(msg):
			// Net plugins (NET/IBP and others) log completion errors at
			// INFO level.
			parseWarn(lg, p, source, n, msg)
		default:
			parseInfo(p, n, msg)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if lg.NCCLLines == 0 {
		return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: no NCCL log line", ErrNoData)}
	}
	return lg, nil
}

func parseInfo(p *Proc, n int, msg string) {
	switch {
	case strings.HasPrefix(msg, "Channel "), strings.HasPrefix(msg, "Ring "), strings.HasPrefix(msg, "Trees "):
		parseChannel(p, msg)
	case strings.Contains(msg, "comm 0x"):
		if m := reComm.FindStringSubmatch(msg); m != nil {
			r, _ := strconv.Atoi(m[1])
			p.NRanks, _ = strconv.Atoi(m[2])
			if m[3] != "" {
				p.NNodes, _ = strconv.Atoi(m[3])
				p.NNodesLine = n
			}
			if !slices.Contains(p.Ranks, r) {
				p.Ranks = append(p.Ranks, r)
			}
		}
	case strings.HasPrefix(msg, "NET/"):
		parseNet(p, n, msg)
	case strings.HasPrefix(msg, "Net/IB") && strings.Contains(msg, "returned 0 devices"):
		// NCCL 2.3: "Net/IB: call to devices() returned 0 devices."
		p.IBNoDevice, p.IBNoDeviceText = n, msg
	case strings.HasPrefix(msg, "Using network"):
		if m := reNetwork.FindStringSubmatch(msg); m != nil {
			p.Network, p.NetworkLine = m[1], n
		}
	case strings.HasPrefix(msg, "Failed to open libibverbs"):
		p.NoVerbs = n
	case strings.HasPrefix(msg, "NCCL_"):
		if m := reIBDisable.FindStringSubmatch(msg); m != nil {
			p.IBDisable, _ = strconv.Atoi(m[1])
			p.IBDisableLine = n
		}
		if m := reEnvSet.FindStringSubmatch(msg); m != nil {
			if p.Env == nil {
				p.Env = map[string]string{}
			}
			p.Env[m[1]] = m[2]
		}
	}
}

// parseNet reads the "NET/…" lines: devices in use, no device, GPUDirect.
func parseNet(p *Proc, n int, msg string) {
	if m := reIBUsing.FindStringSubmatch(msg); m != nil {
		p.IBDevices = p.IBDevices[:0]
		for _, d := range reIBDev.FindAllStringSubmatch(m[1], -1) {
			port, _ := strconv.Atoi(d[3])
			p.IBDevices = append(p.IBDevices, IBDevice{Name: d[2], Port: port, LinkLayer: d[4]})
		}
		p.IBLine = n
		return
	}
	if m := reSockUsing.FindStringSubmatch(msg); m != nil {
		p.SocketIfs = p.SocketIfs[:0]
		for _, d := range reSockIf.FindAllStringSubmatch(m[1], -1) {
			p.SocketIfs = append(p.SocketIfs, d[1])
		}
		p.SocketLine = n
		return
	}
	if strings.HasPrefix(msg, "NET/IB : No device found") || strings.HasPrefix(msg, "NET/IB: No device found") {
		p.IBNoDevice, p.IBNoDeviceText = n, msg
		return
	}
	if m := reGDR.FindStringSubmatch(msg); m != nil {
		if m[1] == "Socket" {
			return // the socket transport always says "Disabled"
		}
		hca := m[4]
		if hca == "" {
			hca = "HCA " + m[3]
		}
		p.GDR = append(p.GDR, GDRState{HCA: hca, Enabled: strings.EqualFold(m[2], "enabled"), Line: n, Text: msg})
	}
}

// parseChannel reads "Channel 00/08 : …", "Trees [0] …" and the
// connection lines "… via NET/IB/0/GDRDMA".
func parseChannel(p *Proc, msg string) {
	if m := reChannel.FindStringSubmatch(msg); m != nil {
		if c, err := strconv.Atoi(m[2]); err == nil && c > p.Channels {
			p.Channels = c
		}
	}
	if strings.HasPrefix(msg, "Trees ") {
		p.Trees = true
	}
	if m := reVia.FindStringSubmatch(msg); m != nil {
		if p.Via == nil {
			p.Via = map[string]int{}
		}
		p.Via["NET/"+m[1]+m[2]]++
	}
}

func parseWarn(lg *Log, p *Proc, source string, n int, msg string) {
	if msg == "" {
		return // a bare "NCCL WARN" says nothing
	}
	if strings.HasPrefix(msg, "Failed to open libibverbs") {
		p.NoVerbs = n // logged as WARN by misc/ibvwrap.cc in some releases
		return
	}
	base := Event{Source: source, Line: n, Host: p.Host, Pid: p.Pid, Text: msg, Rank: -1}
	if m := reCompl.FindStringSubmatch(msg); m != nil {
		ev := base
		ev.Kind = EventCompletion
		ev.Peer = m[1]
		st, _ := strconv.Atoi(m[2])
		ev.Status = WCStatus(st)
		if mm := reOpcode.FindStringSubmatch(msg); mm != nil {
			ev.Opcode, _ = strconv.Atoi(mm[1])
		}
		if mm := reVendor.FindStringSubmatch(msg); mm != nil {
			ev.VendorErr, _ = strconv.Atoi(mm[1])
		}
		if mm := reReq.FindStringSubmatch(msg); mm != nil {
			ev.Req = mm[1]
		}
		if mm := reHCA.FindStringSubmatch(msg); mm != nil {
			ev.HCA = mm[1]
		}
		lg.Events = append(lg.Events, ev)
		return
	}
	if m := reCall.FindStringSubmatch(msg); m != nil {
		ev := base
		ev.Kind, ev.Call, ev.Error = EventResource, m[1], m[2]
		lg.Events = append(lg.Events, ev)
		return
	}
	ev := base
	ev.Kind = EventWarn
	if reTimeout.MatchString(msg) {
		ev.Kind = EventTimeout
	}
	lg.Events = append(lg.Events, ev)
}

// Merge joins the logs of one job (one file per rank or per node) so
// that rules see every process: a socket fallback on one node next to IB
// on the others, the same peer failing from several ranks. Processes and
// events keep their own Source; the merged Source lists the files.
func Merge(logs ...*Log) *Log {
	if len(logs) == 1 {
		return logs[0]
	}
	m := &Log{}
	var names []string
	for _, lg := range logs {
		names = append(names, lg.Source)
		if m.Version == "" {
			m.Version = lg.Version
		}
		m.Procs = append(m.Procs, lg.Procs...)
		m.Events = append(m.Events, lg.Events...)
		m.NCCLLines += lg.NCCLLines
	}
	m.Source = strings.Join(names, ", ")
	return m
}

// EffectiveNetwork is the inter-node transport a process used: the
// "Using network" line when present, else what its connections went over
// ("via NET/…"), else "IB" when it listed IB devices, else "Socket" when it
// found no IB device but listed sockets; "" when the log does not say.
func (p *Proc) EffectiveNetwork() (network string, line int) {
	if p.Network != "" {
		return p.Network, p.NetworkLine
	}
	ib := p.Via["NET/IB"] + p.Via["NET/IB/GDRDMA"]
	if ib > 0 {
		return "IB", 0
	}
	if p.Via["NET/Socket"] > 0 {
		return "Socket", 0
	}
	if len(p.IBDevices) > 0 {
		return "IB", p.IBLine
	}
	if (p.IBNoDevice > 0 || p.NoVerbs > 0 || p.IBDisable == 1) && len(p.SocketIfs) > 0 {
		return "Socket", p.SocketLine
	}
	if p.NoVerbs > 0 {
		// Without libibverbs neither the IB transport nor a verbs-based
		// net plugin can load: a log at NCCL_DEBUG=WARN says no more,
		// but NCCL runs over sockets.
		return "Socket", p.NoVerbs
	}
	return "", 0
}

// Name is "host:pid" (or "pid N" without a host) for reports.
func (p *Proc) Name() string {
	if p.Host == "" {
		if p.Pid == 0 {
			return "(no host prefix)"
		}
		return fmt.Sprintf("pid %d", p.Pid)
	}
	return fmt.Sprintf("%s:%d", p.Host, p.Pid)
}

// Detect says whether text looks like an NCCL debug log or a PyTorch
// NCCL watchdog report.
func Detect(text string) bool {
	if strings.Contains(text, "NCCL INFO") || strings.Contains(text, "NCCL WARN") ||
		strings.Contains(text, "Watchdog caught collective operation timeout") {
		return true
	}
	// A completion error of the IB transport or a net plugin, quoted
	// without the NCCL line prefix.
	for line := range strings.Lines(text) {
		if _, ok := quotedCompletion(line); ok {
			return true
		}
	}
	// NCCL 2.0-2.3 WARN lines name the source file of the warning; its
	// INFO lines alone are too plain to tell from other programs'.
	for line := range strings.Lines(text) {
		if m := legacyLine(strings.TrimSpace(line)); m != nil && m[2] == "WARN" {
			return true
		}
	}
	return false
}
