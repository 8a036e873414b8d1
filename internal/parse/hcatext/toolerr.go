package hcatext

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ToolErrKind classifies the error an RDMA tool prints when it cannot run
// at all.
type ToolErrKind string

// Tool error kinds.
const (
	// ToolErrVerbsList: "Failed to get IB devices list: Function not
	// implemented", the perror() of ibv_devinfo, ibv_devices and
	// ibv_asyncwatch (rdma-core libibverbs/examples/devinfo.c main,
	// device_list.c main) and of perftest when ibv_get_device_list
	// returns NULL. Errno is the strerror text after the colon, "" when
	// the tool printed none (perftest's dm_memory.c).
	ToolErrVerbsList ToolErrKind = "verbs_list_failed"
	// ToolErrUmad: the user-MAD interface is not there or cannot be
	// opened: libibumad's "ibwarn: [pid] get_abi_version: can't read ABI
	// version from /sys/class/infiniband_mad/abi_version (No such file or
	// directory): is ib_umad module loaded?" (libibumad/umad.c
	// get_abi_version; older libibumad printed it from umad_init),
	// ibstat's "ibpanic: [pid] main: can't init UMAD library: …"
	// (infiniband-diags/ibstat.c main, older releases), libibmad's
	// "can't open UMAD port (mlx5_0:1)" (libibmad/rpc.c
	// mad_rpc_open_port) and infiniband-diags' "<tool>: iberror: failed:
	// Failed to open '(null)' port '0'" (ibdiag_common.c ibexit; '(null)'
	// is no -C given, port '0' is the first active port). Errno says why
	// when the line holds it ("Permission denied").
	ToolErrUmad ToolErrKind = "umad_unavailable"
	// ToolErrCAStat: ibstat's "stat of IB device 'mlx5_8' failed" (an
	// ibwarn since rdma-core pull 1501, an ibpanic with ": <strerror>"
	// before it; infiniband-diags/ibstat.c main): libibumad's
	// umad_get_ca could not read the attributes of a device that
	// /sys/class/infiniband lists (libibumad/umad.c get_ca, get_port).
	ToolErrCAStat ToolErrKind = "ca_stat_failed"
	// ToolErrCANotFound: ibstat's "ibpanic: [pid] main: 'mlx5_9' IB
	// device can't be found: …" (infiniband-diags/ibstat.c main): the
	// device named on its command line is not in /sys/class/infiniband.
	ToolErrCANotFound ToolErrKind = "ca_not_found"
	// ToolErrNoVerbsDevice: perftest's " Did not detect devices " (then
	// " If device exists, check if driver is up" and " Unable to find the
	// Infiniband/RoCE device"): ibv_get_device_list returned no device
	// (perftest src/perftest_resources.c ctx_find_dev), what ibv_devinfo
	// says as "No IB devices found".
	ToolErrNoVerbsDevice ToolErrKind = "no_verbs_device"
	// ToolErrOpenDevice: ibv_devinfo's "Failed to open device"
	// (libibverbs/examples/devinfo.c print_hca_cap): libibverbs lists
	// the device but ibv_open_device failed, which opens its
	// /dev/infiniband/uverbsN (libibverbs/device.c verbs_open_device,
	// util/open_cdev.c). The words are common: analyze reads them only
	// under an ibv_devinfo command line.
	ToolErrOpenDevice ToolErrKind = "open_device_failed"
	// ToolErrDPDKNoVerbs: DPDK's mlx4/mlx5 poll-mode driver found no
	// Verbs device for the NIC it was to probe, so the port cannot be used
	// (DPDK drivers/common/mlx5/linux/mlx5_common_os.c "No Verbs device
	// matches PCI device %s, are kernel drivers loaded?", drivers/net/mlx4
	// and older net/mlx5 "cannot list devices, is ib_uverbs loaded?" and
	// "cannot access device, is mlx4_ib loaded?"). Device is the PCI
	// address when the line names it.
	ToolErrDPDKNoVerbs ToolErrKind = "dpdk_no_verbs_device"
)

// dpdkNoVerbs reads the DPDK mlx PMD lines of ToolErrDPDKNoVerbs, with
// the driver's log prefix ("mlx5_common: ", "net_mlx5: ", "net_mlx4: ",
// older "PMD: net_mlx4: ").
func dpdkNoVerbs(t string) (ToolErr, bool) {
	t = strings.TrimPrefix(t, "PMD: ")
	drv, msg, ok := strings.Cut(t, ": ")
	switch drv {
	case "mlx5_common", "common_mlx5", "net_mlx5", "mlx5_net", "net_mlx4", "mlx4_net":
	default:
		return ToolErr{}, false
	}
	if !ok {
		return ToolErr{}, false
	}
	switch {
	case strings.HasPrefix(msg, "No Verbs device matches PCI device "):
		dev, _, _ := strings.Cut(strings.TrimPrefix(msg, "No Verbs device matches PCI device "), ",")
		return ToolErr{Kind: ToolErrDPDKNoVerbs, Device: strings.TrimSpace(dev)}, true
	case strings.HasPrefix(msg, "cannot list devices, is ib_uverbs loaded?"),
		strings.HasPrefix(msg, "cannot access device, is mlx4_ib loaded?"),
		strings.HasPrefix(msg, "cannot access device, is mlx5_ib loaded?"):
		return ToolErr{Kind: ToolErrDPDKNoVerbs}, true
	}
	return ToolErr{}, false
}

