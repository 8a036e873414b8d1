package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckPastedLspciLinks compares each pasted function's LnkSta with its
// LnkCap (or reads lspci's own "(downgraded)" marks when LnkCap is not in
// the paste): pcie.link_degraded where the link trained narrower or
// slower. The link costs a training job bandwidth only on a device that
// carries the job's traffic (PCIeCarrier: a network adapter, a
// data-center GPU): there a narrower link (a card not seated, a slot
// wired for fewer lanes, a riser) is critical, and so is a slower one on
// a network adapter. A data-center GPU lowers its link speed at idle for
// power saving, so its speed-only drop is a warning that a reading under
// load settles. On any other device (a consumer GPU, a storage or other
// card) or a device the paste does not name, a degraded link is a
// warning; prose is the paste's text around the listing, read
// (ProseCarrier) for what it says a device without its header line is. A PCIe switch or root
// port's link is as wide as the device below it wires: when that device
// is in the paste its own LnkSta is judged and the port is not; when it
// is not, a port that trained narrower than its LnkCap is a warning (a
// x2 device in a x4 slot is by design, a x4 device at x2 is a fault:
// the device's own LnkCap and LnkSta settle it), and its speed is not
// judged (an idle GPU below it lowers the link's speed too). A function
// other than 0 of a device whose function 0 is in the paste is not
// judged (the functions share one link: function 0's LnkSta is the
// link's). judged is how many functions had a LnkSta to judge.
func CheckPastedLspciLinks(l *lspci.Listing, source string, prose Prose) (out []finding.Finding, judged int) {
	for i := range l.Devices {
		d := &l.Devices[i]
		sta, lc := d.LinkSta, d.LinkCap
		if sta == nil || sharesLink(l, d) {
			continue
		}
		if d.IsBridge() {
			if feedsPasted(l, d) {
				continue
			}
			judged++
			if f, ok := bridgeNarrow(d, source); ok {
				out = append(out, f)
			}
			continue
		}
		judged++
		var probs []string
		narrow := false
		switch {
		case lc != nil && lc.Width > 0 && sta.Width > 0 && sta.Width < lc.Width:
			probs = append(probs, fmt.Sprintf("x%d instead of x%d", sta.Width, lc.Width))
			narrow = true
		case (lc == nil || lc.Width == 0) && sta.WidthDowngraded:
			probs = append(probs, fmt.Sprintf("x%d (downgraded)", sta.Width))
			narrow = true
		}
		switch {
		case lc != nil && lc.Speed > 0 && sta.Speed > 0 && sta.Speed < lc.Speed:
			probs = append(probs, fmt.Sprintf("%gGT/s instead of %gGT/s", sta.Speed, lc.Speed))
		case (lc == nil || lc.Speed == 0) && sta.SpeedDowngraded:
			probs = append(probs, fmt.Sprintf("%gGT/s (downgraded)", sta.Speed))
		}
		if len(probs) == 0 {
			continue
		}
		name := "the device"
		if !d.Anonymous() {
			name = string(d.Address)
			if d.Class != "" {
				name += " (" + d.Class + ")"
			}
		}
		ev := []finding.Evidence{}
		if lc != nil {
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, lc.Line), Value: lc.Text})
		}
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, sta.Line), Value: sta.Text})
		subj := finding.Subject{PCI: string(d.Address), File: source}
		gpu := isPastedGPU(d)
		if gpu {
			subj.GPU = string(d.Address)
		}
		what := PCIeCarrier(d.Class, d.Name)
		why := ""
		if d.Class == "" && d.Name == "" {
			if w, word := ProseCarrier(prose); w != "" {
				what = w
				why = fmt.Sprintf(" (the paste's text around it says %q)", word)
			}
		}
		f := catalog.New("pcie.link_degraded", subj, fmt.Sprintf("PCIe link of %s trained at %s (lspci LnkSta against LnkCap)", name, strings.Join(probs, " and ")), ev...)
		linkPolicy(&f, what, why, narrow, d.Class == "" && d.Name == "", gpu || strings.Contains(strings.ToLower(d.Class), "vga"), "LnkSta")
		out = append(out, f)
	}
	return out, judged
}

