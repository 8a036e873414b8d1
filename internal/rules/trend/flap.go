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
// between them, at cur.T. A flap is counted where the link went down; the
// way back up is part of the same flap. Per port it takes the largest of:
// the link_downed increase (the IBTA counter counts only down transitions),
// the carrier losses within the netdev's carrier_changes increase, and one
// for an ACTIVE port that is no longer ACTIVE — the three describe the same
// events, so they are not added. A port that went down in one interval and
// came back in the next counts once. A reset counter (driver reload) gives
// no flap by itself.
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
			if downs := carrierLosses(q, p, d); downs > 0 {
				n = max(n, downs)
				why = append(why, fmt.Sprintf("carrier_changes +%d", d))
			}
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

// carrierLosses is how many of d carrier changes between prev and cur were
// losses. The kernel counts both directions in carrier_changes
// (net/core/net-sysfs.c), and they alternate, so the state at either end
// decides: starting up, the odd changes are losses (ceil(d/2)); starting
// down, the even ones (floor(d/2)). The start is prev's state, else derived
// from cur's (an odd d flips it); with neither known, half rounded down, so
// an up transition alone is never a flap.
func carrierLosses(prev, cur *Port, d uint64) int {
	var startUp bool
	switch {
	case prev.State != "":
		startUp = prev.Active()
	case cur.State != "":
		startUp = cur.Active() == (d%2 == 0)
	default:
		return int(d / 2)
	}
	if startUp {
		return int((d + 1) / 2)
	}
	return int(d / 2)
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
