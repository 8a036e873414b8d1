package mlxlink

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRealSamples(t *testing.T) {
	for _, tc := range []struct {
		file    string
		ports   int
		devices []string
		// checks are "port index/key=value".
		checks map[int]map[string]string
		msgs   int
	}{
		{file: "bf3-100g-dac-healthy.txt", ports: 2, devices: []string{"/dev/mst/mt41692_pciconf0", "/dev/mst/mt41692_pciconf0.1"},
			checks: map[int]map[string]string{
				0: {"State": "Active", "Speed": "100G", "Width": "4x", "Recommendation": "No issue was observed", "Effective Physical BER": "15E-255", "Raw Physical Errors Per Lane": "0,0,0,0", "Link Down Counter": "0", "IB Cable Width": "1x,2x,4x", "Supported Cable Speed (Ext.)": "0x000002f2 (100G_4X,50G_2X,40G,25G,10G,1G)"},
				1: {"Vendor Serial Number": "S2202655321-2", "Time Since Last Clear [Min]": "25075.2"},
			}},
		{file: "cx6-hdr-2x-ber-loop.txt", ports: 16,
			devices: []string{"mt4123_pciconf0", "mt4123_pciconf1", "mt4123_pciconf2", "mt4123_pciconf3", "mt4123_pciconf4", "mt4123_pciconf5", "mt4123_pciconf6", "mt4123_pciconf7",
				"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"},
			checks: map[int]map[string]string{
				0:  {"Speed": "IB-HDR", "Width": "2x", "Enabled Link Speed": "0x00000075 (HDR,EDR,FDR,QDR,SDR)"},
				11: {"Raw Physical Errors Per Lane": "32379149,224947", "Raw Physical BER": "1E-7", "FEC": "RS-FEC - (544,514) + PLR"},
			}, msgs: 8},
		{file: "cx5-edr-json-lshca-partial.txt", ports: 1, devices: []string{"/dev/mst/mt4119_pciconf0"},
			checks: map[int]map[string]string{0: {"State": "Active", "Speed": "IB-EDR", "Width": "4x", "FEC": "No FEC"}}},
		{file: "cx6-200g-eth-web-article-partial.txt", ports: 1, devices: []string{"mlx5_0"},
			checks: map[int]map[string]string{
				0: {"State": "Active", "Physical state": "ETH_AN_FSM_ENABLE", "Speed": "200G", "Supported Cable Speed (Ext.)": "0x000017d0(200G,100G_2X,100G_4X,50G_1X,50G_2X,25G,10G)", "Status Opcode": "0"},
			}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(strings.NewReader(string(b)), tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Ports) != tc.ports {
				t.Fatalf("%d ports, want %d", len(res.Ports), tc.ports)
			}
			msgs := 0
			for i, p := range res.Ports {
				if p.Device != tc.devices[i] {
					t.Errorf("port %d device %q, want %q", i, p.Device, tc.devices[i])
				}
				msgs += len(p.Messages)
			}
			if msgs != tc.msgs {
				t.Errorf("%d tool messages, want %d", msgs, tc.msgs)
			}
			for i, kv := range tc.checks {
				for k, v := range kv {
					f, ok := res.Ports[i].Get(k)
					if !ok || f.Value != v {
						t.Errorf("port %d %s = %q (%v), want %q", i, k, f.Value, ok, v)
					}
				}
			}
		})
	}
}

func TestParseLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ports    int
		key, val string
		section  string
		line     int
		err      error
	}{
		{name: "colour codes removed", in: "Operational Info\n----------------\nState                           : \x1b[32mActive\x1b[0m\n", ports: 1, key: "State", val: "Active", section: "Operational Info", line: 3},
		{name: "ibstat line is not mlxlink", in: "\t\tState: Active\n\t\tPhysical state: LinkUp\n", err: ErrNoField},
		{name: "prose only", in: "the link is down, please help\n", err: ErrNoField},
		{name: "grep of counters without title", in: "Effective Physical BER          : 15E-255\nLink Down Counter               : 3\n", ports: 1, key: "Link Down Counter", val: "3", line: 2},
		{name: "repeated key starts a second run", in: "Effective Physical BER  : 1E-10\nEffective Physical BER  : 15E-255\n", ports: 2, key: "Effective Physical BER", val: "1E-10", line: 1},
		{name: "command line names the device", in: "$ sudo mlxlink -d mlx5_3 -p 1 -c\nOperational Info\n----\nState   : Polling\n", ports: 1, key: "State", val: "Polling", section: "Operational Info", line: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tc.in), "x.txt")
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Ports) != tc.ports {
				t.Fatalf("%d ports, want %d: %+v", len(res.Ports), tc.ports, res.Ports)
			}
			f, ok := res.Ports[0].Get(tc.key)
			if !ok || f.Value != tc.val || f.Section != tc.section || f.Line != tc.line {
				t.Errorf("got %+v %v, want %s=%q in %q at line %d", f, ok, tc.key, tc.val, tc.section, tc.line)
			}
		})
	}
	res, _ := Parse(strings.NewReader("$ sudo mlxlink -d mlx5_3 -p 1 -c\nOperational Info\n----\nState   : Polling\n"), "x")
	if p := res.Ports[0]; p.Device != "mlx5_3" || p.PortNum != 1 {
		t.Errorf("device %q port %d, want mlx5_3 port 1", p.Device, p.PortNum)
	}
	res, _ = Parse(strings.NewReader("admin@sonic:~$ sudo mlxlink -d /dev/mst/mt52100_pci_cr0 -p 0x2\n \nOperational Info\n----------------\nState                           : Active\n"), "x")
	if p := res.Ports[0]; p.Device != "/dev/mst/mt52100_pci_cr0" || p.PortNum != 2 {
		t.Errorf("device %q port %d, want /dev/mst/mt52100_pci_cr0 port 2", p.Device, p.PortNum)
	}
}

func FuzzParse(f *testing.F) {
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			b, _ := os.ReadFile(filepath.Join("testdata", e.Name()))
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		res, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, p := range res.Ports {
			if len(p.Fields) == 0 {
				t.Fatalf("port without fields: %+v", p)
			}
			for _, fl := range p.Fields {
				if fl.Key == "" || fl.Line < 1 {
					t.Fatalf("bad field %+v", fl)
				}
			}
		}
	})
}
