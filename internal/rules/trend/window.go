package trend

import (
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/rates"
)

// agg is a counter's behaviour over a window of samples.
type agg struct {
	// inc is the sum of the known increases, in the counter's unit.
	inc float64
	// secs is the time covered by pairs whose increase is known.
	secs float64
	// pairs counts consecutive sample pairs in the window that hold the
	// counter; saturated and resets count pairs whose increase is unknown.
	pairs, saturated, resets int
}

// known reports whether any part of the window has a known increase.
func (a agg) known() bool { return a.secs > 0 }

// perMin is the average increase per minute over the known part.
func (a agg) perMin() float64 {
	if a.secs <= 0 {
		return 0
	}
	return a.inc / a.secs * 60
}

func (a *agg) add(b agg) {
	a.inc += b.inc
	a.secs = max(a.secs, b.secs)
	a.pairs = max(a.pairs, b.pairs)
	a.saturated += b.saturated
	a.resets += b.resets
}

// sumWindow sums the known increases of one counter over consecutive
// samples that both lie in [from, to]. Saturated and reset pairs are
// unknown and skipped (a reset starts a new series; no false alarm).
func sumWindow(h []Sample, dev string, port int, src Source, name string, from, to time.Time) agg {
	var a agg
	var prev uint64
	var havePrev bool
	var prevT time.Time
	// Samples mostly hold the same ports and readings in the same places:
	// try where the last sample had them before searching.
	pi, ri := -1, -1
	for i := range h {
		s := &h[i]
		if s.T.Before(from) || s.T.After(to) {
			havePrev = false
			continue
		}
		var p *Port
		if pi >= 0 && pi < len(s.Ports) && s.Ports[pi].Port == port && s.Ports[pi].Device == dev {
			p = &s.Ports[pi]
		} else if pi = s.portIndex(dev, port); pi >= 0 {
			p = &s.Ports[pi]
		}
		if p == nil {
			havePrev = false
			continue
		}
		var ok bool
		if ri, ok = p.readingFrom(ri, src, name); !ok {
			havePrev = false
			continue
		}
		r := p.Readings[ri]
		if havePrev {
			a.pairs++
			inc, st := rates.Increase(r.Spec(), prev, r.Value)
			switch {
			case st.Known():
				a.inc += float64(inc)
				a.secs += s.T.Sub(prevT).Seconds()
			case st == rates.StatusSaturated:
				a.saturated++
			case st == rates.StatusReset:
				a.resets++
			}
		}
		prev, prevT, havePrev = r.Value, s.T, true
	}
	return a
}
