package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckPastedLspciLost judges the revision lspci printed for each pasted
// function. pciutils lspci.c show_terse prints the Revision ID byte it
// reads from config space; a function that no longer answers on the bus
// (link down, powered off, fallen off) reads all ones, so its line ends
// "(rev ff)" while the class and name, cached by the kernel, still name
// it. One finding per device (bus:device, all its functions): a GPU is
// gpu.fallen_off_bus, any other device pcie.device_lost: critical for a
// network adapter and for another vendor's GPU or compute accelerator
// (isLostGPUClass: its jobs died with it), a warning for another device.
// The device's other functions (a GPU's HDMI audio, USB-C controller)
// are evidence of the one finding, which names the GPU's function.
//
// plain says the paste is a plain listing (`lspci`, `lspci | grep`:
// device lines only, no -vvv detail), where the revisions are all there
// is to judge: with no "(rev ff)" its devices are present and answer.
func CheckPastedLspciLost(l *lspci.Listing, source string) (out []finding.Finding, plain bool) {
	type slot struct {
		key       string
		fns, lost []*lspci.Device
		gpu       *lspci.Device
	}
	var slots []*slot
	at := map[string]*slot{}
	plain = len(l.Devices) > 0
	for i := range l.Devices {
		d := &l.Devices[i]
		if d.Anonymous() || d.Bus != nil || d.ACS != nil || d.Denied || d.PortType != "" || d.LinkCap != nil || d.LinkSta != nil || d.Class == "" {
			plain = false
		}
		if d.Anonymous() {
			continue
		}
		k, _, _ := strings.Cut(string(d.Address), ".")
		s := at[k]
		if s == nil {
			s = &slot{key: k}
			at[k] = s
			slots = append(slots, s)
		}
		s.fns = append(s.fns, d)
		if d.Rev == "ff" {
			s.lost = append(s.lost, d)
		}
		if s.gpu == nil && isPastedGPU(d) {
			s.gpu = d
		}
	}
	// GPUs that still answer, to say the loss is this GPU's, not the
	// host's.
	var alive []string
	for _, s := range slots {
		if s.gpu != nil && len(s.lost) == 0 && s.gpu.Rev != "" {
			alive = append(alive, short(s.gpu.Address)+" (rev "+s.gpu.Rev+")")
		}
	}
	for _, s := range slots {
		if len(s.lost) == 0 {
			continue
		}
		var ev []finding.Evidence
		for _, d := range s.lost {
			if len(ev) == maxEvidence {
				break
			}
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, d.Line), Value: short(d.Address) + " " + d.Class + ": " + d.Name})
		}
		fns := "its function reads"
		if len(s.fns) > 1 {
			fns = fmt.Sprintf("%d of its %d functions read", len(s.lost), len(s.fns))
			if len(s.lost) == len(s.fns) {
				fns = fmt.Sprintf("all %d of its functions read", len(s.fns))
			}
		}
		if g := s.gpu; g != nil && g.Rev == "ff" {
			msg := fmt.Sprintf("GPU %s (%s) no longer answers on the PCIe bus: lspci prints \"(rev ff)\", %s all ones from config space (the kernel still lists the device, but it is gone: link down, powered off or fallen off the bus); every job on it died", short(g.Address), g.Model(), fns)
			if len(alive) > 0 {
				msg += "; the other GPUs answer: " + strings.Join(alive, ", ")
			}
			msg += fmt.Sprintf(". lspci -vvv -s %s shows it as \"Unknown header type 7f\"; the kernel log (dmesg -T | grep -E 'NVRM|Xid|AER') shows when and why it left", short(g.Address))
			out = append(out, catalog.New("gpu.fallen_off_bus", finding.Subject{PCI: string(g.Address), GPU: string(g.Address), File: source}, msg, ev...))
			continue
		}
		d := s.lost[0]
		for _, x := range s.lost {
			if isLostGPUClass(x) {
				d = x
				break
			}
		}
		msg := fmt.Sprintf("%s %s (%s) no longer answers on the PCIe bus: lspci prints \"(rev ff)\", %s all ones from config space (the kernel still lists the device, but it is gone: link down, powered off or fallen off the bus)", d.Class, short(d.Address), d.Model(), fns)
		if isLostGPUClass(d) {
			msg += fmt.Sprintf("; this is a GPU or compute accelerator gone from the bus, as an NVIDIA GPU's Xid 79: every job on it died. Its driver's kernel lines (dmesg -T | grep -iE '%s|amdgpu|vfio|AER') show when and why it left", short(d.Address))
		}
		f := catalog.New("pcie.device_lost", finding.Subject{PCI: string(d.Address), File: source}, msg, ev...)
		if !isNetClass(d.Class) && !isLostGPUClass(d) {
			f.Severity = finding.Warning
		}
		out = append(out, f)
	}
	return out, plain
}

// isNetClass says whether an lspci class is a network adapter's.
func isNetClass(class string) bool {
	switch class {
	case "Infiniband controller", "Ethernet controller", "Network controller":
		return true
	}
	return false
}

// isLostGPUClass says whether a function is a GPU or a compute
// accelerator whose loss kills the jobs on it: PCI class 03xx ("VGA
// compatible controller", "3D controller", "Display controller") or 12xx
// ("Processing accelerators", pci.ids class 12: AMD Instinct, Habana
// Gaudi) from a vendor that makes compute GPUs. A server's BMC graphics
// (ASPEED, Matrox) is a VGA controller too, but only drives the console.
func isLostGPUClass(d *lspci.Device) bool {
	switch d.Class {
	case "VGA compatible controller", "3D controller", "Display controller", "Processing accelerators":
	default:
		return false
	}
	for _, v := range []string{"NVIDIA", "Advanced Micro Devices", "AMD/ATI", "ATI Technologies", "Intel Corporation", "Habana", "[10de:", "[1002:", "[1022:", "[8086:", "[1da3:"} {
		if strings.Contains(d.Name, v) {
			return true
		}
	}
	return false
}
