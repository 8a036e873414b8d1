package wclog

import (
	"strconv"
	"strings"
	"testing"
)

// TestDPDKErrorCQE: DPDK 17.11-18.11's mlx5 PMD dumps an error CQE with
// rte_hexdump ("MLX5 Error CQE: at [%p], len=%u", rows "%08X: %02X … |
// ascii"). The dumps are Juniper/warp17#81's (realworld-fresh35
// applog-warp17n81-dpdk-mlx5-error-cqe-link-up.txt): bytes 0x34..0x3f
// "9D 00 53 04 0A 00 15 42 00 19 B0 D2" are hw_err_synd, hw_synd_type,
// vendor_err_synd 0x53, syndrome 0x04 (local protection), the SEND
// opcode and SQ 0x1542, op_own 0xd2 (MLX5_CQE_REQ_ERR).
func TestDPDKErrorCQE(t *testing.T) {
	const (
		head = "warp17> MLX5 Error CQE: at [0x7f6a7d20c000], len=64"
		r0   = "00000000: 00 73 65 65 6E 00 00 00 00 00 00 00 00 00 00 00 | .seen..........."
		r1   = "00000010: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 | ................"
		r2   = "00000020: 00 00 00 13 00 00 00 00 00 00 00 00 00 00 00 00 | ................"
		r3   = "00000030: 00 00 00 00 9D 00 53 04 0A 00 15 42 00 19 B0 D2 | ......S....B...."
		r3b  = "00000030: 00 00 00 00 9D 00 53 04 0A 00 15 34 00 5A 98 D2 | ......S....4.Z.."
	)
	tests := []struct {
		name, text string
		want       []string // per error: "line status synd vendor requester qpn opcode"
	}{
		{"one dump", strings.Join([]string{head, r0, r1, r2, r3}, "\n"), []string{"1 4 0x4 0x53 true 0x1542 SEND"}},
		{"two dumps, trailing spaces", strings.Join([]string{head + " ", r0, r1, r2, r3 + "  ", "MLX5 Error CQE: at [0x7f5b64e01080], len=64", r0, r1, r2, r3b, "[root@localhost warp17]# "}, "\n"),
			[]string{"1 4 0x4 0x53 true 0x1542 SEND", "6 4 0x4 0x53 true 0x1534 SEND"}},
		{"cut after two rows", strings.Join([]string{head, r0, r1, "prose"}, "\n"), []string{"1 -1 0x0 0x0 false 0x0 "}},
		// libmlx5's rows do not continue DPDK's dump.
		{"other rows", strings.Join([]string{head, "00000000 00000000 00000000 00000000", r0}, "\n"), []string{"1 -1 0x0 0x0 false 0x0 "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tt.text), "t")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range lg.Errors {
				if e.Source != SourceDPDK {
					t.Errorf("source %q", e.Source)
				}
				got = append(got, strings.Join([]string{itoa(e.Line), itoa(int(e.Status)), hex(e.Syndrome), hex(e.Vendor), boolStr(e.Requester), hex(uint64(e.QPN)), e.Opcode}, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	for _, l := range []string{head, "MLX5 Error CQE: at [0x7f5b64e01080], len=64"} {
		if !DetectLine(l) {
			t.Errorf("DetectLine(%q) = false", l)
		}
	}
	for _, l := range []string{"MLX5 Error CQE: at [some words], len=64", "MLX5 Error CQE: at [0x1]", r3} {
		if DetectLine(l) {
			t.Errorf("DetectLine(%q) = true", l)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestDPDKCQEText: the mlx5 PMD's own line for an error CQE, the format
// strings of DPDK 17.11 check_cqe (drivers/net/mlx5/mlx5_rxtx.h, logged
// through RTE_LOG as "PMD: net_mlx5: …") and of DPDK 19.02+ mlx5_tx.c /
// mlx5_rx.c (the debug dump file's head) filled in.
func TestDPDKCQEText(t *testing.T) {
	tests := []struct {
		line      string
		ok        bool
		status    int
		synd      uint64
		requester bool
		qpn       uint32
	}{
		{"PMD: net_mlx5: unexpected CQE error 13 (0x0d) syndrome 0x04", true, 4, 4, true, 0},
		{"PMD: net_mlx5: unexpected CQE error 14 (0x0e) syndrome 0x05", true, 5, 5, false, 0},
		{"Unexpected CQE error syndrome 0x04 CQN = 512 SQN = 4418 wqe_counter = 25 wq_ci = 30 cq_ci = 12", true, 4, 4, true, 4418},
		{"Unexpected CQE error syndrome 0x15 CQN = 256 RQN = 77 wqe_counter = 3 rq_ci = 4 cq_ci = 5", true, 12, 0x15, false, 77},
		// Not a CQE opcode, no syndrome, or other words.
		{"PMD: net_mlx5: unexpected CQE error 2 (0x02) syndrome 0x04", false, 0, 0, false, 0},
		{"Unexpected CQE error syndrome CQN = 1", false, 0, 0, false, 0},
		{"an unexpected CQE error happened", false, 0, 0, false, 0},
	}
	for _, tt := range tests {
		e, ok := dpdkCQEText(tt.line)
		if ok != tt.ok {
			t.Errorf("%q: ok %v, want %v", tt.line, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if int(e.Status) != tt.status || e.Syndrome != tt.synd || e.Requester != tt.requester || e.QPN != tt.qpn || e.Source != SourceDPDK {
			t.Errorf("%q: status %d synd %#x requester %v qpn %d source %q, want %d %#x %v %d", tt.line, e.Status, e.Syndrome, e.Requester, e.QPN, e.Source, tt.status, tt.synd, tt.requester, tt.qpn)
		}
		if !DetectLine(tt.line) {
			t.Errorf("DetectLine(%q) = false", tt.line)
		}
	}
}
