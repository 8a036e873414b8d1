package fabric

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckSaturated judges infiniband-exporter's "Counters on GUID port N is
// maxed out on COUNTER" lines: one port.counter_saturated (a warning) per
// port, naming its counters. Errors happened there, and while the
// counter is stuck its rate is unknown. src names the file.
func CheckSaturated(ss []ibdiags.Saturated, src string) []finding.Finding {
	type port struct {
		guid     string
		num      int
		counters []string
		lines    []ibdiags.Saturated
	}
	var ports []*port
	for _, s := range ss {
		i := slices.IndexFunc(ports, func(p *port) bool { return p.guid == s.GUID && p.num == s.Port })
		if i < 0 {
			ports = append(ports, &port{guid: s.GUID, num: s.Port})
			i = len(ports) - 1
		}
		p := ports[i]
		if !slices.Contains(p.counters, s.Counter) {
			p.counters = append(p.counters, s.Counter)
		}
		p.lines = append(p.lines, s)
	}
	var fs []finding.Finding
	for _, p := range ports {
		sum := fmt.Sprintf("port %d of %s: %s at its maximum (infiniband-exporter: maxed out): the errors happened, and while the counter is stuck new ones are invisible", p.num, p.guid, strings.Join(p.counters, ", "))
		var evs []finding.Evidence
		for _, s := range p.lines[:min(len(p.lines), 3)] {
			evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", src, s.Line), Value: s.Text})
		}
		f := catalog.New("port.counter_saturated", finding.Subject{File: src, NodeGUID: p.guid, Port: p.num, LinkLayer: "InfiniBand"}, sum, evs...)
		f.Remedy = append([]string{fmt.Sprintf("ibqueryerrors -G %s to see the port's counters and its peer, then reset them (perfquery -R -G %s %d) and watch whether they grow again", p.guid, p.guid, p.num)}, f.Remedy...)
		fs = append(fs, f)
	}
	return fs
}
