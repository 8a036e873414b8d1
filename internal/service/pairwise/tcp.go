package pairwise

import (
	"context"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"time"
)

// The tcp backend's wire protocol. Every connection starts with the
// session key the agent handed out when it started the server side (so a
// stray connection cannot join a test) and one byte naming the kind:
//
//	bw:  client → key, 'b', data...
//	     server → after Duration from the first data byte: 8-byte count of
//	     bytes received and 8-byte nanoseconds they took (big-endian), then
//	     it half-closes and discards what still arrives until the client
//	     closes
//	lat: client → key, 'l', then repeatedly Size bytes; server echoes each message
//
// The receiver measures, over a window of exactly Duration, so data the
// sender parked in socket buffers is neither counted nor waited for.
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
	} else {
		defer widen()()
	}
	lim.reset()
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
				errs <- sink(ctx, conn, t.Duration(), lim)
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

// sink reads and counts data for dur from the first byte (or until the
// client closes), sends the count and the time back, then discards the
// rest until the client closes.
func sink(ctx context.Context, conn net.Conn, dur time.Duration, lim *limiter) error {
	buf := make([]byte, lim.chunk(256<<10))
	if tc, ok := conn.(*net.TCPConn); ok && lim != nil {
		// A throttled receiver advertises a small window, as a slow
		// link would.
		_ = tc.SetReadBuffer(2 * len(buf))
	}
	var (
		total int64
		first time.Time
		end   time.Time
	)
	for {
		n, err := conn.Read(buf)
		if n > 0 && first.IsZero() {
			first = time.Now()
			end = first.Add(dur)
			_ = conn.SetReadDeadline(end)
		}
		total += int64(n)
		if werr := lim.wait(ctx, n); werr != nil {
			return werr
		}
		if errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded) && !end.IsZero() {
			break
		}
		if err != nil {
			return err
		}
		if !end.IsZero() && !time.Now().Before(end) {
			break
		}
	}
	var elapsed time.Duration
	if !first.IsZero() {
		elapsed = time.Since(first)
	}
	var out [16]byte
	binary.BigEndian.PutUint64(out[:8], uint64(total))
	binary.BigEndian.PutUint64(out[8:], uint64(elapsed))
	if _, err := conn.Write(out[:]); err != nil {
		return err
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	_ = conn.SetReadDeadline(time.Now().Add(grace))
	_, _ = io.Copy(io.Discard, conn)
	return nil
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
	lim.reset()
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
	defer widen()()
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
	end := time.Now().Add(t.Duration())
	type tally struct {
		bytes   int64
		elapsed time.Duration
	}
	got := make([]tally, len(conns))
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop := context.AfterFunc(ctx, func() { c.Close() })
			defer stop()
			got[i].bytes, got[i].elapsed, errs[i] = stream(ctx, c, t.Size, end, lim)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	var res Result
	for _, g := range got {
		if g.elapsed <= 0 {
			continue
		}
		// Streams run side by side: their rates add up.
		res.BitsPerSecond += float64(g.bytes) * 8 / g.elapsed.Seconds()
		res.Bytes += g.bytes
		res.Seconds = max(res.Seconds, g.elapsed.Seconds())
	}
	if res.Bytes == 0 {
		return Result{}, errors.New("no data reached the server")
	}
	return res, nil
}

// stream writes until end, then reads the server's count of bytes and the
// time it measured them over.
func stream(ctx context.Context, c net.Conn, size int, end time.Time, lim *limiter) (int64, time.Duration, error) {
	buf := make([]byte, lim.chunk(size))
	// At least one write, even when a loaded machine schedules this
	// goroutine only after end.
	for first := true; first || time.Now().Before(end); first = false {
		if err := lim.wait(ctx, len(buf)); err != nil {
			return 0, 0, err
		}
		if _, err := c.Write(buf); err != nil {
			return 0, 0, fmt.Errorf("sending: %w", err)
		}
	}
	var in [16]byte
	if _, err := io.ReadFull(c, in[:]); err != nil {
		return 0, 0, fmt.Errorf("reading the server's byte count: %w", err)
	}
	n, ns := binary.BigEndian.Uint64(in[:8]), binary.BigEndian.Uint64(in[8:])
	if n > 1<<62 || ns > uint64(time.Hour) {
		return 0, 0, fmt.Errorf("server's count %d bytes in %d ns is out of range", n, ns)
	}
	return int64(n), time.Duration(ns), nil
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
