package trend

import (
	"sort"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/rates"
)

// Windows remembers, for each counter a rule has summed over a window, the
// running totals of its increases along the history, so that the next
// window sum is two lookups instead of a walk over every sample. The agent
// keeps one for its whole life and passes it with every Input: each
// interval then costs one step per remembered counter (the new sample's
// pair) instead of a walk per rule and counter (about 150 walks over 82
// samples at the default 15 s interval and 10-minute window).
//
// A Windows is only a cache: a sum is the same with or without it
// (TestWindowsMatchScan). It follows the history it is given, knowing a
// sample by its time and where its ports lie: samples appended at the end
// are added, samples dropped at the front are dropped, and any other
// change (a history that went back in time, other samples) starts it
// afresh. A counter is remembered from the first time a
// rule asks for it, its totals built by one walk over the history then. A
// Windows is not safe for concurrent use; the agent serialises its samples.
type Windows struct {
	t      []time.Time
	id     []*Port // each sample's first port: which sample it was, not only when
	series map[seriesKey]*totals
}

// sampleID tells samples taken at the same time apart: the history's
// samples keep their ports where they were read.
func sampleID(s *Sample) *Port {
	if len(s.Ports) == 0 {
		return nil
	}
	return &s.Ports[0]
}

// same reports whether cached sample i is h's sample j.
func (w *Windows) same(i int, h []Sample, j int) bool {
	return w.t[i].Equal(h[j].T) && w.id[i] == sampleID(&h[j])
}

type seriesKey struct {
	dev  string
	port int
	src  Source
	name string
}

// totals holds the running totals of one counter: c[i] covers the pairs
// (consecutive samples that both hold the counter) ending at or before
// sample off+i; before off it is zero. last and value are the sample index
// and value the counter was last seen at; pi and ri are where it was, to
// find it again in the next sample with one or two comparisons.
type totals struct {
	off    int
	c      []running
	last   int
	value  uint64
	pi, ri int
}

// running is an agg with every field a sum, so that a window is the
// difference of two.
type running struct {
	inc, secs                float64
	pairs, saturated, resets int
}

func (r running) minus(o running) agg {
	return agg{inc: r.inc - o.inc, secs: r.secs - o.secs, pairs: r.pairs - o.pairs, saturated: r.saturated - o.saturated, resets: r.resets - o.resets}
}

// NewWindows returns an empty cache of window sums.
func NewWindows() *Windows { return &Windows{series: map[seriesKey]*totals{}} }

// sum is sumWindow through the cache: the same result, from the running
// totals of the counter.
func (w *Windows) sum(h []Sample, dev string, port int, src Source, name string, from, to time.Time) agg {
	if !w.follow(h) {
		return sumWindow(h, dev, port, src, name, from, to)
	}
	k := seriesKey{dev, port, src, name}
	s := w.series[k]
	if s == nil {
		s = &totals{last: -2, pi: -1, ri: -1}
		for i := range h {
			w.step(s, &h[i], i, k)
		}
		w.series[k] = s
	}
	// Samples in [from, to]: indexes lo..hi. A pair ending at i counts
	// when both its samples are inside: lo < i <= hi.
	lo := sort.Search(len(w.t), func(i int) bool { return !w.t[i].Before(from) })
	hi := sort.Search(len(w.t), func(i int) bool { return w.t[i].After(to) }) - 1
	if hi <= lo {
		return agg{}
	}
	return s.at(hi).minus(s.at(lo))
}

// at is the running total up to sample i.
func (s *totals) at(i int) running {
	if i < s.off || len(s.c) == 0 {
		return running{}
	}
	return s.c[min(i-s.off, len(s.c)-1)]
}

// follow brings the cache up to date with h and reports whether it can
// answer for it: h must be in time order; the cache keeps the samples both
// share and adds the rest.
func (w *Windows) follow(h []Sample) bool {
	if len(h) == 0 {
		return false
	}
	if n := len(w.t); n == len(h) && w.same(0, h, 0) && w.same(n-1, h, n-1) {
		return true
	}
	for i := 1; i < len(h); i++ {
		if !h[i].T.After(h[i-1].T) {
			w.reset()
			return false
		}
	}
	// Drop what h dropped at the front.
	drop := sort.Search(len(w.t), func(i int) bool { return !w.t[i].Before(h[0].T) })
	if drop == len(w.t) || !w.same(drop, h, 0) {
		drop = len(w.t)
	}
	w.trim(drop)
	kept := len(w.t)
	if kept > len(h) || (kept > 0 && !w.same(kept-1, h, kept-1)) {
		w.reset()
		kept = 0
	}
	for i := kept; i < len(h); i++ {
		w.t = append(w.t, h[i].T)
		w.id = append(w.id, sampleID(&h[i]))
		for k, s := range w.series {
			w.step(s, &h[i], i, k)
		}
	}
	return true
}

// step adds sample s (index i of the history) to one counter's totals.
func (w *Windows) step(ser *totals, s *Sample, i int, k seriesKey) {
	prev := running{}
	if len(ser.c) > 0 {
		prev = ser.c[len(ser.c)-1]
	} else {
		ser.off = i
	}
	next := prev
	p := (*Port)(nil)
	if ser.pi >= 0 && ser.pi < len(s.Ports) && s.Ports[ser.pi].Port == k.port && s.Ports[ser.pi].Device == k.dev {
		p = &s.Ports[ser.pi]
	} else if ser.pi = s.portIndex(k.dev, k.port); ser.pi >= 0 {
		p = &s.Ports[ser.pi]
	}
	if p != nil {
		var ok bool
		if ser.ri, ok = p.readingFrom(ser.ri, k.src, k.name); ok {
			r := p.Readings[ser.ri]
			if i > 0 && ser.last == i-1 {
				next.pairs++
				inc, st := rates.Increase(r.Spec(), ser.value, r.Value)
				switch {
				case st.Known():
					next.inc += float64(inc)
					next.secs += s.T.Sub(w.t[i-1]).Seconds()
				case st == rates.StatusSaturated:
					next.saturated++
				case st == rates.StatusReset:
					next.resets++
				}
			}
			ser.last, ser.value = i, r.Value
		}
	}
	ser.c = append(ser.c, next)
}

// trim forgets the first n samples.
func (w *Windows) trim(n int) {
	if n <= 0 {
		return
	}
	// Reslice rather than shift: append moves what is left only when it
	// outgrows the array, so a trim costs nothing per sample kept.
	w.t = w.t[n:]
	w.id = w.id[n:]
	for k, s := range w.series {
		s.last -= n
		if s.off >= n {
			s.off -= n
			continue
		}
		cut := min(n-s.off, len(s.c))
		// Keep the total at the new first sample as the base the
		// later differences are taken from.
		s.c = s.c[cut:]
		s.off = 0
		if len(s.c) == 0 && len(w.t) > 0 {
			delete(w.series, k)
		}
	}
}

func (w *Windows) reset() {
	w.t = w.t[:0]
	w.id = w.id[:0]
	clear(w.series)
}
