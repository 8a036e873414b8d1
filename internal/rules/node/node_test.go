package node

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/expect"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

func p[T any](v T) *T { return &v }

// healthyNode is an H100-style node built in code: 8 NDR HCAs and 2 GPUs
// behind a PCIe switch, plus one dual-port 100G RoCE card.
func healthyNode() *snapshot.Snapshot {
	s := &snapshot.Snapshot{Host: "gpu017", Taken: time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)}
	s.PCI = append(s.PCI, snapshot.PCIDevice{Address: "0000:1a:00.0", Path: "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:1a:00.0",
		Class: p(uint32(pcie.ClassBridgePCI)), MaxLinkSpeed: p(pcie.Gen5), MaxLinkWidth: p(16), CurrentLinkSpeed: p(pcie.Gen5), CurrentLinkWidth: p(16)})
	for i := 0; i < 8; i++ {
		addr := pcie.Address(fmt.Sprintf("0000:%02x:00.0", 0x20+i))
		s.PCI = append(s.PCI, snapshot.PCIDevice{Address: addr, Parent: "0000:1a:00.0", Vendor: p(uint32(pcie.VendorMellanox)), DeviceID: p(uint32(0x1021)),
			Class: p(uint32(pcie.ClassNetIB)), MaxLinkSpeed: p(pcie.Gen5), MaxLinkWidth: p(16), CurrentLinkSpeed: p(pcie.Gen5), CurrentLinkWidth: p(16)})
		d := snapshot.Device{Name: fmt.Sprintf("mlx5_%d", i), HCAType: "MT4129", FWVersion: "28.39.2048", PCI: addr}
		d.Ports = []snapshot.Port{{Device: d.Name, Number: 1, LinkLayer: ib.LinkLayerInfiniBand,
			State: p(ib.StateActive), PhysState: p(ib.PhysLinkUp), Rate: p(ib.NewRate(4, ib.SpeedNDR)),
			LID: p(uint32(10 + i)), SMLID: p(uint32(1)), HasCounters: true,
			Counters: []snapshot.Counter{
				{Name: "link_downed", Value: 0, Spec: ib.PortCounterSpec("link_downed", true)},
				{Name: "port_xmit_data", Value: 1 << 40, Spec: ib.PortCounterSpec("port_xmit_data", true)},
				{Name: "symbol_error", Value: 3, Spec: ib.PortCounterSpec("symbol_error", true)},
			}}}
		s.Devices = append(s.Devices, d)
	}
	for i := 0; i < 2; i++ {
		addr := pcie.Address(fmt.Sprintf("0000:%02x:00.0", 0x30+i))
		s.PCI = append(s.PCI, snapshot.PCIDevice{Address: addr, Parent: "0000:1a:00.0", Vendor: p(uint32(pcie.VendorNVIDIA)), DeviceID: p(uint32(0x2330)),
			Class: p(uint32(pcie.Class3D)), MaxLinkSpeed: p(pcie.Gen5), MaxLinkWidth: p(16), CurrentLinkSpeed: p(pcie.Gen1), CurrentLinkWidth: p(16)})
	}
	s.PCI = append(s.PCI,
		snapshot.PCIDevice{Address: "0000:40:00.0", Vendor: p(uint32(pcie.VendorMellanox)), DeviceID: p(uint32(0x101d)), Class: p(uint32(pcie.ClassNetEth)), MaxLinkSpeed: p(pcie.Gen4), MaxLinkWidth: p(16), CurrentLinkSpeed: p(pcie.Gen4), CurrentLinkWidth: p(16)},
		snapshot.PCIDevice{Address: "0000:40:00.1", Vendor: p(uint32(pcie.VendorMellanox)), DeviceID: p(uint32(0x101d)), Class: p(uint32(pcie.ClassNetEth)), MaxLinkSpeed: p(pcie.Gen4), MaxLinkWidth: p(16), CurrentLinkSpeed: p(pcie.Gen4), CurrentLinkWidth: p(16)},
	)
	for i := 0; i < 2; i++ {
		d := snapshot.Device{Name: fmt.Sprintf("mlx5_%d", 8+i), HCAType: "MT4125", FWVersion: "22.39.1002", PCI: pcie.Address(fmt.Sprintf("0000:40:00.%d", i))}
		nd := fmt.Sprintf("ens1f%dnp%d", i, i)
		d.Ports = []snapshot.Port{{Device: d.Name, Number: 1, LinkLayer: ib.LinkLayerEthernet, NetDev: nd,
			State: p(ib.StateActive), PhysState: p(ib.PhysLinkUp), Rate: p(ib.NewRate(4, ib.SpeedEDR))}}
		s.Devices = append(s.Devices, d)
		s.NetDevs = append(s.NetDevs, snapshot.NetDev{Name: nd, OperState: "up", Carrier: p(true)})
	}
	s.Sort()
	return s
}

type want struct {
	id       string
	sev      finding.Severity
	device   string
	port     int
	contains string
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s/%d: %s", f.ID, f.Severity, f.Subject.Device, f.Subject.Port, f.Summary))
	}
	return out
}

