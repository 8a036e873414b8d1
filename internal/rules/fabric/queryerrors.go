package fabric

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// counterWidth is the width in bits of the PortCounters fields (IBTA
// vol. 1, PortCounters attribute): a counter stops at its maximum, so a
// saturated one hides how many errors there really were.
var counterWidth = map[string]uint{
	"SymbolErrorCounter":           16,
	"LinkErrorRecoveryCounter":     8,
	"LinkDownedCounter":            8,
	"PortRcvErrors":                16,
	"PortRcvRemotePhysicalErrors":  16,
	"PortRcvSwitchRelayErrors":     16,
	"PortXmitDiscards":             16,
	"PortXmitConstraintErrors":     8,
	"PortRcvConstraintErrors":      8,
	"LocalLinkIntegrityErrors":     4,
	"ExcessiveBufferOverrunErrors": 4,
	"VL15Dropped":                  16,
	"PortXmitWait":                 32,
}

// Saturated says whether a PortCounters value sits at its maximum.
func Saturated(name string, v uint64) bool {
	w, ok := counterWidth[name]
	return ok && v == 1<<w-1
}

// CheckQueryErrors judges an ibqueryerrors (or legacy ibcheckerrors)
// report pasted without the topology: every port's counters alone, named
// by its GUID or LID and its node description. Counters that point at the
// physical link (symbol errors, link recoveries, link downed, receive
// errors, discards, buffer overruns) are fabric.link_errors; a port whose
// only counter is PortRcvSwitchRelayErrors is an info: a switch counts
// there the packets it could not route (to a LID missing from its
// forwarding table, often multicast or a node that went away), which says
// nothing about the cable. PortXmitWait at or above th.XmitWait is
// fabric.congestion, as it is when the topology is given: the port waited
// that many ticks for flow-control credits. src names the file, line the
// line of a port.
func CheckQueryErrors(q *ibdiags.QueryErrors, src string, th Thresholds) []finding.Finding {
	if th == (Thresholds{}) {
		th = DefaultThresholds()
	}
	limits := map[string]uint64{
		"SymbolErrorCounter": th.SymbolErrors, "LinkErrorRecoveryCounter": th.LinkErrorRecovery,
		"LinkDownedCounter": th.LinkDowned, "PortRcvErrors": th.RcvErrors, "PortXmitDiscards": th.XmitDiscards,
		"PortRcvRemotePhysicalErrors": th.RcvErrors, "ExcessiveBufferOverrunErrors": 1, "LocalLinkIntegrityErrors": 1,
	}
	order := []string{"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
		"PortRcvRemotePhysicalErrors", "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "PortXmitDiscards"}
	// The "port ALL" aggregate repeats the node's own port lines: it is
	// judged only where the paste has no port line of that node (an
	// aggregate pasted alone still shows the errors).
	perPort := map[uint64]bool{}
	for _, p := range q.Ports {
		if !p.All {
			perPort[p.GUID] = true
			perPort[p.NodeGUID] = true
		}
	}
	var out []finding.Finding
	for _, p := range q.Ports {
		if p.All && (perPort[p.GUID] || p.NodeGUID != 0 && perPort[p.NodeGUID]) {
			continue
		}
		name := portName(p)
		subj := finding.Subject{File: src, NodeDesc: p.NodeDesc, Port: p.Port}
		if p.NodeGUID != 0 {
			subj.NodeGUID = guidText(p.NodeGUID)
		} else if p.GUID != 0 {
			subj.NodeGUID = guidText(p.GUID)
		}
		if v, ok := p.Counters["PortXmitWait"]; ok && th.XmitWait > 0 && v >= th.XmitWait {
			sum := fmt.Sprintf("%s waited %d ticks for credits to send since the counters were last cleared (congestion back-pressure from downstream; give a second sample to see whether it still grows)", name, v)
			if Saturated("PortXmitWait", v) {
				sum = fmt.Sprintf("%s: PortXmitWait %d is saturated (the 32-bit counter stopped: the port waited for credits more than that since the counters were last cleared; clear it with perfquery -R and sample again to see the current rate)", name, v)
			}
			out = append(out, catalog.New("fabric.congestion", subj, sum,
				finding.Evidence{Source: lineOf(src, p, "PortXmitWait"), Value: fmt.Sprintf("PortXmitWait == %d", v)}))
		}
		var parts []string
		var ev []finding.Evidence
		sev := finding.Warning
		physical, flapping := false, false
		for _, c := range order {
			v, ok := p.Counters[c]
			if !ok || v < max(limits[c], 1) {
				continue
			}
			part := fmt.Sprintf("%s %d", c, v)
			if Saturated(c, v) {
				part += " (saturated: the real count is higher)"
				sev = finding.Critical
			}
			parts = append(parts, part)
			ev = append(ev, finding.Evidence{Source: lineOf(src, p, c), Value: fmt.Sprintf("%s == %d", c, v)})
			switch c {
			case "SymbolErrorCounter", "PortRcvErrors", "LocalLinkIntegrityErrors":
				physical = true
			case "LinkDownedCounter", "LinkErrorRecoveryCounter":
				flapping = true
			}
		}
		if len(parts) > 0 {
			why := "bit errors or credit trouble on the link"
			if physical && flapping {
				// Bit errors bad enough to retrain or drop the link.
				sev = finding.Critical
				why = "bit errors bad enough to retrain or drop the link: a failing cable, transceiver or port"
			}
			out = append(out, withSeverity(catalog.New("fabric.link_errors", subj,
				fmt.Sprintf("%s: %s since the counters were last cleared (%s; give the topology or a second sample to see growth)", name, strings.Join(parts, ", "), why), ev...), sev))
			continue
		}
		if v, ok := p.Counters["PortRcvSwitchRelayErrors"]; ok && v > 0 {
			out = append(out, withSeverity(catalog.New("fabric.link_errors", subj,
				fmt.Sprintf("%s: only PortRcvSwitchRelayErrors (%d): packets the switch could not route, usually to a LID missing from its forwarding table (multicast, or a node that left); not a cable fault", name, v),
				finding.Evidence{Source: lineOf(src, p, "PortRcvSwitchRelayErrors"), Value: fmt.Sprintf("PortRcvSwitchRelayErrors == %d", v)}), finding.Info))
		}
	}
	return out
}

func withSeverity(f finding.Finding, s finding.Severity) finding.Finding {
	f.Severity = s
	return f
}

func portName(p ibdiags.ErrorPort) string {
	who := ""
	switch {
	case p.NodeDesc != "":
		who = fmt.Sprintf("%q", p.NodeDesc)
	case p.GUID != 0:
		who = guidText(p.GUID)
	}
	id := ""
	switch {
	case p.GUID != 0 && p.NodeDesc != "":
		id = " (GUID " + guidText(p.GUID) + ")"
	case p.LID != 0:
		id = fmt.Sprintf(" (lid %d)", p.LID)
	}
	if who == "" {
		who, id = "a port", ""
		if p.LID != 0 {
			who = fmt.Sprintf("lid %d", p.LID)
		}
	}
	if p.All {
		return fmt.Sprintf("%s%s (all ports)", who, id)
	}
	return fmt.Sprintf("%s%s port %d", who, id, p.Port)
}

func lineOf(src string, p ibdiags.ErrorPort, counter string) string {
	if n, ok := p.Lines[counter]; ok {
		return fmt.Sprintf("%s:%d", src, n)
	}
	return fmt.Sprintf("%s:%d", src, p.Line)
}
