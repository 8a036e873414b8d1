package nccllog

import (
	"reflect"
	"strings"
	"testing"
)

// TestNCCL23NetworkLines: NCCL 2.3's wordings of the network it chose
// (src/init.cu initNet: "Using internal Network Socket|IB", "Using
// external Network NAME"), of the interfaces findInterfaces picked
// (src/include/socket.h: "NET : Using interface ib0:12.12.12.102<0>")
// and of the IB transport's sideband interface (src/transport/net_ib.cu
// initDevices), as NVIDIA/nccl#207 and horovod/horovod#1097 show them;
// and a NET/Socket list on loopback only (Project-HAMi/HAMi-core#261).
func TestNCCL23NetworkLines(t *testing.T) {
	for _, tc := range []struct {
		name, in       string
		network        string
		netLine        int
		plugin         string
		ifs            []NetIf
		sideband       string
		sideLine       int
		socketLo       bool
		ibLine         int
		socketIfs      []string
		networkTextHas string
	}{
		{name: "internal Socket over ib0",
			in: "gpu2:46654:46654 [0] NCCL INFO NET : Using interface ib0:12.12.12.102<0>\n" +
				"gpu2:46654:46654 [0] NCCL INFO NET/IB : Using interface ib0 for sideband communication\n" +
				"gpu2:46654:46654 [0] NCCL INFO Using internal Network Socket\n" +
				"gpu2:46654:46654 [0] NCCL INFO NET : Using interface ib0:12.12.12.102<0>\n" +
				"gpu2:46654:46654 [0] NCCL INFO NET/Socket : 1 interfaces found\n",
			network: "Socket", netLine: 3, ifs: []NetIf{{Name: "ib0", Addr: "12.12.12.102<0>", Line: 1}}, sideband: "ib0", sideLine: 2,
			networkTextHas: "Using internal Network Socket"},
		{name: "internal IB",
			in: "VS004:18172:18962 [0] NCCL INFO NET : Using interface ib0:192.168.0.4<0>\n" +
				"VS004:18172:18962 [0] NCCL INFO NET/IB : Using interface ib0 for sideband communication\n" +
				"VS004:18172:18962 [0] NCCL INFO NET/IB: [0] mlx5_0:1/IB\n" +
				"VS004:18172:18962 [0] NCCL INFO Using internal Network IB\n",
			network: "IB", netLine: 4, ifs: []NetIf{{Name: "ib0", Addr: "192.168.0.4<0>", Line: 1}}, sideband: "ib0", sideLine: 2,
			ibLine: 3, networkTextHas: "Using internal Network IB"},
		{name: "external network",
			in:      "h:1:1 [0] NCCL INFO Using external Network AWS Libfabric\n",
			network: "AWS Libfabric", netLine: 1, plugin: "AWS Libfabric", networkTextHas: "external"},
		{name: "IPv6 link-local interfaces, two of them",
			in: "a:5:5 [3] NCCL INFO NET : Using interface ib0:fe80::ee0d:9a03:9c:e0b2%ib0<0>\n" +
				"a:5:5 [3] NCCL INFO NET : Using interface eth0:10.0.0.1<0>\n",
			ifs: []NetIf{{Name: "ib0", Addr: "fe80::ee0d:9a03:9c:e0b2%ib0<0>", Line: 1}, {Name: "eth0", Addr: "10.0.0.1<0>", Line: 2}}},
		{name: "socket on loopback",
			in: "test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO NET/IB : Using [RO]; OOB lo:127.0.0.1<0>\n" +
				"test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n",
			socketLo: true, ibLine: 1, socketIfs: []string{"lo"}},
		{name: "socket on loopback and eth0",
			in:        "h:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0> [1]eth0:10.0.0.1<0>\n",
			socketIfs: []string{"lo", "eth0"}},
		{name: "socket on loopback, then eth0",
			in:        "h:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\nh:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n",
			socketIfs: []string{"eth0"}},
		{name: "not the sideband wording",
			in: "h:1:1 [0] NCCL INFO NET/IB : Using interface ib0 for something\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tc.in), "t")
			if err != nil {
				t.Fatal(err)
			}
			if len(lg.Procs) != 1 {
				t.Fatalf("%d processes", len(lg.Procs))
			}
			p := lg.Procs[0]
			if p.Network != tc.network || p.NetworkLine != tc.netLine || p.NetPlugin != tc.plugin || !strings.Contains(p.NetworkText, tc.networkTextHas) {
				t.Errorf("network %q line %d text %q plugin %q; want %q line %d plugin %q", p.Network, p.NetworkLine, p.NetworkText, p.NetPlugin, tc.network, tc.netLine, tc.plugin)
			}
			if !reflect.DeepEqual(p.NetIfs, tc.ifs) {
				t.Errorf("interfaces %+v, want %+v", p.NetIfs, tc.ifs)
			}
			if p.Sideband != tc.sideband || p.SidebandLine != tc.sideLine {
				t.Errorf("sideband %q line %d, want %q line %d", p.Sideband, p.SidebandLine, tc.sideband, tc.sideLine)
			}
			if p.SocketLo != tc.socketLo || !reflect.DeepEqual(p.SocketIfs, tc.socketIfs) {
				t.Errorf("socket %v lo %v, want %v lo %v", p.SocketIfs, p.SocketLo, tc.socketIfs, tc.socketLo)
			}
			if p.IBLine != tc.ibLine {
				t.Errorf("IB line %d, want %d", p.IBLine, tc.ibLine)
			}
		})
	}
}
