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
	l := newLimiter(1e6) // 1 MB/s, 20 KB burst
	if c := l.chunk(1 << 20); c != 20000 {
		t.Errorf("chunk = %d, want the 20 KB burst", c)
	}
	start := time.Now()
	for range 12 {
		if err := l.wait(context.Background(), 20000); err != nil {
			t.Fatal(err)
		}
	}
	// 240 KB at 1 MB/s with a 20 KB head start: at least 220 ms.
	if el := time.Since(start); el < 210*time.Millisecond || el > 2*time.Second {
		t.Errorf("240 KB took %v, want about 220 ms", el)
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
