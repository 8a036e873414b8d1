package wclog

import (
	"strconv"
	"strings"
)

// dpdkCQEHead is the title DPDK's mlx5 poll-mode driver hands
// rte_hexdump for an error CQE it has not seen before (DPDK 17.11-18.11
// drivers/net/mlx5/mlx5_rxtx.h check_cqe: "unexpected CQE error"), which
// prints "%s at [%p], len=%u" (lib/eal/common/eal_common_hexdump.c) then
// rows "%08X:" of 16 bytes " %02X" each, " | " and their ASCII. The 64
// bytes are struct mlx5_err_cqe, laid out as libmlx5's dump is.
const dpdkCQEHead = "MLX5 Error CQE: at ["

// dpdkDumpHeader says whether l starts DPDK's hexdump of an error CQE,
// perhaps after an application's prompt ("warp17> MLX5 Error CQE: at
// [0x7f6a7d20c000], len=64").
func dpdkDumpHeader(l string) bool {
	i := strings.Index(l, dpdkCQEHead)
	if i < 0 {
		return false
	}
	rest := l[i+len(dpdkCQEHead):]
	j := strings.Index(rest, "], len=")
	return j > 0 && !strings.ContainsAny(rest[:j], " \t")
}

// hexdumpRow reads a row of rte_hexdump ("00000030: 00 00 00 00 9D 00 53
// 04 0A 00 15 42 00 19 B0 D2 | ......S....B....") as the four big-endian
// words of its 16 bytes. A shorter row (the dump's last, when its length
// is no multiple of 16) is not one: the CQE is 64 bytes.
func hexdumpRow(l string) ([]uint32, bool) {
	t := strings.TrimSpace(l)
	off, rest, ok := strings.Cut(t, ": ")
	if !ok || len(off) != 8 {
		return nil, false
	}
	if _, err := strconv.ParseUint(off, 16, 32); err != nil {
		return nil, false
	}
	if k := strings.Index(rest, " | "); k >= 0 {
		rest = rest[:k]
	}
	f := strings.Fields(rest)
	if len(f) != 16 {
		return nil, false
	}
	w := make([]uint32, 4)
	for i, s := range f {
		if len(s) != 2 {
			return nil, false
		}
		b, err := strconv.ParseUint(s, 16, 8)
		if err != nil {
			return nil, false
		}
		w[i/4] = w[i/4]<<8 | uint32(b)
	}
	return w, true
}
