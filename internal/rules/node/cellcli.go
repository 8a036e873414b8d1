package node

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/cellcli"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// cellcliIDs maps the IBPORT error counters to the findings of the port
// counters they are (the IBTA PortCounters the cell reads).
var cellcliIDs = map[string]string{
	"symbolErrs": "port.symbol_errors", "linkIntegrityErrs": "port.symbol_errors",
	"rcvErrs": "port.rcv_errors", "rcvRemotePhysErrs": "port.rcv_errors",
	"xmtDiscards":  "port.xmit_discards",
	"linkRecovers": "port.link_recovery", "linkDowned": "port.link_recovery",
}

// CheckCellCLI judges Exadata's IBPORTs: a port whose status is not
// Active is port.down, critical; error counters above 0 are warnings of
// the counter's finding (counts since the last reset, no rate).
func CheckCellCLI(ports []cellcli.Port, file string) []finding.Finding {
	var out []finding.Finding
	at := func(n int) string { return fmt.Sprintf("%s:%d", file, n) }
	for _, p := range ports {
		subj := finding.Subject{File: file, Device: p.Name, LinkLayer: "InfiniBand"}
		if p.Status != "" && !strings.EqualFold(p.Status, "Active") {
			f := catalog.New("port.down", subj, fmt.Sprintf("IBPORT %s: status %s, not Active (CellCLI LIST IBPORT): no traffic passes on this port of the cell", p.Name, p.Status),
				finding.Evidence{Source: at(p.StatusLine), Value: p.Raw})
			f.Severity = finding.Critical
			out = append(out, f)
		}
		by := map[string][]cellcli.Counter{}
		var order []string
		for _, c := range p.Counters {
			id, ok := cellcliIDs[c.Name]
			if !ok || c.Value == 0 {
				continue
			}
			if by[id] == nil {
				order = append(order, id)
			}
			by[id] = append(by[id], c)
		}
		for _, id := range order {
			var parts []string
			var evs []finding.Evidence
			for _, c := range by[id] {
				parts = append(parts, fmt.Sprintf("%s %d", c.Name, c.Value))
				evs = append(evs, finding.Evidence{Source: at(c.Line), Value: fmt.Sprintf("%s: %d", c.Name, c.Value)})
			}
			f := catalog.New(id, subj, fmt.Sprintf("IBPORT %s: %s (CellCLI LIST IBPORT DETAIL; counts since the last reset, no rate)", p.Name, strings.Join(parts, ", ")), evs...)
			f.Severity = finding.Warning
			out = append(out, f)
		}
	}
	return out
}
