package ibdiags

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// MADErrKind classifies an infiniband-diags message that says a tool
// could not talk to the subnet manager or open the port's MAD agent.
type MADErrKind string

// MAD error kinds.
const (
	// MADNoSA: "ibwarn: [1685604] sa_get_handle: No SM/SA found on port
	// :1" (libibmad's SA handle: the port knows no SM LID), and the
	// "ibpanic: … main: Failed to bind to the SA" saquery exits with.
	MADNoSA MADErrKind = "no_sm_sa"
	// MADNoAgent: "ibwarn: [1685596] mad_rpc_open_port: client_register
	// for mgmt 1 failed": umad would not register the tool's agent for
	// that management class (1 is the SMI class, which an Ethernet port
	// lacks; or no access to /dev/infiniband/umad*).
	MADNoAgent MADErrKind = "agent_register_failed"
	// MADTimeout: libibnetdisc's "src/query_smp.c:199; umad (DR path
	// slid 0; dlid 0; 0,1,20,34 Attr 0x11:0) bad status 110; Connection
	// timed out" (rdma-core libibnetdisc/query_smp.c, printed with the
	// "file:line; " prefix of IBND_ERROR): an SMP sent along that path
	// (or to that LID) got no answer; ibnetdiscover, ibswitches, ibhosts,
	// iblinkinfo and ibqueryerrors print it while they discover.
	MADTimeout MADErrKind = "smp_timeout"
)

// MADError is one such message; Device and Port come from the command
// line printed above it ("CMD: saquery SMIR -C mlx5_0 -P 1 0", as lshca
// reports a failed command), else from the message ("on port :1").
type MADError struct {
	Kind   MADErrKind `json:"kind"`
	Class  int        `json:"class,omitempty"` // MADNoAgent: the management class
	Tool   string     `json:"tool,omitempty"`  // the command's tool (saquery, smpquery …)
	Device string     `json:"device,omitempty"`
	Port   int        `json:"port,omitempty"`
	// MADTimeout: the address the SMP went to ("DR path slid 0; dlid 0;
	// 0,1,20,34" or "Lid 12") and the status (110, ETIMEDOUT).
	Path   string `json:"path,omitempty"`
	Status int    `json:"status,omitempty"`
	Line   int    `json:"line"`
	Text   string `json:"text"`
}

// MADErrorLine says whether l is one of the messages MADError reads:
// the tool's "ibwarn: [pid] …" or "ibpanic: [pid] …", anywhere in the
// line (lshca prints it after "Msg: ").
func MADErrorLine(l string) (MADErrKind, bool) {
	if _, _, ok := smpTimeout(l); ok {
		return MADTimeout, true
	}
	i := strings.Index(l, "ibwarn: [")
	if i < 0 {
		i = strings.Index(l, "ibpanic: [")
	}
	if i < 0 {
		return "", false
	}
	rest := l[i:]
	switch {
	case strings.Contains(rest, "sa_get_handle: No SM/SA found on port"), strings.Contains(rest, "Failed to bind to the SA"):
		return MADNoSA, true
	case strings.Contains(rest, "mad_rpc_open_port: client_register for mgmt ") && strings.HasSuffix(strings.TrimSpace(rest), " failed"):
		return MADNoAgent, true
	}
	return "", false
}

// ParseMADErrors reads the messages of MADErrorLine from r, each with the
// tool, device and port of the nearest command line above it ("-C mlx5_0
// -P 1", "--Ca mlx5_0 --Port 1"). Line numbers count from first (the
// number of r's first line). It fails with ErrNoData when r holds none.
func ParseMADErrors(r io.Reader, source string, first int) ([]MADError, error) {
	var out []MADError
	tool, dev, port := "", "", 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := first; sc.Scan(); n++ {
		l := sc.Text()
		if t, d, p, ok := diagCommand(l); ok {
			tool, dev, port = t, d, p
			continue
		}
		k, ok := MADErrorLine(l)
		if !ok {
			continue
		}
		e := MADError{Kind: k, Tool: tool, Device: dev, Port: port, Line: n, Text: strings.TrimSpace(l)}
		if k == MADTimeout {
			e.Path, e.Status, _ = smpTimeout(l)
		}
		if k == MADNoAgent {
			_, c, _ := strings.Cut(l, "client_register for mgmt ")
			e.Class, _ = strconv.Atoi(strings.Fields(c)[0])
		}
		if _, p, ok := strings.Cut(l, "found on port "); ok && e.Port == 0 {
			// "on port :1" (no device name) or "on port mlx5_0:1".
			d, num, _ := strings.Cut(strings.TrimSpace(p), ":")
			if v, err := strconv.Atoi(num); err == nil {
				e.Port = v
			}
			if e.Device == "" {
				e.Device = d
			}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, noData(source, "infiniband-diags SM/SA or MAD agent error")
	}
	return out, nil
}

// diagCommand reads an infiniband-diags command line: its tool and the
// device and port it names with -C/--Ca and -P/--Port.
func diagCommand(l string) (tool, dev string, port int, ok bool) {
	f := strings.Fields(l)
	for i, w := range f {
		switch strings.TrimPrefix(w, "/usr/sbin/") {
		case "saquery", "smpquery", "sminfo", "perfquery", "ibnetdiscover", "ibroute", "ibqueryerrors", "iblinkinfo", "ibaddr", "smpdump", "ibportstate":
			tool = w
			for j := i + 1; j+1 < len(f); j++ {
				switch f[j] {
				case "-C", "--Ca":
					dev = f[j+1]
				case "-P", "--Port":
					port, _ = strconv.Atoi(f[j+1])
				}
			}
			return tool, dev, port, true
		}
	}
	return "", "", 0, false
}

// smpTimeout reads libibnetdisc's "umad (ADDR Attr 0xA:M) bad status N;
// TEXT": the address (the directed-route path, or the LID) and the
// status, which must be a number.
func smpTimeout(l string) (addr string, status int, ok bool) {
	i := strings.Index(l, "umad (")
	if i < 0 {
		return "", 0, false
	}
	rest := l[i+len("umad ("):]
	a, after, ok := strings.Cut(rest, " Attr ")
	if !ok {
		return "", 0, false
	}
	_, st, ok := strings.Cut(after, ") bad status ")
	if !ok {
		return "", 0, false
	}
	num, _, _ := strings.Cut(st, ";")
	status, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || strings.TrimSpace(a) == "" {
		return "", 0, false
	}
	return strings.TrimSpace(a), status, true
}
