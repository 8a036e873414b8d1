package node

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/lsmod"
)

// TestCheckLsmod: the lsmod rows of a working node (ovis-hpc/ovis LDMS
// documentation: ib_qib and mlx4_ib with rdma_ucm and ib_uverbs) and the
// same node without the user-space modules or with a GPU but no
// nvidia_peermem; a grep without ib_core judges nothing absent.
func TestCheckLsmod(t *testing.T) {
	const good = "rdmavt                104548  1 ib_qib\n" +
		"rdma_ucm               26930  0 \n" +
		"ib_uverbs             102296  2 mlx4_ib,rdma_ucm\n" +
		"rdma_cm                59991  2 ko2iblnd,rdma_ucm\n" +
		"ib_core               255484  11 rdma_cm,ib_cm,iw_cm,ko2iblnd,mlx4_ib,ib_qib,rdmavt,ib_umad,ib_uverbs,rdma_ucm,ib_ipoib\n"
	for _, tt := range []struct {
		name, text string
		want       string // IDs with severities
	}{
		{"working node", good, ""},
		{"no user-space modules", "mlx5_ib 397312 0\nib_core 331776 2 ib_cm,mlx5_ib\n", "container.uverbs_missing:critical container.rdma_cm_missing:warning"},
		{"gpu without peermem", good + "nvidia 56717312 10 nvidia_uvm,nvidia_modeset\n", "nccl.peermem_missing:info"},
		{"gpu with peermem", good + "nvidia 56717312 11 nvidia_uvm,nvidia_peermem,nvidia_modeset\n", ""},
		{"grep without ib_core", "mlx5_ib 397312 0\n", ""},
		// A laptop's soft-iWARP (linux-rdma, Jason Gunthorpe): no adapter, rdma_ucm not needed.
		{"software device only", "ib_uverbs 163840 0\nib_core 393216 2 ib_uverbs,siw\n", ""},
		{"no hardware driver", "ib_core 331776 1 ib_cm\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := lsmod.Parse(strings.NewReader(tt.text), "p")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range CheckLsmod(ms, "p") {
				got = append(got, f.ID+":"+strings.ToLower(string(f.Severity)))
				if len(f.Evidence) == 0 || !strings.HasPrefix(f.Evidence[0].Source, "p:") {
					t.Errorf("%s: evidence %v", f.ID, f.Evidence)
				}
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}
