package ibdev2netdev

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLine(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Entry
		ok   bool
	}{
		{"mlx5_3 port 1 ==> net1 (Down)", Entry{Device: "mlx5_3", Port: 1, NetDev: "net1"}, true},
		{"mlx5_0   port  1  ==>  ibp26s0        (Down)  # CX-7 1/8 infiniband", Entry{Device: "mlx5_0", Port: 1, NetDev: "ibp26s0"}, true},
		{"mlx5_1 port 1 ==> enp2s0f1 (Up)", Entry{Device: "mlx5_1", Port: 1, NetDev: "enp2s0f1", Up: true}, true},
		{"0000:02:00.5 mlx5_2 (MT4116 - NA)  fw 12.23.1020 port 1 (DOWN  ) ==> enp2s0f2 (Down)",
			Entry{PCI: "0000:02:00.5", Model: "MT4116", Device: "mlx5_2", Port: 1, PortState: "DOWN", NetDev: "enp2s0f2"}, true},
		{"0000:b8:00.1 mlx5_13 (MT4123 - MCX653106A-ECAT) ConnectX-6 VPI adapter card, 100Gb/s (HDR100, EDR IB and 100GbE), dual-port QSFP56 fw 20.26.4012 port 1 (ACTIVE) ==> ib4 (Up) (o2ib)",
			Entry{PCI: "0000:b8:00.1", Model: "MT4123", Device: "mlx5_13", Port: 1, PortState: "ACTIVE", NetDev: "ib4", Up: true}, true},
		{"mlx4_0 (mt26428 - MT1037X01146) KESTREL        QDR             fw 2.9.1000 port 1 (ACTIVE) ==> ib0 (Up)",
			Entry{Model: "mt26428", Device: "mlx4_0", Port: 1, PortState: "ACTIVE", NetDev: "ib0", Up: true}, true},
		{"mlx5_0 port 0 ==> ib0 (Up)", Entry{}, false},
		{"iblinkinfo: CA port 1 ==> switch", Entry{}, false},
		{"the port is Down", Entry{}, false},
	} {
		got, ok := Line(tt.in)
		got.Text = ""
		if ok != tt.ok || ok && !cmp.Equal(got, tt.want) {
			t.Errorf("Line(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseCorpus(t *testing.T) {
	for _, tt := range []struct {
		file    string
		entries int
		down    int
	}{
		{"sriov-roce-v.txt", 6, 4},
		{"sriov-ib-v.txt", 6, 5},
		{"cx4lx-cx5-v.txt", 8, 5},
	} {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := Parse(f, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			down := 0
			for _, e := range m.Entries {
				if !e.Up {
					down++
				}
			}
			if len(m.Entries) != tt.entries || down != tt.down {
				t.Errorf("%d entries, %d down; want %d, %d", len(m.Entries), down, tt.entries, tt.down)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	_, err := Parse(strings.NewReader("mlx5_0 port 1 ==> ib0 (Up)\nsomething else\n"), "x.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), "x.txt line 2: ") {
		t.Errorf("err = %v", err)
	}
	if _, err := Parse(strings.NewReader("\n\n"), "e.txt"); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
}

func TestIPoIBAndCard(t *testing.T) {
	for n, want := range map[string]bool{"ib0": true, "ibp26s0": true, "ibs3": true, "ib0.8001": true, "ibp220s0f1": true,
		"enp27s0f0np0": false, "net1": false, "eth0": false, "ibm": false, "ib": false} {
		if IPoIB(n) != want {
			t.Errorf("IPoIB(%q) = %v", n, !want)
		}
	}
	for _, tt := range []struct {
		e    Entry
		want string
	}{
		{Entry{NetDev: "enp27s0f1np1"}, "enp27s0"},
		{Entry{NetDev: "enp27s0f0np0"}, "enp27s0"},
		{Entry{NetDev: "ens4f1"}, "ens4"},
		{Entry{NetDev: "enp2s0f2"}, "enp2s0"},
		{Entry{NetDev: "net1"}, ""},
		{Entry{NetDev: "eth0"}, ""},
		{Entry{NetDev: "ens6"}, ""},
		{Entry{PCI: "0000:02:00.5", NetDev: "x"}, "0000:02:00"},
	} {
		if got := Card(tt.e); got != tt.want {
			t.Errorf("Card(%+v) = %q, want %q", tt.e, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"mlx5_3 port 1 ==> net1 (Down)\n", "0000:02:00.5 mlx5_2 (MT4116 - NA)  fw 12.23.1020 port 1 (DOWN  ) ==> enp2s0f2 (Down)\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, e := range m.Entries {
			if e.Device == "" || e.NetDev == "" || e.Port < 1 || e.Line < 1 {
				t.Fatalf("entry %+v", e)
			}
			_ = Card(e)
		}
	})
}
