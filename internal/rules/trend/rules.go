package trend

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// PortKey names a port.
type PortKey struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
}

// String formats the key as "mlx5_0/1".
func (k PortKey) String() string { return fmt.Sprintf("%s/%d", k.Device, k.Port) }

// Input is everything the rules over time judge.
type Input struct {
	Host string
	// History is the sample window, oldest first; the last is "now".
	History []Sample
	// Flaps is the flap history (persisted across restarts), any order.
	Flaps []Flap
	// Expected is the expected active rate of a port in Gb/s: from the
	// expectation file, else the best rate the agent has seen on it.
	Expected map[PortKey]float64
	// Windows, when set, caches the window sums along History between
	// calls (the agent keeps one); nil walks History for every sum.
	Windows *Windows
}

// Evaluate runs every rule over time and returns the findings sorted.
func Check(in Input, th Thresholds) []finding.Finding {
	if len(in.History) == 0 {
		return nil
	}
	var out []finding.Finding
	out = append(out, ErrorRates(in, th)...)
	out = append(out, Saturated(in)...)
	out = append(out, LinkFlapping(in, th)...)
	out = append(out, Congestion(in, th)...)
	out = append(out, RateBelowExpected(in, th)...)
	out = append(out, RoCE(in, th)...)
	catalog.Sort(out)
	return out
}

func (in Input) now() time.Time { return in.History[len(in.History)-1].T }

func (in Input) last() *Sample { return &in.History[len(in.History)-1] }

// sum is the window sum of one counter of one port, through the cache
// when there is one.
func (in Input) sum(dev string, port int, src Source, name string, from, to time.Time) agg {
	if in.Windows != nil {
		return in.Windows.sum(in.History, dev, port, src, name, from, to)
	}
	return sumWindow(in.History, dev, port, src, name, from, to)
}

func subject(host string, p *Port) finding.Subject {
	return finding.Subject{Host: host, Device: p.Device, Port: p.Port, NetDev: p.NetDev, LinkLayer: p.LinkLayer}
}

// sysPath is the file a reading comes from, relative to the root.
func sysPath(p *Port, src Source, name string) string {
	switch src {
	case SrcCounters, SrcHW:
		return fmt.Sprintf("sys/class/infiniband/%s/ports/%d/%s/%s", p.Device, p.Port, src, name)
	case SrcNetDev:
		return fmt.Sprintf("sys/class/net/%s/%s", p.NetDev, name)
	}
	return fmt.Sprintf("ethtool -S %s: %s", p.NetDev, name)
}

// errorRule is an error counter (or a sum of them) judged by rate and,
// where growth is set, by growth against the preceding window.
type errorRule struct {
	id       string
	src      Source
	counters []string
	perMin   func(Thresholds) float64
	growth   bool
	what     string
}

var errorRules = []errorRule{
	{"port.symbol_errors", SrcCounters, []string{"symbol_error"}, func(t Thresholds) float64 { return t.SymbolErrorsPerMin }, true, "symbol errors"},
	{"port.link_recovery", SrcCounters, []string{"link_error_recovery"}, func(t Thresholds) float64 { return t.LinkRecoveryPerMin }, true, "link error recoveries"},
	{"port.rcv_errors", SrcCounters, []string{"port_rcv_errors"}, func(t Thresholds) float64 { return t.RcvErrorsPerMin }, true, "receive errors"},
	{"port.xmit_discards", SrcCounters, []string{"port_xmit_discards"}, func(t Thresholds) float64 { return t.XmitDiscardsPerMin }, true, "transmit discards"},
	{"rdma.out_of_buffer", SrcHW, []string{"out_of_buffer"}, func(t Thresholds) float64 { return t.OutOfBufferPerMin }, false, "out-of-buffer drops"},
	{"rdma.retransmits", SrcHW, []string{"local_ack_timeout_err", "packet_seq_err", "implied_nak_seq_err", "rnr_nak_retry_err"}, func(t Thresholds) float64 { return t.RetransmitsPerMin }, false, "retransmission events"},
	{"rdma.cnp_ignored", SrcHW, []string{"rp_cnp_ignored"}, func(t Thresholds) float64 { return t.CNPIgnoredPerMin }, false, "ignored CNPs"},
}

