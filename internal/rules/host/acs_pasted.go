package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// LspciVerdict is what a pasted `lspci -vvv` says about PCIe ACS.
type LspciVerdict struct {
	Findings []finding.Finding
	// Summary says what was read ("13 functions, 7 bridges with ACS …").
	Summary string
	// NotJudged says why nothing could be judged ("" when something was):
	// no ACS register in the paste, lspci run without root.
	NotJudged string
}

// CheckPastedLspci judges the ACS Control register of every PCIe switch
// downstream port of a pasted `lspci -vvv`: one pcie.acs_redirect per port
// that redirects or blocks peer-to-peer traffic (ReqRedir, CmpltRedir or
// EgressCtrl on). Where the paste lists the functions below the port's
// switch, the bus ranges place them: a port is reported only when a GPU
// and a NIC below the same switch talk through it (one of them below the
// port); a redirecting switch with no such pair below it (NVSwitch
// bridges, NVMe) costs GPUDirect RDMA nothing and is only counted. Where
// the paste shows nothing below the switch (lspci -vvv -s of the
// bridges), the port is reported and its summary says the pairing is not
// in the paste.
// Root ports are not reported: traffic between two root ports crosses the
// root complex whatever their ACS says.
func CheckPastedLspci(l *lspci.Listing, source string) LspciVerdict {
	at := func(line int) string { return fmt.Sprintf("%s:%d", source, line) }
	type key struct {
		dom string
		bus int
	}
	bySecondary := map[key]*lspci.Device{}
	var gpus, nics []*lspci.Device
	withACS, denied, rootRedirect, anonACS := 0, 0, 0, 0
	var anonRedirect []*lspci.Device
	for i := range l.Devices {
		d := &l.Devices[i]
		if d.Bus != nil {
			bySecondary[key{domain(d.Address), d.Bus.Secondary}] = d
		}
		switch {
		case isPastedGPU(d):
			gpus = append(gpus, d)
		case isPastedNIC(d):
			nics = append(nics, d)
		}
		if d.Anonymous() && d.ACS != nil {
			// `lspci -vvv | grep ACSCtl`: the register without its
			// device, so without its port type.
			anonACS++
			if d.ACS.Blocking() != 0 {
				anonRedirect = append(anonRedirect, d)
			}
			continue
		}
		if d.IsBridge() {
			switch {
			case d.ACS != nil:
				withACS++
				if d.PortType != lspci.DownstreamPort && d.ACS.Blocking() != 0 {
					rootRedirect++
				}
			case d.Denied:
				denied++
			}
		}
	}
	var v LspciVerdict
	var harmless []string
	for i := range l.Devices {
		p := &l.Devices[i]
		if p.PortType != lspci.DownstreamPort || p.ACS == nil || p.ACS.Blocking() == 0 {
			continue
		}
		flags := "ACSCtl: " + p.ACSText
		ev := []finding.Evidence{{Source: at(p.ACSLine), Value: flags}}
		var pairs []string
		if p.Bus != nil {
			lo, hi, usp := switchBuses(l, p, bySecondary[key{domain(p.Address), p.Bus.Primary}])
			dom := domain(p.Address)
			below := func(d *lspci.Device, a, b int) bool {
				return domain(d.Address) == dom && busOf(d.Address) >= a && busOf(d.Address) <= b
			}
			// The paste shows what is below the switch when it lists a
			// function there that is no bridge; otherwise the pairing
			// is unknown and the port is reported.
			shown := slices.ContainsFunc(l.Devices, func(d lspci.Device) bool { return !d.IsBridge() && below(&d, lo, hi) })
			for _, g := range gpus {
				for _, n := range nics {
					if below(g, lo, hi) && below(n, lo, hi) &&
						below(g, p.Bus.Secondary, p.Bus.Subordinate) != below(n, p.Bus.Secondary, p.Bus.Subordinate) {
						pairs = append(pairs, "GPU "+short(g.Address)+"–NIC "+short(n.Address))
					}
				}
			}
			if len(pairs) == 0 && shown {
				harmless = append(harmless, short(p.Address))
				continue
			}
			if usp != nil && len(pairs) > 0 {
				ev = append(ev, finding.Evidence{Source: at(usp.Line), Value: fmt.Sprintf("switch upstream port %s, buses %02x-%02x", short(usp.Address), lo, hi)})
			}
		}
		var sum string
		switch {
		case len(pairs) > 0:
			shown := pairs
			if len(pairs) > maxACSPairs {
				shown = append(slices.Clip(pairs[:maxACSPairs]), fmt.Sprintf("and %d more", len(pairs)-maxACSPairs))
			}
			sum = fmt.Sprintf("PCIe switch downstream port %s redirects peer-to-peer traffic to the root complex (%s): GPUDirect RDMA between %s below this switch goes through the CPU instead of turning around in the switch",
				short(p.Address), strings.Join(redirectFlags(p.ACS.Ctl), " "), strings.Join(shown, ", "))
		default:
			sum = fmt.Sprintf("PCIe switch downstream port %s redirects peer-to-peer traffic to the root complex (%s): a slowdown only for GPUDirect RDMA between a GPU and a NIC below this switch, which the paste does not show (lspci -tv shows what is below it)",
				short(p.Address), strings.Join(redirectFlags(p.ACS.Ctl), " "))
		}
		f := catalog.New("pcie.acs_redirect", finding.Subject{PCI: string(p.Address), File: source}, sum, ev...)
		catalog.Fill(&f, "bridges", string(p.Address))
		v.Findings = append(v.Findings, f)
	}
	if len(anonRedirect) > 0 {
		v.Findings = append(v.Findings, anonymousACSRedirect(anonRedirect, anonACS, source))
	}
	catalog.Sort(v.Findings)
	v.Summary = fmt.Sprintf("%s, %s, %s", plural(len(l.Devices), "function", "functions"),
		plural(len(gpus), "GPU", "GPUs"), plural(len(nics), "NIC", "NICs"))
	if anonACS > 0 {
		what := fmt.Sprintf("%d redirecting peer-to-peer traffic", len(anonRedirect))
		if len(anonRedirect) == 0 {
			what = "none redirecting peer-to-peer traffic (SrcValid, source validation, alone does not)"
		}
		anon := fmt.Sprintf("%s without device lines (lspci -vvv | grep ACSCtl), %s", plural(anonACS, "ACSCtl line", "ACSCtl lines"), what)
		if anonACS == len(l.Devices) {
			v.Summary = anon
		} else {
			v.Summary += "; " + anon
		}
		if withACS == 0 {
			return v
		}
	}
	switch {
	case withACS == 0 && denied > 0:
		v.NotJudged = fmt.Sprintf("lspci ran without root: the ACS registers of %s are not shown (\"Capabilities: <access denied>\"): run sudo lspci -vvv", plural(denied, "bridge", "bridges"))
		v.Summary += "; " + v.NotJudged
		return v
	case withACS == 0:
		v.NotJudged = "no ACSCtl line: lspci shows the ACS registers with -vvv, as root (sudo lspci -vvv)"
		v.Summary += "; " + v.NotJudged
		return v
	}
	v.Summary += fmt.Sprintf("; ACS read on %s", plural(withACS, "bridge", "bridges"))
	if n := len(v.Findings); n > 0 {
		v.Summary += fmt.Sprintf(", %s redirecting", plural(n, "switch port", "switch ports"))
	} else if len(harmless) == 0 {
		v.Summary += ", no switch port redirects peer-to-peer traffic"
	}
	if len(harmless) > 0 {
		v.Summary += fmt.Sprintf("; %s redirect without a GPU and a NIC talking through them (%s): no GPUDirect RDMA cost",
			plural(len(harmless), "switch port", "switch ports"), strings.Join(harmless, ", "))
	}
	if rootRedirect > 0 {
		v.Summary += fmt.Sprintf("; %s redirect, as the kernel sets them with an IOMMU on: traffic between root ports crosses the root complex anyway", plural(rootRedirect, "root port", "root ports"))
	}
	if denied > 0 {
		v.Summary += fmt.Sprintf("; %s not readable (lspci without root)", plural(denied, "bridge", "bridges"))
	}
	return v
}

