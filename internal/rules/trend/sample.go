package trend

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/rates"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// Source says which file family a reading comes from.
type Source string

// Reading sources.
const (
	// SrcCounters is /sys/class/infiniband/<dev>/ports/<n>/counters/.
	SrcCounters Source = "counters"
	// SrcHW is /sys/class/infiniband/<dev>/ports/<n>/hw_counters/.
	SrcHW Source = "hw_counters"
	// SrcEthtool is `ethtool -S <netdev>` (SIOCETHTOOL ETHTOOL_GSTATS).
	SrcEthtool Source = "ethtool"
	// SrcNetDev is /sys/class/net/<netdev>/ (carrier_changes).
	SrcNetDev Source = "netdev"
)

// Sample is one read of every port's counters and state at time T.
type Sample struct {
	T     time.Time `json:"t"`
	Ports []Port    `json:"ports"`
}

// Port is one port in a sample. Readings are sorted by source then name.
type Port struct {
	Device    string `json:"device"`
	Port      int    `json:"port"`
	LinkLayer string `json:"link_layer,omitempty"`
	NetDev    string `json:"netdev,omitempty"`
	// State is the logical port state ("ACTIVE", "DOWN", …); "" unknown.
	State string `json:"state,omitempty"`
	// RateGbps is the active rate (0 when the port is not ACTIVE or the
	// rate is unreadable: a down RoCE port's rate means nothing).
	RateGbps float64   `json:"rate_gbps,omitempty"`
	Readings []Reading `json:"readings"`
}

// Active reports whether the logical state is ACTIVE.
func (p *Port) Active() bool { return p.State == ib.StateActive.String() }

// Reading is one counter value with the parts of its spec that decide
// increases (width, saturation, unit), so a sample restored from the store
// is judged exactly as when it was read.
type Reading struct {
	Source     Source  `json:"src"`
	Name       string  `json:"name"`
	Value      uint64  `json:"v"`
	Bits       int     `json:"bits,omitempty"`
	Saturating bool    `json:"sat,omitempty"`
	Unit       ib.Unit `json:"unit,omitempty"`
}

// Spec rebuilds the counter spec the increase rules need.
func (r Reading) Spec() ib.CounterSpec {
	return ib.CounterSpec{Name: r.Name, Bits: r.Bits, Saturating: r.Saturating, Unit: r.Unit}
}

func compareReading(a Reading, src Source, name string) int {
	if a.Source != src {
		return strings.Compare(string(a.Source), string(src))
	}
	return strings.Compare(a.Name, name)
}

// Reading returns a reading by source and name.
func (p *Port) Reading(src Source, name string) (Reading, bool) {
	i := p.readingIndex(src, name)
	if i < 0 {
		return Reading{}, false
	}
	return p.Readings[i], true
}

// readingIndex is the index of a reading in p.Readings, or -1.
func (p *Port) readingIndex(src Source, name string) int {
	i, ok := slices.BinarySearchFunc(p.Readings, Reading{Source: src, Name: name}, func(a, b Reading) int {
		return compareReading(a, b.Source, b.Name)
	})
	if !ok {
		return -1
	}
	return i
}

// readingFrom finds a reading by source and name, trying first at hint:
// the index where another sample's port had it, or would have had it.
// Samples mostly hold the same readings in the same places, so a reading
// that is there, and one that is absent, is usually settled by one or two
// comparisons instead of a binary search. It returns the index (where the
// reading is or would be, the next hint) and whether it is there.
func (p *Port) readingFrom(hint int, src Source, name string) (int, bool) {
	rs := p.Readings
	if hint >= 0 && hint <= len(rs) {
		after := hint == len(rs) || compareReading(rs[hint], src, name) >= 0
		before := hint == 0 || compareReading(rs[hint-1], src, name) < 0
		if after && before {
			return hint, hint < len(rs) && compareReading(rs[hint], src, name) == 0
		}
	}
	return slices.BinarySearchFunc(rs, Reading{Source: src, Name: name}, func(a, b Reading) int {
		return compareReading(a, b.Source, b.Name)
	})
}

