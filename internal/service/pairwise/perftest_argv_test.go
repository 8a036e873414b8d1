package pairwise

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPerftestArgv(t *testing.T) {
	gid := func(v int) *int { return &v }
	tests := []struct {
		name    string
		o       perftestCommand
		want    []string
		wantErr string
	}{
		{"server bw", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0"}, []string{"ib_write_bw", "-d", "mlx5_0", "--report_gbits", "-F"}, ""},
		{"client bw all flags", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", Port: 1, GIDIndex: gid(3), Size: 1 << 20, DurationS: 10, QPs: 4, TCPPort: 18515, Server: "10.0.0.2"},
			[]string{"ib_write_bw", "-d", "mlx5_0", "-i", "1", "-x", "3", "-s", "1048576", "-D", "10", "-q", "4", "-p", "18515", "--report_gbits", "-F", "10.0.0.2"}, ""},
		{"client lat by name", perftestCommand{Tool: toolWriteLat, Device: "mlx5_bond_0", Iterations: 10000, Server: "gpu017.cluster.local"},
			[]string{"ib_write_lat", "-d", "mlx5_bond_0", "-n", "10000", "-F", "gpu017.cluster.local"}, ""},
		{"ipv6 server", perftestCommand{Tool: toolSendBW, Device: "mlx5_1", Server: "fe80::1"}, []string{"ib_send_bw", "-d", "mlx5_1", "--report_gbits", "-F", "fe80::1"}, ""},
		{"unknown tool", perftestCommand{Tool: "rm", Device: "mlx5_0"}, nil, "not one of"},
		{"device injection", perftestCommand{Tool: toolWriteBW, Device: "-h"}, nil, "not an RDMA device name"},
		{"device with space", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0 --foo"}, nil, "not an RDMA device name"},
		{"port 3", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", Port: 3}, nil, "port 3"},
		{"gid 256", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", GIDIndex: gid(256)}, nil, "GID index 256"},
		{"size 0 bytes negative", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", Size: -1}, nil, "message size"},
		{"size too big", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", Size: 2 << 30}, nil, "message size"},
		{"duration and iterations", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", DurationS: 5, Iterations: 100}, nil, "not both"},
		{"duration too long", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", DurationS: 7200}, nil, "duration"},
		{"qps on lat", perftestCommand{Tool: toolWriteLat, Device: "mlx5_0", QPs: 2}, nil, "bandwidth tests"},
		{"server option injection", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", Server: "-x"}, nil, "neither an IP"},
		{"server with shell", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", Server: "a;reboot"}, nil, "neither an IP"},
		{"low tcp port", perftestCommand{Tool: toolWriteBW, Device: "mlx5_0", TCPPort: 22}, nil, "TCP port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.o.argv()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
		})
	}
}
