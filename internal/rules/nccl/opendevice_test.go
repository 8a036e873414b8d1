package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestOpenDeviceSkipped: ncclIbInit (src/transport/net_ib.cc) skips a
// device whose ibv_open_device failed ("NET/IB : Unable to open device
// D") and goes on with the others. The lines are from
// zai-org/ImageReward#65 (realworld-fresh27): a pod whose host lists
// mlx5_58/mlx5_59 that the pod cannot open, while NCCL uses mlx5_1 and
// mlx5_18 over RoCE.
func TestOpenDeviceSkipped(t *testing.T) {
	const (
		call  = "65826-86bd789679-2dxbs:80744:80744 [1] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed\n"
		skip  = "65826-86bd789679-2dxbs:80744:80744 [1] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_58\n"
		using = "65826-86bd789679-2dxbs:80744:80744 [1] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_18:1/RoCE ; OOB eth0:33.117.221.247<0>\n"
		netIB = "65826-86bd789679-2dxbs:80744:80744 [1] NCCL INFO Using network IB\n"
	)
	tests := []struct {
		name, input string
		want        []string
		sum         []string // substrings of the first finding's summary
	}{
		{"skipped devices absent from the list used", call + skip +
			"65826-86bd789679-2dxbs:80746:80746 [3] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_59\n" +
			"65826-86bd789679-2dxbs:80746:80746 [3] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_18:1/RoCE ; OOB eth0:33.117.221.247<0>\n" +
			"65826-86bd789679-2dxbs:80746:80746 [3] NCCL INFO Using network IB\n" + using + netIB,
			[]string{"nccl.resource_error/warning"}, []string{"could not open mlx5_58, mlx5_59", "uses mlx5_1:1/RoCE mlx5_18:1/RoCE", "runs over RDMA"}},
		{"a skipped device is in the list used", call + skip +
			"65826-86bd789679-2dxbs:80744:80744 [1] NCCL INFO NET/IB : Using [0]mlx5_58:1/RoCE [1]mlx5_18:1/RoCE ; OOB eth0:33.117.221.247<0>\n" + netIB,
			[]string{"nccl.resource_error/critical"}, []string{"ibv_open_device failed 1 time(s)"}},
		{"no device named", call + using + netIB,
			[]string{"nccl.resource_error/critical"}, []string{"not accessible"}},
		{"no list of devices used", call + skip,
			[]string{"nccl.resource_error/critical"}, []string{"not accessible"}},
		// NVIDIA/nccl#451 (realworld-fresh7): the only device failed to
		// open and NCCL fell back to sockets.
		{"fell back to sockets", "NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n" +
			"misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed\n" +
			"transport/net_ib.cc:148 NCCL WARN NET/IB : Unable to open device mlx5_bond_0\n" +
			"NCCL INFO NET/IB : No device found.\n" +
			"NCCL INFO NET/Socket : Using [0]bond0:200.1.93.2<0>\n" +
			"NCCL INFO Using network Socket\n",
			[]string{"nccl.resource_error/critical", "nccl.socket_fallback/critical"}, []string{"not accessible"}},
		{"another process of the host lists nothing", call + skip + using + netIB +
			"65826-86bd789679-2dxbs:80750:80750 [5] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed\n" +
			"65826-86bd789679-2dxbs:80750:80750 [5] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_59\n",
			[]string{"nccl.resource_error/critical"}, []string{"not accessible"}},
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