func mustExpect(t *testing.T, y string) *expect.Expectation {
	t.Helper()
	e, err := expect.Parse(strings.NewReader(y), "expect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// withIPoIB gives the first n IB ports an IPoIB interface ibN with the
// MTUs given (the rest 4092).
func withIPoIB(s *snapshot.Snapshot, mtus ...int) {
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("ib%d", i)
		mtu := 4092
		if i < len(mtus) {
			mtu = mtus[i]
		}
		s.Port(fmt.Sprintf("mlx5_%d", i), 1).NetDev = name
		s.NetDevs = append(s.NetDevs, snapshot.NetDev{Name: name, MTU: p(mtu), Type: p(32), OperState: "up"})
	}
	s.Sort()
}

func TestNodeRules(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *snapshot.Snapshot)
		expect string
		want   []want
	}{
		{name: "healthy node: no findings (GPU idle at Gen1 is not a fault)", mutate: func(*snapshot.Snapshot) {}},
		{name: "polling", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.State, pt.PhysState = p(ib.StateDown), p(ib.PhysPolling)
		}, want: []want{{"port.polling", finding.Critical, "mlx5_3", 1, "Polling"}}},
		{name: "disabled", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_2", 1)
			pt.State, pt.PhysState = p(ib.StateDown), p(ib.PhysDisabled)
		}, want: []want{{"port.disabled", finding.Critical, "mlx5_2", 1, "Disabled"}}},
		{name: "roce down reads 40G QDR and Disabled: one finding about the netdev, no rate finding", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_9", 1)
			pt.State, pt.PhysState, pt.Rate = p(ib.StateDown), p(ib.PhysDisabled), p(ib.NewRate(4, ib.SpeedQDR))
			s.NetDev("ens1f1np1").OperState = "down"
		}, want: []want{{"port.disabled", finding.Critical, "mlx5_9", 1, "ens1f1np1 has no carrier"}}},
		{name: "down while training", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_1", 1)
			pt.State, pt.PhysState = p(ib.StateDown), p(ib.PhysTraining)
		}, want: []want{{"port.down", finding.Critical, "mlx5_1", 1, "DOWN"}}},
		{name: "init: no SM", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_4", 1)
			pt.State, pt.LID, pt.SMLID = p(ib.StateInit), p(uint32(0)), p(uint32(0))
		}, want: []want{{"port.init_no_sm", finding.Critical, "mlx5_4", 1, "no subnet manager"}}},
		{name: "every port INIT (the SM died): all critical, none excused by siblings", mutate: func(s *snapshot.Snapshot) {
			for i := range s.Devices {
				if s.Devices[i].HCAType == "MT4129" {
					s.Devices[i].Ports[0].State = p(ib.StateInit)
				}
			}
		}, want: []want{
			{"port.init_no_sm", finding.Critical, "mlx5_0", 1, "the physical link is up"}, {"port.init_no_sm", finding.Critical, "mlx5_1", 1, ""},
			{"port.init_no_sm", finding.Critical, "mlx5_2", 1, ""}, {"port.init_no_sm", finding.Critical, "mlx5_3", 1, ""},
			{"port.init_no_sm", finding.Critical, "mlx5_4", 1, ""}, {"port.init_no_sm", finding.Critical, "mlx5_5", 1, ""},
			{"port.init_no_sm", finding.Critical, "mlx5_6", 1, ""}, {"port.init_no_sm", finding.Critical, "mlx5_7", 1, ""},
		}},
		{name: "armed: no SM", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_4", 1).State = p(ib.StateArmed)
		}, want: []want{{"port.init_no_sm", finding.Critical, "mlx5_4", 1, "ARMED"}}},
		{name: "width 2X: width and 50% rate shortfall", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_5", 1).Rate = p(ib.NewRate(2, ib.SpeedNDR))
		}, want: []want{
			{"port.width_degraded", finding.Critical, "mlx5_5", 1, "2X instead of 4X (200 Gb/s, 50% below the expected 400 Gb/s)"},
		}},
		{name: "speed HDR", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_6", 1).Rate = p(ib.NewRate(4, ib.SpeedHDR))
		}, want: []want{
			{"port.speed_degraded", finding.Critical, "mlx5_6", 1, "HDR instead of NDR (200 Gb/s, 50% below the expected 400 Gb/s)"},
		}},
		{name: "small shortfall is a warning", expect: `version: 1
devices:
  - name: mlx5_0
    ports:
      - port: 1
        rate: 400 Gb/sec (4X NDR)
  - name: mlx5_8
    ports:
      - port: 1
        rate: 112 Gb/sec (8X FDR)
`, mutate: func(s *snapshot.Snapshot) {}, want: []want{
			// 100 of 112 Gb/s is 10.7% short: a warning, not critical; and EDR is
			// a newer generation than FDR, so no speed finding, and 4X < 8X.
			{"port.width_degraded", finding.Warning, "mlx5_8", 1, "4X instead of 8X (100 Gb/s, 11% below the expected 112 Gb/s)"},
		}},
		{name: "width and speed both down: one finding", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_5", 1).Rate = p(ib.NewRate(2, ib.SpeedHDR))
		}, want: []want{
			{"port.width_degraded", finding.Critical, "mlx5_5", 1, "2X instead of 4X and its lanes at HDR instead of NDR (100 Gb/s, 75% below the expected 400 Gb/s)"},
		}},
		{name: "shortfall that neither width nor speed explains", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_5", 1).Rate = p(ib.Rate{DeciGbps: 2000, Width: 4}) // lane speed not known
		}, want: []want{
			{"port.rate_below_expected", finding.Critical, "mlx5_5", 1, "runs at 200 Gb/s, 50% below the expected 400 Gb/s"},
		}},
		{name: "saturated counters", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_7", 1)
			pt.Counters[0].Value = 255   // link_downed, 8 bits
			pt.Counters[2].Value = 65535 // symbol_error, 16 bits
		}, want: []want{
			{"port.counter_saturated", finding.Warning, "mlx5_7", 1, "link_downed is stuck at its 8-bit maximum 255"},
			{"port.counter_saturated", finding.Warning, "mlx5_7", 1, "symbol_error is stuck at its 16-bit maximum 65535"},
		}},
		{name: "a 64-bit data counter at a large value is not saturated", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_7", 1).Counters[1].Value = 1<<64 - 1
		}},
		{name: "firmware odd one out", mutate: func(s *snapshot.Snapshot) {
			s.Device("mlx5_5").FWVersion = "28.36.1010"
		}, want: []want{{"port.fw_mismatch", finding.Warning, "mlx5_5", 0, "28.36.1010 while 7 other MT4129 HCAs run 28.39.2048"}}},
		{name: "firmware left out of the file: the devices it names are still its peers", expect: `version: 1
devices:
  - name: "mlx5_[0-4]"
    fw_ver: 28.39.2048
  - name: "mlx5_[6-7]"
    fw_ver: 28.39.2048
`, mutate: func(s *snapshot.Snapshot) {
			s.Device("mlx5_5").FWVersion = "28.36.1010"
		}, want: []want{{"port.fw_mismatch", finding.Warning, "mlx5_5", 0, "28.36.1010 while 7 other MT4129 HCAs run 28.39.2048"}}},
		{name: "pcie x8 on an HCA", mutate: func(s *snapshot.Snapshot) {
			s.PCIDevice("0000:24:00.0").CurrentLinkWidth = p(8)
		}, want: []want{{"pcie.link_degraded", finding.Critical, "mlx5_4", 0, "x8 instead of x16"}}},
		{name: "pcie Gen3 on an HCA", mutate: func(s *snapshot.Snapshot) {
			s.PCIDevice("0000:24:00.0").CurrentLinkSpeed = p(pcie.Gen3)
		}, want: []want{{"pcie.link_degraded", finding.Critical, "mlx5_4", 0, "Gen3 (8.0 GT/s) instead of Gen5"}}},
		{name: "Gen5 card in a Gen4 slot is not degraded", mutate: func(s *snapshot.Snapshot) {
			br := s.PCIDevice("0000:1a:00.0")
			br.MaxLinkSpeed, br.CurrentLinkSpeed = p(pcie.Gen4), p(pcie.Gen4)
			for i := 0; i < 8; i++ {
				s.PCIDevice(pcie.Address(fmt.Sprintf("0000:%02x:00.0", 0x20+i))).CurrentLinkSpeed = p(pcie.Gen4)
			}
		}},
		{name: "GPU x8 is degraded", mutate: func(s *snapshot.Snapshot) {
			s.PCIDevice("0000:31:00.0").CurrentLinkWidth = p(8)
		}, want: []want{{"pcie.link_degraded", finding.Critical, "", 0, "GPU 0000:31:00.0 trained at x8"}}},
		{name: "down with an unknown physical state is judged on the logical state", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.State, pt.PhysState = p(ib.StateDown), nil
		}, want: []want{{"port.down", finding.Critical, "mlx5_3", 1, "physical state is unknown, so Polling (no link partner) and Disabled cannot be told apart"}}},
		{name: "active with an unknown physical state is not judged", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_3", 1).PhysState = nil
		}},
		{name: "a Mellanox function without an RDMA device while others have one", mutate: func(s *snapshot.Snapshot) {
			s.Devices = slices.DeleteFunc(s.Devices, func(d snapshot.Device) bool { return d.Name == "mlx5_7" })
			s.PCIDevice("0000:27:00.0").Driver = "mlx5_core"
		}, want: []want{{"port.missing", finding.Critical, "", 0, "0000:27:00.0 (mlx5_core) has no RDMA device while the node's other HCAs have theirs"}}},
		{name: "no RDMA device at all but Mellanox functions: warnings", mutate: func(s *snapshot.Snapshot) {
			s.Devices = nil
			s.PCI = slices.DeleteFunc(s.PCI, func(p snapshot.PCIDevice) bool { return p.Address != "0000:40:00.0" })
		}, want: []want{{"port.missing", finding.Warning, "", 0, "is mlx5_ib loaded"}}},
		{name: "no RDMA device and no Mellanox function: one warning", mutate: func(s *snapshot.Snapshot) {
			s.Devices, s.PCI = nil, nil
		}, want: []want{{"port.missing", finding.Warning, "", 0, "no RDMA device on this node"}}},
		{name: "unreadable state is not judged", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_0", 1).State = nil
		}},
		{name: "expected device missing, glob count short, port missing", expect: `version: 1
devices:
  - name: "mlx5_[0-7]"
    count: 9
  - name: mlx5_0
    ports:
      - port: 2
  - name: mlx5_11
  - name: mlx5_12
    optional: true
`, mutate: func(*snapshot.Snapshot) {}, want: []want{
			{"port.missing", finding.Critical, "mlx5_0", 2, "no port 2"},
			{"port.missing", finding.Critical, "mlx5_11", 0, "mlx5_11 is absent"},
			{"port.missing", finding.Critical, "mlx5_[0-7]", 0, "8 of 9 expected"},
		}},
		{name: "expectation says DOWN: no finding; ignore skips", expect: `version: 1
devices:
  - name: mlx5_3
    ports:
      - port: 1
        state: DOWN
  - name: mlx5_2
    ports:
      - port: 1
        ignore: true
`, mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.State, pt.PhysState = p(ib.StateDown), p(ib.PhysPolling)
			pt = s.Port("mlx5_2", 1)
			pt.State, pt.PhysState = p(ib.StateDown), p(ib.PhysPolling)
		}},
		{name: "expected fw differs", expect: `version: 1
devices:
  - name: mlx5_*
    fw_ver: 28.40.1000
  - name: mlx5_[89]
    fw_ver: 22.39.1002
`, mutate: func(*snapshot.Snapshot) {}, want: []want{
			{"port.fw_mismatch", finding.Warning, "mlx5_0", 0, "expected 28.40.1000"},
			{"port.fw_mismatch", finding.Warning, "mlx5_1", 0, ""}, {"port.fw_mismatch", finding.Warning, "mlx5_2", 0, ""},
			{"port.fw_mismatch", finding.Warning, "mlx5_3", 0, ""}, {"port.fw_mismatch", finding.Warning, "mlx5_4", 0, ""},
			{"port.fw_mismatch", finding.Warning, "mlx5_5", 0, ""}, {"port.fw_mismatch", finding.Warning, "mlx5_6", 0, ""},
			{"port.fw_mismatch", finding.Warning, "mlx5_7", 0, ""},
		}},
		{name: "expected PCIe Gen4 x16 met by Gen5 max card at Gen4", expect: `version: 1
devices:
  - name: mlx5_4
    pcie: {speed: Gen4, width: 16}
`, mutate: func(s *snapshot.Snapshot) {
			s.PCIDevice("0000:24:00.0").CurrentLinkSpeed = p(pcie.Gen4)
		}},
		{name: "lone port down with no active sibling of its model is info", mutate: func(s *snapshot.Snapshot) {
			// Make mlx5_9 a different model with its only port down.
			d := s.Device("mlx5_9")
			d.HCAType = "MT4119"
			pt := s.Port("mlx5_9", 1)
			pt.State, pt.PhysState = p(ib.StateDown), p(ib.PhysPolling)
		}, want: []want{{"port.polling", finding.Info, "mlx5_9", 1, "uncabled on purpose"}}},
		{name: "pkeys: full member of the default partition is healthy", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.HasPKeys, pt.PKeys = true, []uint16{0xffff}
		}},
		{name: "pkeys: limited in the default partition but full in another is healthy", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.HasPKeys, pt.PKeys = true, []uint16{0x7fff, 0x8001}
		}},
		{name: "pkeys: limited member only", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.HasPKeys, pt.PKeys = true, []uint16{0x7fff}
		}, want: []want{{"port.pkey_limited_only", finding.Warning, "mlx5_3", 1, "limited member of its partitions (0x7fff)"}}},
		{name: "pkeys: full member of another partition, no default key", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.HasPKeys, pt.PKeys = true, []uint16{0x8001}
		}, want: []want{{"port.pkey_default_missing", finding.Warning, "mlx5_3", 1, "in no default partition (neither 0xffff nor 0x7fff among 0x8001)"}}},
		{name: "pkeys: limited member of another partition only is one finding", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.HasPKeys, pt.PKeys = true, []uint16{0x0001}
		}, want: []want{{"port.pkey_default_missing", finding.Warning, "mlx5_3", 1, "among 0x0001"}}},
		{name: "pkeys: empty table on an active port", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_3", 1).HasPKeys = true
		}, want: []want{{"port.pkey_none", finding.Critical, "mlx5_3", 1, "empty P_Key table"}}},
		{name: "pkeys: empty table on a down port is the state finding only", mutate: func(s *snapshot.Snapshot) {
			pt := s.Port("mlx5_3", 1)
			pt.HasPKeys = true
			pt.State, pt.PhysState = p(ib.StateDown), p(ib.PhysPolling)
		}, want: []want{{"port.polling", finding.Critical, "mlx5_3", 1, "Polling"}}},
		{name: "pkeys: table not listed is not judged", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_3", 1).HasPKeys = false
		}},
		{name: "pkeys: RoCE ports are not judged", mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_8", 1).HasPKeys = true
		}},
		{name: "ipoib: one MTU on every interface", mutate: func(s *snapshot.Snapshot) { withIPoIB(s) }},
		{name: "ipoib: one interface in datagram 2K among 4K", mutate: func(s *snapshot.Snapshot) { withIPoIB(s, 4092, 4092, 4092, 2044) },
			want: []want{{"port.ipoib_mtu_mismatch", finding.Warning, "mlx5_3", 1, "ib3 of mlx5_3 port 1 has MTU 2044 while 7 of the node's 8 IPoIB interfaces have 4092"}}},
		{name: "ipoib: RoCE netdevs at 9000 are not IPoIB", mutate: func(s *snapshot.Snapshot) {
			withIPoIB(s)
			s.NetDev("ens1f0np0").MTU = p(9000)
		}},
		{name: "driver matches the expectation", expect: "version: 1\ndriver_version: 24.10-1.1.4\n" + `devices:
  - name: mlx5_0
`, mutate: func(s *snapshot.Snapshot) {
			s.DriverVersion, s.DriverSrcVersion = "24.10-1.1.4", "6A2D5B6E7C1F0A3B4C5D6E7"
		}},
		{name: "driver differs from the expectation", expect: "version: 1\ndriver_version: 24.10-1.1.4\n" + `devices:
  - name: mlx5_0
`, mutate: func(s *snapshot.Snapshot) {
			s.DriverVersion, s.DriverSrcVersion = "24.07-0.6.1", "0123456789ABCDEF0123456"
		}, want: []want{{"host.driver_mismatch", finding.Warning, "", 0, "mlx5_core is 24.07-0.6.1, expected 24.10-1.1.4"}}},
		{name: "inbox driver: srcversion matches", expect: "version: 1\ndriver_version: 6A2D5B6E7C1F0A3B4C5D6E7\n" + `devices:
  - name: mlx5_0
`, mutate: func(s *snapshot.Snapshot) {
			s.DriverSrcVersion = "6A2D5B6E7C1F0A3B4C5D6E7"
		}},
		{name: "inbox driver: srcversion differs", expect: "version: 1\ndriver_version: 6A2D5B6E7C1F0A3B4C5D6E7\n" + `devices:
  - name: mlx5_0
`, mutate: func(s *snapshot.Snapshot) {
			s.DriverSrcVersion = "0123456789ABCDEF0123456"
		}, want: []want{{"host.driver_mismatch", finding.Warning, "", 0, "mlx5_core is 0123456789ABCDEF0123456"}}},
		{name: "out-of-tree driver expected, module shows nothing", expect: "version: 1\ndriver_version: 24.10-1.1.4\n" + `devices:
  - name: mlx5_0
`, mutate: func(*snapshot.Snapshot) {},
			want: []want{{"host.driver_mismatch", finding.Warning, "", 0, "neither a version nor a srcversion"}}},
		{name: "no driver_version in the expectation: not judged", expect: "version: 1\n" + `devices:
  - name: mlx5_0
`, mutate: func(s *snapshot.Snapshot) {
			s.DriverVersion = "24.07-0.6.1"
		}},
		{name: "active but not LinkUp against an expectation", expect: `version: 1
devices:
  - name: mlx5_1
    ports:
      - port: 1
        phys_state: LinkUp
`, mutate: func(s *snapshot.Snapshot) {
			s.Port("mlx5_1", 1).PhysState = p(ib.PhysLinkErrorRecovery)
		}, want: []want{{"port.down", finding.Warning, "mlx5_1", 1, "ACTIVE but its physical state is LinkErrorRecovery"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := healthyNode()
			tt.mutate(s)
			var e *expect.Expectation
			if tt.expect != "" {
				e = mustExpect(t, tt.expect)
			}
			got := Check(s, e)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tt.want), strings.Join(ids(got), "\n"))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.ID != w.id || g.Severity != w.sev || g.Subject.Device != w.device || g.Subject.Port != w.port || !strings.Contains(g.Summary, w.contains) {
					t.Errorf("finding %d = %s\nwant %s %s %s/%d containing %q", i, ids(got)[i], w.id, w.sev, w.device, w.port, w.contains)
				}
				if len(g.Evidence) == 0 || len(g.Causes) == 0 || len(g.Remedy) == 0 || g.Subject.Host != "gpu017" {
					t.Errorf("finding %s lacks evidence, causes, remedy or host: %+v", g.ID, g)
				}
			}
		})
	}
}

