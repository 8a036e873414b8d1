package pairwise

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
)

// Tools perftestCommand.Tool accepts.
const (
	toolWriteBW  = "ib_write_bw"
	toolWriteLat = "ib_write_lat"
	toolReadBW   = "ib_read_bw"
	toolReadLat  = "ib_read_lat"
	toolSendBW   = "ib_send_bw"
	toolSendLat  = "ib_send_lat"
)

// Bounds of perftestCommand.
const (
	perftestMaxSize       = 1 << 30 // perftest's own -s limit is 2^31; 1 GiB is plenty
	perftestMaxDurationS  = 3600
	perftestMaxIterations = 100_000_000
	perftestMaxQPs        = 256
)

// perftestCommand describes one perftest run. Zero values mean "perftest's
// default" and add no flag.
type perftestCommand struct {
	// Tool is one of ib_{write,read,send}_{bw,lat}.
	Tool string
	// Device is the RDMA device (-d), e.g. "mlx5_0".
	Device string
	// Port is the HCA port (-i), 1 or 2; 0 = default.
	Port int
	// GIDIndex is the GID table index (-x), 0–255; nil = default.
	GIDIndex *int
	// Size is the message size in bytes (-s), 1 B to 1 GiB; 0 = default.
	Size int64
	// DurationS runs for this many seconds (-D), 1–3600; 0 = iterations.
	DurationS int
	// Iterations (-n), 5 to 10^8; 0 = default. Exclusive with DurationS.
	Iterations int
	// QPs is the number of queue pairs (-q), 1–256, bandwidth tests only.
	QPs int
	// TCPPort is perftest's out-of-band port (-p), 1024–65535; 0 = 18515.
	TCPPort int
	// Server is the server's IP address or host name; "" runs the server
	// side.
	Server string
}

var (
	reDevice   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	reHostname = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)
)

// argv validates o and returns the argument vector (tool first) to
// run with exec.CommandContext, never through a shell. Bandwidth tools get
// --report_gbits so that results are in Gb/s; every tool gets -F so that a
// CPU-frequency warning does not abort the run.
func (o perftestCommand) argv() ([]string, error) {
	bw := false
	switch o.Tool {
	case toolWriteBW, toolReadBW, toolSendBW:
		bw = true
	case toolWriteLat, toolReadLat, toolSendLat:
	default:
		return nil, fmt.Errorf("perftest tool %q is not one of ib_{write,read,send}_{bw,lat}", o.Tool)
	}
	if !reDevice.MatchString(o.Device) {
		return nil, fmt.Errorf("device %q is not an RDMA device name (letters, digits, '_', '.', '-'; e.g. mlx5_0)", o.Device)
	}
	argv := []string{o.Tool, "-d", o.Device}
	if o.Port != 0 {
		if o.Port < 1 || o.Port > 2 {
			return nil, fmt.Errorf("port %d out of range 1-2", o.Port)
		}
		argv = append(argv, "-i", strconv.Itoa(o.Port))
	}
	if o.GIDIndex != nil {
		if *o.GIDIndex < 0 || *o.GIDIndex > 255 {
			return nil, fmt.Errorf("GID index %d out of range 0-255", *o.GIDIndex)
		}
		argv = append(argv, "-x", strconv.Itoa(*o.GIDIndex))
	}
	if o.Size != 0 {
		if o.Size < 1 || o.Size > perftestMaxSize {
			return nil, fmt.Errorf("message size %d out of range 1-%d bytes", o.Size, perftestMaxSize)
		}
		argv = append(argv, "-s", strconv.FormatInt(o.Size, 10))
	}
	if o.DurationS != 0 && o.Iterations != 0 {
		return nil, fmt.Errorf("give a duration or an iteration count, not both")
	}
	if o.DurationS != 0 {
		if o.DurationS < 1 || o.DurationS > perftestMaxDurationS {
			return nil, fmt.Errorf("duration %d s out of range 1-%d", o.DurationS, perftestMaxDurationS)
		}
		argv = append(argv, "-D", strconv.Itoa(o.DurationS))
	}
	if o.Iterations != 0 {
		if o.Iterations < 5 || o.Iterations > perftestMaxIterations {
			return nil, fmt.Errorf("iterations %d out of range 5-%d", o.Iterations, perftestMaxIterations)
		}
		argv = append(argv, "-n", strconv.Itoa(o.Iterations))
	}
	if o.QPs != 0 {
		if !bw {
			return nil, fmt.Errorf("%s runs one QP; -q applies to bandwidth tests", o.Tool)
		}
		if o.QPs < 1 || o.QPs > perftestMaxQPs {
			return nil, fmt.Errorf("QPs %d out of range 1-%d", o.QPs, perftestMaxQPs)
		}
		argv = append(argv, "-q", strconv.Itoa(o.QPs))
	}
	if o.TCPPort != 0 {
		if o.TCPPort < 1024 || o.TCPPort > 65535 {
			return nil, fmt.Errorf("TCP port %d out of range 1024-65535", o.TCPPort)
		}
		argv = append(argv, "-p", strconv.Itoa(o.TCPPort))
	}
	if bw {
		argv = append(argv, "--report_gbits")
	}
	argv = append(argv, "-F")
	if o.Server != "" {
		if net.ParseIP(o.Server) == nil && (len(o.Server) > 253 || !reHostname.MatchString(o.Server)) {
			return nil, fmt.Errorf("server %q is neither an IP address nor a host name", o.Server)
		}
		argv = append(argv, o.Server)
	}
	return argv, nil
}