// ToolErrNHCPortNotActive is LBNL NHC's check_hw_ib failing
// (scripts/lbnl_hw.nhc in github.com/mej/nhc): "ERROR:  nhc:  Health
// check failed:  check_hw_ib:  No IB port hfi1_0:1 is ACTIVE (LinkUp 100
// Gb/sec)." — no port (or not the one named, DEV:PORT) is both in state
// ACTIVE and physical state LinkUp at the rate asked for. Device and
// Port are the named port's; Errno is the "(LinkUp 100 Gb/sec)" part.
const ToolErrNHCPortNotActive ToolErrKind = "nhc_port_not_active"

// nhcFailed is what NHC's die() prints before a failed check's message
// ("ERROR:  nhc:  Health check failed:  " then "FUNCTION:  MESSAGE").
const nhcFailed = "nhc:  Health check failed:  check_hw_ib:  "

// nhcIBLine reads NHC's check_hw_ib failures: the port line above, and
// "No Infiniband device was found." (the message later NHC releases print
// where /sys/class/infiniband holds no port; 1.4.3 said "Version
// mismatch between kernel OFED drivers and userspace OFED libraries."
// instead, which names only a missing ib_umad ABI file and is not read).
func nhcIBLine(t string) (ToolErr, bool) {
	i := strings.Index(t, nhcFailed)
	if i < 0 || !strings.HasPrefix(strings.TrimLeft(t[:i], "`[] 0123456789:-T."), "ERROR:") {
		return ToolErr{}, false
	}
	msg := strings.TrimRight(strings.TrimSpace(t[i+len(nhcFailed):]), "`")
	if strings.HasPrefix(msg, "No Infiniband device was found") {
		return ToolErr{Kind: ToolErrNoVerbsDevice}, true
	}
	rest, ok := strings.CutPrefix(msg, "No IB port")
	if !ok {
		return ToolErr{}, false
	}
	dev, cond, ok := strings.Cut(rest, " is ACTIVE (")
	if !ok || !strings.HasPrefix(cond, "LinkUp") {
		return ToolErr{}, false
	}
	e := ToolErr{Kind: ToolErrNHCPortNotActive, Errno: strings.TrimSuffix(strings.TrimSuffix(cond, "."), ")")}
	if d, port, ok := strings.Cut(strings.TrimSpace(dev), ":"); ok {
		e.Device = d
		e.Port, _ = strconv.Atoi(port)
	} else {
		e.Device = strings.TrimSpace(dev)
	}
	return e, true
}

// ToolErr is one such line: Device and Port where the line names them,
// Errno the strerror text it ends with.
type ToolErr struct {
	Kind   ToolErrKind `json:"kind"`
	Device string      `json:"device,omitempty"`
	Port   int         `json:"port,omitempty"`
	Errno  string      `json:"errno,omitempty"`
	Line   int         `json:"line"`
	Text   string      `json:"text"`
}