// switchBuses returns the buses below the switch a downstream port
// belongs to: its upstream port's range when the paste has it, else the
// union of the port's and its sibling ports' ranges.
func switchBuses(l *lspci.Listing, p, usp *lspci.Device) (int, int, *lspci.Device) {
	if usp != nil && usp.PortType != lspci.RootPort {
		return usp.Bus.Secondary, usp.Bus.Subordinate, usp
	}
	lo, hi := p.Bus.Secondary, p.Bus.Subordinate
	for i := range l.Devices {
		s := &l.Devices[i]
		if s.Bus != nil && s.Bus.Primary == p.Bus.Primary && domain(s.Address) == domain(p.Address) {
			lo, hi = min(lo, s.Bus.Secondary), max(hi, s.Bus.Subordinate)
		}
	}
	return lo, hi, nil
}

// redirectFlags names the set bits that redirect or block ("ReqRedir+").
func redirectFlags(ctl uint16) []string {
	var out []string
	for _, f := range strings.Fields(pcie.ACSBits(ctl & pcie.ACSP2PBlocking)) {
		if strings.HasSuffix(f, "+") {
			out = append(out, f)
		}
	}
	return out
}

func isPastedGPU(d *lspci.Device) bool {
	switch d.Class {
	case "3D controller", "VGA compatible controller", "Display controller":
		return strings.Contains(d.Name, "NVIDIA")
	}
	return false
}

