// Package lnet judges Lustre's LNet configuration as `lnetctl net show`
// prints it.
package lnet

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/lnetctl"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckNIs judges the NIs of `lnetctl net show`: an NI (other than the
// loopback "lo" one) with "status: down" is an lnet.ni_down, critical
// when no NI of another network than lo is up (the node then reaches no
// Lustre server or client over LNet), a warning when another one is.
// NIs that are up, over o2ib (RDMA) or tcp alike, are healthy.
func CheckNIs(source string, nis []lnetctl.NI) []finding.Finding {
	var down []lnetctl.NI
	up := 0
	for _, ni := range nis {
		if ni.Net == "lo" {
			continue
		}
		switch ni.Status {
		case "down":
			down = append(down, ni)
		case "up":
			up++
		}
	}
	if len(down) == 0 {
		return nil
	}
	var names []string
	for _, ni := range down {
		s := ni.NID
		if len(ni.Interfaces) > 0 {
			s += " on " + strings.Join(ni.Interfaces, ", ")
		}
		names = append(names, s)
	}
	sum := fmt.Sprintf("LNet NI %s is down: LNet sends nothing through it", strings.Join(names, "; "))
	if up == 0 {
		sum += ", and no other NI is up: this node reaches no Lustre server or client over LNet"
	} else {
		sum += fmt.Sprintf(" (%d other NI up carries the traffic, without this path)", up)
	}
	f := catalog.New("lnet.ni_down", finding.Subject{File: source}, sum)
	for _, ni := range down {
		f.Evidence = append(f.Evidence, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, ni.Line), Value: ni.Text})
		if ni.StatusLine > 0 {
			f.Evidence = append(f.Evidence, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, ni.StatusLine), Value: ni.StatusText})
		}
	}
	if len(down[0].Interfaces) > 0 {
		f.Subject.NetDev = down[0].Interfaces[0]
	}
	if up > 0 {
		f.Severity = finding.Warning
	}
	return []finding.Finding{f}
}
