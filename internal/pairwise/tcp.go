package pairwise

import (
	"context"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"
)

// The tcp backend's wire protocol. Every connection starts with the
// session key the agent handed out when it started the server side (so a
// stray connection cannot join a test) and one byte naming the kind:
//
//	bw:  client → key, 'b', data... (half-close)   server → 8-byte count of data bytes received
//	lat: client → key, 'l', then repeatedly Size bytes; server echoes each message
const (
	keyLen   = 16
	kindByte = 1
	// grace is added to a test's duration for every deadline around it:
	// connection set-up, the final count, slow agents.
	grace = 5 * time.Second
)

// tcpServe serves the server side of one tcp test on ln until the
// expected connections are done, ctx ends or the deadline passes. It
// accepts t.Streams connections for bw (one for lat), ignoring up to eight
// connections that do not present key.
func tcpServe(ctx context.Context, ln net.Listener, key []byte, t Test, lim *limiter, acceptBy time.Time) error {
	defer ln.Close()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	want := t.Streams
	if t.Kind == KindLat {
		want = 1
	}
	if tl, ok := ln.(*net.TCPListener); ok {
		if err := tl.SetDeadline(acceptBy); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, want)
	strays := 0
	for accepted := 0; accepted < want; {
		conn, err := ln.Accept()
		if err != nil {
			wg.Wait()
			return fmt.Errorf("waiting for the client: %w", err)
		}
		hdr := make([]byte, keyLen+kindByte)
		_ = conn.SetDeadline(time.Now().Add(grace))
		if _, err := io.ReadFull(conn, hdr); err != nil || subtle.ConstantTimeCompare(hdr[:keyLen], key) != 1 || hdr[keyLen] != t.Kind[0] {
			conn.Close()
			if strays++; strays > 8 {
				wg.Wait()
				return errors.New("too many connections without the session key")
			}
			continue
		}
		accepted++
		_ = conn.SetDeadline(time.Now().Add(t.Duration() + 2*grace))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			stop := context.AfterFunc(ctx, func() { conn.Close() })
			defer stop()
			if t.Kind == KindLat {
				errs <- echo(ctx, conn, t.Size, lim)
			} else {
				errs <- sink(ctx, conn, lim)
			}
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// sink reads and counts data until the client half-closes, then sends the
// count back.
func sink(ctx context.Context, conn net.Conn, lim *limiter) error {
	buf := make([]byte, lim.chunk(256<<10))
	if tc, ok := conn.(*net.TCPConn); ok && lim != nil {
		// A throttled receiver advertises a small window, as a slow
		// link would, so the sender cannot park seconds of data in
		// socket buffers that then drain at the throttled rate.
		_ = tc.SetReadBuffer(2 * len(buf))
	}
	var total int64
	for {
		n, err := conn.Read(buf)
		total += int64(n)
		if werr := lim.wait(ctx, n); werr != nil {
			return werr
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	var out [8]byte
	binary.BigEndian.PutUint64(out[:], uint64(total))
	_, err := conn.Write(out[:])
	return err
}

// echo sends every size-byte message straight back until the client closes.
func echo(ctx context.Context, conn net.Conn, size int, lim *limiter) error {
	buf := make([]byte, size)
	for {
		if _, err := io.ReadFull(conn, buf); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := lim.wait(ctx, 2*size); err != nil {
			return err
		}
		if _, err := conn.Write(buf); err != nil {
			return err
		}
	}
}

// tcpClient runs the client side of a tcp test against addr.
func tcpClient(ctx context.Context, addr string, key []byte, t Test, lim *limiter) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Duration()+3*grace)
	defer cancel()
	if t.Kind == KindLat {
		return tcpLatency(ctx, addr, key, t, lim)
	}
	return tcpBandwidth(ctx, addr, key, t, lim)
}

func dial(ctx context.Context, addr string, key []byte, kind string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := conn.Write(append(slices.Clone(key), kind[0])); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func tcpBandwidth(ctx context.Context, addr string, key []byte, t Test, lim *limiter) (Result, error) {
	conns := make([]net.Conn, 0, t.Streams)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range t.Streams {
		c, err := dial(ctx, addr, key, KindBW)
		if err != nil {
			return Result{}, err
		}
		conns = append(conns, c)
	}
	start := time.Now()
	end := start.Add(t.Duration())
	counts := make([]int64, len(conns))
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop := context.AfterFunc(ctx, func() { c.Close() })
			defer stop()
			counts[i], errs[i] = stream(ctx, c.(*net.TCPConn), t.Size, end, lim)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	var total int64
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return Result{}, errors.New("no data reached the server")
	}
	return Result{
		BitsPerSecond: float64(total) * 8 / elapsed.Seconds(),
		Bytes:         total,
		Seconds:       elapsed.Seconds(),
	}, nil
}

// stream writes until end, half-closes and returns the count the server
// received. The time until that count arrives is part of the measurement,
// so data parked in socket buffers is not counted as sent.
func stream(ctx context.Context, c *net.TCPConn, size int, end time.Time, lim *limiter) (int64, error) {
	buf := make([]byte, lim.chunk(size))
	// At least one write, even when a loaded machine schedules this
	// goroutine only after end.
	for first := true; first || time.Now().Before(end); first = false {
		if err := lim.wait(ctx, len(buf)); err != nil {
			return 0, err
		}
		if _, err := c.Write(buf); err != nil {
			return 0, fmt.Errorf("sending: %w", err)
		}
	}
	if err := c.CloseWrite(); err != nil {
		return 0, err
	}
	var in [8]byte
	if _, err := io.ReadFull(c, in[:]); err != nil {
		return 0, fmt.Errorf("reading the server's byte count: %w", err)
	}
	return int64(binary.BigEndian.Uint64(in[:])), nil
}

func tcpLatency(ctx context.Context, addr string, key []byte, t Test, lim *limiter) (Result, error) {
	c, err := dial(ctx, addr, key, KindLat)
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	out := make([]byte, t.Size)
	in := make([]byte, t.Size)
	var rtts []time.Duration
	start := time.Now()
	end := start.Add(t.Duration())
	for len(rtts) == 0 || time.Now().Before(end) && len(rtts) < 1_000_000 {
		if err := lim.wait(ctx, 2*t.Size); err != nil {
			return Result{}, err
		}
		t0 := time.Now()
		if _, err := c.Write(out); err != nil {
			return Result{}, err
		}
		if _, err := io.ReadFull(c, in); err != nil {
			return Result{}, err
		}
		rtts = append(rtts, time.Since(t0))
	}
	if len(rtts) == 0 {
		return Result{}, errors.New("no round trip completed")
	}
	slices.Sort(rtts)
	return Result{
		LatencyMedianUS: us(quantile(rtts, 0.5)),
		LatencyP99US:    us(quantile(rtts, 0.99)),
		Samples:         len(rtts),
		Seconds:         time.Since(start).Seconds(),
	}, nil
}

// quantile returns the q-quantile of sorted durations (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
