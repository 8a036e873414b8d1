package ib

import (
	"errors"
	"testing"
)

func TestPortCounterSpec(t *testing.T) {
	tests := []struct {
		name      string
		ext       bool
		bits      int
		sat       bool
		bytesUnit uint64
		max       uint64
	}{
		{"symbol_error", false, 16, true, 0, 65535},
		{"symbol_error", true, 16, true, 0, 65535},
		{"link_downed", false, 8, true, 0, 255},
		{"link_error_recovery", false, 8, true, 0, 255},
		{"local_link_integrity_errors", false, 4, true, 0, 15},
		{"excessive_buffer_overrun_errors", false, 4, true, 0, 15},
		{"port_xmit_data", false, 32, true, 4, 1<<32 - 1},
		{"port_xmit_data", true, 64, false, 4, 1<<64 - 1},
		{"port_rcv_data", true, 64, false, 4, 1<<64 - 1},
		{"port_xmit_wait", true, 32, true, 0, 1<<32 - 1},
		{"unicast_xmit_packets", true, 64, false, 0, 1<<64 - 1},
		{"brand_new_counter", false, 64, false, 0, 1<<64 - 1},
	}
	for _, tt := range tests {
		c := PortCounterSpec(tt.name, tt.ext)
		if c.Bits != tt.bits || c.Saturating != tt.sat || c.BytesPerUnit() != tt.bytesUnit || c.Max() != tt.max {
			t.Errorf("%s ext=%v: bits %d sat %v bytes/unit %d max %d", tt.name, tt.ext, c.Bits, c.Saturating, c.BytesPerUnit(), c.Max())
		}
	}
	se := PortCounterSpec("symbol_error", false)
	if !se.IsSaturated(65535) || se.IsSaturated(65534) {
		t.Error("symbol_error saturation at 65535")
	}
	if PortCounterSpec("port_xmit_data", true).IsSaturated(1<<64 - 1) {
		t.Error("64-bit counters never report saturation")
	}
}

func TestHWCounterSpec(t *testing.T) {
	if c := HWCounterSpec("out_of_buffer"); c.Bits != 32 || c.Kind != KindError || c.Saturating {
		t.Errorf("out_of_buffer: %+v", c)
	}
	if c := HWCounterSpec("vport_out_of_buffer"); c.Bits != 32 || c.Name != "vport_out_of_buffer" {
		t.Errorf("vport_ prefix: %+v", c)
	}
	if c := HWCounterSpec("rp_cnp_handled"); c.Bits != 64 {
		t.Errorf("congestion counters are 64-bit: %+v", c)
	}
	if c := HWCounterSpec("lifespan"); c.Kind != KindSetting {
		t.Errorf("lifespan is a setting: %+v", c)
	}
	if c := HWCounterSpec("future_counter"); c.Kind != KindInfo || c.Bits != 64 {
		t.Errorf("unknown: %+v", c)
	}
}

func TestParseCounter(t *testing.T) {
	if v, err := ParseCounter("18446744073709551615\n"); err != nil || v != 1<<64-1 {
		t.Errorf("max uint64: %d %v", v, err)
	}
	if _, err := ParseCounter("N/A (no PMA)\n"); !errors.Is(err, ErrNoPMA) {
		t.Errorf("N/A: %v", err)
	}
	for _, in := range []string{"", "-1", "12a", "0x10", "18446744073709551616"} {
		if _, err := ParseCounter(in); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseCounter(%q) = %v", in, err)
		}
	}
}

func FuzzParseCounter(f *testing.F) {
	for _, s := range []string{"0\n", "65535\n", "N/A (no PMA)\n", "18446744073709551615"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseCounter(s)
	})
}

func BenchmarkParseCounter(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCounter("18446744073709551615\n"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPortCounterSpec(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if PortCounterSpec("port_xmit_data", true).Bits != 64 {
			b.Fatal("width")
		}
	}
}
