package nccllog

import (
	"strings"
	"testing"
)

// TestModifyQPLog: a failed ibv_modify_qp of NCCL 2.24 and later names
// the device, port, QP transition, source GID index and the GID NCCL read
// there (misc/ibvwrap.cc, ibvModifyQpLog), also when a paste wrapped the
// WARN right after the errno number. Real lines: the incident write-up
// of realworld-fresh32 (nccl-log-stored66686345032-roce-ring-gid-index3-
// empty-enodata.txt, the WARN wrapped in the source) and NVIDIA/nccl#2013
// (realworld-fresh4, addresses hidden by the poster).
func TestModifyQPLog(t *testing.T) {
	const cut = "misc/ibvwrap.cc:380 (wrap_ibv_modify_qp) NCCL WARN Call to ibv_modify_qp failed with 61\n"
	const tail = "No data available, on dev roceP2p1s0f0:1, curr state INIT, next state RTR, local GID index 3, local GID ::\n"
	const nccl2013 = "[2026-03-13 22:26:02] host-01.example.com:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx_x:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:xxx.xx.xx.xx, remote GID ::ffff:xxx.xx.xxx.xx\n"
	tests := []struct {
		name, in             string
		err, hca, gid, state string
		port, idx            int
	}{
		{"wrapped after the errno", cut + tail + "```\n", "No data available", "roceP2p1s0f0", "::", "INIT->RTR", 1, 3},
		{"one line", strings.TrimSuffix(cut, "\n") + " " + tail, "No data available", "roceP2p1s0f0", "::", "INIT->RTR", 1, 3},
		{"NVIDIA/nccl#2013", nccl2013, "Connection timed out", "mlx_x", "::ffff:xxx.xx.xx.xx", "INIT->RTR", 1, 3},
		// Cut, and what follows is no strerror text: read as printed.
		{"cut, then prose", cut + "and both launches exited within 75 s.\n", "61", "", "", "->", 0, 0},
		{"cut, then a record", cut + "h:1:2 [0] NCCL INFO transport/net_ib.cc:1 -> 2\n", "61", "", "", "->", 0, 0},
		{"cut at the end of input", cut, "61", "", "", "->", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tt.in), "q.log")
			if err != nil {
				t.Fatal(err)
			}
			var res []Event
			for _, e := range lg.Events {
				if e.Kind == EventResource {
					res = append(res, e)
				}
			}
			if len(res) != 1 {
				t.Fatalf("resource events %+v, want 1", lg.Events)
			}
			e := res[0]
			if e.Call != "ibv_modify_qp" || e.Error != tt.err || e.HCA != tt.hca || e.Port != tt.port ||
				e.LocalGID != tt.gid || e.GIDIndex != tt.idx || e.CurrState+"->"+e.NextState != tt.state || e.Line != 1 {
				t.Errorf("got call %q error %q dev %s:%d index %d GID %q %s->%s line %d, want error %q dev %s:%d index %d GID %q %s",
					e.Call, e.Error, e.HCA, e.Port, e.GIDIndex, e.LocalGID, e.CurrState, e.NextState, e.Line,
					tt.err, tt.hca, tt.port, tt.idx, tt.gid, tt.state)
			}
		})
	}
}
