package trend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestWindowsMatchScan follows a history the way the agent keeps one
// (appended at the end, trimmed at the front, restarted when the clock
// goes back) with ports and counters that come and go, 16-bit counters
// that saturate, counters that reset, and uneven steps, and checks that
// every window sum through the cache equals the walk over the history.
func TestWindowsMatchScan(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			w := NewWindows()
			var h []Sample
			vals := map[string]uint64{}
			now := t0
			keep := 5 + rng.IntN(40)
			queries := []struct {
				dev  string
				src  Source
				name string
			}{
				{"mlx5_0", SrcCounters, "symbol_error"}, {"mlx5_0", SrcHW, "out_of_buffer"},
				{"mlx5_1", SrcCounters, "symbol_error"}, {"mlx5_1", SrcEthtool, "rx_prio3_pause"},
				{"mlx5_1", SrcEthtool, "rx_prio0_pause"}, {"mlx5_2", SrcCounters, "port_xmit_wait"},
			}
			for step := range 300 {
				now = now.Add(time.Duration(10+rng.IntN(10000)) * time.Millisecond)
				if rng.IntN(100) == 0 {
					now = now.Add(-time.Minute) // the clock goes back
				}
				var ports []Port
				for _, dev := range []string{"mlx5_0", "mlx5_1", "mlx5_2"} {
					if rng.IntN(20) == 0 {
						continue // port missing from this sample
					}
					var rs []Reading
					add := func(r Reading, key string, maxStep uint64) {
						if rng.IntN(15) == 0 {
							return // counter missing
						}
						v := vals[dev+key] + uint64(rng.IntN(int(maxStep)+1))
						if rng.IntN(60) == 0 {
							v = 0 // reset
						}
						if r.Bits == 16 && v > math.MaxUint16 {
							v = math.MaxUint16
						}
						vals[dev+key] = v
						r.Value = v
						rs = append(rs, r)
					}
					add(ctr("symbol_error", 0), "se", 9000)
					add(ctr("port_xmit_wait", 0), "xw", 1e6)
					add(hw("out_of_buffer", 0), "oob", 50)
					add(eth("rx_prio3_pause", 0), "p3", 1e5)
					ports = append(ports, port(dev, 1, 400, rs...))
				}
				s := Sample{T: now, Ports: ports}
				s.Sort()
				if n := len(h); n > 0 && !s.T.After(h[n-1].T) {
					h = nil
				}
				h = append(h, s)
				if len(h) > keep {
					h = append([]Sample(nil), h[len(h)-keep:]...)
				}
				for _, q := range queries {
					for _, win := range [][2]time.Duration{{time.Minute, 0}, {2 * time.Minute, time.Minute}, {time.Hour, 0}, {time.Duration(rng.IntN(300)) * time.Second, time.Duration(rng.IntN(60)) * time.Second}} {
						from, to := now.Add(-win[0]), now.Add(-win[1])
						want := sumWindow(h, q.dev, 1, q.src, q.name, from, to)
						got := w.sum(h, q.dev, 1, q.src, q.name, from, to)
						if got.pairs != want.pairs || got.saturated != want.saturated || got.resets != want.resets ||
							math.Abs(got.inc-want.inc) > 1e-9*math.Max(1, want.inc) || math.Abs(got.secs-want.secs) > 1e-9*math.Max(1, want.secs) {
							t.Fatalf("step %d, %s %s %s [%v, %v]: cached %+v, walk %+v", step, q.dev, q.src, q.name, from, to, got, want)
						}
					}
				}
			}
		})
	}
}

// TestCheckWithWindows: the rules find the same with the cache as
// without it over the benchmark's history.
func TestCheckWithWindows(t *testing.T) {
	h := benchHistory(41)
	w := NewWindows()
	for n := 1; n <= len(h); n++ {
		want := Check(Input{History: h[:n]}, Defaults())
		got := Check(Input{History: h[:n], Windows: w}, Defaults())
		if fmt.Sprint(ids(got)) != fmt.Sprint(ids(want)) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%d samples: with the cache %v, without %v", n, ids(got), ids(want))
		}
	}
}

// TestWindowsOtherHistory: a cache handed another history with the same
// times (other samples) starts afresh instead of answering for the first.
func TestWindowsOtherHistory(t *testing.T) {
	mk := func(step uint64) []Sample {
		return series(5, func(i int) []Port {
			return []Port{port("mlx5_0", 1, 400, ctr("symbol_error", uint64(i)*step))}
		})
	}
	w := NewWindows()
	a, b := mk(1), mk(100)
	from, to := a[0].T, a[4].T
	if got := w.sum(a, "mlx5_0", 1, SrcCounters, "symbol_error", from, to); got.inc != 4 {
		t.Fatalf("first history: %+v, want +4", got)
	}
	if got := w.sum(b, "mlx5_0", 1, SrcCounters, "symbol_error", from, to); got.inc != 400 {
		t.Errorf("second history with the same times: %+v, want +400", got)
	}
}
