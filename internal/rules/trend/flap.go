package trend

import (
	"fmt"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/rates"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Flap is one observed link flap of a port.
type Flap struct {
	Device string    `json:"device"`
	Port   int       `json:"port"`
	T      time.Time `json:"t"`
	// Count is how many flaps this observation stands for (link_downed can
	// rise by more than one between samples).
	Count int `json:"count"`
	// Evidence says what showed it: "link_downed +2", "carrier_changes +2",
	// "state ACTIVE → DOWN".
	Evidence string `json:"evidence"`
}

// Flaps compares two consecutive samples and returns the flaps seen
// between them, at cur.T. Per port it takes the largest of: the link_downed
// increase, half the netdev's carrier_changes increase (a flap is a down and
// an up) rounded up, and one for an ACTIVE port that is no longer ACTIVE —
// the three describe the same events, so they are not added. A reset
// counter (driver reload) gives no flap by itself.
func Flaps(prev, cur *Sample) []Flap {
	var out []Flap
	for i := range cur.Ports {
		p := &cur.Ports[i]
		q := prev.Port(p.Device, p.Port)
		if q == nil {
			continue
		}
		n := 0
		var why []string
		if d, ok := increase(q, p, SrcCounters, "link_downed"); ok && d > 0 {
			n = max(n, int(d))
			why = append(why, fmt.Sprintf("link_downed +%d", d))
		}
		if d, ok := increase(q, p, SrcNetDev, "carrier_changes"); ok && d > 0 {
			n = max(n, int((d+1)/2))
			why = append(why, fmt.Sprintf("carrier_changes +%d", d))
		}
		if q.Active() && p.State != "" && !p.Active() {
			n = max(n, 1)
			why = append(why, fmt.Sprintf("state %s → %s", q.State, p.State))
		}
		if n > 0 {
			out = append(out, Flap{Device: p.Device, Port: p.Port, T: cur.T, Count: n, Evidence: strings.Join(why, ", ")})
		}
	}
	return out
}

func increase(prev, cur *Port, src Source, name string) (uint64, bool) {
	a, ok1 := prev.Reading(src, name)
	b, ok2 := cur.Reading(src, name)
	if !ok1 || !ok2 {
		return 0, false
	}
	d, st := rates.Increase(b.Spec(), a.Value, b.Value)
	return d, st.Known()
}

// LinkFlapping counts each port's flaps within FlapWindow before now:
// FlapWarning or more is a warning, FlapCritical or more critical.
func LinkFlapping(in Input, th Thresholds) []finding.Finding {
	now := in.now()
	from := now.Add(-time.Duration(th.FlapWindow))
	flaps := append([]Flap(nil), in.Flaps...)
	sortFlaps(flaps)
	var out []finding.Finding
	for i := 0; i < len(flaps); {
		j := i
		n := 0
		var ev []finding.Evidence
		for ; j < len(flaps) && flaps[j].Device == flaps[i].Device && flaps[j].Port == flaps[i].Port; j++ {
			f := flaps[j]
			if f.T.Before(from) || f.T.After(now) {
				continue
			}
			n += f.Count
			ev = append(ev, finding.Evidence{Source: "flap at " + f.T.UTC().Format(time.RFC3339), Value: f.Evidence})
		}
		if n >= th.FlapWarning {
			p := Port{Device: flaps[i].Device, Port: flaps[i].Port}
			if cur := in.last().Port(p.Device, p.Port); cur != nil {
				p = *cur
			}
			f := catalog.New("port.link_flapping", subject(in.Host, &p),
				fmt.Sprintf("%s port %d went down %d time(s) in the last %s", p.Device, p.Port, n, th.FlapWindow), ev...)
			f.Severity = finding.Warning
			if n >= th.FlapCritical {
				f.Severity = finding.Critical
			}
			out = append(out, f)
		}
		i = j
	}
	return out
}