// Every ID the node rules declare is in the catalogue, and every rule's
// findings carry only the IDs it declares.
func TestRuleIDsCatalogued(t *testing.T) {
	for _, r := range NodeRules {
		for _, id := range r.IDs {
			if _, ok := catalog.Default.Lookup(id); !ok {
				t.Errorf("rule %q declares uncatalogued ID %s", r.Name, id)
			}
		}
	}
	s := healthyNode()
	s.Port("mlx5_3", 1).State = p(ib.StateDown)
	s.Port("mlx5_3", 1).PhysState = p(ib.PhysPolling)
	s.Port("mlx5_5", 1).Rate = p(ib.NewRate(2, ib.SpeedHDR))
	in := &Input{Snap: s, Thresholds: DefaultThresholds}
	for _, r := range NodeRules {
		for _, f := range r.Check(in) {
			if !slices.Contains(r.IDs, f.ID) {
				t.Errorf("rule %q produced undeclared ID %s", r.Name, f.ID)
			}
		}
	}
}

func BenchmarkNodeRules(b *testing.B) {
	s := healthyNode()
	s.Port("mlx5_5", 1).Rate = p(ib.NewRate(2, ib.SpeedNDR))
	b.ReportAllocs()
	for b.Loop() {
		Check(s, nil)
	}
}

