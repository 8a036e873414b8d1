package ifconfig

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Real lines: an Azure HPC VM (net-tools 2.10), net-tools 1.60 on an
// IPoIB host, and NVIDIA's FreeBSD driver page (flattened by the page).
const (
	newLayout = `eth0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500
        inet 10.0.0.4  netmask 255.255.255.0  broadcast 10.0.0.255
        ether 00:0d:3a:74:01:85  txqueuelen 1000  (Ethernet)
        RX packets 829  bytes 442371 (432.0 KiB)
        RX errors 0  dropped 0  overruns 0  frame 0
        TX packets 940  bytes 198060 (193.4 KiB)
        TX errors 0  dropped 0 overruns 0  carrier 0  collisions 0

ib0: flags=4099<UP,BROADCAST,MULTICAST>  mtu 2044
        inet 172.16.1.9  netmask 255.255.0.0  broadcast 172.16.255.255
        infiniband 80:00:02:08:FE:80:00:00:00:00:00:00:00:00:00:00:00:00:00:00  txqueuelen 256  (InfiniBand)
        RX packets 12  bytes 800 (800.0 B)
        RX errors 3  dropped 7  overruns 0  frame 0
Infiniband hardware address can be incorrect! Please read BUGS section in ifconfig(8).
`
	oldLayout = `ib0       Link encap:UNSPEC  HWaddr 80-00-00-48-FE-80-00-00-00-00-00-00-00-00-00-00
          inet addr:10.1.1.1  Bcast:10.1.255.255  Mask:255.255.0.0
          UP BROADCAST RUNNING MULTICAST  MTU:65520  Metric:1
          RX packets:5000 errors:0 dropped:12 overruns:0 frame:0
          TX packets:4000 errors:2 dropped:0 overruns:0 carrier:0
`
	freeBSD = `# ifconfig mce0 mce0: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500 options=3ed07bb<RXCSUM,TXCSUM> ether 24:8a:07:a5:28:70 media: Ethernet autoselect (100GBase-CR4 <full-duplex,rxpause,txpause>) status: no carrier (FEC sync loss) nd6 options=21<PERFORMNUD,AUTO_LINKLOCAL>
mlx5_core0: INFO: mlx5_port_module_event:710:(pid 11): Module 0, status: plugged and enabled
mce1: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 9000
	media: Ethernet autoselect (100GBase-CR4 <full-duplex>)
	status: active
`
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []Iface
	}{
		{"net-tools 2.x", newLayout, []Iface{
			{Name: "eth0", Flags: []string{"UP", "BROADCAST", "RUNNING", "MULTICAST"}, MTU: 1500, HWType: "Ethernet", RXPackets: 829, TXPackets: 940, RXLine: 5, TXLine: 7, Line: 1},
			{Name: "ib0", Flags: []string{"UP", "BROADCAST", "MULTICAST"}, MTU: 2044, HWType: "InfiniBand", RXPackets: 12, RXErrors: 3, RXDropped: 7, RXLine: 13, Line: 9},
		}},
		{"net-tools 1.60", oldLayout, []Iface{
			{Name: "ib0", Flags: []string{"UP", "BROADCAST", "RUNNING", "MULTICAST"}, MTU: 65520, HWType: "UNSPEC", RXPackets: 5000, RXDropped: 12, TXPackets: 4000, TXErrors: 2, RXLine: 4, TXLine: 5, Line: 1},
		}},
		{"FreeBSD, flattened and not", freeBSD, []Iface{
			{Name: "mce0", Flags: []string{"UP", "BROADCAST", "RUNNING", "SIMPLEX", "MULTICAST"}, MTU: 1500, Status: "no carrier", StatusWhy: "FEC sync loss", StatusLine: 1, Line: 1},
			{Name: "mce1", Flags: []string{"UP", "BROADCAST", "RUNNING", "SIMPLEX", "MULTICAST"}, MTU: 9000, Status: "active", StatusLine: 5, Line: 3},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tc.text), "t")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d interfaces, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				got[i].Raw = ""
				w := tc.want[i]
				if !slices.Equal(got[i].Flags, w.Flags) {
					t.Errorf("%s flags %v, want %v", w.Name, got[i].Flags, w.Flags)
				}
				got[i].Flags, w.Flags = nil, nil
				if !reflect.DeepEqual(got[i], w) {
					t.Errorf("got  %+v\nwant %+v", got[i], w)
				}
			}
		})
	}
}

func TestParseNone(t *testing.T) {
	_, err := Parse(strings.NewReader("mlx5_core0: INFO: Module 0, status: plugged and enabled\n"), "x.txt")
	if !errors.Is(err, ErrNoInterface) || !strings.Contains(err.Error(), "x.txt") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{newLayout, oldLayout, freeBSD, "x: flags=1<>  mtu 0\n\tstatus: no carrier (", "ib0 Link encap:\n UP MTU:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ifs, err := Parse(strings.NewReader(s), "fuzz")
		if err == nil && len(ifs) == 0 {
			t.Fatal("no error and no interface")
		}
	})
}
