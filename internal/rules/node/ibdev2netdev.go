package node

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdev2netdev"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckIBDev2Netdev judges a pasted ibdev2netdev output. Its "(Up)" or
// "(Down)" is the netdev's state, and what that says depends on the
// netdev:
//   - an IPoIB netdev (ib0, ibp26s0, ibs3) is down whenever IPoIB is not
//     configured, which a pure IB fabric does not need: it says nothing
//     of the IB port, and is no finding (-v prints the port's own state,
//     which is judged);
//   - an Ethernet netdev carries the RoCE port: the port is ACTIVE only
//     while the netdev has carrier, so "(Down)" is the RoCE port down
//     (port.down), as is a -v port state of DOWN.
//
// A port that is down while another port or function of the same card
// is up (the second port of a dual-port card, a VF of a working PF) is
// most likely uncabled or unused on purpose: a note, no finding; unless
// it is a PF port whose position another card of the paste has up (host
// A's ens261f1 down where host B's ens801f1 is up): that port is used
// elsewhere, and a warning. Otherwise nothing in the paste says it is
// unused, and it is a warning: ibdev2netdev cannot tell a cable fault
// from a netdev set down by hand, ibstat or ip link can.
// An IB port in INIT or ARMED (-v) has its link up and no subnet manager:
// port.init_no_sm.
func CheckIBDev2Netdev(m *ibdev2netdev.Map, source string) (out []finding.Finding, notes []string) {
	upCards := map[string]bool{}
	upAt := map[string]string{} // position -> a card with that port up
	for _, e := range m.Entries {
		if c := ibdev2netdev.Card(e); c != "" && portUp(e) {
			upCards[c] = true
			if pos := cardPosition(e, c); pos != "" && upAt[pos] == "" {
				upAt[pos] = e.NetDev
			}
		}
	}
	for _, e := range m.Entries {
		ipoib := ibdev2netdev.IPoIB(e.NetDev)
		ll := ib.LinkLayerEthernet
		if ipoib {
			ll = ib.LinkLayerInfiniBand
		}
		subj := finding.Subject{Device: e.Device, Port: e.Port, NetDev: e.NetDev, LinkLayer: string(ll), PCI: string(e.PCI)}
		ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", source, e.Line), Value: e.Text}
		switch {
		case e.PortState == "INIT" || e.PortState == "ARMED":
			out = append(out, catalog.New("port.init_no_sm", subj,
				fmt.Sprintf("%s port %d is %s: its link is up but no subnet manager has configured it", e.Device, e.Port, e.PortState), ev))
			continue
		case e.PortState == "ACTIVE", e.PortState == "" && e.Up:
			continue
		case ipoib && e.PortState == "":
			// An IPoIB netdev has carrier only while its IB port is
			// ACTIVE and the interface joined its broadcast group
			// (drivers/infiniband/ulp/ipoib/ipoib_multicast.c turns
			// the carrier on after the join), so Down is either the
			// port or an interface nobody brought up: ibstat tells.
			f := catalog.New("port.down", subj,
				fmt.Sprintf("%s port %d: its IPoIB netdev %s is Down, so either the IB port is not ACTIVE (no cable or peer, no subnet manager) or the IPoIB interface was never brought up (no IP on it, harmless when nothing uses IPoIB); 'ibstat %s %d' shows the port's state", e.Device, e.Port, e.NetDev, e.Device, e.Port), ev)
			f.Severity = finding.Warning
			out = append(out, f)
			continue
		}
		what := fmt.Sprintf("%s port %d (netdev %s) is down", e.Device, e.Port, e.NetDev)
		if e.PortState != "" {
			what = fmt.Sprintf("%s port %d is %s (netdev %s)", e.Device, e.Port, e.PortState, e.NetDev)
		} else {
			what += ": a RoCE port is ACTIVE only while its Ethernet netdev has carrier"
		}
		c := ibdev2netdev.Card(e)
		why := "; nothing in the paste says it is unused on purpose (ibstat or ip link tell a cable fault from a netdev set down)"
		if c != "" && upCards[c] {
			other := upAt[cardPosition(e, c)]
			if other == "" || mlx5VFModels[e.Model] {
				notes = append(notes, fmt.Sprintf("%s:%d: %s port %d (%s) is down while another port or function of its card is up: likely uncabled or unused on purpose, not reported", source, e.Line, e.Device, e.Port, e.NetDev))
				continue
			}
			why = fmt.Sprintf("; another port of its card is up, and the same port of another card (%s) is up too, so this one is meant to be used: check the cable and the peer port (ibstat, ip link show %s)", other, e.NetDev)
		}
		f := catalog.New("port.down", subj, what+why, ev)
		f.Severity = finding.Warning
		out = append(out, f)
	}
	return out, notes
}

// portUp says whether an entry shows its port up: ACTIVE (-v), or an
// Ethernet netdev with carrier.
func portUp(e ibdev2netdev.Entry) bool {
	if e.PortState != "" {
		return e.PortState == "ACTIVE"
	}
	return e.Up && !ibdev2netdev.IPoIB(e.NetDev)
}

// mlx5VFModels are the PCI device IDs, as ibdev2netdev -v prints them
// ("MT4120"), of the mlx5 virtual functions: the entries that
// mlx5_core_pci_table (drivers/net/ethernet/mellanox/mlx5/core/main.c)
// marks MLX5_PCI_DEV_IS_VF, 0x1012 (Connect-IB VF) to 0x101e (ConnectX
// family mlx5Gen VF).
var mlx5VFModels = map[string]bool{
	"MT4114": true, "MT4116": true, "MT4118": true, "MT4120": true,
	"MT4122": true, "MT4124": true, "MT4126": true,
}

// cardPosition is where a port sits on its card c: the PCI function
// (-v), else the netdev's name after the card's stem without the
// "np<N>" port suffix ("f1" of ens261f1 and of enp27s0f1np1); "" when
// unknown.
func cardPosition(e ibdev2netdev.Entry, c string) string {
	if e.PCI != "" {
		s := string(e.PCI)
		return s[len(s)-1:]
	}
	rest, ok := strings.CutPrefix(e.NetDev, c)
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "np"); i > 0 {
		rest = rest[:i]
	}
	return rest
}
