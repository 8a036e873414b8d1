package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestGIDIndexEmpty: a failed ibv_modify_qp whose local GID, read at the
// GID index NCCL used (misc/ibvwrap.cc ibvModifyQpLog), is all zeros
// names an empty slot of that port's GID table: nccl.gid_index_wrong on
// the device, port and index, and no nccl.resource_error besides. A
// non-zero GID stays a resource error. The lines: the incident write-up
// of realworld-fresh32 (nccl-log-stored66686345032-roce-ring-gid-
// index3-empty-enodata.txt, wrapped after "failed with 61" in the
// source) and NVIDIA/nccl#2013 (realworld-fresh4, addresses hidden by the
// poster).
func TestGIDIndexEmpty(t *testing.T) {
	const (
		cut      = "misc/ibvwrap.cc:380 (wrap_ibv_modify_qp) NCCL WARN Call to ibv_modify_qp failed with 61\n"
		tail     = "No data available, on dev roceP2p1s0f0:1, curr state INIT, next state RTR, local GID index 3, local GID ::\n"
		nccl2013 = "[2026-03-13 22:26:02] host-01.example.com:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx_x:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:xxx.xx.xx.xx, remote GID ::ffff:xxx.xx.xxx.xx\n"
		// The fresh32 line as two ranks of one host print it, with NCCL's
		// record prefix and its note of the pinned index.
		rank0 = "ring-a:4101:4190 [0] misc/ibvwrap.cc:380 NCCL WARN Call to ibv_modify_qp failed with 61 No data available, on dev roceP2p1s0f0:1, curr state INIT, next state RTR, local GID index 3, local GID ::\n"
		rank1 = "ring-a:4102:4191 [1] misc/ibvwrap.cc:380 NCCL WARN Call to ibv_modify_qp failed with 61 No data available, on dev roceP2p1s0f0:1, curr state INIT, next state RTR, local GID index 3, local GID ::\n"
		env   = "ring-a:4101:4101 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.\n"
	)
	tests := []struct {
		name, input string
		want        []string
		sum         []string // substrings of the first finding's summary
		dev         string
		port        int
	}{
		{"empty slot, wrapped after the errno", cut + tail, []string{"nccl.gid_index_wrong/critical"},
			[]string{"GID index 3 of roceP2p1s0f0 port 1 is empty", "INIT→RTR failed 1 time(s) (No data available)"}, "roceP2p1s0f0", 1},
		{"two ranks, the index pinned", env + rank0 + rank1, []string{"nccl.gid_index_wrong/critical"},
			[]string{"roceP2p1s0f0 port 1 on ring-a is empty", "failed 2 time(s)", "NCCL_IB_GID_INDEX=3 pins that index"}, "roceP2p1s0f0", 1},
		// Before Linux 5.10 the kernel answered an empty slot with EINVAL:
		// the zero GID says it all the same.
		{"empty slot, older kernel's errno", strings.Replace(rank0, "61 No data available", "22 Invalid argument", 1),
			[]string{"nccl.gid_index_wrong/critical"}, []string{"GID index 3 of roceP2p1s0f0 port 1 on ring-a is empty", "(Invalid argument)"}, "roceP2p1s0f0", 1},
		{"a GID at the index", nccl2013, []string{"nccl.resource_error/critical"},
			[]string{"ibv_modify_qp failed 1 time(s) (Connection timed out)"}, "", 0},
		{"cut, no GID printed", cut + "and both launches exited within 75 s.\n", []string{"nccl.resource_error/critical"},
			[]string{"ibv_modify_qp failed 1 time(s) (61)"}, "", 0},
		{"one empty slot, one other failure", rank0 + nccl2013, []string{"nccl.gid_index_wrong/critical", "nccl.resource_error/critical"},
			[]string{"GID index 3 of roceP2p1s0f0"}, "roceP2p1s0f0", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.input), "t.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
			f := a.Findings[0]
			for _, s := range tt.sum {
				if !strings.Contains(f.Summary, s) {
					t.Errorf("summary %q lacks %q", f.Summary, s)
				}
			}
			if f.Subject.Device != tt.dev || f.Subject.Port != tt.port {
				t.Errorf("subject %s:%d, want %s:%d", f.Subject.Device, f.Subject.Port, tt.dev, tt.port)
			}
			if tt.dev != "" && !strings.Contains(strings.Join(f.Remedy, "\n"), "show_gids "+tt.dev) {
				t.Errorf("remedy %q names no show_gids %s", f.Remedy, tt.dev)
			}
		})
	}
}
