package lspci

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

func TestParseCorpus(t *testing.T) {
	type dev struct {
		addr     pcie.Address
		class    string
		portType string
		bus      *Bus
		ctl      int // -1: no ACS
	}
	off := 0
	redir := int(pcie.ACSSrcValid | pcie.ACSReqRedir | pcie.ACSCmpltRedir | pcie.ACSUpstreamFwd)
	for _, tt := range []struct {
		file    string
		devices int
		want    []dev
	}{
		{"h100-pex890xx-acs-off-gpud.txt", 13, []dev{
			{"0000:15:01.0", "PCI bridge", RootPort, &Bus{0x15, 0x16, 0x1c}, off},
			{"0000:16:00.0", "PCI bridge", UpstreamPort, &Bus{0x16, 0x17, 0x1c}, -1},
			{"0000:17:01.0", "PCI bridge", DownstreamPort, &Bus{0x17, 0x19, 0x19}, off},
			{"0000:17:1f.0", "PCI bridge", DownstreamPort, &Bus{0x17, 0x1c, 0x1c}, off},
			{"0000:19:00.0", "3D controller", Endpoint, nil, -1},
			{"0000:1a:00.0", "Ethernet controller", Endpoint, nil, -1},
			{"0000:1b:00.1", "Ethernet controller", Endpoint, nil, off},
		}},
		{"h100-nvswitch-pmc-acs-redirect-gpud.txt", 11, []dev{
			{"0000:80:01.0", "PCI bridge", RootPort, &Bus{0x80, 0x81, 0x86}, off},
			{"0000:82:00.0", "PCI bridge", DownstreamPort, &Bus{0x82, 0x83, 0x83}, redir},
			{"0000:82:03.0", "PCI bridge", DownstreamPort, &Bus{0x82, 0x86, 0x86}, redir},
			{"0000:86:00.0", "Bridge", Endpoint, nil, -1},
		}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			l, err := Parse(f, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Devices) != tt.devices {
				t.Errorf("%d devices, want %d", len(l.Devices), tt.devices)
			}
			for _, w := range tt.want {
				var d *Device
				for i := range l.Devices {
					if l.Devices[i].Address == w.addr {
						d = &l.Devices[i]
					}
				}
				if d == nil {
					t.Errorf("%s missing", w.addr)
					continue
				}
				if d.Class != w.class || d.PortType != w.portType {
					t.Errorf("%s: class %q port %q, want %q %q", w.addr, d.Class, d.PortType, w.class, w.portType)
				}
				if (d.Bus == nil) != (w.bus == nil) || d.Bus != nil && *d.Bus != *w.bus {
					t.Errorf("%s: bus %+v, want %+v", w.addr, d.Bus, w.bus)
				}
				switch {
				case w.ctl < 0 && d.ACS != nil:
					t.Errorf("%s: ACS %+v, want none", w.addr, d.ACS)
				case w.ctl >= 0 && (d.ACS == nil || int(d.ACS.Ctl) != w.ctl || d.ACSLine == 0):
					t.Errorf("%s: ACS %+v, want ctl %#x", w.addr, d.ACS, w.ctl)
				}
			}
		})
	}
}