// ErrorRates judges error counters over the last window: a rate above the
// per-minute limit, growth by more than GrowthFactor versus the preceding
// window ("an order of magnitude in a short time"), and for symbol
// errors the bit-error-rate estimate against SymbolBERMax. Only sustained
// evidence counts: pairs with a reset or saturation are unknown, not zero.
func ErrorRates(in Input, th Thresholds) []finding.Finding {
	now := in.now()
	w := time.Duration(th.Window)
	var out []finding.Finding
	for i := range in.last().Ports {
		p := &in.last().Ports[i]
		for _, r := range errorRules {
			// Judged only where the latest sample has one of the
			// counters; the preceding window only where this one rose.
			if !slices.ContainsFunc(r.counters, func(c string) bool { _, ok := p.Reading(r.src, c); return ok }) {
				continue
			}
			var cur, prev agg
			for _, c := range r.counters {
				cur.add(in.sum(p.Device, p.Port, r.src, c, now.Add(-w), now))
			}
			if !cur.known() || cur.inc == 0 {
				continue
			}
			for _, c := range r.counters {
				prev.add(in.sum(p.Device, p.Port, r.src, c, now.Add(-2*w), now.Add(-w)))
			}
			var reasons []string
			rate := cur.perMin()
			if limit := r.perMin(th); rate > limit && !(r.id == "port.symbol_errors" && p.RateGbps > 0) {
				reasons = append(reasons, fmt.Sprintf("%.3g/min above the limit of %g/min", rate, limit))
			}
			if r.growth && prev.known() && cur.inc >= th.GrowthMinEvents && cur.inc > th.GrowthFactor*prev.inc {
				reasons = append(reasons, fmt.Sprintf("grew from %.0f to %.0f versus the preceding %s (more than %g×)", prev.inc, cur.inc, w, th.GrowthFactor))
			}
			ev := []finding.Evidence{{Source: sysPath(p, r.src, strings.Join(r.counters, "+")),
				Value: fmt.Sprintf("+%.0f in %s (%.3g/min)", cur.inc, time.Duration(cur.secs*float64(time.Second)).Round(time.Second), rate)}}
			if prev.known() {
				ev = append(ev, finding.Evidence{Source: "preceding window", Value: fmt.Sprintf("+%.0f in %s", prev.inc, w)})
			}
			if r.id == "port.symbol_errors" && p.RateGbps > 0 {
				ber := cur.inc / (p.RateGbps * 1e9 * cur.secs)
				ev = append(ev, finding.Evidence{Source: "bit error rate estimate", Value: fmt.Sprintf("%.2g (symbol errors / (%g Gb/s × %.0f s); IBTA line %g)", ber, p.RateGbps, cur.secs, th.SymbolBERMax)})
				if ber > th.SymbolBERMax {
					reasons = append(reasons, fmt.Sprintf("bit error rate estimate %.2g above %g", ber, th.SymbolBERMax))
				}
			}
			if len(reasons) == 0 {
				continue
			}
			f := catalog.New(r.id, subject(in.Host, p),
				fmt.Sprintf("%s port %d: %s: %s", p.Device, p.Port, r.what, strings.Join(reasons, "; ")), ev...)
			out = append(out, f)
		}
	}
	return out
}

