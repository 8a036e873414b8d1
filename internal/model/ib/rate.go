package ib

import (
	"fmt"
	"strconv"
	"strings"
)

// Speed is an InfiniBand lane speed as the bit flag of enum ib_port_speed
// (include/rdma/ib_verbs.h): SDR=1, DDR=2, QDR=4, FDR10=8, FDR=16, EDR=32,
// HDR=64, NDR=128, XDR=256.
type Speed uint16

// Lane speeds (enum ib_port_speed).
const (
	SpeedSDR   Speed = 1
	SpeedDDR   Speed = 2
	SpeedQDR   Speed = 4
	SpeedFDR10 Speed = 8
	SpeedFDR   Speed = 16
	SpeedEDR   Speed = 32
	SpeedHDR   Speed = 64
	SpeedNDR   Speed = 128
	SpeedXDR   Speed = 256
)

// speeds lists every known speed in ascending order with its kernel name and
// per-lane rate in deci-Gb/s exactly as rate_show computes it.
var speeds = []struct {
	speed    Speed
	name     string
	laneDeci int
}{
	{SpeedSDR, "SDR", 25},
	{SpeedDDR, "DDR", 50},
	{SpeedQDR, "QDR", 100},
	{SpeedFDR10, "FDR10", 100},
	{SpeedFDR, "FDR", 140},
	{SpeedEDR, "EDR", 250},
	{SpeedHDR, "HDR", 500},
	{SpeedNDR, "NDR", 1000},
	{SpeedXDR, "XDR", 2000},
}

// Speeds returns all known lane speeds, slowest first.
func Speeds() []Speed {
	out := make([]Speed, len(speeds))
	for i, s := range speeds {
		out[i] = s.speed
	}
	return out
}

// String returns the kernel's name of the speed ("HDR"), or "speed(N)".
func (s Speed) String() string {
	for _, k := range speeds {
		if k.speed == s {
			return k.name
		}
	}
	return fmt.Sprintf("speed(%d)", uint16(s))
}

// LaneDeciGbps is the per-lane data rate in units of 0.1 Gb/s as the kernel's
// rate_show uses it (HDR: 500 = 50 Gb/s), or 0 for an unknown speed.
func (s Speed) LaneDeciGbps() int {
	for _, k := range speeds {
		if k.speed == s {
			return k.laneDeci
		}
	}
	return 0
}

// Generation is the position of the speed in the IBTA sequence, SDR=1 …
// XDR=9; it orders speeds (FDR10 sits between QDR and FDR).
func (s Speed) Generation() int {
	for i, k := range speeds {
		if k.speed == s {
			return i + 1
		}
	}
	return 0
}

// ParseSpeed parses a speed name such as "NDR" (case-insensitive).
func ParseSpeed(name string) (Speed, error) {
	for _, k := range speeds {
		if strings.EqualFold(k.name, name) {
			return k.speed, nil
		}
	}
	return 0, malformed("lane speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)", name)
}

// Widths are the link widths the kernel can print (ib_width_enum_to_int).
var Widths = []int{1, 2, 4, 8, 12}

func validWidth(w int) bool {
	for _, v := range Widths {
		if v == w {
			return true
		}
	}
	return false
}

// Rate is a port's active link rate: the lane count (width), the lane speed
// and the resulting data rate. It is what
// /sys/class/infiniband/<dev>/ports/<n>/rate prints, e.g.
// "200 Gb/sec (4X HDR)".
type Rate struct {
	// DeciGbps is the data rate in units of 0.1 Gb/s (2.5 Gb/s = 25).
	DeciGbps int `json:"deci_gbps"`
	// Width is the number of lanes: 1, 2, 4, 8 or 12.
	Width int `json:"width"`
	// Speed is the lane speed. Old kernels printed no name for SDR; the
	// parser fills SpeedSDR in that case.
	Speed Speed `json:"-"`
}

// NewRate builds the rate the kernel prints for a width and a lane speed.
func NewRate(width int, s Speed) Rate {
	return Rate{DeciGbps: width * s.LaneDeciGbps(), Width: width, Speed: s}
}