// TestPortStateAsPasted: what a port state alone proves, on a snapshot
// read from a paste (one lone HCA, no expectation).
func TestPortStateAsPasted(t *testing.T) {
	lone := func(mod func(d *snapshot.Device, pt *snapshot.Port)) *snapshot.Snapshot {
		d := snapshot.Device{Name: "mlx5_0", HCAType: "MT4129", NodeGUID: "0c42:a103:0012:3456"}
		pt := snapshot.Port{Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: p(ib.StateDown), PhysState: p(ib.PhysPolling)}
		mod(&d, &pt)
		d.Ports = []snapshot.Port{pt}
		return &snapshot.Snapshot{Devices: []snapshot.Device{d}}
	}
	tests := []struct {
		name    string
		snap    *snapshot.Snapshot
		pasted  bool
		want    string
		summary string
		frag    []string
	}{
		{"polling, never configured, live node", lone(func(*snapshot.Device, *snapshot.Port) {}), false, "port.polling/info", "uncabled on purpose", nil},
		{"polling, never configured, pasted", lone(func(*snapshot.Device, *snapshot.Port) {}), true, "port.polling/critical", "no port in the paste is ACTIVE", nil},
		{"polling beside another model's ACTIVE port, pasted", func() *snapshot.Snapshot {
			s := lone(func(*snapshot.Device, *snapshot.Port) {})
			s.Devices = append(s.Devices, snapshot.Device{Name: "mlx5_1", HCAType: "MT4125", Ports: []snapshot.Port{
				{Device: "mlx5_1", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: p(ib.StateActive), PhysState: p(ib.PhysLinkUp)}}})
			return s
		}(), true, "port.polling/warning", "uncabled on purpose", nil},
		{"polling, a port block pasted without its header", lone(func(*snapshot.Device, *snapshot.Port) {}), true, "port.polling/critical", "the port asked about", []string{"mlx5_0"}},
		{"polling with a LID from the SM", lone(func(_ *snapshot.Device, pt *snapshot.Port) { pt.LID = p(uint32(868)) }), false, "port.polling/critical", "LID 868", nil},
		{"INIT without a physical state", lone(func(_ *snapshot.Device, pt *snapshot.Port) {
			pt.State, pt.PhysState, pt.SMLID = p(ib.StateInit), nil, p(uint32(0))
		}), true, "port.init_no_sm/critical", "SM lid 0", nil},
		{"ARMED without a physical state, SM known", lone(func(_ *snapshot.Device, pt *snapshot.Port) {
			pt.State, pt.PhysState, pt.SMLID = p(ib.StateArmed), nil, p(uint32(5))
		}), true, "port.init_no_sm/critical", "SM lid 5", nil},
		{"INIT with the SM lid its own LID (WinOF ibstat: Base lid 1, SM lid 1)", lone(func(_ *snapshot.Device, pt *snapshot.Port) {
			pt.State, pt.PhysState, pt.LID, pt.SMLID = p(ib.StateInit), p(ib.PhysLinkUp), p(uint32(1)), p(uint32(1))
		}), true, "port.init_no_sm/critical", "the one on this host", nil},
		{"VF with a zero node GUID", lone(func(d *snapshot.Device, pt *snapshot.Port) {
			d.NodeGUID = "0000:0000:0000:0000"
			pt.PhysState, pt.LID = p(ib.PhysLinkUp), p(uint32(0xffff))
		}), true, "port.down/critical", "assign the VF's node and port GUIDs", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckInput(&Input{Snap: tt.snap, Thresholds: DefaultThresholds, Pasted: tt.pasted, Fragments: tt.frag})
			if len(fs) != 1 || fs[0].ID+"/"+string(fs[0].Severity) != tt.want {
				t.Fatalf("findings %v, want [%s]", ids(fs), tt.want)
			}
			if !strings.Contains(fs[0].Summary, tt.summary) || strings.Contains(fs[0].Summary, "unknown") {
				t.Errorf("summary %q, want it to say %q", fs[0].Summary, tt.summary)
			}
		})
	}
}

