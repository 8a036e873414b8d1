package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestMixedLinkLayers: an NET/IB list with InfiniBand and Ethernet ports
// together. The first line is from the Azure NHC debugging guide
// (AlizeeChen11/azurehpc-health-checks customTests/debugging-test-failure.md,
// realworld-fresh28): on ND H100 v5 mlx5_1 is the front-end Ethernet NIC.
func TestMixedLinkLayers(t *testing.T) {
	const odissei = "gcn154:1794001:1794038 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB [2]mlx5_3:1/IB [3]mlx5_4:1/IB [4]mlx5_5:1/IB [RO]; OOB eno2np0:172.18.62.154<0>\n"
	tests := []struct {
		name, input string
		want        []string
		sum         []string
	}{
		{"azure ndv5 mlx5_1 among IB", "elsah100:186:303 [6] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [8]mlx5_8:1/IB [RO]; OOB eth0:10.0.0.4<0>\n",
			[]string{"nccl.mixed_link_layers/warning"}, []string{"Ethernet (RoCE) port(s) mlx5_1:1", "NCCL_IB_HCA==mlx5_0:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1", "NCCL_IB_HCA=^=mlx5_1)", "elsah100:186"}},
		{"one IB port among RoCE", "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/IB ; OOB eth0:10.0.0.4<0>\n",
			[]string{"nccl.mixed_link_layers/warning"}, []string{"rings over the InfiniBand port(s) mlx5_2:1", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1 "}},
		// odissei-benchmarks/nccl-tests runs/2nodes/all_reduce_mpi.log
		// (realworld-fresh20): mlx5_0 RoCE listed, every connection over
		// the IB devices 1-4.
		{"connections avoid the RoCE port", odissei + "gcn154:1794001:1794038 [3] NCCL INFO Channel 00/0 : 7[3] -> 0[0] [send] via NET/IB/4/GDRDMA\n",
			nil, nil},
		{"a connection over the RoCE port", odissei + "gcn154:1794001:1794038 [3] NCCL INFO Channel 00/0 : 7[3] -> 0[0] [send] via NET/IB/0/GDRDMA\n",
			[]string{"nccl.mixed_link_layers/warning"}, []string{"mlx5_0:1", "NCCL_IB_HCA==mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1 "}},
		{"all IB", "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_2:1/IB ; OOB eth0:10.0.0.4<0>\n", nil, nil},
		// zai-org/ImageReward#65: RoCE only.
		{"all RoCE", "65826-86bd789679-2dxbs:80746:80746 [3] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_18:1/RoCE ; OOB eth0:33.117.221.247<0>\n", nil, nil},
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
			for _, s := range tt.sum {
				if !strings.Contains(a.Findings[0].Summary, s) {
					t.Errorf("summary %q lacks %q", a.Findings[0].Summary, s)
				}
			}
		})
	}
}
