package pairwise

import (
	"context"
	"sync"
	"time"
)

// limiter is a token bucket in bytes: at most rate bytes per second on
// average, bursts of up to burst bytes. A nil limiter does not limit.
// Callers take tokens after (or before) moving n bytes and sleep off any
// debt, so the long-run rate holds whatever the chunk size.
type limiter struct {
	mu     sync.Mutex
	rate   float64 // bytes per second
	burst  float64
	tokens float64
	last   time.Time
}

// newLimiter returns a limiter of bytesPerSecond, or nil for 0 (no limit).
// The burst is 20 ms worth, at least 16 KiB, so that short tests measure
// the rate and not the burst.
func newLimiter(bytesPerSecond float64) *limiter {
	if bytesPerSecond <= 0 {
		return nil
	}
	burst := max(bytesPerSecond/50, 16<<10)
	return &limiter{rate: bytesPerSecond, burst: burst, tokens: burst, last: time.Now()}
}

// chunk returns how many bytes to move at once, at most max.
func (l *limiter) chunk(max int) int {
	if l == nil {
		return max
	}
	return min(max, int(l.burst))
}

// wait takes n tokens and sleeps until the bucket is out of debt, or ctx
// ends.
func (l *limiter) wait(ctx context.Context, n int) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	now := time.Now()
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	l.tokens -= float64(n)
	debt := l.tokens
	l.mu.Unlock()
	if debt >= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(-debt / l.rate * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
