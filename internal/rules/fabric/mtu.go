package fabric

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// addMTU parses the smpquery portinfo runs of a collection (fabric check
// --mtu). Collections without them have no gap: the MTU check then has
// nothing to judge.
func (f *Fabric) addMTU(raw *fabricmodel.Raw, gap func(src, format string, a ...any)) {
	o := raw.Get("smpquery-portinfo")
	if o == nil {
		return
	}
	if o.Err != "" {
		gap("smpquery-portinfo", "%s", o.Err)
	}
	if len(bytes.TrimSpace(o.Stdout)) == 0 {
		return
	}
	pis, err := ibdiags.ParsePortInfo(bytes.NewReader(o.Stdout), "smpquery-portinfo.txt")
	if err != nil {
		gap("smpquery-portinfo", "%v", err)
	}
	f.PortInfos = pis
}

// checkMTU compares the link MTU of every CA port (NeighborMTU: the
// host's active_mtu) with the MTU most CA links of the fabric run (ties:
// the larger): a link below it is fabric.mtu_below_fabric, with the
// MtuCap of both ends to say which end limits it. Links without a
// portinfo answer for the CA end are not judged.
func checkMTU(f *Fabric) []finding.Finding {
	if len(f.PortInfos) == 0 {
		return nil
	}
	type lp struct{ lid, port int }
	pi := map[lp]*ibdiags.PortInfo{}
	for i := range f.PortInfos {
		p := &f.PortInfos[i]
		pi[lp{p.LID, p.Port}] = p
	}
	type caLink struct {
		ca, sw     End
		caPI, swPI *ibdiags.PortInfo
	}
	var links []caLink
	count := map[int]int{}
	for _, l := range f.Links {
		ca, sw := l.A, l.B
		if f.Nodes[ca.Node].Type == ibdiags.Switch {
			ca, sw = sw, ca
		}
		if f.Nodes[ca.Node].Type == ibdiags.Switch || f.Nodes[sw.Node].Type != ibdiags.Switch {
			continue
		}
		p := f.PortOf(ca)
		if p == nil || p.LID <= 0 {
			continue
		}
		c := pi[lp{p.LID, ca.Port}]
		if c == nil || c.NeighborMTU == 0 || c.LinkState != "" && c.LinkState != "Active" {
			continue
		}
		links = append(links, caLink{ca, sw, c, pi[lp{f.Nodes[sw.Node].LID, sw.Port}]})
		count[c.NeighborMTU]++
	}
	if len(links) < 2 {
		return nil
	}
	major, n := 0, 0
	for m, k := range count {
		if k > n || k == n && m > major {
			major, n = m, k
		}
	}
	var dist []string
	mtus := make([]int, 0, len(count))
	for m := range count {
		mtus = append(mtus, m)
	}
	slices.Sort(mtus)
	for i := len(mtus) - 1; i >= 0; i-- {
		dist = append(dist, fmt.Sprintf("%d on %d", mtus[i], count[mtus[i]]))
	}
	at := func(p *ibdiags.PortInfo) string { return fmt.Sprintf("smpquery-portinfo.txt:%d", p.Line) }
	var out []finding.Finding
	for _, l := range links {
		if l.caPI.NeighborMTU >= major {
			continue
		}
		why := "the link MTU is set below what both ends support (MtuCap unknown)"
		switch {
		case l.caPI.MTUCap > 0 && l.caPI.MTUCap < major:
			why = fmt.Sprintf("the HCA port supports only %d (MtuCap)", l.caPI.MTUCap)
		case l.swPI != nil && l.swPI.MTUCap > 0 && l.swPI.MTUCap < major:
			why = fmt.Sprintf("the switch port %s supports only %d (MtuCap)", f.EndName(l.sw), l.swPI.MTUCap)
		case l.caPI.MTUCap > 0 && l.swPI != nil && l.swPI.MTUCap > 0:
			why = fmt.Sprintf("both ends support %d or more (MtuCap %d and %d): the MTU was set lower; reset the link so the subnet manager sets it again", major, l.caPI.MTUCap, l.swPI.MTUCap)
		}
		ev := []finding.Evidence{{Source: at(l.caPI), Value: fmt.Sprintf("%s: NeighborMTU %d, MtuCap %d", f.EndName(l.ca), l.caPI.NeighborMTU, l.caPI.MTUCap)}}
		if l.swPI != nil {
			ev = append(ev, finding.Evidence{Source: at(l.swPI), Value: fmt.Sprintf("%s: NeighborMTU %d, MtuCap %d", f.EndName(l.sw), l.swPI.NeighborMTU, l.swPI.MTUCap)})
		}
		ev = append(ev, finding.Evidence{Source: "smpquery-portinfo.txt", Value: "CA links by MTU: " + strings.Join(dist, ", ")})
		out = append(out, catalog.New("fabric.mtu_below_fabric", f.subject(l.ca, &l.sw),
			fmt.Sprintf("%s runs an IB MTU of %d (its host's active_mtu) while %d of the fabric's %d CA links run %d: %s",
				f.EndName(l.ca), l.caPI.NeighborMTU, n, len(links), major, why), ev...))
	}
	return out
}