func TestParseShapes(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		addr     pcie.Address
		ctl      uint16
		offset   int
		denied   bool
		err      error
		errLine  int
	}{
		{"-D -nn, tabs", "0001:17:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx [1000:c030] (rev b0)\n\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n\tCapabilities: [1f0 v1] Access Control Services\n\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+\n\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n",
			"0001:17:00.0", pcie.ACSSrcValid | pcie.ACSReqRedir | pcie.ACSCmpltRedir | pcie.ACSUpstreamFwd, 0x1f0, false, nil, 0},
		{"spaces for tabs, a prompt above", "$ sudo lspci -vvv -s 02:08.0\n02:08.0 PCI bridge: PLX Technology, Inc. PEX 8725\n        Capabilities: [b00 v1] Access Control Services\n                ACSCtl: SrcValid- TransBlk- ReqRedir- CmpltRedir+ UpstreamFwd- EgressCtrl- DirectTrans-\n",
			"0000:02:08.0", pcie.ACSCmpltRedir, 0xb00, false, nil, 0},
		{"a mail client wrapped the ACSCtl line", "00:1c.0 PCI bridge: Intel Corporation Sunrise Point-LP PCI Express Root Port\n\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+\nUpstreamFwd- EgressCtrl- DirectTrans-\n",
			"0000:00:1c.0", pcie.ACSSrcValid | pcie.ACSReqRedir | pcie.ACSCmpltRedir, 0, false, nil, 0},
		{"without root", "17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n\tCapabilities: <access denied>\n\tKernel driver in use: pcieport\n",
			"0000:17:00.0", 0, 0, true, nil, 0},
		{"ACSCap without ACSCtl is no control register", "17:00.0 PCI bridge: x\n\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n",
			"0000:17:00.0", 0, 0, false, nil, 0},
		{"no device", "$ sudo lspci -vvv | grep ACSCtl\n\tKernel driver in use: pcieport\n", "", 0, 0, false, ErrNoDevice, 0},
		{"device line without a class", "\n17:00.0 PCI bridge\n", "", 0, 0, false, ErrMalformed, 2},
		{"bad address", "17:00.9 PCI bridge: x\n", "", 0, 0, false, ErrMalformed, 1},
		{"bad bus", "17:00.0 PCI bridge: x\n\tBus: primary=17, secondary=1g8, subordinate=18, sec-latency=0\n", "", 0, 0, false, ErrMalformed, 2},
		{"ACS flag without sign", "17:00.0 PCI bridge: x\n\t\tACSCtl:\tSrcValid+ ReqRedir CmpltRedir+\n", "", 0, 0, false, ErrMalformed, 2},
		{"ACS line of no flags", "17:00.0 PCI bridge: x\n\t\tACSCtl:\t<?>\n", "", 0, 0, false, ErrMalformed, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(strings.NewReader(tt.in), "paste.txt")
			if tt.err != nil {
				var pe *ParseError
				if !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Line != tt.errLine || pe.Source != "paste.txt" {
					t.Fatalf("err %v, want %v at line %d", err, tt.err, tt.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := l.Devices[0]
			var ctl uint16
			off := 0
			if d.ACS != nil {
				ctl, off = d.ACS.Ctl, d.ACS.Offset
			}
			if d.Address != tt.addr || ctl != tt.ctl || off != tt.offset || d.Denied != tt.denied {
				t.Errorf("got %s ctl %#x offset %#x denied %v, want %s %#x %#x %v", d.Address, ctl, off, d.Denied, tt.addr, tt.ctl, tt.offset, tt.denied)
			}
		})
	}
}

func TestIsHeader(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])", true},
		{"0000:1a:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]", true},
		{"12:34.5 is the time", false},
		{"GPU0\tX \tNV18", false},
		{"[  12.345678] mlx5_core 0000:1a:00.0: firmware version", false},
	} {
		if got := IsHeader(tt.in); got != tt.want {
			t.Errorf("IsHeader(%q) = %v", tt.in, got)
		}
	}
}

// TestParseRev reads the revision and model of plain `lspci` lines. The
// "(rev ff)" rows are from https://github.com/lyulyul/shine-cluster/issues/171
// (`lspci | grep -i nvidia`, a Quadro RTX GPU that left the bus).
func TestParseRev(t *testing.T) {
	for _, tt := range []struct {
		line, rev, model string
	}{
		{"1c:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev ff)", "ff", "NVIDIA Corporation TU102GL [Quadro RTX 6000/8000]"},
		{"1a:00.3 Serial bus controller [0c80]: NVIDIA Corporation TU102 USB Type-C UCSI Controller (rev a1)", "a1", "NVIDIA Corporation TU102 USB Type-C UCSI Controller"},
		{"17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])", "b0", "Broadcom / LSI PEX890xx PCIe Gen 5 Switch"},
		{"0000:1a:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]", "", "Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]"},
		{"1c:00.0 VGA compatible controller: Weird (rev x)", "", "Weird"},
	} {
		l, err := Parse(strings.NewReader(tt.line+"\n"), "t")
		if err != nil {
			t.Fatalf("%q: %v", tt.line, err)
		}
		d := l.Devices[0]
		if d.Rev != tt.rev || d.Model() != tt.model {
			t.Errorf("%q: rev %q model %q, want %q %q", tt.line, d.Rev, d.Model(), tt.rev, tt.model)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"h100-pex890xx-acs-off-gpud.txt", "h100-nvswitch-pmc-acs-redirect-gpud.txt", "lnk-grep-mi50-gen1-x8.txt", "lnk-grep-cxl-x8-prompt.txt"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b[:min(len(b), 8<<10)]))
	}
	f.Add("17:00.0 PCI bridge: x\n\tBus: primary=17, secondary=18, subordinate=18\n\t\tACSCtl:\tSrcValid+ ReqRedir+\n")
	f.Fuzz(func(t *testing.T, in string) {
		l, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a ParseError", err)
			}
			return
		}
		for _, d := range l.Devices {
			if d.Line < 1 || d.ACS != nil && d.ACSLine < d.Line {
				t.Fatalf("device %+v: lines out of order", d)
			}
		}
	})
}

