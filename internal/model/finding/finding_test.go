package finding

import (
	"slices"
	"testing"
)

func TestSortAndExitCode(t *testing.T) {
	fs := []Finding{
		{ID: "b.x", Severity: Warning, Subject: Subject{Device: "mlx5_1"}},
		{ID: "a.y", Severity: Info},
		{ID: "c.z", Severity: Critical, Subject: Subject{Device: "mlx5_2"}},
		{ID: "a.a", Severity: Critical, Subject: Subject{Device: "mlx5_1"}},
		{ID: "c.z", Severity: Critical, Subject: Subject{Device: "mlx5_0"}},
	}
	step := map[string]int{"c.z": 1, "a.a": 2}
	Sort(fs, func(id string) int { return step[id] })
	var got []string
	for _, f := range fs {
		got = append(got, f.ID+"/"+f.Subject.Device)
	}
	want := []string{"c.z/mlx5_0", "c.z/mlx5_2", "a.a/mlx5_1", "b.x/mlx5_1", "a.y/"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	for _, tt := range []struct {
		fs      []Finding
		code    int
		verdict string
	}{
		{nil, ExitHealthy, "healthy"},
		{[]Finding{{Severity: Info}}, ExitHealthy, "healthy"},
		{[]Finding{{Severity: Info}, {Severity: Warning}}, ExitWarning, "warning"},
		{[]Finding{{Severity: Warning}, {Severity: Critical}}, ExitCritical, "critical"},
	} {
		if c, v := ExitCode(tt.fs), Verdict(tt.fs); c != tt.code || v != tt.verdict {
			t.Errorf("%v: exit %d %s, want %d %s", tt.fs, c, v, tt.code, tt.verdict)
		}
	}
}

// Remedies run as printed: known values are filled in, values the finding
// does not know become a metavariable with how to find it (never a
// <placeholder> the shell reads as a redirection), and the entries of the
// other link layer are dropped.
func TestFillPlaceholders(t *testing.T) {
	ib := Subject{Device: "mlx5_5", Port: 1, LID: 17, LinkLayer: "InfiniBand", NetDev: "ib5"}
	eth := Subject{Device: "mlx5_8", Port: 1, LinkLayer: "Ethernet", NetDev: "ens1f0np0", PCI: "0000:b8:00.0"}
	remedy := []string{"IB: ibportstate -C <dev> -P <port> -D 0 <port> enable", "RoCE: ip link set <netdev> up", "perfquery -x <lid> <port>"}
	for _, tt := range []struct {
		name string
		subj Subject
		kv   []string
		in   []string
		want []string
	}{
		{"InfiniBand port", ib, nil, remedy,
			[]string{"ibportstate -C mlx5_5 -P 1 -D 0 1 enable", "perfquery -x 17 1"}},
		{"RoCE port", eth, nil, remedy[:2],
			[]string{"ip link set ens1f0np0 up"}},
		{"link layer unknown keeps both, marked", Subject{Device: "mlx5_0", Port: 2, NetDev: "x0"}, nil, remedy[:2],
			[]string{"IB: ibportstate -C mlx5_0 -P 2 -D 0 2 enable", "RoCE: ip link set x0 up"}},
		{"value from the rule", eth, []string{"prio", "3"}, []string{"cat /sys/class/net/<netdev>/ecn/roce_np/enable/<prio>"},
			[]string{"cat /sys/class/net/ens1f0np0/ecn/roce_np/enable/3"}},
		{"unknown value in words", eth, nil, []string{"cat /sys/class/net/<netdev>/ecn/roce_np/enable/<prio>"},
			[]string{"cat /sys/class/net/ens1f0np0/ecn/roce_np/enable/PRIO — PRIO: " + Placeholders["prio"]}},
		{"peer values", Subject{Device: "mlx5_1", Port: 1, Peer: &Subject{LID: 3, Port: 14}}, nil, []string{"perfquery -x <peer-lid> <peer-port>"},
			[]string{"perfquery -x 3 14"}},
		{"two unknowns, each explained once", Subject{}, nil, []string{"perfquery -x -C <dev> -P <port> <lid> <port>"},
			[]string{"perfquery -x -C DEV -P PORT LID PORT — DEV: " + Placeholders["dev"] + "; PORT: " + Placeholders["port"] + "; LID: " + Placeholders["lid"]}},
		{"not a placeholder", ib, nil, []string{"a <b> c < d"}, []string{"a <b> c < d"}},
	} {
		if got := FillPlaceholders(tt.in, tt.subj, tt.kv...); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	causes := []string{"cable", "IB: disabled by the subnet manager", "RoCE: netdev down"}
	if got := ForLinkLayer(causes, "Ethernet"); !slices.Equal(got, []string{"cable", "netdev down"}) {
		t.Errorf("Ethernet causes: %q", got)
	}
}

func TestCatalogNewFillsRemedy(t *testing.T) {
	c := NewCatalog([]Meta{{ID: "port.x", Severity: Warning, Title: "t", Causes: []string{"c"},
		Remedy: []string{"ibportstate -C <dev> -P <port> -D 0 <port> reset", "mlxlink -d <pci>", "ip link set <netdev> up"}}})
	f := c.New("port.x", Subject{Device: "mlx5_2", Port: 1, PCI: "0000:38:00.0"}, "s")
	want := []string{"ibportstate -C mlx5_2 -P 1 -D 0 1 reset", "mlxlink -d 0000:38:00.0",
		"ip link set NETDEV up — NETDEV: " + Placeholders["netdev"]}
	if !slices.Equal(f.Remedy, want) || f.Severity != Warning || f.Causes[0] != "c" {
		t.Fatalf("New: %+v", f)
	}
	m, _ := c.Lookup("port.x")
	if m.Remedy[0] != "ibportstate -C <dev> -P <port> -D 0 <port> reset" {
		t.Fatal("New must not modify the catalogue")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("unknown ID must panic")
		}
	}()
	c.New("port.unknown", Subject{}, "")
}

func TestNewCatalogRejectsDuplicates(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate ID must panic")
		}
	}()
	m := Meta{ID: "a.b", Severity: Info, Title: "x"}
	NewCatalog([]Meta{m}, []Meta{m})
}
