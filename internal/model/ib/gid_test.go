package ib

import "testing"

func TestParseGID(t *testing.T) {
	tests := []struct {
		in, want string
		zero     bool
		v4       string
		wantErr  bool
	}{
		{in: "fe80:0000:0000:0000:0c42:a1ff:fe12:3456\n", want: "fe80:0000:0000:0000:0c42:a1ff:fe12:3456"},
		{in: "0000:0000:0000:0000:0000:0000:0000:0000\n", want: "0000:0000:0000:0000:0000:0000:0000:0000", zero: true},
		{in: "0000:0000:0000:0000:0000:ffff:0a00:0001", want: "0000:0000:0000:0000:0000:ffff:0a00:0001", v4: "10.0.0.1"},
		{in: "::ffff:10.0.0.1", want: "0000:0000:0000:0000:0000:ffff:0a00:0001", v4: "10.0.0.1"}, // ibv_devinfo form
		{in: "fe80::c42:a1ff:fe12:3456", want: "fe80:0000:0000:0000:0c42:a1ff:fe12:3456"},
		{in: "10.0.0.1", wantErr: true},
		{in: "fe80::1%eth0", wantErr: true},
		{in: "garbage", wantErr: true},
	}
	for _, tt := range tests {
		g, err := ParseGID(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseGID(%q) err = %v", tt.in, err)
			continue
		}
		if err != nil {
			continue
		}
		if g.String() != tt.want || g.IsZero() != tt.zero {
			t.Errorf("ParseGID(%q) = %s zero=%v", tt.in, g, g.IsZero())
		}
		v4, ok := g.IPv4()
		if (tt.v4 != "") != ok || (ok && v4.String() != tt.v4) {
			t.Errorf("IPv4(%q) = %v %v", tt.in, v4, ok)
		}
	}
}

func TestParseGIDType(t *testing.T) {
	for in, want := range map[string]GIDType{"IB/RoCE v1\n": GIDTypeIBRoCEv1, "RoCE v2\n": GIDTypeRoCEv2, "v2": GIDTypeRoCEv2} {
		if got, err := ParseGIDType(in); err != nil || got != want {
			t.Errorf("ParseGIDType(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseGIDType("RoCE v3"); err == nil {
		t.Error("want error")
	}
}

func TestGUID(t *testing.T) {
	for _, in := range []string{"0c42:a103:0012:3456\n", "0x0c42a10300123456", "0X0C42A10300123456"} {
		v, err := ParseGUID(in)
		if err != nil || v != 0x0c42a10300123456 {
			t.Errorf("ParseGUID(%q) = %x, %v", in, v, err)
		}
	}
	if FormatGUID(0x0c42a10300123456) != "0c42:a103:0012:3456" {
		t.Errorf("FormatGUID = %s", FormatGUID(0x0c42a10300123456))
	}
	for _, in := range []string{"", "0x", "0x12345678901234567", "0c42-a103-0012-3456", "0xzz"} {
		if _, err := ParseGUID(in); err == nil {
			t.Errorf("ParseGUID(%q) accepted", in)
		}
	}
}

func FuzzParseGID(f *testing.F) {
	for _, s := range []string{"fe80:0000:0000:0000:0c42:a1ff:fe12:3456\n", "::ffff:10.0.0.1", "0c42:a103:0012:3456"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if g, err := ParseGID(s); err == nil {
			back, err := ParseGID(g.String())
			if err != nil || back != g {
				t.Fatalf("GID round trip %q: %v", s, err)
			}
		}
		if v, err := ParseGUID(s); err == nil {
			back, err := ParseGUID(FormatGUID(v))
			if err != nil || back != v {
				t.Fatalf("GUID round trip %q: %v", s, err)
			}
		}
	})
}
