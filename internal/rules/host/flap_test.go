package host

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// kmsg.link_flap carries the link layer of the link that flapped, from the
// root where it knows the port or netdev, else from the log line, so its
// remedies keep only the commands of that layer.
func TestFlapLinkLayer(t *testing.T) {
	flaps := func(line string) []string {
		var l []string
		for range 3 {
			l = append(l, "[1.0] "+line+" down", "[2.0] "+line+" up")
		}
		return l
	}
	netdevLine := func(pci, ifname string) []string {
		return flaps("mlx5_core " + pci + " " + ifname + ": Link")
	}
	ibLine := func(pci, dev string) []string {
		var l []string
		for range 3 {
			l = append(l, "[1.0] mlx5_core "+pci+" "+dev+": Port: 1 Link DOWN", "[2.0] mlx5_core "+pci+" "+dev+": Port: 1 Link ACTIVE")
		}
		return l
	}
	ipoib := 32
	networkd := func(ifname string, states ...string) []string {
		var l []string
		for _, st := range states {
			l = append(l, "Aug 17 06:18:06 vm0 systemd-networkd[5398]: "+ifname+": "+st+" carrier")
		}
		return l
	}
	for _, tt := range []struct {
		name   string
		snap   func() *snapshot.Snapshot
		log    []string
		want   string
		remedy string // a remedy of that layer, filled
	}{
		{"RoCE netdev of a root port", testNode, netdevLine("0000:84:00.0", "ens1f0np0"), "Ethernet", "ethtool -S ens1f0np0 | grep link_down_events_phy"},
		{"IB port line, port in the root", testNode, ibLine("0000:04:00.0", "mlx5_0"), "InfiniBand", "perfquery -C mlx5_0 -P 1"},
		{"IPoIB netdev the root lists with type 32", func() *snapshot.Snapshot {
			s := testNode()
			s.NetDevs = append(s.NetDevs, snapshot.NetDev{Name: "ib7", PCI: "0000:99:00.0", Type: &ipoib})
			s.Sort()
			return s
		}, netdevLine("0000:99:00.0", "ib7"), "InfiniBand", "perfquery"},
		// A pasted log: no root. The netdev "Link up/down" line is printed
		// by the Ethernet driver (mlx5e_update_carrier); the port line is
		// printed for IB and RoCE ports alike.
		{"pasted netdev line", func() *snapshot.Snapshot { return &snapshot.Snapshot{} }, netdevLine("0000:84:00.0", "ens1f0np0"), "Ethernet", "ethtool -S ens1f0np0"},
		{"pasted IB port line", func() *snapshot.Snapshot { return &snapshot.Snapshot{} }, ibLine("0000:04:00.0", "mlx5_0"), "", "IB: perfquery"},
		// systemd-networkd's carrier lines of an IPoIB netdev (azurehpc-health-checks test/data/1dev_6flap_syslog).
		{"pasted networkd carrier of an IPoIB netdev", func() *snapshot.Snapshot { return &snapshot.Snapshot{} }, networkd("ib6", "lost", "Gained", "lost", "Gained"), "InfiniBand", "perfquery"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := checkFlaps(&Input{Snap: tt.snap(), Kernel: logOf(tt.log...)})
			if len(got) != 1 || got[0].ID != "kmsg.link_flap" {
				t.Fatalf("got %+v", got)
			}
			f := got[0]
			if f.Subject.LinkLayer != tt.want {
				t.Errorf("link layer %q, want %q (subject %+v)", f.Subject.LinkLayer, tt.want, f.Subject)
			}
			rem := strings.Join(f.Remedy, "\n")
			if !strings.Contains(rem, tt.remedy) {
				t.Errorf("remedies %q lack %q", f.Remedy, tt.remedy)
			}
			switch tt.want {
			case "Ethernet":
				if strings.Contains(rem, "perfquery") {
					t.Errorf("InfiniBand remedy on an Ethernet link: %q", f.Remedy)
				}
			case "InfiniBand":
				if strings.Contains(rem, "ethtool") {
					t.Errorf("RoCE remedy on an InfiniBand link: %q", f.Remedy)
				}
			}
		})
	}
}