// Port returns a port of the sample, or nil.
func (s *Sample) Port(dev string, n int) *Port {
	i := s.portIndex(dev, n)
	if i < 0 {
		return nil
	}
	return &s.Ports[i]
}

// portIndex is the index of a port in s.Ports, or -1.
func (s *Sample) portIndex(dev string, n int) int {
	i, ok := slices.BinarySearchFunc(s.Ports, Port{Device: dev, Port: n}, comparePort)
	if !ok {
		return -1
	}
	return i
}

func comparePort(a, b Port) int {
	return cmp.Or(strings.Compare(a.Device, b.Device), cmp.Compare(a.Port, b.Port))
}

// Sort puts ports and readings in the order lookups expect.
func (s *Sample) Sort() {
	slices.SortFunc(s.Ports, comparePort)
	for i := range s.Ports {
		slices.SortFunc(s.Ports[i].Readings, func(a, b Reading) int { return compareReading(a, b.Source, b.Name) })
	}
}

// Ethtool holds `ethtool -S` statistics per netdev name.
type Ethtool map[string]map[string]uint64

// FromSnapshot extracts a Sample from a snapshot: every port's counters
// and hw_counters (hw_counters/lifespan is a setting and is skipped), the
// netdev's carrier_changes, and the ethtool statistics of the port's
// netdev (eth may be nil). Ethtool counters are 64-bit, non-saturating.
func FromSnapshot(s *snapshot.Snapshot, eth Ethtool) Sample {
	out := Sample{T: s.Taken}
	for _, d := range s.Devices {
		for _, p := range d.Ports {
			tp := Port{Device: d.Name, Port: p.Number, LinkLayer: string(p.LinkLayer), NetDev: p.NetDev}
			if p.State != nil {
				tp.State = p.State.String()
			}
			if p.IsActive() && p.Rate != nil {
				tp.RateGbps = p.Rate.Gbps()
			}
			tp.Readings = make([]Reading, 0, len(p.Counters)+len(p.HWCounters)+1)
			for _, c := range p.Counters {
				tp.Readings = append(tp.Readings, reading(SrcCounters, c))
			}
			for _, c := range p.HWCounters {
				if c.Spec.Kind == ib.KindSetting || c.Name == "lifespan" {
					continue
				}
				tp.Readings = append(tp.Readings, reading(SrcHW, c))
			}
			if nd := s.NetDev(p.NetDev); nd != nil && nd.CarrierChanges != nil {
				tp.Readings = append(tp.Readings, Reading{Source: SrcNetDev, Name: "carrier_changes", Value: *nd.CarrierChanges, Bits: 64})
			}
			for name, v := range eth[p.NetDev] {
				tp.Readings = append(tp.Readings, Reading{Source: SrcEthtool, Name: name, Value: v, Bits: 64})
			}
			out.Ports = append(out.Ports, tp)
		}
	}
	out.Sort()
	return out
}

func reading(src Source, c snapshot.Counter) Reading {
	return Reading{Source: src, Name: c.Name, Value: c.Value, Bits: c.Spec.Bits, Saturating: c.Spec.Saturating, Unit: c.Spec.Unit}
}

// CounterRate is the per-second rate of one reading between two samples.
type CounterRate struct {
	Device string     `json:"device"`
	Port   int        `json:"port"`
	Source Source     `json:"src"`
	Name   string     `json:"name"`
	Rate   rates.Rate `json:"rate"`
}

// Rates computes the rate of every reading present in both samples, in
// cur's order. Data counters come out in bytes per second; saturated,
// reset and no-data rates carry their status and no number.
func Rates(prev, cur *Sample) []CounterRate {
	var out []CounterRate
	for i := range cur.Ports {
		p := &cur.Ports[i]
		q := prev.Port(p.Device, p.Port)
		if q == nil {
			continue
		}
		for _, r := range p.Readings {
			o, ok := q.Reading(r.Source, r.Name)
			if !ok {
				continue
			}
			out = append(out, CounterRate{Device: p.Device, Port: p.Port, Source: r.Source, Name: r.Name,
				Rate: rates.Per(r.Spec(), o.Value, r.Value, prev.T, cur.T)})
		}
	}
	return out
}
