package pairwise

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// PerftestParams are the RDMA settings of the perftest backend. They come
// from the network (the runner's request), so every one is validated before
// it becomes an argument; the programs run without a shell.
type PerftestParams struct {
	// Device is the RDMA device (-d), e.g. mlx5_0.
	Device string `json:"device"`
	// IBPort is the port of the device (-i), 1 when 0.
	IBPort int `json:"ib_port,omitempty"`
	// GIDIndex is the GID table index (-x), needed on RoCE (RoCE v2 is
	// often 3); nil leaves perftest's default.
	GIDIndex *int `json:"gid_index,omitempty"`
}

// deviceRE matches kernel RDMA device names (mlx5_0, rocep1s0f1,
// bnxt_re0, ibp5): letters, digits, '_', '.', '-', not starting with '-'.
var deviceRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

const (
	maxPerftestSize = 1 << 30
	perftestBW      = "ib_write_bw"
	perftestLat     = "ib_write_lat"
)

// perftestArgs builds the program name and argv of one side of a perftest
// test: the server side when peer is "", else the client side connecting
// to peer. tcpPort is the out-of-band port (-p) both sides agree on.
//
//	ib_write_bw  -d mlx5_0 -i 1 [-x 3] -s 65536 -q 1 -D 5 -F --report_gbits -p 18515 [peer]
//	ib_write_lat -d mlx5_0 -i 1 [-x 3] -s 2 -n 1000 -F -p 18515 [peer]
func perftestArgs(t Test, tcpPort int, peer string) ([]string, error) {
	p := t.Perftest
	if p == nil {
		return nil, errors.New("perftest backend needs perftest settings (device)")
	}
	if !deviceRE.MatchString(p.Device) {
		return nil, fmt.Errorf("perftest device %q: want a kernel RDMA device name such as mlx5_0", p.Device)
	}
	port := p.IBPort
	if port == 0 {
		port = 1
	}
	if port < 1 || port > 255 {
		return nil, fmt.Errorf("perftest ib_port %d out of range [1, 255]", port)
	}
	if tcpPort < 1 || tcpPort > 65535 {
		return nil, fmt.Errorf("perftest tcp port %d out of range [1, 65535]", tcpPort)
	}
	if t.Size < 2 || t.Size > maxPerftestSize {
		return nil, fmt.Errorf("perftest size %d out of range [2, %d]", t.Size, maxPerftestSize)
	}
	args := []string{"-d", p.Device, "-i", strconv.Itoa(port)}
	if p.GIDIndex != nil {
		if *p.GIDIndex < 0 || *p.GIDIndex > 255 {
			return nil, fmt.Errorf("perftest gid_index %d out of range [0, 255]", *p.GIDIndex)
		}
		args = append(args, "-x", strconv.Itoa(*p.GIDIndex))
	}
	args = append(args, "-s", strconv.Itoa(t.Size))
	name := perftestBW
	if t.Kind == KindBW {
		secs := (t.DurationMS + 999) / 1000
		args = append(args, "-q", strconv.Itoa(t.Streams), "-D", strconv.FormatInt(secs, 10), "-F", "--report_gbits")
	} else {
		name = perftestLat
		iters := t.Iterations
		if iters == 0 {
			iters = 1000
		}
		if iters < 5 || iters > maxIters {
			return nil, fmt.Errorf("perftest iterations %d out of range [5, %d]", iters, maxIters)
		}
		args = append(args, "-n", strconv.Itoa(iters), "-F")
	}
	args = append(args, "-p", strconv.Itoa(tcpPort))
	if peer != "" {
		if strings.HasPrefix(peer, "-") || validHost(peer) != nil {
			return nil, fmt.Errorf("perftest peer %q: want an IP address or host name", peer)
		}
		args = append(args, peer)
	}
	return append([]string{name}, args...), nil
}

// perftestWaiting is what a perftest server prints once it listens
// (perftest_communication.c).
const perftestWaiting = "Waiting for client to connect"

// parsePerftest reads the result of ib_write_bw (--report_gbits or MB/sec)
// or ib_write_lat from its output: the last row under the `#bytes` header.
// It is a minimal reader for the pairwise backend; `ibdoctor perf analyze`
// has the full one.
func parsePerftest(r io.Reader, source string) (Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var (
		header   []string
		headLine int
		row      []string
		rowLine  int
		last     string
		n        int
	)
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line != "" {
			last = line
		}
		if strings.HasPrefix(line, "#bytes") {
			header, headLine, row = strings.Fields(line), n, nil
			continue
		}
		if header == nil {
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 4 && isUint(f[0]) && isUint(f[1]) {
			row, rowLine = f, n
		}
	}
	if err := sc.Err(); err != nil {
		return Result{}, fmt.Errorf("%s: %w", source, err)
	}
	if header == nil || row == nil {
		return Result{}, &ParseError{Source: source, Line: n, Input: last, Err: fmt.Errorf("%w: no result row (the test did not complete)", ErrMalformed)}
	}
	bad := func(err error) error {
		return &ParseError{Source: source, Line: rowLine, Input: strings.Join(row, " "), Err: err}
	}
	col := func(name string) int {
		for i, h := range header {
			if strings.HasPrefix(h, name) {
				return i
			}
		}
		return -1
	}
	num := func(i int) (float64, error) {
		if i < 0 || i >= len(row) {
			return 0, fmt.Errorf("%w: %d columns, header on line %d names more", ErrMalformed, len(row), headLine)
		}
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("%w: column %d %q is not a number", ErrMalformed, i+1, row[i])
		}
		return v, nil
	}
	iters, err := strconv.Atoi(row[1])
	if err != nil {
		return Result{}, bad(fmt.Errorf("%w: iterations %q out of range", ErrMalformed, row[1]))
	}
	switch {
	case col("t_typical") >= 0 || col("t_avg") >= 0:
		i := col("t_typical")
		if i < 0 {
			i = col("t_avg")
		}
		typ, err := num(i)
		if err != nil {
			return Result{}, bad(err)
		}
		res := Result{LatencyMedianUS: typ, Samples: iters}
		// "99% percentile[usec]" is two header words; the words before it
		// map one to one onto columns.
		if j := col("99%"); j >= 0 {
			if p99, err := num(j); err == nil {
				res.LatencyP99US = p99
			}
		}
		return res, nil
	default:
		// #bytes #iterations BW peak[unit] BW average[unit] MsgRate[Mpps]:
		// the header words "BW", "peak[...]", "BW", "average[...]" are two
		// per column, so BW average is data column 4.
		scale := 0.0
		for _, h := range header {
			switch {
			case strings.HasPrefix(h, "average[Gb/sec]"):
				scale = 1e9 // --report_gbits: decimal gigabits
			case strings.HasPrefix(h, "average[MB/sec]"):
				scale = 8 * (1 << 20) // perftest's MB is 2^20 bytes
			}
		}
		if scale == 0 {
			return Result{}, &ParseError{Source: source, Line: headLine, Input: strings.Join(header, " "), Err: fmt.Errorf("%w: unknown result header", ErrMalformed)}
		}
		avg, err := num(3)
		if err != nil {
			return Result{}, bad(err)
		}
		res := Result{BitsPerSecond: avg * scale, Samples: iters}
		if size, _ := strconv.ParseFloat(row[0], 64); size*float64(iters) < 1<<62 {
			res.Bytes = int64(size * float64(iters))
		}
		return res, nil
	}
}

func isUint(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}
