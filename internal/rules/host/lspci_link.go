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
// slower. A narrower link is the fault (a card not seated, a slot wired
// for fewer lanes, a riser): critical. A slower link alone is critical
// for a NIC; a GPU lowers its link speed at idle for power saving, so on
// a GPU, or a device the paste does not name, a speed-only drop is a
// warning that a reading under load settles. PCIe switch and root ports
// are not judged: their link is as wide as the device below them wires;
// nor is a function other than 0 of a device whose function 0 is in the
// paste (the functions share one link: function 0's LnkSta is the link's).
// judged is how many functions had a LnkSta to judge.
func CheckPastedLspciLinks(l *lspci.Listing, source string) (out []finding.Finding, judged int) {
	for i := range l.Devices {
		d := &l.Devices[i]
		sta, lc := d.LinkSta, d.LinkCap
		if sta == nil || d.IsBridge() || sharesLink(l, d) {
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
		gpu, nic := isPastedGPU(d), isPastedNIC(d) || d.Class == "Infiniband controller"
		if gpu {
			subj.GPU = string(d.Address)
		}
		f := catalog.New("pcie.link_degraded", subj, fmt.Sprintf("PCIe link of %s trained at %s (lspci LnkSta against LnkCap)", name, strings.Join(probs, " and ")), ev...)
		switch {
		case narrow, nic:
			// The catalogue's critical.
		case gpu:
			f.Severity = finding.Warning
			f.Summary += "; a GPU lowers its link speed at idle for power saving: read LnkSta (or nvidia-smi -q's PCIe Generation Current) under load"
		default:
			f.Severity = finding.Warning
			f.Summary += "; the paste does not name the device: a GPU lowers its link speed at idle for power saving (read it under load), a NIC's slower link is a fault"
		}
		out = append(out, f)
	}
	return out, judged
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
