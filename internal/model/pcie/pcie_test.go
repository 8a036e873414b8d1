package pcie

import (
	"errors"
	"testing"
)

func TestParseSpeed(t *testing.T) {
	tests := []struct {
		in  string
		gen int
		str string
		err error
	}{
		{"2.5 GT/s PCIe\n", 1, "2.5 GT/s PCIe", nil},
		{"5.0 GT/s PCIe\n", 2, "5.0 GT/s PCIe", nil},
		{"8.0 GT/s PCIe\n", 3, "8.0 GT/s PCIe", nil},
		{"16.0 GT/s PCIe\n", 4, "16.0 GT/s PCIe", nil},
		{"32.0 GT/s PCIe\n", 5, "32.0 GT/s PCIe", nil},
		{"64.0 GT/s PCIe\n", 6, "64.0 GT/s PCIe", nil},
		// Kernel ≤5.6 spellings.
		{"2.5 GT/s\n", 1, "2.5 GT/s PCIe", nil},
		{"5 GT/s\n", 2, "5.0 GT/s PCIe", nil},
		{"8 GT/s\n", 3, "8.0 GT/s PCIe", nil},
		{"16 GT/s\n", 4, "16.0 GT/s PCIe", nil},
		{"Unknown\n", 0, "", ErrUnknown},
		{"Unknown speed\n", 0, "", ErrUnknown},
		{"12.0 GT/s PCIe", 0, "", ErrMalformed},
		{"16.0 GB/s", 0, "", ErrMalformed},
		{"16.0 GT/s PCIe x16", 0, "", ErrMalformed},
		{"-8 GT/s", 0, "", ErrMalformed},
		{"", 0, "", ErrMalformed},
	}
	for _, tt := range tests {
		s, err := ParseSpeed(tt.in)
		if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
			t.Errorf("ParseSpeed(%q) err = %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err == nil && (s.Gen() != tt.gen || s.String() != tt.str) {
			t.Errorf("ParseSpeed(%q) = gen %d %q", tt.in, s.Gen(), s.String())
		}
	}
}

func TestParseWidth(t *testing.T) {
	for in, want := range map[string]int{"16\n": 16, "8\n": 8, "1": 1, "0\n": 0, "32": 32} {
		if got, err := ParseWidth(in); err != nil || got != want {
			t.Errorf("ParseWidth(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"3", "x16", "", "-16", "64"} {
		if _, err := ParseWidth(in); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseWidth(%q) = %v", in, err)
		}
	}
}

func TestParseAddress(t *testing.T) {
	for in, want := range map[string]Address{"0000:3b:00.0": "0000:3b:00.0", "3B:00.1\n": "0000:3b:00.1", "0001:c1:1f.7": "0001:c1:1f.7", "10003:00:00.0": "10003:00:00.0" /* behind Intel VMD */} {
		if got, err := ParseAddress(in); err != nil || got != want {
			t.Errorf("ParseAddress(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0000:3b:00", "0000:3b:20.0", "0000:3b:00.8", "0000:3g:00.0", "pci0000:00", "000:3b:00.0", "123456789:00:00.0"} {
		if _, err := ParseAddress(in); err == nil {
			t.Errorf("ParseAddress(%q) accepted", in)
		}
	}
}

func TestParseHexAndClass(t *testing.T) {
	v, err := ParseHex("0x030200\n")
	if err != nil || !IsGPU(v) || IsBridge(v) {
		t.Fatalf("class 0x030200: %x %v", v, err)
	}
	v, _ = ParseHex("0x060400")
	if !IsBridge(v) {
		t.Fatal("0x060400 is a bridge")
	}
	for _, in := range []string{"15b3", "0x", "0xfffffffff", "0xgg"} {
		if _, err := ParseHex(in); err == nil {
			t.Errorf("ParseHex(%q) accepted", in)
		}
	}
}

func FuzzParsePCIe(f *testing.F) {
	for _, s := range []string{"32.0 GT/s PCIe\n", "8 GT/s\n", "Unknown", "16\n", "0000:3b:00.0", "0x15b3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if sp, err := ParseSpeed(s); err == nil {
			if sp.Gen() == 0 {
				t.Fatalf("accepted non-generation speed %v from %q", sp, s)
			}
			back, err := ParseSpeed(sp.String())
			if err != nil || back != sp {
				t.Fatalf("round trip %q: %v", s, err)
			}
		}
		_, _ = ParseWidth(s)
		if a, err := ParseAddress(s); err == nil {
			if b, err := ParseAddress(string(a)); err != nil || b != a {
				t.Fatalf("address round trip %q", s)
			}
		}
		_, _ = ParseHex(s)
	})
}