func isPastedNIC(d *lspci.Device) bool {
	switch d.Class {
	case "Infiniband controller", "Ethernet controller", "Network controller":
		return strings.Contains(d.Name, "Mellanox") || strings.Contains(d.Name, "[15b3:")
	}
	return false
}

func domain(a pcie.Address) string {
	if len(a) < 4 {
		return "" // a device whose header is not in the paste
	}
	return string(a)[:4]
}

func busOf(a pcie.Address) int {
	s := string(a)
	if len(s) < 7 {
		return -1
	}
	return int(hexVal(s[5])<<4 | hexVal(s[6]))
}

func hexVal(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}

// short drops domain 0000, as lspci does without -D.
func short(a pcie.Address) string { return strings.TrimPrefix(string(a), "0000:") }

// anonymousACSRedirect is the one pcie.acs_redirect of ACSCtl lines pasted
// without their device lines (`lspci -vvv | grep ACSCtl`, the check of
// NCCL's troubleshooting guide, section "PCI Access Control Services"):
// the port types and what is below each port are not in the paste, so
// the redirecting lines are reported together, as that guide does.
// SrcValid alone (source validation) does not redirect and is not counted.
func anonymousACSRedirect(ds []*lspci.Device, total int, source string) finding.Finding {
	var ev []finding.Evidence
	for i, d := range ds {
		if i == maxACSPairs {
			break
		}
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, d.ACSLine), Value: "ACSCtl: " + d.ACSText})
	}
	sum := fmt.Sprintf("%d of %d ACSCtl lines redirect peer-to-peer traffic to the root complex (%s): on a PCIe switch port between a GPU and a NIC, GPUDirect RDMA goes through the CPU instead of turning around in the switch; the paste has no device lines, so which bridges these are is not shown (sudo lspci -vvv without grep names them; a root port redirecting costs nothing)",
		len(ds), total, strings.Join(redirectFlags(ds[0].ACS.Ctl), " "))
	f := catalog.New("pcie.acs_redirect", finding.Subject{File: source}, sum, ev...)
	catalog.Fill(&f, "bridges", "<bridges with ReqRedir+ or CmpltRedir+>")
	return f
}
