package host

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// EthtoolRate is one counter of a rate view of `ethtool -S` (a watch loop
// or script printing each counter's change per second): Name as the
// driver prints it ("rx_nodesc_drop_cnt", per queue "rx-3.rx_packets"),
// PerSec its latest rate in the paste, Line and Text where.
type EthtoolRate struct {
	Name   string
	PerSec float64
	Line   int
	Text   string
}

// RxDropRateMin is the receive drop rate, frames per second, below which
// a rate view's drops are not judged (a few frames now and then).
const RxDropRateMin = 1.0

// CheckEthtoolRates judges a rate view of netdev's ethtool statistics:
// frames dropped for lack of host buffers (the host.nic_rx_drops
// counters) at RxDropRateMin a second or more are dropping now, a
// warning whose share of the received frames (summed over the queues:
// "rx-3.rx_packets") is said when the paste shows them and weighed like
// the totals' (at least limits.HostRxDropRatio). file names the paste.
func CheckEthtoolRates(netdev, file string, rates []EthtoolRate) []finding.Finding {
	sum := func(name string) (float64, []EthtoolRate) {
		var v float64
		var of []EthtoolRate
		for _, r := range rates {
			if r.Name == name || strings.HasSuffix(r.Name, "."+name) || strings.HasSuffix(r.Name, ": "+name) {
				v += r.PerSec
				of = append(of, r)
			}
		}
		return v, of
	}
	var drops float64
	var dropOf []EthtoolRate
	for _, n := range rxDropCounters {
		if v, of := sum(n); v > drops {
			drops, dropOf = v, of
		}
	}
	if drops < RxDropRateMin {
		return nil
	}
	var packets float64
	var pktOf []EthtoolRate
	for _, n := range rxPacketCounters {
		if v, of := sum(n); v > 0 {
			packets, pktOf = v, of
			break
		}
	}
	if packets > 0 && drops/(drops+packets) < limits.HostRxDropRatio {
		return nil
	}
	nd := netdev
	if strings.HasPrefix(nd, "<") {
		nd = ""
	}
	who := netdev
	if nd == "" {
		who = "the interface"
	}
	msg := fmt.Sprintf("%s drops %s received frames a second for lack of host buffers (%s, a rate view of ethtool -S): the receive ring runs out of free descriptors now", who, rateText(drops), counterNames(dropOf))
	if packets > 0 {
		msg += fmt.Sprintf(", while %s frames a second are received (%s)", rateText(packets), counterNames(pktOf))
	}
	var ev []finding.Evidence
	busiest := slices.Clone(pktOf)
	slices.SortStableFunc(busiest, func(a, b EthtoolRate) int { return cmp.Compare(b.PerSec, a.PerSec) })
	for _, r := range append(slices.Clone(dropOf), busiest...) {
		if r.PerSec > 0 && len(ev) < 4 {
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, r.Line), Value: r.Text})
		}
	}
	f := catalog.New("host.nic_rx_drops", finding.Subject{NetDev: nd, File: file, LinkLayer: string(ib.LinkLayerEthernet)}, msg, ev...)
	return []finding.Finding{f}
}

// rateText writes a rate as ethtool rate views do: 451300 → "451.3k".
func rateText(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// counterNames names the counters a rate was summed from: one name, or
// the name and over how many queues.
func counterNames(rs []EthtoolRate) string {
	if len(rs) == 1 {
		return rs[0].Name
	}
	n := rs[0].Name
	if i := strings.LastIndexAny(n, ".:"); i >= 0 {
		n = strings.TrimSpace(n[i+1:])
	}
	return fmt.Sprintf("%s summed over %d queues", n, len(rs))
}
