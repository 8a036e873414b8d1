package ethlink

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ifconfig"
)

func TestCheckIfconfig(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // "" when no finding; else the start of the summary
	}{
		{"IPoIB up and running", "ib0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 2044\n", ""},
		{"IPoIB up without carrier", "ib0: flags=4099<UP,BROADCAST,MULTICAST>  mtu 2044\n", "ib0 is up without carrier (flags <UP,BROADCAST,MULTICAST> without RUNNING): IPoIB has carrier"},
		{"old layout without RUNNING", "ib1      Link encap:UNSPEC  HWaddr 80-00-00-48-FE-80\n          UP BROADCAST MULTICAST  MTU:65520  Metric:1\n", "ib1 is up without carrier"},
		{"IPoIB administratively down: not judged", "ib1: flags=4098<BROADCAST,MULTICAST>  mtu 4092\n", ""},
		{"Ethernet without carrier: not an RDMA port", "eth1: flags=4099<UP,BROADCAST,MULTICAST>  mtu 1500\n", ""},
		{"FreeBSD mlx5en no carrier", "mce0: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n\tstatus: no carrier (FEC sync loss)\n", "mce0 is up but ifconfig reports status: no carrier (FEC sync loss)"},
		{"FreeBSD mlx5en active", "mce0: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n\tstatus: active\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ifs, err := ifconfig.Parse(strings.NewReader(tc.text), "t")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckIfconfig(ifs, "t")
			if tc.want == "" {
				if len(fs) != 0 {
					t.Fatalf("got %+v, want none", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].ID != "port.down" || fs[0].Severity != finding.Critical || !strings.HasPrefix(fs[0].Summary, tc.want) {
				t.Fatalf("got %+v, want a critical port.down starting %q", fs, tc.want)
			}
		})
	}
}