// TestParseLinks: LnkCap and LnkSta in a full listing, and pasted without
// their device's header (a script's bare address line, grep output behind
// prompts, notes after the line): each LnkCap or repeated LnkSta of a
// headerless paste is a device of its own.
func TestParseLinks(t *testing.T) {
	type link struct {
		addr               pcie.Address
		capSpeed, staSpeed float64
		capWidth, staWidth int
		staSpeedDown       bool
		staWidthDown       bool
	}
	for _, tt := range []struct {
		file string
		want []link
	}{
		{"lnk-grep-mi50-gen1-x8.txt", []link{
			{"0000:31:00.0", 16, 2.5, 16, 8, true, true},
			{"0000:34:00.0", 16, 2.5, 16, 8, true, true},
			{"0000:4b:00.0", 16, 2.5, 16, 8, true, true},
		}},
		{"lnk-grep-cxl-x8-prompt.txt", []link{
			{"", 32, 32, 16, 8, false, true},
			{"", 32, 32, 16, 8, false, true},
			{"", 32, 32, 8, 8, false, false},
		}},
		{"lnk-script-rtx2060-x8.txt", []link{{"", 8, 8, 16, 8, false, true}}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			l, err := Parse(f, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []link
			for _, d := range l.Devices {
				if d.LinkCap == nil || d.LinkSta == nil {
					t.Fatalf("device %+v lacks a link line", d)
				}
				got = append(got, link{d.Address, d.LinkCap.Speed, d.LinkSta.Speed, d.LinkCap.Width, d.LinkSta.Width, d.LinkSta.SpeedDowngraded, d.LinkSta.WidthDowngraded})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("device %d: got %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
	// A full listing: the NVSwitch sample's links are read per function.
	f, err := os.Open("testdata/h100-nvswitch-pmc-acs-redirect-gpud.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := Parse(f, "nvswitch")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range l.Devices {
		if d.Address == "0000:81:00.1" && (d.LinkCap == nil || d.LinkCap.Width != 16 || d.LinkSta == nil || d.LinkSta.Width != 2 || !d.LinkSta.WidthDowngraded || d.LinkSta.Line != 208) {
			t.Errorf("81:00.1 links: %+v %+v", d.LinkCap, d.LinkSta)
		}
	}
	for _, bad := range []string{"LnkSta: Speed fastGT/s, Width x4\n", "LnkCap: Port #0, Speed 8GT/s, Width xx\n"} {
		if _, err := Parse(strings.NewReader(bad), "b.txt"); !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), "b.txt line 1: ") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

// TestParseGrepACS: ACS registers without their device lines (`lspci
// -vvv | grep ACS`): one anonymous function per ACSCap/ACSCtl pair or per
// lone ACSCtl.
func TestParseGrepACS(t *testing.T) {
	const text = "ACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n" +
		"ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n" +
		"\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n" +
		"\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
	l, err := Parse(strings.NewReader(text), "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Devices) != 3 {
		t.Fatalf("%d devices, want 3: %+v", len(l.Devices), l.Devices)
	}
	for i, want := range []int{2, 3, 4} {
		d := l.Devices[i]
		if !d.Anonymous() || d.ACS == nil || d.ACSLine != want {
			t.Errorf("device %d: %+v, want anonymous with ACSCtl at line %d", i, d, want)
		}
	}
	if l.Devices[0].ACS.Cap == 0 || l.Devices[1].ACS.Cap != 0 {
		t.Errorf("ACSCap went to the wrong function: %+v", l.Devices)
	}
	if _, err := Parse(strings.NewReader("\t\tACSCtl:\tSrcValid+ ReqRedir\n"), "p"); err == nil || !strings.Contains(err.Error(), "p line 1") {
		t.Errorf("bad flag: %v", err)
	}
}
