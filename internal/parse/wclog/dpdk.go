package wclog

import (
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/ucxlog"
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

// dpdkCQEText reads the mlx5 PMD's line for an error CQE:
//
//   - DPDK 17.11-18.11 check_cqe (drivers/net/mlx5/mlx5_rxtx.h): ERROR
//     "unexpected CQE error %u (0x%02x) syndrome 0x%02x", the CQE opcode
//     (13 a send queue's error, 14 a receive queue's) and the syndrome,
//     logged "PMD: net_mlx5: unexpected CQE error 13 (0x0d) syndrome
//     0x04";
//   - DPDK 19.02 and later (mlx5_tx.c, mlx5_rx.c): "Unexpected CQE error
//     syndrome 0x%02x CQN = %u SQN = %u wqe_counter = %u …" (RQN for a
//     receive queue), written at the head of the PMD's debug dump file.
//
// Status is the syndrome's ibv_wc_status as libmlx5 maps it.
func dpdkCQEText(l string) (Error, bool) {
	i := strings.Index(l, "nexpected CQE error ")
	if i < 1 || l[i-1] != 'u' && l[i-1] != 'U' {
		return Error{}, false
	}
	rest := l[i+len("nexpected CQE error "):]
	e := Error{Text: strings.TrimSpace(l), Source: SourceDPDK, Status: -1}
	if op, after, ok := strings.Cut(rest, " ("); ok && allDigitsStr(op) {
		n, _ := strconv.Atoi(op)
		if n != cqeReqErr && n != cqeRespErr {
			return Error{}, false
		}
		e.Requester = n == cqeReqErr
		_, rest, ok = strings.Cut(after, ") ")
		if !ok {
			return Error{}, false
		}
	}
	synd, ok := strings.CutPrefix(rest, "syndrome 0x")
	if !ok {
		return Error{}, false
	}
	end := 0
	for end < len(synd) && end < 2 && isHexByte(synd[end]) {
		end++
	}
	v, err := strconv.ParseUint(synd[:end], 16, 8)
	if end == 0 || err != nil {
		return Error{}, false
	}
	e.Syndrome = v
	if k := strings.Index(synd, " SQN = "); k >= 0 {
		e.Requester = true
		q, _ := strconv.ParseUint(firstNumber(synd[k+len(" SQN = "):]), 10, 32)
		e.QPN = uint32(q)
	} else if k := strings.Index(synd, " RQN = "); k >= 0 {
		q, _ := strconv.ParseUint(firstNumber(synd[k+len(" RQN = "):]), 10, 32)
		e.QPN = uint32(q)
	}
	if st, ok := ucxlog.SyndromeStatus(v); ok {
		e.Status, e.What = st, st.Info().Text
	}
	return e, true
}

func allDigitsStr(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// firstNumber is the run of decimal digits s starts with.
func firstNumber(s string) string {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	return s[:end]
}
