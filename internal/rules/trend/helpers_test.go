package trend

import (
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const step = 15 * time.Second

func ctr(name string, v uint64) Reading {
	s := ib.PortCounterSpec(name, true)
	return Reading{Source: SrcCounters, Name: name, Value: v, Bits: s.Bits, Saturating: s.Saturating, Unit: s.Unit}
}

func hw(name string, v uint64) Reading {
	s := ib.HWCounterSpec(name)
	return Reading{Source: SrcHW, Name: name, Value: v, Bits: s.Bits, Saturating: s.Saturating, Unit: s.Unit}
}

func eth(name string, v uint64) Reading {
	return Reading{Source: SrcEthtool, Name: name, Value: v, Bits: 64}
}

func carrier(v uint64) Reading {
	return Reading{Source: SrcNetDev, Name: "carrier_changes", Value: v, Bits: 64}
}

// port builds an ACTIVE port at rate Gb/s (0: DOWN).
func port(dev string, n int, rate float64, rs ...Reading) Port {
	p := Port{Device: dev, Port: n, LinkLayer: "InfiniBand", State: "ACTIVE", RateGbps: rate, Readings: rs}
	if rate == 0 {
		p.State = "DOWN"
	}
	return p
}

// series builds n samples 15 s apart; gen returns the ports of sample i.
func series(n int, gen func(i int) []Port) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = Sample{T: t0.Add(time.Duration(i) * step), Ports: gen(i)}
		out[i].Sort()
	}
	return out
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	return out
}
