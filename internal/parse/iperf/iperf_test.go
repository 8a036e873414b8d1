package iperf

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRateLine(t *testing.T) {
	for _, tt := range []struct {
		line       string
		gbps       float64
		start, end float64
		sum        bool
		role       string
	}{
		// linux-rdma, 2019-11-18 (Soft-RoCE against TCP): iperf 2.0.
		{"[  3]  0.0-10.0 sec  22.3 GBytes  19.2 Gbits/sec", 19.2, 0, 10, false, ""},
		{"[  3]  0.0- 1.0 sec  1.12 GBytes  9.61 Gbits/sec", 9.61, 0, 1, false, ""},
		// iperf 2.1's enhanced columns after the rate.
		{"[  1] 0.0000-10.0040 sec  10.9 GBytes  9.39 Gbits/sec  89462/0          0       1K/180 us  6519140.74", 9.39, 0, 10.004, false, ""},
		{"[SUM]  0.0-10.0 sec  45.1 GBytes  38.7 Gbits/sec", 38.7, 0, 10, true, ""},
		// iperf3 (iperf_api.c): intervals, then sender and receiver.
		{"[  5]   0.00-10.00  sec  27.4 GBytes  23.5 Gbits/sec    0             sender", 23.5, 0, 10, false, "sender"},
		{"[  5]   0.00-10.04  sec  27.4 GBytes  23.4 Gbits/sec                  receiver", 23.4, 0, 10.04, false, "receiver"},
		{"[SUM]   0.00-10.00  sec   110 GBytes  94.2 Gbits/sec  120             sender", 94.2, 0, 10, true, "sender"},
		{"[  4]   0.00-10.00  sec   112 MBytes  94.1 Mbits/sec", 0.0941, 0, 10, false, ""},
	} {
		r, ok := RateLine(tt.line)
		if !ok || math.Abs(r.Gbps-tt.gbps) > 1e-9 || r.Start != tt.start || r.End != tt.end || r.Sum != tt.sum || r.Role != tt.role {
			t.Errorf("RateLine(%q) = %+v, %v", tt.line, r, ok)
		}
	}
	for _, l := range []string{
		"[  3] local 192.168.0.19 port 52514 connected with 192.168.0.20 port 5001",
		"[ ID] Interval       Transfer     Bandwidth",
		"[  12.345678] mlx5_core 0000:3b:00.0: 0.0-10.0 sec",
		"[  3]  0.0-10.0 sec  22.3 GBytes  19.2 furlongs/sec",
		"[  3]  10.0-1.0 sec  22.3 GBytes  19.2 Gbits/sec",
		"[  3]  0.0-10.0 sec  22.3 GBytes  NaN Gbits/sec",
	} {
		if r, ok := RateLine(l); ok {
			t.Errorf("RateLine(%q) = %+v, want none", l, r)
		}
	}
	if !IsConnectLine("[  3] local 192.168.0.19 port 52514 connected with 192.168.0.20 port 5001") || !IsConnectLine("[  5] local 10.0.0.1 port 43210 connected to 10.0.0.2 port 5201") ||
		IsConnectLine("[  3.000] local port connected with") {
		t.Error("IsConnectLine")
	}
	if !IsHeader("[ ID] Interval       Transfer     Bandwidth") || !IsHeader("[ ID] Interval           Transfer     Bitrate         Retr") {
		t.Error("IsHeader")
	}
}

func TestParseBest(t *testing.T) {
	for _, tt := range []struct {
		file string
		n    int
		best float64
		line int
	}{
		{"iperf2-client-19g.txt", 1, 19.2, 8},
		{"iperf3-client-sender-receiver.txt", 4, 23.4, 8},
	} {
		res, err := Parse(strings.NewReader(readT(t, tt.file)), tt.file)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := res.Best()
		if len(res.Rates) != tt.n || !ok || b.Gbps != tt.best || b.Line != tt.line {
			t.Errorf("%s: %d rates, best %+v", tt.file, len(res.Rates), b)
		}
	}
	if _, err := Parse(strings.NewReader("Client connecting to 10.0.0.2\n"), "x"); !errors.Is(err, ErrNoResult) {
		t.Errorf("err %v", err)
	}
}

func readT(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func FuzzRateLine(f *testing.F) {
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join("testdata", e.Name()))
		for _, l := range strings.Split(string(b), "\n") {
			f.Add(l)
		}
	}
	f.Add("[SUM] 0-1 sec 1 Bytes 1e309 Gbits/sec")
	f.Fuzz(func(t *testing.T, l string) {
		r, ok := RateLine(l)
		if ok && (r.Gbps < 0 || math.IsNaN(r.Gbps) || math.IsInf(r.Gbps, 0) || r.End < r.Start) {
			t.Fatalf("RateLine(%q) = %+v", l, r)
		}
		if res, err := Parse(strings.NewReader(l), "fuzz"); err == nil && len(res.Rates) == 0 {
			t.Fatal("no rates without an error")
		}
	})
}