// linkPolicy sets the severity of a pasted pcie.link_degraded finding by
// what the device is (what: PCIeCarrier's answer; why: where the paste
// said so): critical on a network adapter, and on a data-center GPU whose
// link is narrower; a warning on a data-center GPU's speed-only drop (it
// lowers its link speed at idle), on a device the paste does not name
// (unnamed) and on any other device (gpu: it is a GPU all the same).
// reading names what to read again under load ("LnkSta").
func linkPolicy(f *finding.Finding, what, why string, narrow, unnamed, gpu bool, reading string) {
	switch {
	case what == "a network adapter" || what == "a data-center GPU" && narrow:
		// The catalogue's critical.
		f.Summary += "; the device is " + what + why + ": it carries a training job's traffic, and the job gets that much less PCIe bandwidth"
	case what == "a data-center GPU":
		f.Severity = finding.Warning
		f.Summary += "; a GPU lowers its link speed at idle for power saving: read " + reading + " (or nvidia-smi -q's PCIe Generation Current) under load"
	case unnamed:
		f.Severity = finding.Warning
		f.Summary += "; the paste does not name the device: critical on a network adapter or a data-center GPU (they carry a training job's traffic), and a GPU lowers its link speed at idle (read it under load)"
	default:
		f.Severity = finding.Warning
		f.Summary += "; the device is no network adapter or data-center GPU, so no training job's traffic crosses this link: worth fixing for the device's own throughput"
		if gpu {
			f.Summary += " (a GPU also lowers its link speed at idle: read it under load)"
		}
	}
}

// sharesLink says whether d is a function other than 0 of a device whose
// function 0 the paste lists.
func sharesLink(l *lspci.Listing, d *lspci.Device) bool {
	a := string(d.Address)
	if a == "" || strings.HasSuffix(a, ".0") {
		return false
	}
	f0 := a[:len(a)-1] + "0"
	for i := range l.Devices {
		if string(l.Devices[i].Address) == f0 {
			return true
		}
	}
	return false
}

// feedsPasted says whether the paste lists a function on the bridge's
// secondary bus range (the device its downstream link feeds).
func feedsPasted(l *lspci.Listing, b *lspci.Device) bool {
	if b.Bus == nil || b.Anonymous() {
		return false
	}
	for i := range l.Devices {
		d := &l.Devices[i]
		if d == b || d.Anonymous() || domain(d.Address) != domain(b.Address) {
			continue
		}
		if bus := busOf(d.Address); bus >= b.Bus.Secondary && bus <= b.Bus.Subordinate {
			return true
		}
	}
	return false
}

// bridgeNarrow judges a switch or root port whose device below is not in
// the paste: a warning where its link trained narrower than its LnkCap.
// A port with no link (width 0, an empty slot) is not judged.
func bridgeNarrow(d *lspci.Device, source string) (finding.Finding, bool) {
	sta, lc := d.LinkSta, d.LinkCap
	var prob string
	switch {
	case sta.Width == 0:
		return finding.Finding{}, false
	case lc != nil && lc.Width > 0 && sta.Width < lc.Width:
		prob = fmt.Sprintf("x%d instead of x%d", sta.Width, lc.Width)
	case (lc == nil || lc.Width == 0) && sta.WidthDowngraded:
		prob = fmt.Sprintf("x%d (downgraded)", sta.Width)
	default:
		return finding.Finding{}, false
	}
	port := "PCIe port"
	if d.PortType != "" {
		port = "PCIe " + strings.ToLower(d.PortType)
	}
	name := "the " + port
	if !d.Anonymous() {
		name = port + " " + string(d.Address)
	}
	var ev []finding.Evidence
	if d.PortTypeLine > 0 {
		// The line that makes it a port decides the severity.
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, d.PortTypeLine), Value: d.PortTypeText})
	}
	if lc != nil {
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, lc.Line), Value: lc.Text})
	}
	ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, sta.Line), Value: sta.Text})
	f := catalog.New("pcie.link_degraded", finding.Subject{PCI: string(d.Address), File: source},
		fmt.Sprintf("PCIe link of %s trained at %s (lspci LnkSta against LnkCap); the paste does not show the device it feeds: a device wired for fewer lanes trains the port narrower by design, a device trained below its own LnkCap is the fault (compare the device's LnkCap and LnkSta)", name, prob), ev...)
	f.Severity = finding.Warning
	f.Causes = []string{
		"the device below is wired for fewer lanes than the port (by design: nothing to fix)",
		"the device below trained narrower than its own LnkCap: not fully seated, a riser or retimer fault, signal integrity",
	}
	f.Remedy = []string{
		"lspci -t -v to find the device below the port, then lspci -vv -s PCI | grep -E 'LnkCap|LnkSta' on it — PCI: that device's address",
		"reseat the device below when it trained narrower than its own LnkCap",
	}
	return f, true
}
