// Package ucxinfo reads what UCX's ucx_info prints about the transports it
// found (openucx/ucx src/tools/info/tl_info.c and ucp_context_print_info in
// src/ucp/core/ucp_context.c):
//
//   - ucx_info -d: "# Memory domain: mlx5_0", "#     Component: ib", then
//     per transport "#      Transport: rc_verbs", "#         Device:
//     mlx5_0:1" and its capability lines ("#            bandwidth: …",
//     "#       error handling: peer failure, ep_check, keepalive" — a
//     capability, not an error), and the "< failed to open interface >"
//     style lines it prints when a transport or memory domain cannot be
//     opened;
//   - ucx_info -p (with -e, -u): the "# UCP context" block, its
//     "#     component 0  :  posix", "#            md 3  :  component 3
//     tcp" and "#      resource 3  :  md 3  dev 1  flags -- tcp/ib0"
//     lines (transport/device), and the "# UCP endpoint" lanes;
//   - ucx_info -v: "# Library version: 1.10.1" (or older "# UCT
//     version=1.4.0 revision …").
package ucxinfo

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoListing says the text holds no ucx_info line.
var ErrNoListing = errors.New("no ucx_info memory domain, transport, UCP context or version line")

// MD is a memory domain: "# Memory domain: mlx5_0" (-d) or "# md 0 :
// component 0 posix" (-p).
type MD struct {
	Name, Component string
	Line            int
}

// Transport is a transport on a device: "Transport:" and "Device:" of -d,
// or a "resource N : … flags -- tl/dev" line of -p.
type Transport struct {
	Name, Device string
	Line         int
	// Failed is ucx_info's "< failed to open interface >" (or query)
	// printed under it, "" when it opened; FailedLine is its line.
	Failed     string
	FailedLine int
}

// Message is one of ucx_info's "< failed … >" lines.
type Message struct {
	Text string
	Line int
}

// Listing is what one paste of ucx_info shows.
type Listing struct {
	MDs        []MD
	Transports []Transport
	// Failures are the "< failed … >" lines, each once.
	Failures []Message
	// Context says the "# UCP context" block was read (-p): its
	// resource lines list every transport UCP may use.
	Context bool
	Version string
	// Lines counts the ucx_info lines read.
	Lines int
}

var (
	reResource  = regexp.MustCompile(`^resource\s+\d+\s*:\s*md\s+\d+\s+dev\s+\d+\s+flags\s+\S+\s+([A-Za-z0-9_]+)/(\S+)$`)
	reContextMD = regexp.MustCompile(`^md\s+\d+\s*:\s*component\s+\d+\s+(\S+)$`)
	reComponent = regexp.MustCompile(`^component\s+\d+\s*:\s*(\S+)$`)
	reOldVer    = regexp.MustCompile(`^UCT version=(\S+)`)
)

// capKeys are the keys of ucx_info -d's memory domain, transport and
// capability lines (tl_info.c), for telling its lines in a paste.
var capKeys = map[string]bool{
	"Component": true, "Transport": true, "Device": true, "Type": true, "System device": true,
	"capabilities": true, "bandwidth": true, "latency": true, "overhead": true,
	"put_short": true, "put_bcopy": true, "put_zcopy": true, "put_opt_zcopy_align": true, "put_align_mtu": true,
	"get_bcopy": true, "get_zcopy": true, "get_opt_zcopy_align": true, "get_align_mtu": true,
	"am_short": true, "am_bcopy": true, "am_zcopy": true, "am_opt_zcopy_align": true, "am_align_mtu": true,
	"am header": true, "rndv private header": true, "tag_max_outstanding": true, "domain": true,
	"atomic_add": true, "atomic_fadd": true, "atomic_cswap": true, "atomic_swap": true, "atomic_and": true,
	"atomic_fand": true, "atomic_or": true, "atomic_for": true, "atomic_xor": true, "atomic_fxor": true,
	"connection": true, "device priority": true, "device num paths": true, "max eps": true,
	"device address": true, "iface address": true, "ep address": true, "error handling": true,
	"allocate": true, "register": true, "remote key": true, "memory types": true, "alignment": true,
	"max_conn_priv": true, "Memory domain": true, "Connection manager": true,
	"Library version": true, "Library path": true, "API headers version": true,
}

// body returns a "#"-commented line's text without the "#" and blanks, and
// whether l is one.
func body(l string) (string, bool) {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "#") {
		return "", false
	}
	return strings.TrimSpace(t[1:]), true
}

// Header says whether t (a line, blanks trimmed) starts a ucx_info output:
// a memory domain, connection manager or transport heading of -d, the UCP
// context heading of -p, the version line of -v.
func Header(t string) bool {
	b, ok := body(t)
	if !ok || b == "" {
		return false
	}
	switch {
	case strings.HasPrefix(b, "Memory domain: "), strings.HasPrefix(b, "Connection manager: "),
		strings.HasPrefix(b, "Transport: "), strings.HasPrefix(b, "Library version: "):
		return len(strings.Fields(b)) <= 4
	case b == "UCP context":
		return true
	case reOldVer.MatchString(b):
		return true
	}
	return false
}

