package pcie

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Config space layout (include/uapi/linux/pci_regs.h): the extended
// capability list starts at 0x100; each header is a little-endian dword
// with the capability ID in bits 0–15, its version in 16–19 and the
// offset of the next one in 20–31.
const (
	// ConfigHeaderSize is what the kernel shows a reader without
	// CAP_SYS_ADMIN (drivers/pci/pci-sysfs.c pci_read_config: 64 bytes, 128
	// for a CardBus bridge).
	ConfigHeaderSize = 64
	// ConfigExtStart is where the extended capabilities begin; a function
	// whose config file is 256 bytes has none (conventional PCI).
	ConfigExtStart = 0x100
	// ConfigSize is a PCI Express function's whole config space.
	ConfigSize = 4096
	// ExtCapACS is PCI_EXT_CAP_ID_ACS, Access Control Services.
	ExtCapACS = 0x000d
	// ACS register offsets within the capability: PCI_ACS_CAP, PCI_ACS_CTRL.
	ACSCapReg  = 0x4
	ACSCtrlReg = 0x6
)

// ACS capability and control bits (PCI_ACS_SV … PCI_ACS_DT).
const (
	ACSSrcValid    uint16 = 0x0001 // Source Validation
	ACSTransBlk    uint16 = 0x0002 // Translation Blocking
	ACSReqRedir    uint16 = 0x0004 // P2P Request Redirect
	ACSCmpltRedir  uint16 = 0x0008 // P2P Completion Redirect
	ACSUpstreamFwd uint16 = 0x0010 // Upstream Forwarding
	ACSEgressCtrl  uint16 = 0x0020 // P2P Egress Control
	ACSDirectTrans uint16 = 0x0040 // Direct Translated P2P
)

// ACSP2PBlocking are the control bits that send peer-to-peer traffic
// between two ports of a switch up to the root complex (redirect) or
// block it (egress control) instead of routing it across the switch.
const ACSP2PBlocking = ACSReqRedir | ACSCmpltRedir | ACSEgressCtrl

// acsNames are the bits in the order and spelling of lspci -vvv
// ("ACSCtl: SrcValid+ TransBlk- ReqRedir+ ...").
var acsNames = []struct {
	bit  uint16
	name string
}{
	{ACSSrcValid, "SrcValid"}, {ACSTransBlk, "TransBlk"}, {ACSReqRedir, "ReqRedir"},
	{ACSCmpltRedir, "CmpltRedir"}, {ACSUpstreamFwd, "UpstreamFwd"},
	{ACSEgressCtrl, "EgressCtrl"}, {ACSDirectTrans, "DirectTrans"},
}

// ACSBits renders ACS capability or control bits as lspci -vvv does:
// "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-".
func ACSBits(v uint16) string {
	parts := make([]string, len(acsNames))
	for i, n := range acsNames {
		sign := "-"
		if v&n.bit != 0 {
			sign = "+"
		}
		parts[i] = n.name + sign
	}
	return strings.Join(parts, " ")
}

// ACS is a function's Access Control Services capability as its config
// space holds it.
type ACS struct {
	// Offset is where the capability sits in config space; 0 when the
	// function has none (Cap and Ctl are then 0).
	Offset int `json:"offset"`
	// Cap is the ACS Capability register, Ctl the ACS Control register.
	Cap uint16 `json:"cap"`
	Ctl uint16 `json:"ctl"`
}

// Present reports whether the function has an ACS capability.
func (a ACS) Present() bool { return a.Offset != 0 }

// Blocking returns the control bits set that redirect or block
// peer-to-peer traffic (ACSP2PBlocking).
func (a ACS) Blocking() uint16 { return a.Ctl & ACSP2PBlocking }

// ErrConfigShort is returned for a config file that stops inside the
// standard header or right after it: the kernel shows the rest only to a
// reader with CAP_SYS_ADMIN.
var ErrConfigShort = errors.New("only the standard header of config space is readable (the kernel shows the rest to root only)")

// ParseACS finds the ACS capability in a function's config space, as
// read from sys/bus/pci/devices/<addr>/config (little-endian, as the
// kernel returns it). A file of 256 bytes has no extended space and so no
// ACS; one of at most 128 bytes gives ErrConfigShort. A broken capability
// list (a pointer outside the file or back into the header, a loop) is an
// error wrapping ErrMalformed.
func ParseACS(config []byte) (ACS, error) {
	if len(config) <= 2*ConfigHeaderSize {
		return ACS{}, fmt.Errorf("%w: %d bytes", ErrConfigShort, len(config))
	}
	if len(config) < ConfigExtStart+4 {
		return ACS{}, nil
	}
	off := ConfigExtStart
	// Each capability takes at least one dword: more steps than dwords in
	// the extended space is a loop.
	for steps := 0; steps < (len(config)-ConfigExtStart)/4; steps++ {
		hdr := binary.LittleEndian.Uint32(config[off:])
		if hdr == 0 || hdr == 0xffffffff {
			return ACS{}, nil // no capabilities, or a function that is gone
		}
		if hdr&0xffff == ExtCapACS {
			if off+ACSCtrlReg+2 > len(config) {
				return ACS{}, fmt.Errorf("%w: ACS capability at 0x%x runs past the %d bytes of config space", ErrMalformed, off, len(config))
			}
			return ACS{Offset: off,
				Cap: binary.LittleEndian.Uint16(config[off+ACSCapReg:]),
				Ctl: binary.LittleEndian.Uint16(config[off+ACSCtrlReg:])}, nil
		}
		next := int(hdr>>20) &^ 3
		if next == 0 {
			return ACS{}, nil
		}
		if next < ConfigExtStart || next+4 > len(config) {
			return ACS{}, fmt.Errorf("%w: extended capability 0x%04x at 0x%x points to 0x%x, outside the extended space", ErrMalformed, hdr&0xffff, off, next)
		}
		off = next
	}
	return ACS{}, fmt.Errorf("%w: the extended capability list loops", ErrMalformed)
}
