package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/sysfspci"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckPastedSysfsLinks compares each pasted function's current link
// width and speed (sysfs current_link_width, current_link_speed) with its
// maximum (max_link_width, max_link_speed): pcie.link_degraded where the
// link trained narrower or slower, judged as lspci's LnkSta against its
// LnkCap is (linkPolicy). A path through a network class device
// (/sys/class/net/eth0/device/…, /sys/class/infiniband/mlx5_0/device/…)
// names a network adapter; through /sys/class/drm/card1/device/… a GPU of
// any kind; a /sys/bus/pci/devices/ADDR path names no device, and the
// text around it (prose) may. A width of 0 (no link trained: an empty
// slot's port) and a pair the paste shows only half of are not judged.
// judged is how many functions had a pair to compare.
func CheckPastedSysfsLinks(r *sysfspci.Result, source string, prose Prose) (out []finding.Finding, judged int) {
	for i := range r.Links {
		l := &r.Links[i]
		var probs []string
		narrow, compared := false, false
		if l.CurWidth != nil && l.MaxWidth != nil && *l.CurWidth > 0 && *l.MaxWidth > 0 {
			compared = true
			if *l.CurWidth < *l.MaxWidth {
				probs = append(probs, fmt.Sprintf("x%d instead of x%d", *l.CurWidth, *l.MaxWidth))
				narrow = true
			}
		}
		if l.CurSpeed != nil && l.MaxSpeed != nil {
			compared = true
			if *l.CurSpeed < *l.MaxSpeed {
				probs = append(probs, fmt.Sprintf("%gGT/s instead of %gGT/s", l.CurSpeed.GTps(), l.MaxSpeed.GTps()))
			}
		}
		if compared {
			judged++
		}
		if len(probs) == 0 {
			continue
		}
		var ev []finding.Evidence
		for _, a := range []string{"max_link_width", "current_link_width", "max_link_speed", "current_link_speed"} {
			ls := l.Lines[a]
			if len(ls) == 0 {
				continue
			}
			v := ls[len(ls)-1]
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, v.N), Value: a + ": " + v.Text})
		}
		subj := finding.Subject{PCI: string(l.Address), File: source}
		what, why, unnamed, gpu := "", "", true, false
		switch l.Class {
		case "net":
			subj.NetDev = l.Name
			what, unnamed = PCIeCarrier("Ethernet controller", ""), false
			why = " (" + l.Name + ", a network interface)"
		case "infiniband":
			subj.Device = l.Name
			what, unnamed = PCIeCarrier("InfiniBand controller", ""), false
			why = " (" + l.Name + ", an RDMA device)"
		case "drm":
			// A DRM card is a GPU, consumer or data-center: the path
			// does not say which.
			gpu = true
			if subj.PCI != "" {
				subj.GPU = subj.PCI
			}
		}
		if unnamed {
			if w, word := ProseCarrier(prose); w != "" {
				what, why, unnamed = w, fmt.Sprintf(" (the paste's text around it says %q)", word), false
			}
		}
		f := catalog.New("pcie.link_degraded", subj, fmt.Sprintf("PCIe link of %s trained at %s (sysfs current_link_width/speed against max_link_width/speed)", l.Label(), strings.Join(probs, " and ")), ev...)
		linkPolicy(&f, what, why, narrow, unnamed, gpu, "current_link_speed")
		out = append(out, f)
	}
	return out, judged
}
