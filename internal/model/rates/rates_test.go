package rates

import (
	"math"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

func TestIncrease(t *testing.T) {
	symbol := ib.PortCounterSpec("symbol_error", false)   // 16-bit saturating
	data32 := ib.PortCounterSpec("port_xmit_data", false) // 32-bit saturating words
	data64 := ib.PortCounterSpec("port_xmit_data", true)  // 64-bit
	qctr := ib.HWCounterSpec("out_of_buffer")             // 32-bit wrapping
	cnp := ib.HWCounterSpec("rp_cnp_ignored")             // 64-bit
	downed := ib.PortCounterSpec("link_downed", false)    // 8-bit saturating
	tests := []struct {
		name      string
		spec      ib.CounterSpec
		prev, cur uint64
		want      uint64
		status    Status
	}{
		{"steady", symbol, 5, 5, 0, StatusOK},
		{"growth", symbol, 5, 105, 100, StatusOK},
		{"saturates now", symbol, 65000, 65535, 0, StatusSaturated},
		{"stays saturated", symbol, 65535, 65535, 0, StatusSaturated},
		{"reset after saturation", symbol, 65535, 3, 0, StatusReset},
		{"perfquery -R", symbol, 900, 0, 0, StatusReset},
		{"link_downed at 255", downed, 254, 255, 0, StatusSaturated},
		{"32-bit data words saturate", data32, 4294967000, 4294967295, 0, StatusSaturated},
		{"64-bit data grows", data64, 1 << 40, 1<<40 + 1000, 1000, StatusOK},
		{"64-bit data drop is reset", data64, 1 << 40, 10, 0, StatusReset},
		{"q counter wraps once", qctr, 4294967290, 4, 10, StatusWrapped},
		{"q counter at max is not saturated", qctr, 4294967290, 4294967295, 5, StatusOK},
		{"q counter wrap from zero-ish", qctr, 1, 0, 4294967295, StatusWrapped},
		{"64-bit hw drop is reset", cnp, 500, 2, 0, StatusReset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, st := Increase(tt.spec, tt.prev, tt.cur)
			if got != tt.want || st != tt.status {
				t.Errorf("Increase(%s, %d, %d) = %d, %v; want %d, %v", tt.spec.Name, tt.prev, tt.cur, got, st, tt.want, tt.status)
			}
		})
	}
}

func TestPer(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(15 * time.Second)
	data := ib.PortCounterSpec("port_rcv_data", true)
	// 15 s at 25 GB/s = 375e9 bytes = 93.75e9 words.
	r := Per(data, 1000, 1000+93_750_000_000, t0, t1)
	if !r.Known() || math.Abs(r.PerSecond-25e9) > 1 || r.Increase != 375e9 {
		t.Errorf("data rate = %+v; want 25e9 B/s over 375e9 bytes", r)
	}
	sym := ib.PortCounterSpec("symbol_error", false)
	if r := Per(sym, 10, 40, t0, t1); !r.Known() || r.PerSecond != 2 {
		t.Errorf("symbol rate = %+v; want 2/s", r)
	}
	if r := Per(sym, 10, 65535, t0, t1); r.Known() || r.PerSecond != 0 || r.Status != StatusSaturated {
		t.Errorf("saturated rate = %+v; want unknown", r)
	}
	if r := Per(sym, 10, 40, t1, t0); r.Status != StatusNoData {
		t.Errorf("time going backwards = %+v; want no_data", r)
	}
	if r := Per(sym, 10, 40, t0, t0); r.Status != StatusNoData {
		t.Errorf("zero interval = %+v; want no_data", r)
	}
}

func TestWrapProne(t *testing.T) {
	for _, tt := range []struct {
		spec ib.CounterSpec
		want bool
	}{
		{ib.HWCounterSpec("packet_seq_err"), true},
		{ib.HWCounterSpec("vport_out_of_buffer"), true},
		{ib.HWCounterSpec("np_cnp_sent"), false},
		{ib.PortCounterSpec("symbol_error", false), false},
		{ib.PortCounterSpec("port_xmit_wait", true), false},
		{ib.CounterSpec{Name: "unknown"}, false},
	} {
		if got := WrapProne(tt.spec); got != tt.want {
			t.Errorf("WrapProne(%s) = %v, want %v", tt.spec.Name, got, tt.want)
		}
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{StatusOK: "ok", StatusWrapped: "wrapped", StatusReset: "reset", StatusSaturated: "saturated", StatusNoData: "no_data", Status(99): "unknown"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
		var back Status
		if err := back.UnmarshalText([]byte(want)); (err == nil) != (want != "unknown") || (err == nil && back != s) {
			t.Errorf("UnmarshalText(%q) = %v, %v", want, back, err)
		}
	}
}

func BenchmarkPer(b *testing.B) {
	t0 := time.Unix(0, 0)
	t1 := t0.Add(15 * time.Second)
	specs := []ib.CounterSpec{ib.PortCounterSpec("port_xmit_data", true), ib.PortCounterSpec("symbol_error", false), ib.HWCounterSpec("out_of_buffer")}
	b.ReportAllocs()
	var sink float64
	for i := 0; b.Loop(); i++ {
		s := specs[i%3]
		sink += Per(s, uint64(i), uint64(i)*3, t0, t1).PerSecond
	}
	_ = sink
}
