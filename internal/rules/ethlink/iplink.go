package ethlink

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/iplink"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckIPLink judges `ip link` output: an SR-IOV physical function that
// carries virtual functions but is administratively down (no UP flag) or
// has no carrier (state DOWN) gives its VFs no link, so RDMA and traffic
// over them cannot work: port.down, critical. Interfaces without VFs are
// not judged (a host has unused ports).
func CheckIPLink(links []iplink.Link, file string) []finding.Finding {
	var out []finding.Finding
	for _, lk := range links {
		if len(lk.VFs) == 0 || lk.Up() && lk.State != "DOWN" {
			continue
		}
		why := fmt.Sprintf("administratively down (flags <%s> without UP)", strings.Join(lk.Flags, ","))
		if lk.Up() {
			why = "up but without carrier (state DOWN: cable, transceiver or the switch port)"
		}
		sum := fmt.Sprintf("%s is %s and carries %d virtual functions (vf %d-%d): the VFs reach the network only through their PF, so RDMA or traffic over them cannot leave the host", lk.Name, why, len(lk.VFs), lk.VFs[0].Num, lk.VFs[len(lk.VFs)-1].Num)
		f := catalog.New("port.down", finding.Subject{File: file, NetDev: lk.Name, LinkLayer: "Ethernet"}, sum,
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, lk.Line), Value: lk.Raw})
		f.Severity = finding.Critical
		if !lk.Up() {
			f.Causes = append([]string{"the physical function was never brought up, or was set down: SR-IOV set-ups (the SR-IOV network operator's policy, a network manager that does not manage the PF) create the VFs but leave the PF's admin state to the host's configuration"}, f.Causes...)
			f.Remedy = append([]string{fmt.Sprintf("ip link set %s up (and make it persistent in the host's network configuration), then ip link show %s: state UP", lk.Name, lk.Name)}, f.Remedy...)
		}
		out = append(out, f)
	}
	return out
}
