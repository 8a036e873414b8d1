package fabric

import (
	"fmt"
	"strings"
)

// LinkRate is one cable's data rate and, when it is suspect, why: what
// `fabric job` needs to predict each link's share from its own rate and to
// name the hosts whose flows cross a degraded link.
type LinkRate struct {
	A, B End
	// Gbps is width × lane speed; 0 when neither end reported them.
	Gbps float64
	// Degraded is empty for a sound link; else the reason, judged as
	// fabric.link_degraded (narrower or slower than expected) and
	// fabric.link_errors (error counters at or above their thresholds,
	// since the counters were last cleared) judge it.
	Degraded string
}

// LinkRates judges every cable of f: its rate, and whether it runs below
// the rate expected of it (plan, when given, else the majority of its tier
// pair and what both ends can do) or has error counters at or above th.
func LinkRates(f *Fabric, plan *Plan, th Thresholds) []LinkRate {
	d := newDegradedCheck(f, plan)
	out := make([]LinkRate, 0, len(f.Links))
	for i := range f.Links {
		l := &f.Links[i]
		lr := LinkRate{A: l.A, B: l.B}
		var why []string
		w, s := f.linkRate(l)
		if w != 0 && s != 0 {
			lr.Gbps = float64(s.LaneDeciGbps()) * float64(w) / 10
			x := d.expect(l, s)
			narrow := x.width != 0 && w < x.width
			slow := x.speed != 0 && s.Generation() < x.speed.Generation()
			if narrow || slow {
				ew, es := w, s
				if narrow {
					ew = x.width
				}
				if slow {
					es = x.speed
				}
				why = append(why, fmt.Sprintf("runs at %s, expected %s", rateText(w, s), rateText(ew, es)))
			}
		}
		for _, e := range []End{l.A, l.B} {
			p := f.PortOf(e)
			if p == nil || p.Counters == nil {
				continue
			}
			for _, c := range errorCounters {
				limit := max(c.th(th), 1)
				if v, ok := p.Counters[c.name]; ok && v >= limit {
					why = append(why, fmt.Sprintf("%s %s %d", f.EndName(e), c.label, v))
				}
			}
		}
		lr.Degraded = strings.Join(why, "; ")
		out = append(out, lr)
	}
	return out
}
