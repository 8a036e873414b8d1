package pairwise

import (
	"context"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	if newLimiter(0) != nil {
		t.Fatal("rate 0 must mean no limiter")
	}
	var none *limiter
	if none.chunk(1000) != 1000 || none.wait(context.Background(), 1<<30) != nil {
		t.Fatal("a nil limiter must not limit")
	}
	l := newLimiter(1e6) // 1 MB/s, 20 KB chunks, bucket of 200 KB starting empty
	if c := l.chunk(1 << 20); c != 20000 {
		t.Errorf("chunk = %d, want 20 KB", c)
	}
	start := time.Now()
	for range 12 {
		if err := l.wait(context.Background(), 20000); err != nil {
			t.Fatal(err)
		}
	}
	// 240 KB at 1 MB/s from an empty bucket: at least 240 ms.
	if el := time.Since(start); el < 230*time.Millisecond || el > 2*time.Second {
		t.Errorf("240 KB took %v, want about 240 ms", el)
	}
	// Idle time fills the bucket up to 200 KB, not more.
	l.mu.Lock()
	l.last = l.last.Add(-10 * time.Second)
	l.mu.Unlock()
	start = time.Now()
	for range 10 {
		_ = l.wait(context.Background(), 20000) // 200 KB from the full bucket: no sleep
	}
	if el := time.Since(start); el > 100*time.Millisecond {
		t.Errorf("a full bucket still slept %v", el)
	}
	start = time.Now()
	_ = l.wait(context.Background(), 50000)
	if el := time.Since(start); el < 40*time.Millisecond {
		t.Errorf("the bucket held more than 200 KB: 50 KB more took %v", el)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.wait(ctx, 1e6); err == nil {
		t.Error("wait ignored a cancelled context while in debt")
	}
}

func TestQuantile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Microsecond)
	}
	if q := quantile(d, 0.5); q != 50*time.Microsecond {
		t.Errorf("median %v", q)
	}
	if q := quantile(d, 0.99); q != 99*time.Microsecond {
		t.Errorf("p99 %v", q)
	}
	if q := quantile(d[:1], 0.99); q != time.Microsecond {
		t.Errorf("p99 of one %v", q)
	}
}
