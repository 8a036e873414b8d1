package pcie

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// dump reads the rows of an `lspci -xxxx` hex dump ("130: 00 00 … 1d 00")
// into a config space of size bytes; rows not given stay zero, as lspci
// prints them.
func dump(t *testing.T, size int, text string) []byte {
	t.Helper()
	b := make([]byte, size)
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		off, bytes, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok || len(off) != 3 {
			continue // the lspci title line
		}
		o, err := strconv.ParseUint(off, 16, 16)
		if err != nil {
			t.Fatalf("dump row %q: %v", line, err)
		}
		for i, h := range strings.Fields(bytes) {
			v, err := strconv.ParseUint(h, 16, 8)
			if err != nil {
				t.Fatalf("dump row %q: %v", line, err)
			}
			if int(o)+i < size {
				b[int(o)+i] = byte(v)
			}
		}
	}
	return b
}

// A Broadcom PEX89000 downstream port: AER at 0x100, ACS at 0x138,
// Secondary PCIe at 0x148. The ACS Control row differs per case.
const pexDSP = `18:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)
000: 00 10 30 c0 07 04 10 00 b0 00 04 06 08 00 01 00
010: 00 00 00 00 00 00 00 00 18 19 19 00 f1 01 00 00
100: 01 00 82 13 00 00 00 00 00 00 40 00 30 20 46 00
130: 00 00 00 00 00 00 00 00 0d 00 81 14 5f 00 %s
148: 19 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00`

func TestParseACS(t *testing.T) {
	for _, tt := range []struct {
		name     string
		size     int
		dump     string
		offset   int
		ctl      uint16
		blocking uint16
		err      error
	}{
		// The kernel enables SV, RR, CR and UF on every switch port when an
		// IOMMU driver is active (pci_std_enable_acs): lspci -vvv
		// "ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+".
		{"kernel-enabled ACS", 4096, strings.Replace(pexDSP, "%s", "1d 00", 1), 0x138, 0x1d, ACSReqRedir | ACSCmpltRedir, nil},
		{"ACS disabled (setpci ECAP_ACS+0x6.w=0000)", 4096, strings.Replace(pexDSP, "%s", "00 00", 1), 0x138, 0, 0, nil},
		{"egress control only", 4096, strings.Replace(pexDSP, "%s", "20 00", 1), 0x138, 0x20, ACSEgressCtrl, nil},
		{"source validation and upstream forwarding do not redirect", 4096, strings.Replace(pexDSP, "%s", "11 00", 1), 0x138, 0x11, 0, nil},
		// An upstream port: AER, then the end of the list.
		{"no ACS capability", 4096, "000: 00 10 30 c0\n100: 01 00 02 00", 0, 0, 0, nil},
		{"no extended capabilities", 4096, "000: 00 10 30 c0", 0, 0, 0, nil},
		{"conventional PCI (256 bytes)", 256, "000: 86 80 00 00", 0, 0, 0, nil},
		{"function gone (all ones)", 4096, "100: ff ff ff ff", 0, 0, 0, nil},
		{"read without root: 64 bytes", 64, strings.Replace(pexDSP, "%s", "1d 00", 1), 0, 0, 0, ErrConfigShort},
		{"empty file", 0, "", 0, 0, 0, ErrConfigShort},
		{"list loops", 4096, "100: 01 00 02 10", 0, 0, 0, ErrMalformed},
		{"pointer into the header", 4096, "100: 01 00 02 04", 0, 0, 0, ErrMalformed},
		{"pointer past the file", 512, "100: 01 00 02 80", 0, 0, 0, ErrMalformed},
		{"ACS header at the last dword", 0x104, "100: 0d 00 01 00", 0, 0, 0, ErrMalformed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseACS(dump(t, tt.size, tt.dump))
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Offset != tt.offset || a.Ctl != tt.ctl || a.Blocking() != tt.blocking || a.Present() != (tt.offset != 0) {
				t.Errorf("got %+v blocking %#x, want offset %#x ctl %#x blocking %#x", a, a.Blocking(), tt.offset, tt.ctl, tt.blocking)
			}
			if tt.offset != 0 && a.Cap != 0x5f {
				t.Errorf("cap = %#x, want 0x5f", a.Cap)
			}
		})
	}
}

func TestACSBits(t *testing.T) {
	for _, tt := range []struct {
		v    uint16
		want string
	}{
		{0x1d, "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"},
		{0, "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"},
		{0x7f, "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+"},
	} {
		if got := ACSBits(tt.v); got != tt.want {
			t.Errorf("ACSBits(%#x) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// ParseACS never panics and never returns an offset outside the file.
func FuzzParseACS(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add(make([]byte, 4096))
	b := make([]byte, 0x150)
	copy(b[0x100:], []byte{0x01, 0x00, 0x82, 0x14})
	copy(b[0x148:], []byte{0x0d, 0x00, 0x01, 0x00, 0x5f, 0x00, 0x1d, 0x00})
	f.Add(b)
	f.Fuzz(func(t *testing.T, config []byte) {
		a, err := ParseACS(config)
		if err == nil && a.Offset != 0 && (a.Offset < ConfigExtStart || a.Offset+ACSCtrlReg+2 > len(config)) {
			t.Fatalf("offset %#x outside %d bytes", a.Offset, len(config))
		}
	})
}