// ToolErrorLine reads the line t (already trimmed) when it is, whole, one
// of the errors of ToolErrKind; a log prefix that ends in ": " may stand
// before libibmad's "ibwarn: [" or "ibpanic: [" ("10.0.0.101: nvlsm:
// ibwarn: [15] umad_init: …", a launcher's tag). A sentence that quotes
// one of them is not read.
func ToolErrorLine(t string) (ToolErr, bool) {
	if t == "" {
		return ToolErr{}, false
	}
	if e, ok := nhcIBLine(t); ok {
		return e, true
	}
	if e, ok := dpdkNoVerbs(t); ok {
		return e, true
	}
	if t == "Failed to open device" {
		return ToolErr{Kind: ToolErrOpenDevice}, true
	}
	if t == "Did not detect devices" {
		return ToolErr{Kind: ToolErrNoVerbsDevice}, true
	}
	if t[0] != 'F' && !strings.HasPrefix(t, "ibwarn: [") && !strings.HasPrefix(t, "ibpanic: [") {
		// A tagged libibmad line, or "<tool>: iberror: failed: …"; the
		// tag is words without spaces, each ended by ": " (a host, a
		// program), never a sentence.
		i := strings.Index(t, ": ib")
		if i < 0 || strings.Contains(strings.ReplaceAll(t[:i], ": ", ""), " ") {
			return ToolErr{}, false
		}
		rest := t[i+2:]
		switch {
		case strings.HasPrefix(rest, "ibwarn: [") || strings.HasPrefix(rest, "ibpanic: ["):
			t = rest
		case !strings.HasPrefix(rest, "iberror: ") || strings.Contains(t[:i], " "):
			return ToolErr{}, false
		}
	}
	if rest, ok := strings.CutPrefix(t, "Failed to get IB devices list"); ok {
		if rest == "" {
			return ToolErr{Kind: ToolErrVerbsList}, true
		}
		e, ok := strings.CutPrefix(rest, ":")
		e = strings.TrimSpace(e)
		if !ok || e == "" || len(e) > 60 || strings.ContainsAny(e, ":'\"") {
			return ToolErr{}, false
		}
		return ToolErr{Kind: ToolErrVerbsList, Errno: e}, true
	}
	var msg string
	switch {
	case strings.HasPrefix(t, "ibwarn: [") || strings.HasPrefix(t, "ibpanic: ["):
		// "ibwarn: [pid] func: message", "ibpanic: [pid] func: message: %m"
		// (libibmad/mad.h IBWARN, IBPANIC).
		_, after, ok := strings.Cut(t, "] ")
		if !ok {
			return ToolErr{}, false
		}
		_, msg, ok = strings.Cut(after, ": ")
		if !ok {
			return ToolErr{}, false
		}
	default:
		_, after, ok := strings.Cut(t, ": iberror: ")
		if !ok {
			return ToolErr{}, false
		}
		// "ibnetdiscover: iberror: failed: Failed to open '(null)' port
		// '0'"; with -d, "[pid N] func: failed: …".
		if i := strings.Index(after, "failed: "); i >= 0 {
			msg = after[i+len("failed: "):]
		}
	}
	switch {
	case strings.HasPrefix(msg, "can't read ABI version from ") && strings.HasSuffix(msg, "is ib_umad module loaded?"):
		e := ""
		if i, j := strings.IndexByte(msg, '('), strings.LastIndexByte(msg, ')'); i > 0 && j > i {
			e = msg[i+1 : j]
		}
		return ToolErr{Kind: ToolErrUmad, Errno: e}, true
	case strings.HasPrefix(msg, "can't init UMAD library"):
		return ToolErr{Kind: ToolErrUmad, Errno: afterColon(msg, "can't init UMAD library")}, true
	case strings.HasPrefix(msg, "can't open UMAD port ("):
		// "can't open UMAD port (mlx5_0:1)", "(null):0" when none named.
		rest := strings.TrimPrefix(msg, "can't open UMAD port (")
		j := strings.LastIndexByte(rest, ')')
		if j < 0 {
			return ToolErr{}, false
		}
		in, tail := rest[:j], rest[j+1:]
		dev, port := devPort(in, ":")
		return ToolErr{Kind: ToolErrUmad, Device: dev, Port: port, Errno: afterColon(tail, "")}, true
	case strings.HasPrefix(msg, "Failed to open '"):
		// "Failed to open 'mlx5_0' port '1'" (ibexit of the diags tools).
		in, ok := strings.CutSuffix(strings.TrimPrefix(msg, "Failed to open '"), "'")
		if !ok {
			return ToolErr{}, false
		}
		dev, port := devPort(in, "' port '")
		return ToolErr{Kind: ToolErrUmad, Device: dev, Port: port}, true
	case strings.HasPrefix(msg, "stat of IB device '"):
		dev, tail, ok := strings.Cut(strings.TrimPrefix(msg, "stat of IB device '"), "' failed")
		if !ok || dev == "" || strings.ContainsAny(dev, " /'") {
			return ToolErr{}, false
		}
		return ToolErr{Kind: ToolErrCAStat, Device: dev, Errno: afterColon(tail, "")}, true
	case strings.HasPrefix(msg, "'") && strings.Contains(msg, "' IB device can't be found"):
		dev, tail, _ := strings.Cut(msg[1:], "' IB device can't be found")
		if dev == "" || strings.ContainsAny(dev, " /'") {
			return ToolErr{}, false
		}
		return ToolErr{Kind: ToolErrCANotFound, Device: dev, Errno: afterColon(tail, "")}, true
	}
	return ToolErr{}, false
}

// afterColon returns the strerror text IBPANIC appends (": %m") to s
// after prefix, "" when there is none.
func afterColon(s, prefix string) string {
	e, ok := strings.CutPrefix(strings.TrimPrefix(s, prefix), ":")
	if !ok {
		return ""
	}
	return strings.TrimSpace(e)
}

// devPort splits "mlx5_0:1" (sep ":") or "mlx5_0' port '1" into the
// device and the port; "(null)" is no device.
func devPort(s, sep string) (string, int) {
	d, p, _ := strings.Cut(s, sep)
	if d == "(null)" || strings.ContainsAny(d, " /'") {
		d = ""
	}
	n, _ := strconv.Atoi(p)
	return d, n
}

// ParseToolErrors reads the lines of ToolErrorLine from r, numbering
// them from first (the number of r's first line). It fails with
// ErrNoData when r holds none.
func ParseToolErrors(r io.Reader, source string, first int) ([]ToolErr, error) {
	var out []ToolErr
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := first; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		e, ok := ToolErrorLine(t)
		if !ok {
			continue
		}
		e.Line, e.Text = n, t
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", source, ErrNoData)
	}
	return out, nil
}
