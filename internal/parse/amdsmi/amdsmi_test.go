package amdsmi

import (
	"errors"
	"strings"
	"testing"
)

// sample is amd-smi static's NIC part for an AMD Pensando AI NIC (ionic
// 25.05.4.001) whose port has no carrier, as a ROCm/rocm-systems pull
// request shows it (analyze testdata realworld-fresh59).
const sample = `            PCIE_INTERFACE_VERSION: N/A
        DRIVER:
            NAME: ionic
            VERSION: 25.05.4.001
        PORTS:
            PORT_0:
                TYPE: Ethernet
                NETDEV: enp229s0
                CARRIER: 0
                MTU: 1500B
                LINK_STATE: down
                LINK_SPEED: 0 Mb/s
                AUTONEG: OFF
        RDMA_DEVICES:
            RDMA_DEVICE_0:
                NAME: rocep229s0
                NODE_TYPE: CA
                FW_VER: 1.110.1-a-1
                PORT_0:
                    NETDEV: enp229s0
                    PORT_NUM: 1
                    STATE: DOWN
                    ACTIVE_MTU: N/A
`

func TestParse(t *testing.T) {
	out, err := Parse(strings.NewReader(sample), "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Ports) != 1 || len(out.RDMA) != 1 {
		t.Fatalf("got %+v", out)
	}
	p := out.Ports[0]
	if p.NetDev != "enp229s0" || p.Carrier != "0" || p.LinkState != "down" || p.Speed != "0 Mb/s" || p.Line != 11 || !p.Down() {
		t.Errorf("port %+v", p)
	}
	r := out.RDMA[0]
	if r.Device != "rocep229s0" || r.NetDev != "enp229s0" || r.Port != 1 || r.State != "DOWN" || r.Line != 22 || r.Text != "STATE: DOWN" {
		t.Errorf("rdma %+v", r)
	}
	up := strings.NewReplacer("CARRIER: 0", "CARRIER: 1", "LINK_STATE: down", "LINK_STATE: up", "STATE: DOWN", "STATE: ACTIVE").Replace(sample)
	out, err = Parse(strings.NewReader(up), "s")
	if err != nil || out.Ports[0].Down() || out.RDMA[0].State != "ACTIVE" {
		t.Errorf("up: %+v, %v", out, err)
	}
	if _, err := Parse(strings.NewReader("DRIVER:\n    NAME: ionic\n"), "s"); !errors.Is(err, ErrNoData) {
		t.Errorf("no ports: %v", err)
	}
}

func TestHeader(t *testing.T) {
	for _, tt := range []struct {
		t, next string
		want    bool
	}{
		{"PORTS:", "PORT_0:", true},
		{"RDMA_DEVICES:", "RDMA_DEVICE_0:", true},
		{"PORTS:", "NAME: x", false},
		{"PORT_0:", "TYPE: Ethernet", false},
	} {
		if got := Header(tt.t, tt.next); got != tt.want {
			t.Errorf("Header(%q, %q) = %v", tt.t, tt.next, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("PORTS:\nPORT_0:\n LINK_STATE: down\nRDMA_DEVICES:\n  PORT_0:\n    STATE:\n")
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Parse(strings.NewReader(s), "f")
		if err == nil && len(out.Ports)+len(out.RDMA) == 0 {
			t.Fatal("no error and nothing read")
		}
	})
}