// A link-down count: each "down" logged, plus each "up" logged again
// without a "down" between that answers no earlier "down" (the down line
// was filtered out of the paste).
func TestFlapCount(t *testing.T) {
	networkd := func(states ...string) []string {
		var l []string
		for _, st := range states {
			l = append(l, "Aug 17 06:18:06 vm0 systemd-networkd[5398]: ib6: "+st+" carrier")
		}
		return l
	}
	rep := func(n int, s string) []string {
		var l []string
		for range n {
			l = append(l, s)
		}
		return l
	}
	for _, tt := range []struct {
		name     string
		log      []string
		downs    string // in the summary; "" for no finding
		inferred bool
	}{
		// azurehpc-health-checks test/data/1dev_6flap_syslog: six losses logged, then six gains.
		{"six losses then six gains", networkd(append(rep(6, "lost"), rep(6, "Gained")...)...), "went down 6 times", false},
		{"alternating", networkd("lost", "Gained", "lost", "Gained"), "went down 2 times", false},
		{"ups only (grep kept the ups)", rep(3, "[1.0] mlx5_core 0000:84:00.0 ens1f0np0: Link up"), "went down 2 times", true},
		{"one down, then three ups", append([]string{"[0.5] mlx5_core 0000:84:00.0 ens1f0np0: Link down"}, rep(3, "[1.0] mlx5_core 0000:84:00.0 ens1f0np0: Link up")...), "went down 3 times", true},
		{"one loss and its gain", networkd("lost", "Gained"), "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := checkFlaps(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.log...)})
			if tt.downs == "" {
				if len(got) != 0 {
					t.Fatalf("got %+v, want no finding", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %+v", got)
			}
			if !strings.Contains(got[0].Summary, tt.downs) || strings.Contains(got[0].Summary, "printed again") != tt.inferred {
				t.Errorf("summary %q, want %q (inferred %v)", got[0].Summary, tt.downs, tt.inferred)
			}
		})
	}
}

// The severity of a link that went down the critical count of times: a
// port that can carry RDMA or training traffic (mlx5, IPoIB, a 10 GbE+ or
// unknown driver) is critical; a 1 GbE-class port of a driver with no RDMA
// function (e1000e, igb, r8169, tg3...) is a warning unless five of its
// downs fall within ten minutes (a flap storm).
func TestFlapSeverity(t *testing.T) {
	// cycle gives n down/up pairs of a line, the downs every gap seconds,
	// with dmesg -T stamps as in ustclug/discussions#86 (analyze
	// testdata/realworld-fresh21 dmesg-ustclug86-e1000e-link-flap-ctime.txt).
	cycle := func(n, gap int, down, up string) []string {
		var l []string
		base := time.Date(2016, 12, 25, 20, 12, 49, 0, time.UTC)
		for i := range n {
			at := base.Add(time.Duration(i*gap) * time.Second)
			stamp := "[" + at.Format("Mon Jan _2 15:04:05 2006") + "] "
			l = append(l, stamp+down, stamp+up)
		}
		return l
	}
	const (
		e1000eDown = "e1000e: eth1 NIC Link is Down"
		e1000eUp   = "e1000e: eth1 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx"
	)
	for _, tt := range []struct {
		name string
		log  []string
		want string
	}{
		{"e1000e down 7 times over 18 hours", cycle(7, 10000, e1000eDown, e1000eUp), "warning"},
		{"e1000e down 2 times", cycle(2, 10000, e1000eDown, e1000eUp), "warning"},
		{"e1000e down 6 times within 5 minutes: a storm", cycle(6, 60, e1000eDown, e1000eUp), "critical"},
		// r8169 enp5s0 every ~2 s (pastebin gZNXujtn, realworld-fresh19).
		{"r8169 down 8 times in 15 s", cycle(8, 2, "r8169 0000:05:00.0 enp5s0: Link is Down", "r8169 0000:05:00.0 enp5s0: Link is Up - 1Gbps/Full - flow control rx/tx"), "critical"},
		{"tg3 down 6 times over hours", cycle(6, 3600, "tg3 0000:02:00.0 eth0: Link is down", "tg3 0000:02:00.0 eth0: Link is up at 100 Mbps, full duplex"), "warning"},
		// opnsense/core#4214 (realworld-fresh19): a FreeBSD syslog.
		{"FreeBSD igb down 6 times over hours", func() []string {
			var l []string
			for i := range 6 {
				h := fmt.Sprintf("Jul 20 %02d:12:13", 10+i)
				l = append(l, h+" kernel: igb1: link state changed to DOWN", h+" kernel: igb1: link state changed to UP")
			}
			return l
		}(), "warning"},
		{"ixgbe 10 GbE down 6 times over hours", cycle(6, 3600, "ixgbe 0000:04:00.1 eth3: NIC Link is Down", "ixgbe 0000:04:00.1 eth3: NIC Link is Up 10 Gbps, Flow Control: None"), "critical"},
		{"mlx5 netdev down 6 times over hours", cycle(6, 3600, "mlx5_core 0000:84:00.0 ens1f0np0: Link down", "mlx5_core 0000:84:00.0 ens1f0np0: Link up"), "critical"},
		// No stamps: the pace is unknown, a management port stays a warning.
		{"e1000e down 6 times, no stamps", func() []string {
			var l []string
			for range 6 {
				l = append(l, e1000eDown, e1000eUp)
			}
			return l
		}(), "warning"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := checkFlaps(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.log...)})
			if len(got) != 1 {
				t.Fatalf("got %+v", got)
			}
			if string(got[0].Severity) != tt.want {
				t.Errorf("severity %s, want %s: %s", got[0].Severity, tt.want, got[0].Summary)
			}
			mgmt := strings.Contains(got[0].Summary, "no RDMA function")
			if mlx := strings.Contains(strings.Join(got[0].Remedy, "\n"), "mlxlink"); mgmt == mlx {
				t.Errorf("management port %v, mlxlink step %v: %q", mgmt, mlx, got[0].Remedy)
			}
		})
	}
}