// Saturated reports IBTA error counters stuck at their maximum in the
// latest sample: their true value and rate are unknown (IBTA: a saturated counter stops at its maximum).
func Saturated(in Input) []finding.Finding {
	var out []finding.Finding
	for i := range in.last().Ports {
		p := &in.last().Ports[i]
		var ev []finding.Evidence
		var names []string
		for _, r := range p.Readings {
			if r.Spec().IsSaturated(r.Value) {
				names = append(names, r.Name)
				ev = append(ev, finding.Evidence{Source: sysPath(p, r.Source, r.Name), Value: fmt.Sprintf("%d (maximum of a %d-bit counter)", r.Value, r.Bits)})
			}
		}
		if len(names) == 0 {
			continue
		}
		out = append(out, catalog.New("port.counter_saturated", subject(in.Host, p),
			fmt.Sprintf("%s port %d: %s saturated; new errors are invisible until the counters are reset", p.Device, p.Port, strings.Join(names, ", ")), ev...))
	}
	return out
}

// Congestion judges port_xmit_wait as a share of time over the window:
// share = ticks × XmitWaitTick / seconds, capped at 1. The tick of
// PortXmitWait is implementation-defined (IBTA); the default of 4 ns is an
// assumption chosen so that the 32-bit counter can span one 15 s interval
// of continuous waiting, and is configurable (xmit_wait_tick). A counter
// that saturates is reported by Saturated instead (its rate is unknown).
func Congestion(in Input, th Thresholds) []finding.Finding {
	now := in.now()
	w := time.Duration(th.Window)
	var out []finding.Finding
	for i := range in.last().Ports {
		p := &in.last().Ports[i]
		a := in.sum(p.Device, p.Port, SrcCounters, "port_xmit_wait", now.Add(-w), now)
		if !a.known() || a.inc == 0 {
			continue
		}
		share := math.Min(a.inc*time.Duration(th.XmitWaitTick).Seconds()/a.secs, 1)
		if share <= th.CongestionFraction {
			continue
		}
		out = append(out, catalog.New("port.congestion", subject(in.Host, p),
			fmt.Sprintf("%s port %d waited for credits %.0f%% of the last %s (limit %.0f%%)", p.Device, p.Port, share*100, w, th.CongestionFraction*100),
			finding.Evidence{Source: sysPath(p, SrcCounters, "port_xmit_wait"), Value: fmt.Sprintf("+%.0f ticks in %.0f s", a.inc, a.secs)}))
	}
	return out
}

// RateBelowExpected compares each ACTIVE port's rate with its expected
// rate: a shortfall above RateShortfall (more than 20% below
// expectation) is critical, any shortfall a warning. Ports that are not
// ACTIVE are the static rules' business (port.down and friends).
func RateBelowExpected(in Input, th Thresholds) []finding.Finding {
	var out []finding.Finding
	for i := range in.last().Ports {
		p := &in.last().Ports[i]
		want, ok := in.Expected[PortKey{p.Device, p.Port}]
		if !ok || want <= 0 || !p.Active() || p.RateGbps <= 0 || p.RateGbps >= want {
			continue
		}
		short := 1 - p.RateGbps/want
		f := catalog.New("port.rate_below_expected", subject(in.Host, p),
			fmt.Sprintf("%s port %d runs at %g Gb/s, %.0f%% below the expected %g Gb/s", p.Device, p.Port, p.RateGbps, short*100, want),
			finding.Evidence{Source: fmt.Sprintf("sys/class/infiniband/%s/ports/%d/rate", p.Device, p.Port), Value: fmt.Sprintf("%g Gb/s", p.RateGbps)},
			finding.Evidence{Source: "expected rate", Value: fmt.Sprintf("%g Gb/s", want)})
		if short <= th.RateShortfall {
			f.Severity = finding.Warning
		}
		out = append(out, f)
	}
	return out
}

// sortFlaps orders flaps by port then time.
func sortFlaps(fs []Flap) {
	slices.SortFunc(fs, func(a, b Flap) int {
		if c := strings.Compare(a.Device, b.Device); c != 0 {
			return c
		}
		if a.Port != b.Port {
			return a.Port - b.Port
		}
		return a.T.Compare(b.T)
	})
}
