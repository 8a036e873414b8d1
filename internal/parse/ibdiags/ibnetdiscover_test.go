package ibdiags

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

func openTestdata(t testing.TB, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestParseNetDiscoverIbsim(t *testing.T) {
	top, err := ParseNetDiscover(openTestdata(t, "ibnetdiscover-spineleaf.txt"), "ibnetdiscover")
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Nodes) != 8 {
		t.Fatalf("got %d nodes, want 8", len(top.Nodes))
	}
	sw := top.Nodes[1]
	want := TopoNode{Type: Switch, ID: "S-0000000000200003", GUID: 0x200003, SysImgGUID: 0x200003, NumPorts: 8,
		Desc: "leaf2", LID: 6, LMC: 0, Line: 18, Ports: []TopoPort{
			{Port: 1, RemoteID: "H-0000000000100004", RemotePort: 1, RemotePortGUID: 0x100005, RemoteDesc: "h3", LID: -1, RemoteLID: 7, Width: 4, Speed: ib.SpeedSDR, Line: 19},
			{Port: 2, RemoteID: "H-0000000000100006", RemotePort: 1, RemotePortGUID: 0x100007, RemoteDesc: "h4", LID: -1, RemoteLID: 8, Width: 4, Speed: ib.SpeedDDR, Line: 20},
			{Port: 5, RemoteID: "S-0000000000200000", RemotePort: 2, RemoteDesc: "spine1", LID: -1, RemoteLID: 1, Width: 1, Speed: ib.SpeedSDR, Line: 21},
			{Port: 6, RemoteID: "S-0000000000200001", RemotePort: 2, RemoteDesc: "spine2", LID: -1, RemoteLID: 3, Width: 4, Speed: ib.SpeedSDR, Line: 22},
		}}
	if d := cmp.Diff(want, sw); d != "" {
		t.Errorf("leaf2 (-want +got):\n%s", d)
	}
	ca := top.Nodes[4]
	wantCA := TopoNode{Type: CA, ID: "H-0000000000100006", GUID: 0x100006, SysImgGUID: 0x100006, NumPorts: 1, Desc: "h4", LID: -1, Line: 46,
		Ports: []TopoPort{{Port: 1, PortGUID: 0x100007, RemoteID: "S-0000000000200003", RemotePort: 2, RemoteDesc: "leaf2", LID: 8, RemoteLID: 6, Width: 4, Speed: ib.SpeedDDR, Line: 47}}}
	if d := cmp.Diff(wantCA, ca); d != "" {
		t.Errorf("h4 (-want +got):\n%s", d)
	}
}

func TestParseNetDiscoverReal(t *testing.T) {
	top, err := ParseNetDiscover(openTestdata(t, "ibnetdiscover-mqm8700.txt"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Nodes) != 3 {
		t.Fatalf("got %d nodes", len(top.Nodes))
	}
	sw := top.Nodes[0]
	if !sw.EnhancedPort0 || sw.LID != 13 || sw.Desc != "MF0;r-ufm-sw95:MQM8700/U1" || sw.VendorID != 0x2c9 || sw.DeviceID != 0xd2f0 || sw.GUID != 0xb8599f0300fc6de4 {
		t.Errorf("switch header: %+v", sw)
	}
	if p := sw.Ports[3]; p.Port != 41 || p.RemoteDesc != "Mellanox Technologies Aggregation Node" || p.Speed != ib.SpeedHDR || p.RemotePortGUID != 0xb8599f0300fc6dec {
		t.Errorf("port 41: %+v", p)
	}
	// A trailer without the rate token ("lid 383 ") leaves the rate unset.
	if p := top.Nodes[2].Ports[1]; p.RemoteLID != 383 || p.Width != 0 || p.Speed != 0 {
		t.Errorf("rate-less port: %+v", p)
	}
	if ca := top.Nodes[1]; ca.GUID != 0xec0d9a03007d7d0b || ca.SysImgGUID != 0xec0d9a03007d7d0a || ca.Ports[0].LID != 28 || ca.Ports[0].RemoteLID != 13 {
		t.Errorf("ca: %+v", ca)
	}
}

func TestParseNetDiscoverNetFile(t *testing.T) {
	top, err := ParseNetDiscover(openTestdata(t, "ibsim-spineleaf.net"), "net")
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Nodes) != 8 || top.Nodes[0].ID != "spine1" || top.Nodes[0].GUID != 0 {
		t.Fatalf("nodes: %+v", top.Nodes[0])
	}
	if p := top.Nodes[0].Ports[1]; p.NetWidth != 1 || p.RemoteID != "leaf2" || p.RemotePort != 5 {
		t.Errorf("w=1 port: %+v", p)
	}
	dup, err := ParseNetDiscover(openTestdata(t, "ibsim-dupguid.net"), "net")
	if err != nil {
		t.Fatal(err)
	}
	if dup.Nodes[1].GUID != 0x2c903000a0001 || dup.Nodes[2].GUID != 0x2c903000a0001 {
		t.Errorf("caguid lines not applied: %+v", dup.Nodes)
	}
}

func TestParseNetDiscoverErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
	}{
		{"empty", "# only a comment\n", 0},
		{"port outside node", "[1]\t\"S-1\"[1]\n", 1},
		{"bad type", "Bridge\t2 \"x\"\n", 1},
		{"bad port count", "Switch\t0 \"x\"\n", 1},
		{"no id", "Switch\t8 spine\n", 1},
		{"bad port", "Switch 8 \"s\"\n[x]\t\"h\"[1]\n", 2},
		{"port above count", "Switch 2 \"s\"\n[3]\t\"h\"[1]\n", 2},
		{"duplicate port", "Switch 8 \"s\"\n[1]\t\"h\"[1]\n[1]\t\"g\"[1]\n", 3},
		{"bad rate", "Switch 8 \"s\"\n[1]\t\"h\"[1]\t\t# \"h\" lid 3 4xFAST\n", 2},
		{"bad guid", "switchguid=0xzz\nSwitch 8 \"s\"\n", 1},
		{"bad remote port", "Switch 8 \"s\"\n[1]\t\"h\"[999]\n", 2},
		{"unterminated guid", "Ca 1 \"h\"\n[1](1234\t\"s\"[1]\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNetDiscover(strings.NewReader(tt.in), "topo.txt")
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a ParseError", err)
			}
			if pe.Line != tt.line || pe.Source != "topo.txt" {
				t.Errorf("error at %s:%d, want line %d: %v", pe.Source, pe.Line, tt.line, err)
			}
			if tt.line == 0 && !errors.Is(err, ErrNoData) || tt.line > 0 && !errors.Is(err, ErrMalformed) {
				t.Errorf("wrong sentinel: %v", err)
			}
		})
	}
}

func FuzzParseNetDiscover(f *testing.F) {
	for _, n := range []string{"ibnetdiscover-spineleaf.txt", "ibnetdiscover-mqm8700.txt", "ibsim-spineleaf.net", "ibnetdiscover-dupguid.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		top, err := ParseNetDiscover(strings.NewReader(in), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a ParseError: %v", err)
			}
			return
		}
		for _, n := range top.Nodes {
			if n.ID == "" || n.NumPorts < 1 || n.NumPorts > 255 {
				t.Fatalf("bad node %+v", n)
			}
			for _, p := range n.Ports {
				if p.Port > n.NumPorts || p.RemoteID == "" || !(p.Width == 0 || validWidth(p.Width)) {
					t.Fatalf("bad port %+v", p)
				}
			}
		}
	})
}