// TestTotals: error counters pasted once are evidence: reported, with
// flush errors as consequences and PortXmitWait alone no finding.
func TestTotals(t *testing.T) {
	port := func(hw, pc map[string]uint64) *snapshot.Snapshot {
		pt := snapshot.Port{Device: "mlx5_1", Number: 1}
		for k, v := range hw {
			pt.HWCounters = append(pt.HWCounters, snapshot.Counter{Name: k, Value: v})
		}
		for k, v := range pc {
			pt.Counters = append(pt.Counters, snapshot.Counter{Name: k, Value: v, Spec: ib.PortCounterSpec(k, true)})
		}
		s := &snapshot.Snapshot{Devices: []snapshot.Device{{Name: "mlx5_1", Ports: []snapshot.Port{pt}}}}
		s.Sort() // counters in name order, as every source leaves them
		return s
	}
	tests := []struct {
		name    string
		snap    *snapshot.Snapshot
		want    []string
		summary string
	}{
		{"all zero", port(map[string]uint64{"out_of_buffer": 0, "packet_seq_err": 0}, map[string]uint64{"port_xmit_wait": 41864608}), nil, ""},
		{"out of buffer", port(map[string]uint64{"out_of_buffer": 5}, nil), []string{"rdma.out_of_buffer/warning"}, "totals since the driver loaded"},
		{"cqe errors and flushes", port(map[string]uint64{"out_of_sequence": 132614, "resp_cqe_error": 15360, "resp_cqe_flush_error": 15353}, nil),
			[]string{"rdma.retransmits/warning"}, "consequences, not separate faults"},
		{"discards with a link down", port(nil, map[string]uint64{"port_xmit_discards": 20046, "link_downed": 1}), []string{"port.xmit_discards/warning"}, "went down 1 time"},
		{"link down alone, once", port(nil, map[string]uint64{"link_downed": 1}), []string{"port.link_flapping/warning"}, "went down 1 time"},
		// leptonai/gpud#943: link_downed 255 (8 bits), port_xmit_discards 65535 (16 bits).
		{"discards and link downs at their maximum", port(nil, map[string]uint64{"port_xmit_discards": 65535, "link_downed": 255}), []string{"port.xmit_discards/warning"},
			"at least 65535 (the counter is stuck at its 16-bit maximum) packets discarded on send; the link went down at least 255 (the counter is stuck at its 8-bit maximum)"},
		{"cnp ignored", port(map[string]uint64{"rp_cnp_ignored": 3}, nil), []string{"rdma.cnp_ignored/warning"}, "did not slow down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Totals(tt.snap)
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if len(fs) > 0 && !strings.Contains(fs[0].Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.summary)
			}
		})
	}
}

// TestFloorRate: an ACTIVE ConnectX port at 2.5 or 5 Gb/s with nothing to
// compare it against is degraded (a warning); soft-RoCE at its 1 GbE
// netdev's 2.5, a ConnectX port at 10 GbE, and a port whose baseline
// says 2.5 are not.
func TestFloorRate(t *testing.T) {
	one := func(name, hca string, ll ib.LinkLayer, r ib.Rate) *snapshot.Snapshot {
		pt := snapshot.Port{Device: name, Number: 1, LinkLayer: ll, State: p(ib.StateActive), PhysState: p(ib.PhysLinkUp), Rate: &r}
		return &snapshot.Snapshot{Devices: []snapshot.Device{{Name: name, HCAType: hca, Ports: []snapshot.Port{pt}}}}
	}
	rateOnly := func(deci int) ib.Rate { return ib.Rate{DeciGbps: deci} }
	tests := []struct {
		name    string
		snap    *snapshot.Snapshot
		want    string
		summary string
	}{
		{"CX-6 Dx at 2.5, no link layer (ibstat of old)", one("mlx5_2", "MT4125", "", rateOnly(25)), "port.rate_below_expected/warning", "(1X SDR)"},
		{"CX-6 Dx Ethernet at 2.5: 1 GbE", one("mlx5_2", "MT4125", ib.LinkLayerEthernet, rateOnly(25)), "port.rate_below_expected/warning", "negotiated 1 Gb/s or less"},
		{"renamed CX-7 IB at 1X SDR", one("ibp12s0", "MT4129", ib.LinkLayerInfiniBand, ib.NewRate(1, ib.SpeedSDR)), "port.rate_below_expected/warning", "trained to one lane"},
		{"mlx4 at 1X DDR", one("mlx4_0", "", ib.LinkLayerInfiniBand, ib.NewRate(1, ib.SpeedDDR)), "port.rate_below_expected/warning", "1X DDR"},
		{"CX-5 at 10 GbE", one("mlx5_0", "MT4119", ib.LinkLayerEthernet, rateOnly(100)), "", ""},
		{"soft-RoCE on 1 GbE", one("rxe0", "", ib.LinkLayerEthernet, rateOnly(25)), "", ""},
		{"siw on 1 GbE", one("siw_eth0", "", ib.LinkLayerEthernet, rateOnly(25)), "", ""},
		{"another vendor's 4-digit type", one("qedr0", "MT27520", ib.LinkLayerEthernet, rateOnly(25)), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckInput(&Input{Snap: tt.snap, Thresholds: DefaultThresholds, Pasted: true})
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if tt.want == "" {
				if len(fs) != 0 {
					t.Fatalf("findings %v, want none", got)
				}
				return
			}
			if len(fs) != 1 || got[0] != tt.want {
				t.Fatalf("findings %v, want [%s]", got, tt.want)
			}
			if !strings.Contains(fs[0].Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.summary)
			}
		})
	}
	// A baseline that says 2.5 is what the port should run at.
	s := one("mlx5_2", "MT4125", ib.LinkLayerEthernet, rateOnly(25))
	e := mustExpect(t, "version: 1\ndevices:\n  - name: mlx5_2\n    ports:\n      - port: 1\n        rate: 2.5 Gb/sec (1X SDR)\n")
	if fs := CheckInput(&Input{Snap: s, Expect: e, Thresholds: DefaultThresholds, Pasted: true}); len(fs) != 0 {
		t.Errorf("with a 2.5 baseline: %v", ids(fs))
	}
}