// Gbps is the data rate in Gb/s.
func (r Rate) Gbps() float64 { return float64(r.DeciGbps) / 10 }

// BytesPerSecond is the data rate in bytes per second (Gb/s × 125e6), the
// unit node_exporter uses for node_infiniband_rate_bytes_per_second.
func (r Rate) BytesPerSecond() uint64 { return uint64(r.DeciGbps) * 12_500_000 }

// IsZero reports whether the rate is unset.
func (r Rate) IsZero() bool { return r.DeciGbps == 0 && r.Width == 0 }

func formatDeci(d int) string {
	if d%10 != 0 {
		return fmt.Sprintf("%d.%d", d/10, d%10)
	}
	return strconv.Itoa(d / 10)
}

// String renders the rate for people: "400 Gb/s 4X NDR".
func (r Rate) String() string {
	if r.IsZero() {
		return "-"
	}
	return fmt.Sprintf("%s Gb/s %dX %s", formatDeci(r.DeciGbps), r.Width, r.Speed)
}

// Sysfs renders the rate exactly as the kernel's rate_show does:
// "400 Gb/sec (4X NDR)".
func (r Rate) Sysfs() string {
	return fmt.Sprintf("%s Gb/sec (%dX %s)", formatDeci(r.DeciGbps), r.Width, r.Speed)
}

// MarshalText renders the sysfs form, so JSON and YAML carry what the
// kernel printed.
func (r Rate) MarshalText() ([]byte, error) { return []byte(r.Sysfs()), nil }

// UnmarshalText accepts anything ParseRate does.
func (r *Rate) UnmarshalText(b []byte) error {
	v, err := ParseRate(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ParseRate parses a port rate as the kernel prints it:
// "%d%s Gb/sec (%dX%s)" with an optional ".5" and an optional speed name
// ("2.5 Gb/sec (1X)" on old kernels means SDR). The data rate must equal width × lane rate, as the kernel computes it;
// anything else is rejected rather than guessed.
func ParseRate(s string) (Rate, error) {
	in := strings.TrimSpace(s)
	gb, rest, ok := strings.Cut(in, " Gb/sec (")
	if !ok {
		return Rate{}, malformed(`rate "<n> Gb/sec (<w>X <speed>)"`, s)
	}
	deci, err := parseDeci(gb)
	if err != nil {
		return Rate{}, malformed("rate number", s)
	}
	inner, ok := strings.CutSuffix(rest, ")")
	if !ok {
		return Rate{}, malformed(`rate "(<w>X <speed>)"`, s)
	}
	ws, name, _ := strings.Cut(inner, " ")
	ws, ok = strings.CutSuffix(ws, "X")
	if !ok {
		return Rate{}, malformed("rate width", s)
	}
	w, err := strconv.Atoi(ws)
	if err != nil || !validWidth(w) {
		return Rate{}, malformed("rate width (1X, 2X, 4X, 8X, 12X)", s)
	}
	sp := SpeedSDR
	if name != "" {
		if sp, err = ParseSpeed(name); err != nil {
			return Rate{}, malformed("rate speed name", s)
		}
	}
	r := Rate{DeciGbps: deci, Width: w, Speed: sp}
	if want := w * sp.LaneDeciGbps(); want != deci {
		return Rate{}, malformed(fmt.Sprintf("rate (%dX %s is %s Gb/sec)", w, sp, formatDeci(want)), s)
	}
	return r, nil
}

// parseDeci parses "2.5" or "200" into deci-units; at most one decimal.
func parseDeci(s string) (int, error) {
	ip, fp, hasFrac := strings.Cut(s, ".")
	if ip == "" || len(ip) > 6 {
		return 0, ErrMalformed
	}
	n, err := strconv.Atoi(ip)
	if err != nil || n < 0 || ip[0] == '+' || ip[0] == '-' {
		return 0, ErrMalformed
	}
	d := 0
	if hasFrac {
		if len(fp) != 1 || fp[0] < '0' || fp[0] > '9' {
			return 0, ErrMalformed
		}
		d = int(fp[0] - '0')
	}
	return n*10 + d, nil
}
