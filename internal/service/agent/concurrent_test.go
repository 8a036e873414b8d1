package agent

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// TestConcurrentScrapes samples while handlers serve: scrapes read only
// the published view and exposition (run with -race).
func TestConcurrentScrapes(t *testing.T) {
	var mu sync.Mutex
	n := 0
	read := func(ctx context.Context) (*snapshot.Snapshot, error) {
		s, err := bigRead(ctx)
		mu.Lock()
		n++
		s.Taken = t0.Add(time.Duration(n) * time.Second)
		for i := range s.Devices {
			for j := range s.Devices[i].Ports[0].Counters {
				s.Devices[i].Ports[0].Counters[j].Value += uint64(n * 100)
			}
		}
		mu.Unlock()
		return s, err
	}
	a, err := New(Options{Read: read, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Handler(HandlerOptions{})
	var wg sync.WaitGroup
	for _, path := range []string{"/metrics", "/api/v1/ports", "/api/v1/health", "/metrics"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
				if rec.Code != 200 && rec.Code != 503 {
					t.Errorf("%s: %d", path, rec.Code)
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		if err := a.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if v := a.View(); v == nil || v.Samples != 20 || len(v.Rates) == 0 {
		t.Errorf("after 20 samples: %+v", v)
	}
}
