package node

import (
	"fmt"

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
// most likely uncabled or unused on purpose: a note, no finding. Otherwise nothing in
// the paste says it is unused, and it is a warning: ibdev2netdev cannot
// tell a cable fault from a netdev set down by hand, ibstat or ip link can.
// An IB port in INIT or ARMED (-v) has its link up and no subnet manager:
// port.init_no_sm.
func CheckIBDev2Netdev(m *ibdev2netdev.Map, source string) (out []finding.Finding, notes []string) {
	upCards := map[string]bool{}
	for _, e := range m.Entries {
		if c := ibdev2netdev.Card(e); c != "" && portUp(e) {
			upCards[c] = true
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
		case e.PortState == "ACTIVE", e.PortState == "" && (ipoib || e.Up):
			continue
		}
		what := fmt.Sprintf("%s port %d (netdev %s) is down", e.Device, e.Port, e.NetDev)
		if e.PortState != "" {
			what = fmt.Sprintf("%s port %d is %s (netdev %s)", e.Device, e.Port, e.PortState, e.NetDev)
		} else {
			what += ": a RoCE port is ACTIVE only while its Ethernet netdev has carrier"
		}
		if c := ibdev2netdev.Card(e); c != "" && upCards[c] {
			notes = append(notes, fmt.Sprintf("%s:%d: %s port %d (%s) is down while another port or function of its card is up: likely uncabled or unused on purpose, not reported", source, e.Line, e.Device, e.Port, e.NetDev))
			continue
		}
		f := catalog.New("port.down", subj, what+"; nothing in the paste says it is unused on purpose (ibstat or ip link tell a cable fault from a netdev set down)", ev)
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
