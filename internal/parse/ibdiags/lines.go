package ibdiags

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// maxLine bounds one input line; tool outputs never come close.
const maxLine = 1 << 20

// scanLines calls fn for every line of r with its 1-based number, the line
// without its trailing "\r", and stops at the first error.
func scanLines(r io.Reader, src string, fn func(n int, line string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(n, strings.TrimSuffix(sc.Text(), "\r")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &ParseError{Source: src, Line: n + 1, Err: err}
	}
	return nil
}

// parseHexGUID parses a GUID written as hex with or without "0x"
// ("0x0002c903000a0002", "2c903000a0002", "S-0000000000200001" after its
// prefix is cut).
func parseHexGUID(s string) (uint64, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" || len(s) > 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 16, 64)
	return v, err == nil
}

// parseUint parses a decimal number in [0, max].
func parseUint(s string, max uint64) (uint64, bool) {
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil && v <= max
}

// parseWidthSpeed parses ibnetdiscover's "4xHDR" / "1xSDR" / "4x FDR10"
// rate token into a width and lane speed.
func parseWidthSpeed(s string) (int, ib.Speed, bool) {
	w, sp, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return 0, 0, false
	}
	n, ok := parseUint(w, 12)
	if !ok || !validWidth(int(n)) {
		return 0, 0, false
	}
	speed, err := ib.ParseSpeed(strings.TrimSpace(sp))
	if err != nil {
		return 0, 0, false
	}
	return int(n), speed, true
}

func validWidth(w int) bool {
	for _, v := range ib.Widths {
		if v == w {
			return true
		}
	}
	return false
}

// laneGbps maps iblinkinfo's per-lane "Gbps" figure to the lane speed
// (infiniband-diags mad_dump_linkspeed/ext: the signalling rate, e.g.
// 25.78125 for EDR, 53.125 for HDR).
var laneGbps = map[string]ib.Speed{
	"2.5": ib.SpeedSDR, "5.0": ib.SpeedDDR, "10.0": ib.SpeedQDR,
	"14.0625": ib.SpeedFDR, "10.3125": ib.SpeedFDR10, "25.78125": ib.SpeedEDR,
	"53.125": ib.SpeedHDR, "106.25": ib.SpeedNDR, "212.5": ib.SpeedXDR,
}
