package nccllog

import (
	"reflect"
	"testing"
)

// Ranks repeat the same NET lines; parseNet recalls what its regexps made
// of a message it has seen, and each process must still get its own
// devices, interfaces, GDR states and line numbers, as a first reading
// gives them.
func TestNetLinesRepeatedAcrossRanks(t *testing.T) {
	lines := []string{
		"a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/RoCE ; OOB ib0:10.0.0.1<0>",
		"b:2:2 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/RoCE ; OOB ib0:10.0.0.1<0>",
		"a:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'",
		"b:2:2 [1] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'",
		"b:2:2 [1] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1",
		"a:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:10.0.0.2<0>",
		"b:2:2 [1] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:10.0.0.2<0>",
		"b:2:2 [1] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'",
		"a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/RoCE ; OOB ib0:10.0.0.1<0>",
	}
	for _, fold := range []bool{false, true} {
		p := NewParser("t", fold)
		for i, l := range lines {
			p.Line(i+1, l)
		}
		lg, err := p.Log()
		if err != nil {
			t.Fatal(err)
		}
		devs := []IBDevice{{Name: "mlx5_0", Port: 1, LinkLayer: "IB"}, {Name: "mlx5_3", Port: 1, LinkLayer: "RoCE"}}
		want := map[string]struct {
			ibLine, sockLine int
			gdr              []GDRState
		}{
			"a": {9, 6, []GDRState{{HCA: "mlx5_0", Enabled: true, Line: 3, Text: "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'"}}},
			"b": {2, 7, []GDRState{{HCA: "mlx5_0", Enabled: true, Line: 4, Text: "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'"},
				{HCA: "HCA 1", Line: 5, Text: "NET/IB : GPU Direct RDMA Disabled for HCA 1"}}},
		}
		if len(lg.Procs) != 2 {
			t.Fatalf("fold=%v: %d processes, want 2", fold, len(lg.Procs))
		}
		for _, pr := range lg.Procs {
			w := want[pr.Host]
			if !reflect.DeepEqual(pr.IBDevices, devs) || pr.IBLine != w.ibLine || pr.SocketLine != w.sockLine ||
				!reflect.DeepEqual(pr.SocketIfs, []string{"eth0", "eth1"}) || !reflect.DeepEqual(pr.GDR, w.gdr) {
				t.Errorf("fold=%v %s: devices %v line %d, sockets %v line %d, gdr %+v; want line %d, socket line %d, gdr %+v",
					fold, pr.Host, pr.IBDevices, pr.IBLine, pr.SocketIfs, pr.SocketLine, pr.GDR, w.ibLine, w.sockLine, w.gdr)
			}
		}
	}
}
