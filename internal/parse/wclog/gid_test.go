package wclog

import (
	"strings"
	"testing"
)

// Real lines: kvcache-ai/Mooncake#936 (comment by Socratesa: GID index 3,
// IPv4-mapped) and Mooncake#204 (a link-local GID at index 1); the others
// are the formats of rdma_context.cpp (RdmaContext::construct,
// openRdmaDevice) with values of those issues.
func TestGIDLine(t *testing.T) {
	for _, tt := range []struct {
		name, line string
		ok         bool
		kind       GIDKind
		dev        string
		port, idx  int
		lid        int
		addr       string
		user       bool
		netdev     bool
	}{
		{"#936 IPv4-mapped", "I20260203 17:42:09.445906 3720677 rdma_context.cpp:140] RDMA device: mlx5_3, LID: 0, GID: (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:21:06:1e:14",
			true, GIDDevice, "mlx5_3", 0, 3, 0, "::ffff:33.6.30.20", false, false},
		{"#204 link-local", "I0331 12:02:38.363528 56056 rdma_context.cpp:125] RDMA device: mlx5_0, LID: 0, GID: (GID_Index 1) fe:80:00:00:00:00:00:00:9e:63:c0:ff:fe:65:ab:90",
			true, GIDDevice, "mlx5_0", 0, 1, 0, "fe80::9e63:c0ff:fe65:ab90", false, false},
		{"mlx5dv build, IB LID", "I0101 00:00:00.000000 1 rdma_context.cpp:286] RDMA device: mlx5_1, LID: 17, GID: (GID_Index 0) fe:80:00:00:00:00:00:00:0c:42:a1:03:00:ab:cd:ef, num_lag_ports: 1",
			true, GIDDevice, "mlx5_1", 0, 0, 17, "fe80::c42:a103:ab:cdef", false, false},
		{"all-zero GID", "I0101 rdma_context.cpp:286] RDMA device: mlx5_2, LID: 0, GID: (GID_Index 5) 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00",
			true, GIDDevice, "mlx5_2", 0, 5, 0, "::", false, false},
		{"#936 user-specified, port byte dropped", "I20260203 17:42:09.445168 3720677 rdma_context.cpp:594] Using user-specified GID index: 3 on mlx5_3/ (with network device)",
			true, GIDChoice, "mlx5_3", 0, 3, -1, "", true, true},
		{"user-specified without netdev", "I0101 rdma_context.cpp:1383] Using user-specified GID index: 0 on mlx5_8/1 (without network device)",
			true, GIDChoice, "mlx5_8", 1, 0, -1, "", true, false},
		{"auto pick", "I0101 rdma_context.cpp:1365] Find best gid index: 3 on mlx5_4/1 (network state: with network device)",
			true, GIDChoice, "mlx5_4", 1, 3, -1, "", false, true},
		{"null GID", "W0101 rdma_context.cpp:1400] GID is NULL, please check your GID index by specifying MC_GID_INDEX",
			true, GIDNull, "", 0, -1, -1, "", false, false},
		{"GID cut short", "I0331 rdma_context.cpp:125] RDMA device: mlx5_0, LID: 0, GID: (GID_Index 1) fe:80:00:00", false, "", "", 0, 0, 0, "", false, false},
		{"not a device name", "RDMA device: my card, LID: 0, GID: (GID_Index 1) fe:80:00:00:00:00:00:00:9e:63:c0:ff:fe:65:ab:90", false, "", "", 0, 0, 0, "", false, false},
		{"prose", "please check the GID index: it is wrong", false, "", "", 0, 0, 0, "", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := GIDLine(tt.line)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.ok, g)
			}
			if !ok {
				return
			}
			if g.Kind != tt.kind || g.Device != tt.dev || g.Port != tt.port || g.Index != tt.idx || g.LID != tt.lid || g.User != tt.user || g.Netdev != tt.netdev {
				t.Errorf("got %+v", g)
			}
			if tt.addr != "" && g.Addr.String() != tt.addr {
				t.Errorf("addr %s, want %s", g.Addr, tt.addr)
			}
			if !DetectLine(tt.line) || !Hint(tt.line) {
				t.Errorf("DetectLine/Hint refuse %q", tt.line)
			}
		})
	}
}

// A log of only GID lines parses (it is judged, healthy or not), with
// the SIEVE lines between them skipped.
func TestParseGIDs(t *testing.T) {
	text := "I20260203 17:42:09.442772 3720676 rdma_context.cpp:77] Using SIEVE endpoint store\n" +
		"I20260203 17:42:09.445168 3720677 rdma_context.cpp:594] Using user-specified GID index: 3 on mlx5_3/ (with network device)\n" +
		"I20260203 17:42:09.445906 3720677 rdma_context.cpp:140] RDMA device: mlx5_3, LID: 0, GID: (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:21:06:1e:14\n"
	lg, err := Parse(strings.NewReader(text), "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.GIDs) != 2 || lg.GIDs[0].Line != 2 || lg.GIDs[1].Line != 3 {
		t.Fatalf("GIDs %+v", lg.GIDs)
	}
}
