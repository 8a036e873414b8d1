package verbs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckPortAddrs judges 3FS's lines that RDMA ports have no IP address
// or network zone: one rdma.port_no_address, a warning, critical when a
// line says the device was not opened for it.
func CheckPortAddrs(source string, ps []wclog.PortAddr) []finding.Finding {
	if len(ps) == 0 {
		return nil
	}
	var ports, netdevs, fatal []string
	zoneOnly := true
	for _, p := range ps {
		if !slices.Contains(ports, p.Device) {
			ports = append(ports, p.Device)
		}
		if p.Netdev != "" && !slices.Contains(netdevs, p.Netdev) {
			netdevs = append(netdevs, p.Netdev)
		}
		if p.Fatal {
			fatal = append(fatal, p.Text)
		}
		if !p.Zone {
			zoneOnly = false
		}
	}
	sum := fmt.Sprintf("3FS found no IP address for RDMA port %s", strings.Join(ports, ", "))
	if len(netdevs) > 0 {
		sum += fmt.Sprintf(" on network device %s (not in this network namespace: \"maybe running in container\")", strings.Join(netdevs, ", "))
	}
	if zoneOnly {
		sum = fmt.Sprintf("3FS could not set the network zone of RDMA port %s by its IP address", strings.Join(ports, ", "))
	}
	sum += "; the port's zone falls back to UNKNOWN and connections through it can fail"
	if len(fatal) > 0 {
		sum += fmt.Sprintf(", and 3FS did not open the device (%q)", strings.TrimSpace(lastWords(fatal[len(fatal)-1])))
	}
	quote := ps
	if len(quote) > maxEvidence {
		quote = quote[:maxEvidence]
	}
	var ev []finding.Evidence
	for _, p := range quote {
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, p.Line), Value: p.Text})
	}
	dev, _, _ := strings.Cut(ports[0], ":")
	f := catalog.New("rdma.port_no_address", finding.Subject{File: source, Device: dev}, sum, ev...)
	if len(fatal) == 0 {
		f.Severity = finding.Warning
	} else {
		f.Severity = finding.Critical
	}
	return []finding.Finding{f}
}