// TestPastedDeviceLeftOut: a pasted HCA numbered past devices the paste
// lacks (mlx5_8 without mlx5_0…mlx5_7, leptonai/gpud#99) was chosen from
// many, so its port that is not ACTIVE is the one asked about
// (critical); shown with its lower-numbered siblings, or as mlx5_0, the
// siblings decide as before; a live node is never judged so.
func TestPastedDeviceLeftOut(t *testing.T) {
	dev := func(name string, st ib.PortState, ph ib.PhysState) snapshot.Device {
		return snapshot.Device{Name: name, HCAType: "MT4125", Ports: []snapshot.Port{{Device: name, Number: 1, State: p(st), PhysState: p(ph)}}}
	}
	snap := func(ds ...snapshot.Device) *snapshot.Snapshot { return &snapshot.Snapshot{Devices: ds} }
	tests := []struct {
		name    string
		snap    *snapshot.Snapshot
		pasted  bool
		want    []string
		summary string
	}{
		{"mlx5_8 alone, Disabled", snap(dev("mlx5_8", ib.StateDown, ib.PhysDisabled)), true, []string{"port.disabled/critical"}, "without mlx5_0…mlx5_7"},
		{"mlx5_1 alone, Polling", snap(dev("mlx5_1", ib.StateDown, ib.PhysPolling)), true, []string{"port.polling/critical"}, "without mlx5_0:"},
		{"mlx5_0 alone, Disabled", snap(dev("mlx5_0", ib.StateDown, ib.PhysDisabled)), true, []string{"port.disabled/critical"}, "no port in the paste is ACTIVE"},
		{"mlx5_4 beside mlx5_0 and mlx5_2 (the gaps may be bonded), Disabled", snap(dev("mlx5_0", ib.StateActive, ib.PhysLinkUp), dev("mlx5_2", ib.StateActive, ib.PhysLinkUp), snapshot.Device{Name: "mlx5_4", HCAType: "MT4117", Ports: []snapshot.Port{{Device: "mlx5_4", Number: 1, State: p(ib.StateDown), PhysState: p(ib.PhysDisabled)}}}), true,
			[]string{"port.disabled/warning"}, "uncabled on purpose"},
		{"mlx5_1 beside mlx5_0, both down", snap(dev("mlx5_0", ib.StateDown, ib.PhysDisabled), dev("mlx5_1", ib.StateDown, ib.PhysDisabled)), true,
			[]string{"port.disabled/critical", "port.disabled/critical"}, "no port in the paste is ACTIVE"},
		{"mlx5_8 alone on a live node", snap(dev("mlx5_8", ib.StateDown, ib.PhysDisabled)), false, []string{"port.disabled/info"}, "uncabled on purpose"},
		// sgl-project/sglang#6823: two CX-6 Dx ports Disabled, then
		// mlx5_10 cut before its port's state: the paste does not show
		// that no link of the host works.
		{"mlx5_0 and mlx5_1 down, mlx5_10 cut before its state", snap(dev("mlx5_0", ib.StateDown, ib.PhysDisabled), dev("mlx5_1", ib.StateDown, ib.PhysDisabled),
			snapshot.Device{Name: "mlx5_10", HCAType: "MT4129", Ports: []snapshot.Port{{Device: "mlx5_10", Number: 1}}}), true,
			[]string{"port.disabled/warning", "port.disabled/warning"}, "the paste is cut short (mlx5_10 port 1 has no state)"},
		{"mlx5_0 and mlx5_1 down beside mlx5_4, the devices between not shown", snap(dev("mlx5_0", ib.StateDown, ib.PhysDisabled), dev("mlx5_1", ib.StateDown, ib.PhysDisabled), dev("mlx5_4", ib.StateDown, ib.PhysDisabled)), true,
			[]string{"port.disabled/warning", "port.disabled/warning", "port.disabled/warning"}, "2 devices below mlx5_4 are not shown (mlx5_2…mlx5_3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckInput(&Input{Snap: tt.snap, Thresholds: DefaultThresholds, Pasted: tt.pasted})
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if !strings.Contains(fs[0].Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.summary)
			}
		})
	}
}

