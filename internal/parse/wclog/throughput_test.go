package wclog

import (
	"strings"
	"testing"
)

// TestThroughputLine: Mooncake's transfer-engine metric lines
// (sgl-project/sglang#5450), alone a log that parses.
func TestThroughputLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		mbps float64
		secs int
		ok   bool
	}{
		{"I0518 08:57:10.155643 104603 transfer_engine.cpp:364] [Metrics] Transfer Engine Throughput: 4.44 MB/s (over last 5s)", 4.44, 5, true},
		{"I0616 06:29:14.501163 1115123 transfer_engine.cpp:387] [Metrics] Transfer Engine Throughput: 113.07 MB/s (over last 5s)", 113.07, 5, true},
		{"[Metrics] Transfer Engine Throughput: n/a MB/s", 0, 0, false},
		{"[Metrics] Transfer Engine Throughput: 4.44 GB/s", 0, 0, false},
		{"Transfer Engine Throughput: 4.44 MB/s", 0, 0, false},
	} {
		got, ok := ThroughputLine(tc.line)
		if ok != tc.ok || ok && (got.MBps != tc.mbps || got.Interval != tc.secs) {
			t.Errorf("%q: %+v %v", tc.line, got, ok)
		}
	}
	lg, err := Parse(strings.NewReader("I0518 08:57:10.168974 104621 transfer_engine.cpp:364] [Metrics] Transfer Engine Throughput: 10.31 MB/s (over last 5s)\n"), "p")
	if err != nil || len(lg.Throughputs) != 1 || lg.Throughputs[0].Line != 1 {
		t.Fatalf("%+v %v", lg, err)
	}
}

func FuzzThroughputLine(f *testing.F) {
	f.Add("I0518 08:57:10.155643 104603 transfer_engine.cpp:364] [Metrics] Transfer Engine Throughput: 4.44 MB/s (over last 5s)")
	f.Add("[Metrics] Transfer Engine Throughput:  MB/s (over last s)")
	f.Fuzz(func(t *testing.T, l string) {
		if tp, ok := ThroughputLine(l); ok && tp.MBps < 0 {
			t.Fatalf("negative rate from %q", l)
		}
	})
}
