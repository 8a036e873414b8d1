package node

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/amdsmi"
)

// amd-smi static's NIC part of an AMD Pensando AI NIC (ionic) whose port
// has no carrier (a ROCm/rocm-systems pull request's sample output,
// analyze testdata realworld-fresh59), and the same output with the
// port up.
func TestCheckAMDSMINIC(t *testing.T) {
	down := `        PORTS:
            PORT_0:
                NETDEV: enp229s0
                CARRIER: 0
                LINK_STATE: down
                LINK_SPEED: 0 Mb/s
        RDMA_DEVICES:
            RDMA_DEVICE_0:
                NAME: rocep229s0
                PORT_0:
                    NETDEV: enp229s0
                    PORT_NUM: 1
                    STATE: DOWN
`
	up := strings.NewReplacer("CARRIER: 0", "CARRIER: 1", "LINK_STATE: down", "LINK_STATE: up", "0 Mb/s", "400000 Mb/s", "STATE: DOWN", "STATE: ACTIVE").Replace(down)
	netOnly := down[:strings.Index(down, "        RDMA_DEVICES:")]
	for _, tt := range []struct {
		name, text string
		want       int
		ev         int
	}{{"down", down, 1, 2}, {"up", up, 0, 0}, {"netdev only", netOnly, 1, 1}} {
		out, err := amdsmi.Parse(strings.NewReader(tt.text), "a.txt")
		if err != nil {
			t.Fatal(err)
		}
		fs := CheckAMDSMINIC(out, "a.txt")
		if len(fs) != tt.want {
			t.Fatalf("%s: got %v", tt.name, fs)
		}
		for _, f := range fs {
			if f.ID != "port.down" || f.Severity != finding.Warning || len(f.Evidence) != tt.ev {
				t.Errorf("%s: got %+v", tt.name, f)
			}
		}
	}
}
