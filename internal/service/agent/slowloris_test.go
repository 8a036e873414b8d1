package agent

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSlowClients runs the server on loopback with small limits and shows
// that clients trickling their headers byte by byte are disconnected, that
// an idle keep-alive connection is closed, that no more than MaxConns
// connections are served at once, and that sampling goes on meanwhile.
// Every connection has a deadline, so the test ends by itself.
func TestSlowClients(t *testing.T) {
	lim := ServerLimits{ReadHeaderTimeout: 300 * time.Millisecond, ReadTimeout: time.Second,
		WriteTimeout: time.Second, IdleTimeout: 400 * time.Millisecond, MaxConns: 3}
	a, err := New(Options{Read: fakeRead})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeLimited(ctx, ln, a.Handler(HandlerOptions{}), lim) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	addr := ln.Addr().String()
	dial := func() net.Conn {
		t.Helper()
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		return c
	}

	// Three slow clients take every slot and trickle a header byte every
	// 50 ms, which would hold the connection forever without a header
	// timeout.
	type closed struct {
		after time.Duration
		err   error
	}
	results := make(chan closed, lim.MaxConns)
	start := time.Now()
	for range lim.MaxConns {
		c := dial()
		go func() {
			defer c.Close()
			if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
				results <- closed{err: err}
				return
			}
			go func() {
				for {
					time.Sleep(50 * time.Millisecond)
					if _, err := c.Write([]byte("a")); err != nil {
						return
					}
				}
			}()
			// The server's answer to a timed-out header, if any, then EOF;
			// or a reset: a server that closes a socket with unread bytes
			// in it (the trickled header) makes the kernel send RST, not
			// FIN, and that is the server disconnecting the client too.
			_, err := io.Copy(io.Discard, c)
			if errors.Is(err, syscall.ECONNRESET) {
				err = nil
			}
			results <- closed{after: time.Since(start), err: err}
		}()
	}
	time.Sleep(100 * time.Millisecond) // let the server accept them

	// A fourth, well-behaved client is not served while the slots are held.
	c4 := dial()
	defer c4.Close()
	if _, err := io.WriteString(c4, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = c4.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := c4.Read(make([]byte, 1)); n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a fourth connection was served while %d slow ones held every slot: %d bytes, %v", lim.MaxConns, n, err)
	}
	// Sampling does not wait for the HTTP side.
	before := a.View()
	done := make(chan error, 1)
	go func() { done <- a.Sample(context.Background()) }()
	select {
	case err := <-done:
		if err != nil || a.View() == before {
			t.Errorf("sample while the server is saturated: %v, view published %v", err, a.View() != before)
		}
	case <-time.After(2 * time.Second):
		t.Error("sampling blocked while the server is saturated")
	}

	for range lim.MaxConns {
		r := <-results
		if r.err != nil {
			t.Errorf("slow client not disconnected by the server: %v", r.err)
		} else if r.after > 2*time.Second {
			t.Errorf("slow client disconnected only after %v", r.after)
		}
	}
	// Their slots are free: the fourth client is answered now.
	_ = c4.SetReadDeadline(time.Now().Add(3 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c4), nil)
	if err != nil {
		t.Fatalf("fourth client after the slow ones were dropped: %v", err)
	}
	resp.Body.Close()

	// An idle keep-alive connection is closed after IdleTimeout.
	c5 := dial()
	defer c5.Close()
	if _, err := io.WriteString(c5, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c5)
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	idle := time.Now()
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("idle keep-alive connection: %v, want EOF from the server", err)
	}
	if d := time.Since(idle); d > 2*time.Second {
		t.Errorf("idle keep-alive connection closed after %v", d)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	a, err := New(Options{Read: fakeRead})
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{"", "s3cret"} {
		srv := a.Handler(HandlerOptions{Token: token})
		for _, path := range []string{"/api/v1/health", "/metrics", "/healthz", "/api/v1/ports"} {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest("POST", path, nil))
			if rec.Code != http.StatusMethodNotAllowed || !strings.Contains(rec.Header().Get("Allow"), "GET") {
				t.Errorf("token %q: POST %s: %d, Allow %q; want 405 with Allow: GET", token, path, rec.Code, rec.Header().Get("Allow"))
			}
		}
	}
}

// TestTokenCompareFixedLength: the token check compares inputs of one
// fixed length whatever the length of the token sent, so its timing does
// not tell the token's length (ConstantTimeCompare returns at once on
// inputs of different lengths).
func TestTokenCompareFixedLength(t *testing.T) {
	var lens [][2]int
	orig := constantTimeCompare
	constantTimeCompare = func(x, y []byte) int {
		lens = append(lens, [2]int{len(x), len(y)})
		return orig(x, y)
	}
	defer func() { constantTimeCompare = orig }()
	perf := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ran") })
	a, err := New(Options{Read: fakeRead})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Handler(HandlerOptions{Token: "s3cret-token", Perf: perf})
	for _, sent := range []string{"", "s", "s3cret", "s3cret-token", "s3cret-token-and-more", strings.Repeat("x", 1000)} {
		req := httptest.NewRequest("POST", PerfPrefix+"run", nil)
		req.Header.Set("Authorization", "Bearer "+sent)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if want := map[bool]int{true: 200, false: 401}[sent == "s3cret-token"]; rec.Code != want {
			t.Errorf("token %q: %d, want %d", sent, rec.Code, want)
		}
	}
	if len(lens) == 0 {
		t.Fatal("the token was not compared")
	}
	for _, l := range lens {
		if l != lens[0] || l[0] != l[1] {
			t.Fatalf("compared inputs of lengths %v: they vary with the token sent", lens)
		}
	}
}
