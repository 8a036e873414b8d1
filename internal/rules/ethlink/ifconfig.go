package ethlink

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ifconfig"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// RDMAIface says whether an ifconfig interface is an RDMA port's: an
// IPoIB interface (ib0, ib0.8001, ibp65s0; link type InfiniBand) or a
// FreeBSD Mellanox Ethernet port (mce: mlx5en, mlxen: mlx4en). Other
// Ethernet names say nothing of RDMA and are not judged.
func RDMAIface(i *ifconfig.Iface) bool {
	if strings.EqualFold(i.HWType, "InfiniBand") {
		return true
	}
	n := i.Name
	for _, p := range []string{"ib", "mce", "mlxen"} {
		if rest, ok := strings.CutPrefix(n, p); ok && rest != "" {
			c := rest[0]
			if c >= '0' && c <= '9' || p == "ib" && (c == 'p' || c == 's') {
				return true
			}
		}
	}
	return false
}

// CheckIfconfig judges the RDMA interfaces of ifconfig output: one that is
// up without carrier (Linux: flags with UP but not RUNNING; IPoIB clears
// its carrier while the IB port is not Active; FreeBSD: "status: no
// carrier") is a port down. An interface that is administratively down
// (no UP flag) is not judged: IPoIB's admin state does not stop the IB
// port, and an unused port is often left down.
func CheckIfconfig(ifs []ifconfig.Iface, file string) []finding.Finding {
	var out []finding.Finding
	for k := range ifs {
		i := &ifs[k]
		if !RDMAIface(i) || !i.Has("UP") {
			continue
		}
		noCarrier := i.Status == "no carrier"
		if !noCarrier && (i.Has("RUNNING") || i.Flags == nil) {
			continue
		}
		ib := strings.HasPrefix(i.Name, "ib") || strings.EqualFold(i.HWType, "InfiniBand")
		layer := "Ethernet"
		if ib {
			layer = "InfiniBand"
		}
		var sum string
		ev := []finding.Evidence{{Source: fmt.Sprintf("%s:%d", file, i.Line), Value: i.Raw}}
		if noCarrier {
			why := ""
			if i.StatusWhy != "" {
				why = " (" + i.StatusWhy + ")"
			}
			sum = fmt.Sprintf("%s is up but ifconfig reports status: no carrier%s: the link to the switch is down, so no RDMA traffic passes over this port", i.Name, why)
			if i.StatusLine != i.Line {
				ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, i.StatusLine), Value: "status: " + i.Status + why})
			}
		} else {
			sum = fmt.Sprintf("%s is up without carrier (flags <%s> without RUNNING)", i.Name, strings.Join(i.Flags, ","))
			if ib {
				sum += ": IPoIB has carrier only while its IB port is Active (and joined to the broadcast group), so the IB port is down or has no subnet manager"
			} else {
				sum += ": the link to the switch is down, so no RDMA traffic passes over this port"
			}
		}
		if n := i.RXErrors + i.TXErrors; n > 0 {
			sum += fmt.Sprintf("; its counters show %d RX and %d TX errors", i.RXErrors, i.TXErrors)
		}
		f := catalog.New("port.down", finding.Subject{File: file, NetDev: i.Name, LinkLayer: layer}, sum, ev...)
		f.Severity = finding.Critical
		var fecRemedy []string
		if strings.Contains(strings.ToLower(i.StatusWhy), "fec") {
			f.Causes = append([]string{"forward error correction does not lock: the NIC and the switch port use different FEC modes (RS-FEC, FC/BASE-R or none for the speed and cable), or the cable's signal is too poor for FEC to sync"}, f.Causes...)
			fecRemedy = []string{"mlxlink -d <dev> --show_fec (the FEC modes the NIC supports and uses), then set the same FEC on the switch port, or on the NIC with mlxlink -d <dev> --fec <mode>"}
		}
		if strings.HasPrefix(i.Name, "mce") || strings.HasPrefix(i.Name, "mlxen") {
			// FreeBSD: no iproute2 (the catalog's Linux remedies do not
			// apply); ifconfig retrains the link.
			f.Remedy = append(fecRemedy,
				"reseat the cable at both ends; swap it with a known-good one, or swap ends, to tell a cable fault from a port fault",
				fmt.Sprintf("ifconfig %s down; ifconfig %s up to retrain the link, then ifconfig %s: status: active", i.Name, i.Name, i.Name))
		} else {
			f.Remedy = append(fecRemedy, f.Remedy...)
		}
		if ib {
			f.Remedy = append([]string{"ibstat (the IB port's State and Physical state under this interface: Active / LinkUp expected)"}, f.Remedy...)
		}
		out = append(out, f)
	}
	return out
}
