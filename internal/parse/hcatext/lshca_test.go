package hcatext

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// TestParseLshca: lshca tables as pasted: a CI node's (openucx/ucx#5970,
// both ConnectX-5 functions at PCIe x8 of x16, marked ">!<"; mlx5_0 down
// with the rate file's default "10*", mlx5_1 init), and the tool's own
// README example (per-HCA "Dev #N" blocks with FW lines; the second
// block's elastic view leaves LnkStat out).
func TestParseLshca(t *testing.T) {
	const ci = "Nodes: swx-rdmz-ucx-arm-hwi-01\n" +
		"-----------------------------------------------------------------------------------------------------------\n" +
		"  PCI_addr   |  RDMA  | Net | Numa | LnkStat | IpStat | Link | Rate | LnkCapWidth | LnkStaWidth | HCA_Type\n" +
		"-----------------------------------------------------------------------------------------------------------\n" +
		"000a:11:00.0 | mlx5_0 | ib0 |  2   |  down   |  down  |  IB  | 10*  |   x16 G3    |   x8 >!<    |  MT4119\n" +
		"000a:11:00.1 | mlx5_1 | ib1 |  2   |  init   |  down  |  IB  | 100  |   x16 G3    |   x8 >!<    |  MT4119\n" +
		"-----------------------------------------------------------------------------------------------------------\n"
	const readme = "---------------------------------------------------------------------------------------------------\n" +
		"Dev #1\n Desc: Mellanox Technologies MT28908 Family [ConnectX-6]\n PN: MCX654106A-HCAT  rev. A5\n PSID: MT_0000000228\n SN: MT185.......\n FW: 20.26.0282\n Tempr: 60\n" +
		"---------------------------------------------------------------------------------------------------\n" +
		"  PCI_addr   |  RDMA  | Net  | Numa | LnkStat | IpStat  | Link | Rate | LnkCapWidth | HCA_Type\n" +
		"---------------------------------------------------------------------------------------------------\n" +
		"0000:04:00.0 | mlx5_0 | ib0  |  0   |  actv   | up_ip4  |  IB  | 200  |   x16 G3    |  MT4123\n" +
		"0000:04:00.1 | mlx5_1 | ib1  |  0   |  down   |  down   |  IB  | 10*  |   x16 G3    |  MT4123\n" +
		"---------------------------------------------------------------------------------------------------\n" +
		"Dev #2\n Desc: Mellanox Technologies MT27800 Family [ConnectX-5]\n FW: 16.27.1016\n" +
		"---------------------------------------------------------------------------------------------------\n" +
		"  PCI_addr   |  RDMA  | Net  | Numa | IpStat  | Link | Rate | LnkCapWidth | LnkStaWidth | HCA_Type\n" +
		"---------------------------------------------------------------------------------------------------\n" +
		"0000:81:00.0 | mlx5_2 | ib2  |  1   | up_ip4  |  IB  | 100  |   x16 G3    |   x8 >!<    |  MT4119\n" +
		"0000:81:00.1 | mlx5_3 | p2p2 |  1   | up_ip46 | Eth  | 100  |   x16 G3    |   x8 >!<    |  MT4119\n"
	type port struct {
		state, ll, netdev, fw string
		rate                  int // deci-Gb/s; 0: none
		capW, staW            int // 0: none
	}
	for _, tt := range []struct {
		name, text string
		host       string
		want       map[string]port
	}{
		{"CI node, PCIe x8 of x16", ci, "swx-rdmz-ucx-arm-hwi-01", map[string]port{
			"mlx5_0": {"DOWN", "InfiniBand", "ib0", "", 0, 16, 8},
			"mlx5_1": {"INIT", "InfiniBand", "ib1", "", 1000, 16, 8},
		}},
		{"README, two Dev blocks", readme, "", map[string]port{
			"mlx5_0": {"ACTIVE", "InfiniBand", "ib0", "20.26.0282", 2000, 16, 0},
			"mlx5_1": {"DOWN", "InfiniBand", "ib1", "20.26.0282", 0, 16, 0},
			"mlx5_2": {"-", "InfiniBand", "ib2", "16.27.1016", 0, 16, 8},
			"mlx5_3": {"-", "Ethernet", "p2p2", "16.27.1016", 0, 16, 8},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseLshca(strings.NewReader(tt.text), "lshca.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Skipped) != 0 || r.Snap.Host != tt.host {
				t.Errorf("host %q, skipped %+v", r.Snap.Host, r.Skipped)
			}
			if len(r.Snap.Devices) != len(tt.want) {
				t.Errorf("devices %+v", r.Snap.Devices)
			}
			for dev, w := range tt.want {
				d, p := r.Snap.Device(dev), r.Snap.Port(dev, 1)
				if d == nil || p == nil {
					t.Errorf("%s missing", dev)
					continue
				}
				got := port{"-", string(p.LinkLayer), p.NetDev, d.FWVersion, 0, 0, 0}
				if p.State != nil {
					got.state = p.State.String()
				}
				if p.Rate != nil {
					got.rate = p.Rate.DeciGbps
				}
				if f := r.Snap.PCIDevice(d.PCI); f != nil {
					if f.MaxLinkWidth != nil {
						got.capW = *f.MaxLinkWidth
					}
					if f.CurrentLinkWidth != nil {
						got.staW = *f.CurrentLinkWidth
					}
				}
				if got != w {
					t.Errorf("%s = %+v, want %+v", dev, got, w)
				}
				if d.HCAType == "" || p.PhysState != nil && *p.PhysState != ib.PhysPolling {
					t.Errorf("%s: HCA type %q, phys %v", dev, d.HCAType, p.PhysState)
				}
			}
		})
	}
	// "poll" is DOWN with the physical state Polling.
	r, err := ParseLshca(strings.NewReader("  PCI_addr   |  RDMA  | LnkStat | Link\n0000:04:00.1 | mlx5_1 |  poll   |  IB\n"), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Snap.Port("mlx5_1", 1); p == nil || p.State == nil || *p.State != ib.StateDown || p.PhysState == nil || *p.PhysState != ib.PhysPolling {
		t.Errorf("poll read as %+v", p)
	}
	if IsLshcaHeader("a | b | RDMA") || !IsLshcaHeader(" RDMA  | Net | Numa | IpStat  | VrtHCA | PLid |      PGuid") {
		t.Error("IsLshcaHeader")
	}
}
