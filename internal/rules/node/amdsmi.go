package node

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/parse/amdsmi"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckAMDSMINIC judges the NIC ports of an `amd-smi static` output (AMD
// Pensando AI NIC, driver ionic): an RDMA device port that is not ACTIVE,
// or an Ethernet port without link (LINK_STATE down, CARRIER 0) that no
// RDMA port already reports, is a port.down warning: amd-smi does not
// say whether the port is meant to be cabled, but an AI NIC's port down
// carries no RDMA traffic.
func CheckAMDSMINIC(out *amdsmi.Output, source string) []finding.Finding {
	var fs []finding.Finding
	seen := map[string]bool{}
	byNetDev := map[string]amdsmi.Port{}
	for _, p := range out.Ports {
		if p.NetDev != "" {
			byNetDev[p.NetDev] = p
		}
	}
	for _, r := range out.RDMA {
		if r.State == "" || strings.EqualFold(r.State, "ACTIVE") {
			continue
		}
		subj := finding.Subject{Device: r.Device, Port: r.Port, NetDev: r.NetDev, LinkLayer: string(ib.LinkLayerEthernet)}
		what := fmt.Sprintf("%s port %d is %s (amd-smi, netdev %s)", r.Device, r.Port, r.State, r.NetDev)
		evs := []finding.Evidence{{Source: fmt.Sprintf("%s:%d", source, r.Line), Value: r.Text}}
		if p, ok := byNetDev[r.NetDev]; ok && p.Down() {
			what += fmt.Sprintf(": its Ethernet port has no link (CARRIER %s, LINK_STATE %s, %s), and a RoCE port is ACTIVE only while its netdev has carrier", p.Carrier, p.LinkState, p.Speed)
			evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, p.Line), Value: p.Text})
			seen[p.NetDev] = true
		}
		what += "; nothing in the output says the port is unused on purpose: check the cable, the transceiver and the switch port (ip link show " + r.NetDev + ", ethtool " + r.NetDev + ")"
		f := catalog.New("port.down", subj, what, evs...)
		f.Severity = finding.Warning
		fs = append(fs, f)
	}
	for _, p := range out.Ports {
		if !p.Down() || seen[p.NetDev] {
			continue
		}
		subj := finding.Subject{NetDev: p.NetDev, LinkLayer: string(ib.LinkLayerEthernet)}
		what := fmt.Sprintf("NIC port %s has no link (amd-smi: CARRIER %s, LINK_STATE %s, %s): it carries no RoCE traffic; nothing in the output says it is unused on purpose: check the cable, the transceiver and the switch port (ip link show %s, ethtool %s)", p.NetDev, p.Carrier, p.LinkState, p.Speed, p.NetDev, p.NetDev)
		f := catalog.New("port.down", subj, what, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, p.Line), Value: p.Text})
		f.Severity = finding.Warning
		fs = append(fs, f)
	}
	return fs
}
