package pairwise

import (
	"context"
	"sync"
	"time"
)

// limiter is a token bucket in bytes: at most rate bytes per second on
// average. Callers move data in chunks and take tokens for each, sleeping
// off any debt, so the long-run rate holds whatever the chunk size. A nil
// limiter does not limit.
type limiter struct {
	mu     sync.Mutex
	rate   float64 // bytes per second
	burst  float64 // bucket capacity
	step   int     // chunk size
	tokens float64
	last   time.Time
}

// newLimiter returns a limiter of bytesPerSecond, or nil for 0 (no limit).
// The bucket starts empty, so a short test measures the rate and not a
// head start; it holds up to 200 ms worth, so a sleeper that wakes late on
// a loaded machine catches up instead of losing the time. Chunks are 20 ms
// worth (at least 16 KiB).
func newLimiter(bytesPerSecond float64) *limiter {
	if bytesPerSecond <= 0 {
		return nil
	}
	step := max(bytesPerSecond/50, 16<<10)
	return &limiter{rate: bytesPerSecond, burst: max(bytesPerSecond/5, step), step: int(step), last: time.Now()}
}

// reset empties the bucket; every test starts with it, so a bucket filled
// while the agent was idle does not inflate the next short test.
func (l *limiter) reset() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.tokens, l.last = 0, time.Now()
	l.mu.Unlock()
}

// chunk returns how many bytes to move at once, at most max.
func (l *limiter) chunk(max int) int {
	if l == nil {
		return max
	}
	return min(max, l.step)
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
