package pairwise

import (
	"fmt"
	"math"
	"time"
)

// Backends and kinds of test.
const (
	BackendTCP      = "tcp"
	BackendPerftest = "perftest"

	KindBW  = "bw"
	KindLat = "lat"
)

// Limits of a test request; the agent refuses anything outside them.
const (
	MinDuration   = 50 * time.Millisecond
	MaxDuration   = time.Hour
	maxStreams    = 64
	maxTCPMsgSize = 16 << 20
	maxIters      = perftestMaxIterations
)

// Test describes one test between two nodes. It is the body the runner
// sends to both agents, so both sides agree on what runs.
type Test struct {
	Backend string `json:"backend"`
	// Kind is "bw" (bandwidth) or "lat" (latency).
	Kind string `json:"kind"`
	// DurationMS is how long a bandwidth test sends, and how long a tcp
	// latency test ping-pongs. perftest rounds it up to whole seconds (-D).
	DurationMS int64 `json:"duration_ms"`
	// Size is the message size in bytes: the write size of a bandwidth
	// test, the ping size of a latency test (perftest -s).
	Size int `json:"size,omitempty"`
	// Streams is the number of parallel TCP connections of a tcp bandwidth
	// test (perftest: number of QPs, -q).
	Streams int `json:"streams,omitempty"`
	// Iterations is the number of exchanges of a perftest latency test (-n).
	Iterations int `json:"iterations,omitempty"`
	// Perftest holds the RDMA device settings of the perftest backend.
	Perftest *PerftestParams `json:"perftest,omitempty"`
}

// Duration returns DurationMS as a time.Duration, saturating instead of
// overflowing (18446744074710 ms times 1e6 wraps to about one second).
func (t Test) Duration() time.Duration {
	const maxMS = math.MaxInt64 / int64(time.Millisecond)
	switch {
	case t.DurationMS > maxMS:
		return math.MaxInt64
	case t.DurationMS < -maxMS:
		return math.MinInt64
	}
	return time.Duration(t.DurationMS) * time.Millisecond
}

// WithDefaults fills unset sizes and counts with the defaults of the
// backend (tcp: 128 KiB writes, one stream, 64-byte pings; perftest:
// ib_write_bw's 65536 bytes, ib_write_lat's 2 bytes and 1000 iterations).
func (t Test) WithDefaults() Test {
	if t.Streams == 0 {
		t.Streams = 1
	}
	switch {
	case t.Size != 0:
	case t.Backend == BackendPerftest && t.Kind == KindBW:
		t.Size = 65536
	case t.Backend == BackendPerftest:
		t.Size = 2
	case t.Kind == KindBW:
		t.Size = 128 << 10
	default:
		t.Size = 64
	}
	if t.Backend == BackendPerftest && t.Kind == KindLat && t.Iterations == 0 {
		t.Iterations = 1000
	}
	return t
}

// Validate checks a test against the allowed ranges; maxDur is the agent's
// own limit on durations (0: MaxDuration).
func (t Test) Validate(maxDur time.Duration) error {
	if maxDur <= 0 || maxDur > MaxDuration {
		maxDur = MaxDuration
	}
	switch t.Backend {
	case BackendTCP, BackendPerftest:
	default:
		return fmt.Errorf("backend %q: want tcp or perftest", t.Backend)
	}
	if t.Kind != KindBW && t.Kind != KindLat {
		return fmt.Errorf("kind %q: want bw or lat", t.Kind)
	}
	// Compared in milliseconds, as sent: no multiplication to overflow.
	if t.DurationMS < MinDuration.Milliseconds() || t.DurationMS > maxDur.Milliseconds() {
		return fmt.Errorf("duration %v out of range [%v, %v]", t.Duration(), MinDuration, maxDur)
	}
	if t.Streams < 1 || t.Streams > maxStreams {
		return fmt.Errorf("streams %d out of range [1, %d]", t.Streams, maxStreams)
	}
	if t.Backend == BackendTCP {
		if t.Size < 1 || t.Size > maxTCPMsgSize {
			return fmt.Errorf("size %d out of range [1, %d]", t.Size, maxTCPMsgSize)
		}
		if t.Perftest != nil {
			return fmt.Errorf("perftest settings given to the tcp backend")
		}
		return nil
	}
	if t.Iterations < 0 || t.Iterations > maxIters {
		return fmt.Errorf("iterations %d out of range [0, %d]", t.Iterations, maxIters)
	}
	_, err := perftestArgs(t, 18515, "")
	return err
}

// Result is what one test measured.
type Result struct {
	// BitsPerSecond is the bandwidth of a bw test (decimal: 1 Gb/s = 1e9).
	BitsPerSecond float64 `json:"bits_per_second,omitempty"`
	// Bytes is how much data the receiver got (tcp bw).
	Bytes int64 `json:"bytes,omitempty"`
	// Seconds is how long the measurement took.
	Seconds float64 `json:"seconds,omitempty"`
	// LatencyMedianUS and LatencyP99US are round-trip (tcp) or one-way
	// typical (perftest t_typical, half of a round trip) latencies of a lat
	// test, in microseconds.
	LatencyMedianUS float64 `json:"latency_median_us,omitempty"`
	LatencyP99US    float64 `json:"latency_p99_us,omitempty"`
	// Samples is the number of latency samples (tcp) or iterations.
	Samples int `json:"samples,omitempty"`
}
