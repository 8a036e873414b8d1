package analyze

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/cellcli"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/parse/ifconfig"
	"github.com/ibdoctor/ibdoctor/internal/parse/iplink"
	"github.com/ibdoctor/ibdoctor/internal/parse/opensm"
	ethlinkrules "github.com/ibdoctor/ibdoctor/internal/rules/ethlink"
	"github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

// diagnoseOpenSM judges OpenSM's log and crash traces (text has the
// file's line numbers). A crash report names the signal a few lines
// above its frames ("Signal: 11" of apport), read from there.
func diagnoseOpenSM(seg *Segment, file, text string, d *doc, sp Span) error {
	lg, err := opensm.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	if lg.Signal == 0 && len(lg.Frames) > 0 {
		for n := sp.Start - 1; n >= max(1, sp.Start-6); n-- {
			if v, ok := strings.CutPrefix(strings.TrimSpace(d.line(n)), "Signal: "); ok {
				if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s > 0 {
					lg.Signal, lg.SignalLine = s, n
				}
				break
			}
		}
	}
	var parts []string
	if len(lg.Entries) > 0 {
		parts = append(parts, plural(len(lg.Entries), "OpenSM log line", "OpenSM log lines"))
	}
	if len(lg.Frames) > 0 {
		parts = append(parts, plural(len(lg.Frames), "OpenSM stack frame", "OpenSM stack frames"))
	}
	seg.Summary = strings.Join(parts, ", ")
	if lg.Version != "" {
		seg.Summary += fmt.Sprintf(" (OpenSM %s)", lg.Version)
	}
	seg.Findings = append(seg.Findings, fabric.CheckOpenSMLog(lg, file)...)
	return nil
}

// diagnoseIBExporter judges infiniband-exporter's saturated-counter
// lines (text has the file's line numbers).
func diagnoseIBExporter(seg *Segment, file, text string) error {
	ss, err := ibdiags.ParseSaturated(strings.NewReader(text), file, 1)
	if err != nil {
		return err
	}
	seg.Summary = plural(len(ss), "saturated-counter line", "saturated-counter lines") + " of infiniband-exporter"
	seg.Findings = append(seg.Findings, fabric.CheckSaturated(ss, file)...)
	return nil
}

// diagnoseIPLink judges `ip link` output (text has the file's line
// numbers): a physical function with VFs that is down.
func diagnoseIPLink(seg *Segment, file, text string) error {
	links, err := iplink.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	vfs := 0
	for _, lk := range links {
		vfs += len(lk.VFs)
	}
	seg.Summary = "ip link: " + plural(len(links), "interface", "interfaces")
	if vfs > 0 {
		seg.Summary += ", " + plural(vfs, "virtual function", "virtual functions")
	}
	seg.Findings = append(seg.Findings, ethlinkrules.CheckIPLink(links, file)...)
	return nil
}

// diagnoseIfconfig judges ifconfig output (text has the file's line
// numbers): an RDMA interface up without carrier is a port down; without
// an RDMA interface nothing is judged.
func diagnoseIfconfig(seg *Segment, file, text string) error {
	ifs, err := ifconfig.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	var rdma, other []string
	for k := range ifs {
		i := &ifs[k]
		if !ethlinkrules.RDMAIface(i) {
			other = append(other, i.Name)
			continue
		}
		st := "down"
		switch {
		case i.Status == "no carrier":
			st = "no carrier"
		case i.Has("UP") && (i.Has("RUNNING") || i.Status == "active"):
			st = "up"
		case i.Has("UP"):
			st = "no carrier"
		}
		rdma = append(rdma, fmt.Sprintf("%s (%s, mtu %d)", i.Name, st, i.MTU))
	}
	seg.Summary = "ifconfig: " + plural(len(ifs), "interface", "interfaces")
	if len(rdma) > 0 {
		seg.Summary += "; RDMA: " + strings.Join(rdma, ", ")
	}
	seg.Findings = append(seg.Findings, ethlinkrules.CheckIfconfig(ifs, file)...)
	if len(rdma) == 0 {
		seg.Empty = "ifconfig lists no RDMA interface (IPoIB ib*, FreeBSD mce*/mlxen*), only " + strings.Join(other, ", ")
	}
	return nil
}

// diagnoseCellCLI judges Exadata's CellCLI IBPORT list and detail (text
// has the file's line numbers).
func diagnoseCellCLI(seg *Segment, file, text string) error {
	ports, err := cellcli.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = "CellCLI: " + plural(len(ports), "IBPORT", "IBPORTs")
	seg.Findings = append(seg.Findings, noderules.CheckCellCLI(ports, file)...)
	return nil
}