// TestPastedUnusedPort: in a paste, a port that is DOWN or Disabled with
// no LID and no physical link beside ACTIVE ports of its HCA model may be
// an unused second port or a front-end NIC switched off: a warning; with
// evidence it carried traffic (a LID, Polling for a peer) or an
// expectation it stays critical, and a live node is judged as before.
// Shapes from ibv_devinfo of two dual-port mlx4 HCAs (port 2 PORT_DOWN,
// port_lid 0, ibv_devinfo without -v so no physical state) and ibstat of an
// H100 node whose CX-6 Dx Ethernet ports read "State: Down", "Physical
// state: Disabled" beside an Active one.
func TestPastedUnusedPort(t *testing.T) {
	dual := func(mod func(pt *snapshot.Port)) *snapshot.Snapshot {
		s := &snapshot.Snapshot{}
		for i := range 2 {
			d := snapshot.Device{Name: fmt.Sprintf("mlx4_%d", i), HCAType: "MT4099"}
			d.Ports = []snapshot.Port{
				{Device: d.Name, Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: p(ib.StateActive), LID: p(uint32(22 + i)), SMLID: p(uint32(1))},
				{Device: d.Name, Number: 2, LinkLayer: ib.LinkLayerInfiniBand, State: p(ib.StateDown), LID: p(uint32(0)), SMLID: p(uint32(0))},
			}
			if i == 1 {
				mod(&d.Ports[1])
			}
			s.Devices = append(s.Devices, d)
		}
		return s
	}
	eth := func(mod func(pt *snapshot.Port)) *snapshot.Snapshot {
		s := &snapshot.Snapshot{}
		for i, st := range []ib.PortState{ib.StateActive, ib.StateDown} {
			d := snapshot.Device{Name: fmt.Sprintf("mlx5_%d", i+1), HCAType: "MT4125"}
			pt := snapshot.Port{Device: d.Name, Number: 1, LinkLayer: ib.LinkLayerEthernet, State: p(st), PhysState: p(ib.PhysLinkUp)}
			if st == ib.StateDown {
				pt.PhysState = p(ib.PhysDisabled)
				mod(&pt)
			}
			d.Ports = []snapshot.Port{pt}
			s.Devices = append(s.Devices, d)
		}
		return s
	}
	none := func(*snapshot.Port) {}
	// rails has three single-port HCAs of one model, mlx5_2 Polling beside
	// two ACTIVE: one rail of a GPU node lost its cable.
	rails := func() *snapshot.Snapshot {
		s := &snapshot.Snapshot{}
		for i := range 3 {
			d := snapshot.Device{Name: fmt.Sprintf("mlx5_%d", i), HCAType: "MT4129"}
			pt := snapshot.Port{Device: d.Name, Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: p(ib.StateActive), PhysState: p(ib.PhysLinkUp), LID: p(uint32(10 + i))}
			if i == 2 {
				pt.State, pt.PhysState, pt.LID = p(ib.StateDown), p(ib.PhysPolling), p(uint32(0))
			}
			d.Ports = []snapshot.Port{pt}
			s.Devices = append(s.Devices, d)
		}
		return s
	}
	// swapped has mlx4_1's port 1 Polling and its port 2 ACTIVE: the
	// card's other port is the one cabled, so port 1 is its spare.
	swapped := func() *snapshot.Snapshot {
		s := dual(func(pt *snapshot.Port) {
			pt.State, pt.PhysState, pt.LID = p(ib.StateActive), p(ib.PhysLinkUp), p(uint32(41))
		})
		pt := &s.Devices[1].Ports[0]
		pt.State, pt.PhysState, pt.LID = p(ib.StateDown), p(ib.PhysPolling), p(uint32(0))
		return s
	}
	tests := []struct {
		name   string
		snap   *snapshot.Snapshot
		pasted bool
		exp    string
		want   []string
		says   string
	}{
		{"second ports DOWN, no physical state, pasted", dual(none), true, "",
			[]string{"port.down/warning mlx4_0/2", "port.down/warning mlx4_1/2"}, "if it should be cabled"},
		{"second ports DOWN, live node", dual(none), false, "",
			[]string{"port.down/critical mlx4_0/2", "port.down/critical mlx4_1/2"}, "other ports of this HCA model are ACTIVE"},
		{"second port Polling, pasted", dual(func(pt *snapshot.Port) { pt.PhysState = p(ib.PhysPolling) }), true, "",
			[]string{"port.down/warning mlx4_0/2", "port.polling/warning mlx4_1/2"}, "if it should be cabled"},
		{"second port Polling, live node", dual(func(pt *snapshot.Port) { pt.PhysState = p(ib.PhysPolling) }), false, "",
			[]string{"port.down/critical mlx4_0/2", "port.polling/critical mlx4_1/2"}, ""},
		{"first port Polling beside an ACTIVE second port, pasted", swapped(), true, "",
			[]string{"port.down/warning mlx4_0/2", "port.polling/warning mlx4_1/1"}, "otherwise it is an unused port"},
		{"Polling HCA beside ACTIVE HCAs of its model, pasted", rails(), true, "",
			[]string{"port.polling/critical mlx5_2/1"}, "no link partner"},
		{"second port in link training, pasted", dual(func(pt *snapshot.Port) { pt.PhysState = p(ib.PhysTraining) }), true, "",
			[]string{"port.down/critical mlx4_1/2", "port.down/warning mlx4_0/2"}, ""},
		{"second port DOWN with a LID, pasted", dual(func(pt *snapshot.Port) { pt.LID = p(uint32(40)) }), true, "",
			[]string{"port.down/critical mlx4_1/2", "port.down/warning mlx4_0/2"}, ""},
		{"second port expected ACTIVE, pasted", dual(none), true, "version: 1\ndevices:\n  - name: mlx4_1\n    ports:\n      - port: 2\n        state: ACTIVE\n",
			[]string{"port.down/critical mlx4_1/2", "port.down/warning mlx4_0/2"}, ""},
		{"Ethernet port Disabled beside an ACTIVE one, pasted", eth(none), true, "",
			[]string{"port.disabled/warning mlx5_2/1"}, "(no carrier)"},
		{"Ethernet port Disabled beside an ACTIVE one, live node", eth(none), false, "",
			[]string{"port.disabled/critical mlx5_2/1"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &Input{Snap: tt.snap, Thresholds: DefaultThresholds, Pasted: tt.pasted}
			if tt.exp != "" {
				in.Expect = mustExpect(t, tt.exp)
			}
			var got []string
			for _, f := range CheckInput(in) {
				if strings.HasPrefix(f.ID, "port.") && f.ID != "port.ib_mtu_reduced" {
					got = append(got, fmt.Sprintf("%s/%s %s/%d", f.ID, f.Severity, f.Subject.Device, f.Subject.Port))
					if tt.says != "" && !strings.Contains(f.Summary, tt.says) {
						t.Errorf("%s: summary %q, want it to say %q", f.Subject.Device, f.Summary, tt.says)
					}
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRateAcrossSubnets: ports of one HCA model answering to different
// subnet managers are cabled to different fabrics, whose switches set the
// lane speed. The ibstat of a NERSC Cori-GPU node (github.com/
// sparticlesteve/pytorch-cuda-mpi-error, ibstat.txt) shows eight MT4119
// ports, "Rate: 100" with "SM lid: 10" on mlx5_0/2/4/6 and "Rate: 56"
// with "SM lid: 43" (mlx5_1, mlx5_7) or "SM lid: 344" (mlx5_5): an EDR
// and an FDR fabric, no degraded link. On one subnet the slower port is
// still degraded, and a port that lost lanes is degraded on any subnet.
func TestRateAcrossSubnets(t *testing.T) {
	type port struct {
		name  string
		rate  ib.Rate
		smlid uint32
	}
	rateOnly := func(deci int) ib.Rate { return ib.Rate{DeciGbps: deci} }
	build := func(ps ...port) *snapshot.Snapshot {
		s := &snapshot.Snapshot{}
		for _, x := range ps {
			r := x.rate
			s.Devices = append(s.Devices, snapshot.Device{Name: x.name, HCAType: "MT4119", Ports: []snapshot.Port{{Device: x.name, Number: 1,
				LinkLayer: ib.LinkLayerInfiniBand, State: p(ib.StateActive), PhysState: p(ib.PhysLinkUp), Rate: &r, SMLID: p(x.smlid)}}})
		}
		s.Sort()
		return s
	}
	tests := []struct {
		name    string
		snap    *snapshot.Snapshot
		want    []string
		summary string
	}{
		{"Cori-GPU: EDR on SM lid 10, FDR on SM lid 43 and 344", build(
			port{"mlx5_0", rateOnly(1000), 10}, port{"mlx5_1", rateOnly(560), 43}, port{"mlx5_2", rateOnly(1000), 10}, port{"mlx5_4", rateOnly(1000), 10},
			port{"mlx5_5", rateOnly(560), 344}, port{"mlx5_6", rateOnly(1000), 10}, port{"mlx5_7", rateOnly(560), 43}), nil, ""},
		{"the same node with every port on SM lid 10: the FDR ones are slow", build(
			port{"mlx5_0", rateOnly(1000), 10}, port{"mlx5_1", rateOnly(560), 10}, port{"mlx5_2", rateOnly(1000), 10}, port{"mlx5_4", rateOnly(1000), 10}),
			[]string{"port.rate_below_expected/critical mlx5_1"}, "majority of 3 ACTIVE"},
		{"sysfs rates, other subnet at FDR lane speed: not degraded", build(
			port{"mlx5_0", ib.NewRate(4, ib.SpeedEDR), 10}, port{"mlx5_1", ib.NewRate(4, ib.SpeedFDR), 43}, port{"mlx5_2", ib.NewRate(4, ib.SpeedEDR), 10}), nil, ""},
		{"other subnet at 2X: lost lanes", build(
			port{"mlx5_0", ib.NewRate(4, ib.SpeedEDR), 10}, port{"mlx5_1", ib.NewRate(2, ib.SpeedFDR), 43}, port{"mlx5_2", ib.NewRate(4, ib.SpeedEDR), 10}),
			[]string{"port.width_degraded/critical mlx5_1"}, "2X instead of 4X (28 Gb/s, 50% below the expected 56 Gb/s)"},
		{"SM lid 0 (no SM known) compares with everyone", build(
			port{"mlx5_0", ib.NewRate(4, ib.SpeedEDR), 10}, port{"mlx5_1", ib.NewRate(4, ib.SpeedFDR), 0}, port{"mlx5_2", ib.NewRate(4, ib.SpeedEDR), 10}),
			[]string{"port.speed_degraded/critical mlx5_1"}, "FDR instead of EDR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckInput(&Input{Snap: tt.snap, Thresholds: DefaultThresholds, Pasted: true})
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity)+" "+f.Subject.Device)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("findings %v, want %v", ids(fs), tt.want)
			}
			if len(fs) > 0 && !strings.Contains(fs[0].Summary+" "+fs[0].Evidence[1].Source, tt.summary) {
				t.Errorf("summary %q (evidence %q) lacks %q", fs[0].Summary, fs[0].Evidence[1].Source, tt.summary)
			}
		})
	}
	// The rate a baseline records for a port is the one the rules hold it
	// to: its subnet's, at the width of the model's ports elsewhere.
	cori := tests[0].snap
	for _, c := range []struct {
		dev  string
		want int // tenths of Gb/s; 0 when there is nothing to compare with
	}{{"mlx5_0", 1000}, {"mlx5_1", 560}, {"mlx5_5", 0}} {
		r, ok := HealthyRate(cori, c.dev, 1)
		if ok != (c.want > 0) || r.DeciGbps != c.want {
			t.Errorf("HealthyRate(%s) = %d tenths of Gb/s (%v), want %d", c.dev, r.DeciGbps, ok, c.want)
		}
	}
	if r, ok := HealthyRate(tests[3].snap, "mlx5_1", 1); !ok || r != ib.NewRate(4, ib.SpeedFDR) {
		t.Errorf("HealthyRate of the 2X FDR port = %v %v, want 4X FDR", r, ok)
	}
}

// TestPastedVPISecondPort: a ConnectX-3 VPI card with port 1 ACTIVE on
// InfiniBand and port 2 an Ethernet port Down/Disabled (the dockerib
// paste of realworld-fresh38, the two ConnectX-3 of realworld-fresh55):
// the RoCE drivers report Disabled while the netdev is down or without
// carrier, and the host runs RDMA on InfiniBand only, so the port is
// switched off: a note, no finding. It stays a finding beside an ACTIVE
// Ethernet port, with no port ACTIVE, when it is InfiniBand, and when a
// baseline wants it ACTIVE.
func TestPastedVPISecondPort(t *testing.T) {
	mk := func(ll1 ib.LinkLayer, st1 ib.PortState, ll2 ib.LinkLayer, ph2 *ib.PhysState) *snapshot.Snapshot {
		d := snapshot.Device{Name: "mlx4_0", HCAType: "MT4099", Ports: []snapshot.Port{
			{Device: "mlx4_0", Number: 1, LinkLayer: ll1, State: p(st1), PhysState: p(ib.PhysLinkUp), LID: p(uint32(10))},
			{Device: "mlx4_0", Number: 2, LinkLayer: ll2, State: p(ib.StateDown), PhysState: ph2},
		}}
		if st1 != ib.StateActive {
			d.Ports[0].PhysState, d.Ports[0].LID = p(ib.PhysPolling), p(uint32(0))
		}
		return &snapshot.Snapshot{Devices: []snapshot.Device{d}}
	}
	baseline := "version: 1\ndevices:\n  - name: mlx4_0\n    ports:\n      - port: 2\n        state: ACTIVE\n"
	tests := []struct {
		name string
		snap *snapshot.Snapshot
		exp  string
		want string // "note" or the finding ID/severity
		says string
	}{
		{"Ethernet port Disabled beside the ACTIVE InfiniBand port", mk(ib.LinkLayerInfiniBand, ib.StateActive, ib.LinkLayerEthernet, p(ib.PhysDisabled)), "",
			"note", "mlx4_0 port 2 (Ethernet, RoCE) is Down/Disabled while mlx4_0 port 1 (InfiniBand) is ACTIVE"},
		{"physical state not shown (ibv_devinfo)", mk(ib.LinkLayerInfiniBand, ib.StateActive, ib.LinkLayerEthernet, nil), "",
			"note", "physical state not shown"},
		{"beside an ACTIVE Ethernet port", mk(ib.LinkLayerEthernet, ib.StateActive, ib.LinkLayerEthernet, p(ib.PhysDisabled)), "",
			"port.disabled/warning", "other ports of this HCA model are ACTIVE"},
		{"no port ACTIVE", mk(ib.LinkLayerInfiniBand, ib.StateDown, ib.LinkLayerEthernet, p(ib.PhysDisabled)), "",
			"port.disabled/critical", "no port in the paste is ACTIVE"},
		{"InfiniBand port Disabled", mk(ib.LinkLayerInfiniBand, ib.StateActive, ib.LinkLayerInfiniBand, p(ib.PhysDisabled)), "",
			"port.disabled/warning", ""},
		{"a baseline wants it ACTIVE", mk(ib.LinkLayerInfiniBand, ib.StateActive, ib.LinkLayerEthernet, p(ib.PhysDisabled)), baseline,
			"port.disabled/critical", "expected ACTIVE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &Input{Snap: tt.snap, Thresholds: DefaultThresholds, Pasted: true}
			if tt.exp != "" {
				in.Expect = mustExpect(t, tt.exp)
			}
			var got []string
			var text string
			for _, f := range CheckInput(in) {
				if strings.HasPrefix(f.ID, "port.") && f.ID != "port.ib_mtu_reduced" && f.Subject.Port == 2 {
					got = append(got, f.ID+"/"+string(f.Severity))
					text = f.Summary
				}
			}
			if len(in.Notes) > 0 {
				got = append(got, "note")
				text = in.Notes[0].Text
				if in.Notes[0].Evidence.Source == "" {
					t.Errorf("note without evidence: %+v", in.Notes[0])
				}
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("got %v, want %s", got, tt.want)
			}
			if !strings.Contains(text, tt.says) {
				t.Errorf("%q lacks %q", text, tt.says)
			}
		})
	}
}

// TestPastedRateUnknownModel: ibstatus of an H20 node (deepseek-ai/DeepEP
// issue 17, realworld-fresh44) names no HCA model: mlx5_0 ACTIVE at 200
// Gb/s (HDR) beside three at 400 (NDR) may be a front-end NIC, so the
// shortfall is a warning that says so; with the CA types known (one
// model) it stays critical.
func TestPastedRateUnknownModel(t *testing.T) {
	mk := func(hca string) *snapshot.Snapshot {
		s := &snapshot.Snapshot{}
		for i := range 4 {
			r := ib.Rate{DeciGbps: 4000, Width: 4, Speed: ib.SpeedNDR}
			if i == 0 {
				r = ib.Rate{DeciGbps: 2000, Width: 4, Speed: ib.SpeedHDR}
			}
			d := snapshot.Device{Name: fmt.Sprintf("mlx5_%d", i), HCAType: hca, Ports: []snapshot.Port{{Device: fmt.Sprintf("mlx5_%d", i), Number: 1,
				LinkLayer: ib.LinkLayerEthernet, State: p(ib.StateActive), PhysState: p(ib.PhysLinkUp), Rate: p(r)}}}
			s.Devices = append(s.Devices, d)
		}
		return s
	}
	for _, tt := range []struct {
		hca, want, says string
	}{
		{"", "port.speed_degraded/warning", "the paste names no HCA model"},
		{"MT41692", "port.speed_degraded/critical", "instead of NDR"},
	} {
		fs := CheckInput(&Input{Snap: mk(tt.hca), Thresholds: DefaultThresholds, Pasted: true})
		if len(fs) != 1 || fs[0].ID+"/"+string(fs[0].Severity) != tt.want {
			t.Errorf("CA type %q: findings %v, want %s", tt.hca, ids(fs), tt.want)
			continue
		}
		if !strings.Contains(fs[0].Summary, tt.says) {
			t.Errorf("CA type %q: summary %q lacks %q", tt.hca, fs[0].Summary, tt.says)
		}
	}
}
