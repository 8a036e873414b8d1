package pcie

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every parse error of this package.
var ErrMalformed = errors.New("malformed value")

// ErrUnknown is returned for the kernel's "Unknown" / "Unknown speed" link
// speed, which is not a malformed file but carries no value.
var ErrUnknown = errors.New("link speed unknown")

// Speed is a PCIe link speed in units of 0.1 GT/s (Gen1 2.5 GT/s = 25).
type Speed int

// Link speeds per generation.
const (
	Gen1 Speed = 25
	Gen2 Speed = 50
	Gen3 Speed = 80
	Gen4 Speed = 160
	Gen5 Speed = 320
	Gen6 Speed = 640
)

var gens = []Speed{Gen1, Gen2, Gen3, Gen4, Gen5, Gen6}

// Gen returns the PCIe generation (1–6), 0 for an unknown speed.
func (s Speed) Gen() int {
	for i, g := range gens {
		if g == s {
			return i + 1
		}
	}
	return 0
}

// GTps is the speed in GT/s.
func (s Speed) GTps() float64 { return float64(s) / 10 }

// String renders as the kernel ≥5.7 does: "16.0 GT/s PCIe".
func (s Speed) String() string {
	return fmt.Sprintf("%d.%d GT/s PCIe", int(s)/10, int(s)%10)
}

// Short renders "Gen4 16 GT/s" style text for tables: "Gen4".
func (s Speed) Short() string {
	if g := s.Gen(); g > 0 {
		return "Gen" + strconv.Itoa(g)
	}
	return fmt.Sprintf("%.1fGT/s", s.GTps())
}

// MarshalText renders the kernel form.
func (s Speed) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText accepts anything ParseSpeed does, and "GenN".
func (s *Speed) UnmarshalText(b []byte) error {
	t := strings.TrimSpace(string(b))
	if g, ok := strings.CutPrefix(strings.ToLower(t), "gen"); ok {
		n, err := strconv.Atoi(g)
		if err != nil || n < 1 || n > len(gens) {
			return fmt.Errorf("%w: PCIe generation %q (Gen1–Gen6)", ErrMalformed, t)
		}
		*s = gens[n-1]
		return nil
	}
	v, err := ParseSpeed(t)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSpeed parses current_link_speed / max_link_speed: "16.0 GT/s PCIe"
// (kernel ≥5.7, pci_speed_string), "8 GT/s" or "2.5 GT/s" (≤5.6). "Unknown"
// and "Unknown speed" give ErrUnknown. Only the known generation speeds are
// accepted, so a garbled file never becomes a wrong number.
func ParseSpeed(in string) (Speed, error) {
	t := strings.TrimSpace(in)
	if strings.HasPrefix(t, "Unknown") {
		return 0, ErrUnknown
	}
	num, rest, ok := strings.Cut(t, " GT/s")
	if !ok || (rest != "" && rest != " PCIe") {
		return 0, fmt.Errorf("%w: PCIe link speed %q (want e.g. \"16.0 GT/s PCIe\")", ErrMalformed, in)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: PCIe link speed %q", ErrMalformed, in)
	}
	sp := Speed(f*10 + 0.5)
	if sp.Gen() == 0 || num[0] == '+' || num[0] == '-' {
		return 0, fmt.Errorf("%w: PCIe link speed %q is not a PCIe generation's", ErrMalformed, in)
	}
	return sp, nil
}

// ParseWidth parses current_link_width / max_link_width ("%u\n"). The kernel
// prints 0 for a link that is down; valid trained widths are 1, 2, 4, 8, 12,
// 16 and 32.
func ParseWidth(in string) (int, error) {
	t := strings.TrimSpace(in)
	n, err := strconv.Atoi(t)
	if err != nil {
		return 0, fmt.Errorf("%w: PCIe link width %q", ErrMalformed, in)
	}
	switch n {
	case 0, 1, 2, 4, 8, 12, 16, 32:
		return n, nil
	}
	return 0, fmt.Errorf("%w: PCIe link width %d (want 1, 2, 4, 8, 12, 16 or 32)", ErrMalformed, n)
}

// Address is a PCI function address "dddd:bb:dd.f".
type Address string

// ParseAddress validates "0000:3b:00.0" (domain optional on input; the
// result always carries it) and lower-cases it.
func ParseAddress(in string) (Address, error) {
	t := strings.ToLower(strings.TrimSpace(in))
	if strings.Count(t, ":") == 1 {
		t = "0000:" + t
	}
	// The domain has four hex digits, or up to eight: Linux numbers the
	// domains behind an Intel VMD controller from 10000 ("10003:00:00.0").
	d := len(t) - 8
	if d < 4 || d > 8 || t[d] != ':' || t[d+3] != ':' || t[d+6] != '.' {
		return "", fmt.Errorf("%w: PCI address %q (want dddd:bb:dd.f)", ErrMalformed, in)
	}
	for i, c := range []byte(t) {
		if i == d || i == d+3 || i == d+6 {
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", fmt.Errorf("%w: PCI address %q", ErrMalformed, in)
		}
	}
	if t[d+7] > '7' || t[d+4] > '1' {
		return "", fmt.Errorf("%w: PCI address %q (device ≤ 1f, function ≤ 7)", ErrMalformed, in)
	}
	return Address(t), nil
}

// ParseHex parses vendor/device/class attributes ("0x15b3\n", "0x020700").
func ParseHex(in string) (uint32, error) {
	t := strings.TrimSpace(in)
	h, ok := strings.CutPrefix(t, "0x")
	if !ok || h == "" {
		return 0, fmt.Errorf("%w: hex attribute %q (want 0x…)", ErrMalformed, in)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%w: hex attribute %q", ErrMalformed, in)
	}
	return uint32(v), nil
}

// Vendor IDs of interest.
const (
	VendorNVIDIA   = 0x10de
	VendorMellanox = 0x15b3
)

// Class codes (24-bit class attribute).
const (
	ClassBridgePCI = 0x060400
	ClassNetEth    = 0x020000
	ClassNetIB     = 0x020700
	ClassVGA       = 0x030000
	Class3D        = 0x030200
)

// IsGPU reports whether a class is a display controller (0x03xxxx).
func IsGPU(class uint32) bool { return class>>16 == 0x03 }

// IsNetwork reports whether a class is a network controller (0x02xxxx:
// Ethernet, InfiniBand).
func IsNetwork(class uint32) bool { return class>>16 == 0x02 }

// IsBridge reports whether a class is a PCI-to-PCI bridge (switch port or
// root port).
func IsBridge(class uint32) bool { return class>>8 == 0x0604 }