// TestParseNetDiscoverCapture: a PuTTY log of ibnetdiscover on a UFM
// appliance (Mellanox/ufm_sdk_3.0 tests): banner first, tabs dropped
// ("Switch41", `"S-…"# "desc"`), the CLI prompt after the output.
func TestParseNetDiscoverCapture(t *testing.T) {
	in := "=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2021.06.15 12:06:05 =~=~=~=~=~=~=~=~=~=~=~=\r\n\r\r\n#\r\n# Topology file: generated on Tue Jun 15 19:06:08 2021\r\n#\r\n\r\n" +
		"switchguid=0xc42a10300a9b026(c42a10300a9b026)\r\n" +
		"Switch41 \"S-0c42a10300a9b026\"# \"MF0;sat11-0101-0927-20ib0:MQM8700/U1\" enhanced port 0 lid 3894 lmc 0\r\n" +
		"[1]\"H-1c34da03005503dc\"[1](1c34da03005503dc) # \"SAT111092710053 ibp11s0f0\" lid 65535 4xHDR\r\n\r\n" +
		"caguid=0xc42a10300b9e396\r\nCa  1 \"H-0c42a10300b9e396\"# \"sat11-0101-0902-02ufm HCA-1\"\r\n" +
		"[1](c42a10300b9e396) \"S-0c42a10300a9b026\"[17]# lid 2156 lmc 0 \"MF0;sat11-0101-0927-20ib0:MQM8700/U1\" lid 3894 4xEDR\r\n" +
		"\rsat11-0101-0902-02ufm [ mgmt-ha-active ] (config) # "
	topo, err := ParseNetDiscover(strings.NewReader(in), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Nodes) != 2 {
		t.Fatalf("%d nodes", len(topo.Nodes))
	}
	sw, ca := topo.Nodes[0], topo.Nodes[1]
	if sw.Type != Switch || sw.NumPorts != 41 || sw.LID != 3894 || sw.Desc != "MF0;sat11-0101-0927-20ib0:MQM8700/U1" || len(sw.Ports) != 1 || sw.Ports[0].RemoteLID != 65535 {
		t.Errorf("switch %+v", sw)
	}
	if ca.Type != CA || ca.NumPorts != 1 || ca.Ports[0].Width != 4 || ca.Ports[0].Speed != ib.SpeedEDR {
		t.Errorf("ca %+v", ca)
	}
	if len(topo.Skipped) != 2 || topo.Skipped[0].Line != 1 || topo.Skipped[1].Line != 14 {
		t.Errorf("skipped %+v, want the banner (1) and the prompt (14)", topo.Skipped)
	}
	if _, err := ParseNetDiscover(strings.NewReader("just prose\n"), "p.txt"); err == nil || !strings.Contains(err.Error(), "p.txt line 1") {
		t.Errorf("prose alone: %v", err)
	}
}

// TestParseHosts reads ibhosts and ibswitches lines as nodes without ports.
func TestParseHosts(t *testing.T) {
	in := "Ca\t: 0x0002c9020023c6a4 ports 2 \"node1 HCA-1\"\nSwitch\t: 0x0002c902004811a8 ports 36 \"MF0;sw:SX6036/U1\" enhanced port 0 lid 3 lmc 0\n"
	topo, err := ParseNetDiscover(strings.NewReader(in), "h.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []TopoNode{
		{Type: CA, ID: "H-0002c9020023c6a4", GUID: 0x0002c9020023c6a4, NumPorts: 2, Desc: "node1 HCA-1", LID: -1, Line: 1},
		{Type: Switch, ID: "S-0002c902004811a8", GUID: 0x0002c902004811a8, NumPorts: 36, Desc: "MF0;sw:SX6036/U1", LID: 3, Line: 2},
	}
	if diff := cmp.Diff(want, topo.Nodes); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if HostsLine("Ca\t: not a guid ports 2 \"x\"") || HostsLine("Switch\t36 \"S-0002c902004811a8\"") {
		t.Error("HostsLine accepts a non-ibhosts line")
	}
}
