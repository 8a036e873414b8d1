package ib

import (
	"errors"
	"testing"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in      string
		want    Rate
		str     string
		wantErr bool
	}{
		// Every speed the kernel prints (sysfs.c rate_show).
		{in: "2.5 Gb/sec (1X SDR)\n", want: Rate{25, 1, SpeedSDR}, str: "2.5 Gb/s 1X SDR"},
		{in: "2.5 Gb/sec (1X)\n", want: Rate{25, 1, SpeedSDR}, str: "2.5 Gb/s 1X SDR"}, // old kernels: no SDR name
		{in: "10 Gb/sec (4X)", want: Rate{100, 4, SpeedSDR}, str: "10 Gb/s 4X SDR"},
		{in: "30 Gb/sec (12X SDR)", want: Rate{300, 12, SpeedSDR}, str: "30 Gb/s 12X SDR"},
		{in: "20 Gb/sec (4X DDR)", want: Rate{200, 4, SpeedDDR}, str: "20 Gb/s 4X DDR"},
		{in: "10 Gb/sec (1X QDR)", want: Rate{100, 1, SpeedQDR}, str: "10 Gb/s 1X QDR"},
		{in: "40 Gb/sec (4X QDR)\n", want: Rate{400, 4, SpeedQDR}, str: "40 Gb/s 4X QDR"}, // also RoCE's default on a down port
		{in: "40 Gb/sec (4X FDR10)", want: Rate{400, 4, SpeedFDR10}, str: "40 Gb/s 4X FDR10"},
		{in: "56 Gb/sec (4X FDR)", want: Rate{560, 4, SpeedFDR}, str: "56 Gb/s 4X FDR"},
		{in: "14 Gb/sec (1X FDR)", want: Rate{140, 1, SpeedFDR}, str: "14 Gb/s 1X FDR"},
		{in: "100 Gb/sec (4X EDR)", want: Rate{1000, 4, SpeedEDR}, str: "100 Gb/s 4X EDR"},
		{in: "25 Gb/sec (1X EDR)", want: Rate{250, 1, SpeedEDR}, str: "25 Gb/s 1X EDR"}, // RoCE 25G
		{in: "200 Gb/sec (4X HDR)\n", want: Rate{2000, 4, SpeedHDR}, str: "200 Gb/s 4X HDR"},
		{in: "100 Gb/sec (2X HDR)", want: Rate{1000, 2, SpeedHDR}, str: "100 Gb/s 2X HDR"},
		{in: "400 Gb/sec (8X HDR)", want: Rate{4000, 8, SpeedHDR}, str: "400 Gb/s 8X HDR"}, // RoCE 400G/8
		{in: "400 Gb/sec (4X NDR)\n", want: Rate{4000, 4, SpeedNDR}, str: "400 Gb/s 4X NDR"},
		{in: "800 Gb/sec (8X NDR)", want: Rate{8000, 8, SpeedNDR}, str: "800 Gb/s 8X NDR"},
		{in: "800 Gb/sec (4X XDR)", want: Rate{8000, 4, SpeedXDR}, str: "800 Gb/s 4X XDR"},
		{in: "1600 Gb/sec (8X XDR)", want: Rate{16000, 8, SpeedXDR}, str: "1600 Gb/s 8X XDR"},
		{in: "5 Gb/sec (2X SDR)", want: Rate{50, 2, SpeedSDR}, str: "5 Gb/s 2X SDR"},
		// Rejected: never a silently wrong number.
		{in: "", wantErr: true},
		{in: "200", wantErr: true},
		{in: "200 Gb/sec", wantErr: true},
		{in: "200 Gb/sec (4X HDR", wantErr: true},
		{in: "300 Gb/sec (4X HDR)", wantErr: true}, // inconsistent with width × lane
		{in: "200 Gb/sec (3X HDR)", wantErr: true}, // no such width
		{in: "200 Gb/sec (4X PDR)", wantErr: true}, // no such speed
		{in: "-200 Gb/sec (4X HDR)", wantErr: true},
		{in: "2.55 Gb/sec (1X SDR)", wantErr: true},
		{in: "200 Gb/sec (4 HDR)", wantErr: true},
		{in: "200.0 Gb/sec (4X HDR)", want: Rate{2000, 4, SpeedHDR}, str: "200 Gb/s 4X HDR"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseRate(%q) = %+v, want error", tt.in, got)
				}
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("error %v does not wrap ErrMalformed", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRate(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("ParseRate(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.str {
				t.Errorf("String() = %q, want %q", s, tt.str)
			}
			// The sysfs form round-trips (with the SDR name filled in).
			back, err := ParseRate(got.Sysfs())
			if err != nil || back != got {
				t.Errorf("round trip of %q: %+v, %v", got.Sysfs(), back, err)
			}
		})
	}
}

func TestRateUnits(t *testing.T) {
	r := NewRate(4, SpeedNDR)
	if r.Gbps() != 400 || r.BytesPerSecond() != 50_000_000_000 {
		t.Fatalf("NDR 4X: %v Gb/s, %d B/s", r.Gbps(), r.BytesPerSecond())
	}
	if got := NewRate(1, SpeedSDR).Sysfs(); got != "2.5 Gb/sec (1X SDR)" {
		t.Fatalf("Sysfs() = %q", got)
	}
	if SpeedFDR10.Generation() >= SpeedFDR.Generation() || SpeedQDR.Generation() >= SpeedFDR10.Generation() {
		t.Fatal("FDR10 must order between QDR and FDR")
	}
	if Speed(3).String() != "speed(3)" || Speed(3).LaneDeciGbps() != 0 {
		t.Fatal("unknown speed")
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"2.5 Gb/sec (1X SDR)\n", "2.5 Gb/sec (1X)\n", "400 Gb/sec (4X NDR)\n", "56 Gb/sec (4X FDR)", "40 Gb/sec (4X FDR10)", "1600 Gb/sec (8X XDR)", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		// Invariants of any accepted rate: a known width and speed whose
		// product is the data rate, and a lossless round trip.
		if !validWidth(r.Width) || r.Speed.LaneDeciGbps() == 0 || r.DeciGbps != r.Width*r.Speed.LaneDeciGbps() {
			t.Fatalf("accepted inconsistent rate %+v from %q", r, s)
		}
		back, err := ParseRate(r.Sysfs())
		if err != nil || back != r {
			t.Fatalf("round trip %q → %+v → %q: %v", s, r, r.Sysfs(), err)
		}
	})
}

func BenchmarkParseRate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRate("400 Gb/sec (4X NDR)\n"); err != nil {
			b.Fatal(err)
		}
	}
}