// Line says whether l is a line only ucx_info prints: a capability or
// heading line of -d ("#       error handling: peer failure", "#
// bandwidth: 23588.47/ppn + 0.00 MB/sec"), a UCP context line of -p, or
// a "< failed … >" line.
func Line(l string) bool {
	b, ok := body(l)
	if !ok || len(b) < 4 {
		return false
	}
	if strings.HasPrefix(b, "< failed ") && strings.HasSuffix(b, ">") {
		return true
	}
	if reResource.MatchString(b) || reContextMD.MatchString(b) || reComponent.MatchString(b) {
		return true
	}
	k, v, ok := strings.Cut(b, ":")
	if !ok || !capKeys[k] {
		return false
	}
	v = strings.TrimSpace(v)
	switch k {
	case "bandwidth":
		return strings.Contains(v, "/ppn") && strings.HasSuffix(v, "MB/sec")
	case "latency", "overhead":
		return strings.HasSuffix(v, "nsec")
	case "device address", "iface address", "ep address", "remote key", "max_conn_priv":
		return strings.HasSuffix(v, " bytes")
	case "capabilities":
		return v == ""
	case "Type", "domain", "Component", "Transport", "Device":
		// Short words, common in other tools' output: only with the
		// indentation ucx_info gives them.
		return v != "" && !strings.Contains(v, " ") && strings.HasPrefix(strings.TrimSpace(l)[1:], "    ")
	}
	return v != ""
}

// Parse reads a ucx_info output; lines it does not know are skipped.
func Parse(r io.Reader, source string) (*Listing, error) {
	out := &Listing{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	var md *MD
	seenFail := map[string]bool{}
	for sc.Scan() {
		n++
		l := sc.Text()
		b, ok := body(l)
		if !ok || b == "" {
			continue
		}
		if strings.HasPrefix(b, "< failed ") || strings.HasPrefix(b, "(No supported") || strings.HasPrefix(b, "< no supported") {
			out.Lines++
			if !strings.HasPrefix(b, "< failed ") {
				continue // a transport with no device here (cuda_ipc without GPUs): not a failure
			}
			if len(out.Transports) > 0 && (b == "< failed to open interface >" || b == "< failed to query interface >") {
				if t := &out.Transports[len(out.Transports)-1]; t.Failed == "" {
					t.Failed, t.FailedLine = b, n
				}
			}
			if !seenFail[b] {
				seenFail[b] = true
				out.Failures = append(out.Failures, Message{Text: b, Line: n})
			}
			continue
		}
		if m := reResource.FindStringSubmatch(b); m != nil {
			out.Lines++
			out.Transports = append(out.Transports, Transport{Name: m[1], Device: m[2], Line: n})
			continue
		}
		if m := reContextMD.FindStringSubmatch(b); m != nil {
			out.Lines++
			out.MDs = append(out.MDs, MD{Name: m[1], Line: n})
			continue
		}
		if reComponent.MatchString(b) {
			out.Lines++
			continue
		}
		if b == "UCP context" {
			out.Lines++
			out.Context = true
			continue
		}
		if m := reOldVer.FindStringSubmatch(b); m != nil {
			out.Lines++
			out.Version = m[1]
			continue
		}
		k, v, ok := strings.Cut(b, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Memory domain":
			out.Lines++
			out.MDs = append(out.MDs, MD{Name: v, Line: n})
			md = &out.MDs[len(out.MDs)-1]
		case "Component":
			out.Lines++
			if md != nil && md.Component == "" {
				md.Component = v
			}
		case "Transport":
			out.Lines++
			out.Transports = append(out.Transports, Transport{Name: v, Line: n})
		case "Device":
			out.Lines++
			if len(out.Transports) > 0 {
				if t := &out.Transports[len(out.Transports)-1]; t.Device == "" {
					t.Device = v
				}
			}
		case "Library version":
			out.Lines++
			out.Version = v
		default:
			if Line(l) {
				out.Lines++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if out.Lines == 0 {
		return nil, &ParseError{Source: source, Line: 1, Err: ErrNoListing}
	}
	return out, nil
}

// RDMA says whether a UCX transport or memory-domain component name drives
// an RDMA device: the ib component's rc, ud and dc transports (rc_verbs,
// rc_mlx5, ud_verbs, ud_mlx5, dc_mlx5, gga), rdmacm, and the older "rc",
// "ud", "dc", "cm" names; uGNI (Cray) transports count too.
func RDMA(name string) bool {
	name = strings.ToLower(name)
	switch {
	case name == "ib", name == "rdmacm", name == "rc", name == "ud", name == "dc", name == "cm", name == "gga", name == "srd":
		return true
	case strings.HasPrefix(name, "rc_"), strings.HasPrefix(name, "ud_"), strings.HasPrefix(name, "dc_"),
		strings.HasPrefix(name, "gga_"), strings.HasPrefix(name, "ugni"), strings.HasPrefix(name, "mlx5"):
		return true
	}
	return false
}
