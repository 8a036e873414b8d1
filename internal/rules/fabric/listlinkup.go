package fabric

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/listlinkup"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckListLinkup judges a Sun Datacenter InfiniBand switch's listlinkup:
// a connector with a cable present whose switch (or gateway bridge) port
// is down, and an internal chip-to-chip link that is down, are
// fabric.link_down, warnings (the output names no peer: an idle or
// powered-off host behind the cable looks the same). A connector "Not
// present" is an empty cage and is not judged.
func CheckListLinkup(o *listlinkup.Output, file string) []finding.Finding {
	var out []finding.Finding
	at := func(n int) string { return fmt.Sprintf("%s:%d", file, n) }
	for _, c := range o.Connectors {
		if !c.Present {
			continue
		}
		for _, p := range c.Ports {
			if p.Up {
				continue
			}
			why := "the cable is present but the link did not come up"
			if p.Admin == "Disabled" {
				why = "the port is disabled on the switch"
			}
			f := catalog.New("fabric.link_down", finding.Subject{File: file, Device: "connector " + c.Name, LinkLayer: "InfiniBand"},
				fmt.Sprintf("listlinkup: connector %s is present but %s is down: %s", c.Name, p.Name, why),
				finding.Evidence{Source: at(p.Line), Value: p.Raw})
			f.Severity = finding.Warning
			out = append(out, f)
		}
	}
	for _, l := range o.Links {
		if l.Up {
			continue
		}
		f := catalog.New("fabric.link_down", finding.Subject{File: file, Device: l.A, LinkLayer: "InfiniBand"},
			fmt.Sprintf("listlinkup: internal link %s <-> %s between the switch chips is down: traffic between them takes the remaining internal links", l.A, l.B),
			finding.Evidence{Source: at(l.Line), Value: l.Raw})
		f.Severity = finding.Warning
		out = append(out, f)
	}
	return out
}

// ListLinkupSummary counts the connectors and links.
func ListLinkupSummary(o *listlinkup.Output) string {
	present, up, ports, links, linksUp := 0, 0, 0, len(o.Links), 0
	for _, c := range o.Connectors {
		if c.Present {
			present++
		}
		for _, p := range c.Ports {
			ports++
			if p.Up {
				up++
			}
		}
	}
	for _, l := range o.Links {
		if l.Up {
			linksUp++
		}
	}
	s := fmt.Sprintf("listlinkup: %d connectors listed, %d present, %d of %d ports up", len(o.Connectors), present, up, ports)
	if links > 0 {
		s += fmt.Sprintf(", %d of %d internal links up", linksUp, links)
	}
	return s
}
