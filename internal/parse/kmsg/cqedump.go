package kmsg

import (
	"strconv"
	"strings"
)

// An mlx5 error completion the kernel's mlx5_ib polled is dumped after
// "dump error cqe" (drivers/infiniband/hw/mlx5/cq.c dump_cqe) as four
// lines of hex (drivers/net/ethernet/mellanox/mlx5/core mlx5_dump_err_cqe,
// print_hex_dump with offsets):
//
//	00000030: 00 00 00 00 00 00 88 13 08 00 01 13 07 47 67 d2
//
// The last line ends the struct mlx5_err_cqe (include/linux/mlx5/device.h):
// at 0x36 vendor_err_synd, 0x37 syndrome (MLX5_CQE_SYNDROME_*), 0x38 the
// opcode and QPN of the failed work request, 0x3f op_own, whose high
// nibble is MLX5_CQE_REQ_ERR (0xd) or MLX5_CQE_RESP_ERR (0xe). The
// Classifier gives that line as a CQSyndrome event of the device, as
// mlx5_poll_one's "syndrome 0x13, vendor syndrome 0x88" line is.

// cqeDumpLines is how many records after "dump error cqe" its last hex
// line may come.
const cqeDumpLines = 4

// cqeDump reads a record for an error CQE dump: the dump's first line
// starts one, its line at offset 0x30 gives the syndromes (into dst: true
// then).
func (c *Classifier) cqeDump(r Record, tc *textClass, dst *Event) bool {
	if tc.p != nil && tc.p.Name == "mlx5-ib-dump-error-cqe" {
		c.dumpDev, c.dumpLeft = tc.ev.Interface, cqeDumpLines
		return false
	}
	if c.dumpLeft == 0 {
		return false
	}
	c.dumpLeft--
	rest, ok := strings.CutPrefix(strings.TrimSpace(r.Text), "00000030: ")
	if !ok {
		return false
	}
	b := strings.Fields(rest)
	if len(b) != 16 {
		return false
	}
	var v [16]int
	for i, f := range b {
		x, err := strconv.ParseUint(f, 16, 8)
		if err != nil || len(f) != 2 {
			return false
		}
		v[i] = int(x)
	}
	c.dumpLeft = 0
	*dst = Event{Kind: KindCQ, Record: r, CQ: CQSyndrome, Interface: c.dumpDev, VendorSyndrome: v[6], Syndrome: v[7]}
	switch v[15] >> 4 {
	case 0xd:
		dst.Detail = "Requestor"
	case 0xe:
		dst.Detail = "Responder"
	}
	return true
}
