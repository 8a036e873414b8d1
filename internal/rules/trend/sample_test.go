package trend

import (
	"time"

	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/rates"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

func TestFromSnapshot(t *testing.T) {
	active, down := ib.StateActive, ib.StateDown
	rate := ib.NewRate(4, ib.SpeedNDR)
	cc := uint64(6)
	counter := func(name string, v uint64) snapshot.Counter {
		return snapshot.Counter{Name: name, Value: v, Spec: ib.PortCounterSpec(name, true)}
	}
	hwc := func(name string, v uint64) snapshot.Counter {
		return snapshot.Counter{Name: name, Value: v, Spec: ib.HWCounterSpec(name)}
	}
	s := &snapshot.Snapshot{Taken: t0, Devices: []snapshot.Device{
		{Name: "mlx5_1", Ports: []snapshot.Port{{Device: "mlx5_1", Number: 1, LinkLayer: ib.LinkLayerEthernet, State: &active, Rate: &rate, NetDev: "eth1",
			Counters: []snapshot.Counter{counter("port_xmit_data", 10), counter("symbol_error", 2)}, HWCounters: []snapshot.Counter{hwc("lifespan", 10), hwc("out_of_buffer", 3)}}}},
		{Name: "mlx5_0", Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &down, Rate: &rate}}},
	}, NetDevs: []snapshot.NetDev{{Name: "eth1", CarrierChanges: &cc}}}
	got := FromSnapshot(s, Ethtool{"eth1": {"rx_prio3_pause": 7}, "eth9": {"x": 1}})
	want := Sample{T: t0, Ports: []Port{
		{Device: "mlx5_0", Port: 1, LinkLayer: "InfiniBand", State: "DOWN", Readings: []Reading{}},
		{Device: "mlx5_1", Port: 1, LinkLayer: "Ethernet", NetDev: "eth1", State: "ACTIVE", RateGbps: 400, Readings: []Reading{
			{Source: SrcCounters, Name: "port_xmit_data", Value: 10, Bits: 64, Unit: ib.UnitWords4},
			{Source: SrcCounters, Name: "symbol_error", Value: 2, Bits: 16, Saturating: true, Unit: ib.UnitErrors},
			{Source: SrcEthtool, Name: "rx_prio3_pause", Value: 7, Bits: 64},
			{Source: SrcHW, Name: "out_of_buffer", Value: 3, Bits: 32, Unit: ib.UnitPackets},
			{Source: SrcNetDev, Name: "carrier_changes", Value: 6, Bits: 64},
		}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FromSnapshot (-want +got):\n%s", diff)
	}
	if r, ok := got.Port("mlx5_1", 1).Reading(SrcHW, "out_of_buffer"); !ok || r.Value != 3 {
		t.Errorf("Reading lookup: %v %v", r, ok)
	}
	if got.Port("mlx5_1", 2) != nil {
		t.Error("Port lookup of a missing port")
	}
}

func TestRates(t *testing.T) {
	prev := Sample{T: t0, Ports: []Port{port("mlx5_0", 1, 400, ctr("port_xmit_data", 1000), ctr("symbol_error", 65535), hw("out_of_buffer", 4294967290))}}
	cur := Sample{T: t0.Add(10 * time.Second), Ports: []Port{
		port("mlx5_0", 1, 400, ctr("port_xmit_data", 1000+2_500_000_000), ctr("symbol_error", 65535), hw("out_of_buffer", 10), ctr("link_downed", 0)),
		port("mlx5_1", 1, 400, ctr("port_xmit_data", 5)),
	}}
	prev.Sort()
	cur.Sort()
	got := Rates(&prev, &cur)
	want := []CounterRate{
		{Device: "mlx5_0", Port: 1, Source: SrcCounters, Name: "port_xmit_data", Rate: rates.Rate{PerSecond: 1e9, Increase: 1e10, Status: rates.StatusOK}},
		{Device: "mlx5_0", Port: 1, Source: SrcCounters, Name: "symbol_error", Rate: rates.Rate{Status: rates.StatusSaturated}},
		{Device: "mlx5_0", Port: 1, Source: SrcHW, Name: "out_of_buffer", Rate: rates.Rate{PerSecond: 1.6, Increase: 16, Status: rates.StatusWrapped}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rates (-want +got):\n%s", diff)
	}
}

// TestReadingFrom: a hint that is right, wrong or out of range finds the
// same answer as a binary search, present and absent alike.
func TestReadingFrom(t *testing.T) {
	p := Port{Readings: []Reading{
		{Source: SrcCounters, Name: "link_downed"},
		{Source: SrcCounters, Name: "symbol_error"},
		{Source: SrcHW, Name: "out_of_buffer"},
		{Source: SrcHW, Name: "rp_cnp_ignored"},
	}}
	names := []struct {
		src  Source
		name string
		at   int
		ok   bool
	}{
		{SrcCounters, "link_downed", 0, true},
		{SrcCounters, "a_first", 0, false},
		{SrcCounters, "port_xmit_wait", 1, false},
		{SrcCounters, "symbol_error", 1, true},
		{SrcHW, "out_of_buffer", 2, true},
		{SrcHW, "packet_seq_err", 3, false},
		{SrcHW, "rp_cnp_ignored", 3, true},
		{SrcHW, "zz_last", 4, false},
	}
	for _, c := range names {
		for hint := -2; hint <= len(p.Readings)+2; hint++ {
			at, ok := p.readingFrom(hint, c.src, c.name)
			if at != c.at || ok != c.ok {
				t.Errorf("readingFrom(%d, %s, %s) = %d, %v; want %d, %v", hint, c.src, c.name, at, ok, c.at, c.ok)
			}
		}
	}
}
