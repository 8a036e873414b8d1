package pairwise

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/perftest"
)

// PerftestParams are the RDMA settings of the perftest backend. They come
// from the network (the runner's request), so every one is validated before
// it becomes an argument; the programs run without a shell.
type PerftestParams struct {
	// Device is the RDMA device (-d), e.g. mlx5_0.
	Device string `json:"device"`
	// IBPort is the port of the device (-i), 1 or 2; 1 when 0.
	IBPort int `json:"ib_port,omitempty"`
	// GIDIndex is the GID table index (-x), needed on RoCE (RoCE v2 is
	// often 3); nil leaves perftest's default.
	GIDIndex *int `json:"gid_index,omitempty"`
}

// perftestArgs builds the argv of one side of a perftest test through
// perftestCommand.argv (which validates every value): the server side when
// peer is "", else the client side connecting to peer. tcpPort is the
// out-of-band port (-p) both sides agree on.
//
//	ib_write_bw  -d mlx5_0 -i 1 [-x 3] -s 65536 -D 5 -q 1 -p 18515 --report_gbits -F [peer]
//	ib_write_lat -d mlx5_0 -i 1 [-x 3] -s 2 -n 1000 -p 18515 -F [peer]
func perftestArgs(t Test, tcpPort int, peer string) ([]string, error) {
	p := t.Perftest
	if p == nil {
		return nil, errors.New("perftest backend needs perftest settings (device)")
	}
	if peer != "" && (strings.HasPrefix(peer, "-") || validHost(peer) != nil) {
		return nil, fmt.Errorf("perftest peer %q: want an IP address or host name", peer)
	}
	o := perftestCommand{
		Device: p.Device, Port: p.IBPort, GIDIndex: p.GIDIndex, Size: int64(t.Size),
		TCPPort: tcpPort, Server: peer,
	}
	if o.Port == 0 {
		o.Port = 1
	}
	if t.Kind == KindBW {
		o.Tool, o.QPs = toolWriteBW, t.Streams
		o.DurationS = int((t.DurationMS + 999) / 1000)
	} else {
		o.Tool, o.Iterations = toolWriteLat, t.Iterations
		if o.Iterations == 0 {
			o.Iterations = 1000
		}
	}
	argv, err := o.argv()
	if err != nil {
		return nil, fmt.Errorf("perftest: %w", err)
	}
	return argv, nil
}

// perftestWaiting is what a perftest server prints once it listens
// (perftest_communication.c).
const perftestWaiting = "Waiting for client to connect"

// parsePerftest reads the result of ib_write_bw or ib_write_lat with
// perftest.ParseAll: the last row of the last test that has one.
// Bandwidth is average Gb/s; latency is t_typical (t_avg when that is all
// there is) and the 99th percentile.
func parsePerftest(r io.Reader, source string) (Result, error) {
	rs, err := perftest.ParseAll(r, source)
	if err != nil {
		return Result{}, err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		t := rs[i]
		if n := len(t.BW); n > 0 {
			row := t.BW[n-1]
			res := Result{BitsPerSecond: row.AvgGbps * 1e9, Samples: int(row.Iterations)}
			if float64(row.Bytes)*float64(row.Iterations) < 1<<62 {
				res.Bytes = row.Bytes * row.Iterations
			}
			return res, nil
		}
		if n := len(t.Lat); n > 0 {
			row := t.Lat[n-1]
			med, ok := row.Median()
			if !ok {
				continue
			}
			res := Result{LatencyMedianUS: med, Samples: int(row.Iterations)}
			if row.P99 != nil {
				res.LatencyP99US = *row.P99
			}
			return res, nil
		}
	}
	last := rs[len(rs)-1]
	if len(last.Startup) > 0 {
		st := last.Startup[0]
		return Result{}, &ParseError{Source: source, Line: st.Line, Input: last.Test,
			Err: fmt.Errorf("%w: the test could not start: %s", ErrMalformed, st.Text)}
	}
	return Result{}, &ParseError{Source: source, Line: last.Line, Input: last.Test,
		Err: fmt.Errorf("%w: no result row (the test did not complete)", ErrMalformed)}
}
