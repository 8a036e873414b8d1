package wclog

import (
	"strconv"
	"strings"
)

// Throughput is one of Mooncake's transfer-engine metric lines
// (mooncake-transfer-engine/src/transfer_engine.cpp, the metrics
// reporting thread: LOG(INFO) "[Metrics] Transfer Engine Throughput: 4.44
// MB/s (over last 5s)", printed only for an interval that moved bytes).
type Throughput struct {
	// Line is 1-based in the input; MBps the rate in MB/s (10^6 bytes),
	// Interval the seconds it is averaged over (0 when not printed).
	Line     int
	MBps     float64
	Interval int
}

const throughputMark = "[Metrics] Transfer Engine Throughput: "

// ThroughputLine reads a transfer-engine metric line (Line left 0).
func ThroughputLine(l string) (Throughput, bool) {
	_, rest, ok := strings.Cut(l, throughputMark)
	if !ok {
		return Throughput{}, false
	}
	num, after, ok := strings.Cut(rest, " MB/s")
	if !ok {
		return Throughput{}, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v < 0 {
		return Throughput{}, false
	}
	t := Throughput{MBps: v}
	if _, s, ok := strings.Cut(after, "(over last "); ok {
		s, _, _ = strings.Cut(s, "s)")
		t.Interval, _ = strconv.Atoi(s)
	}
	return t, true
}
