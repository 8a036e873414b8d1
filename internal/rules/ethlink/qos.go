package ethlink

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/mlnxqos"
	"github.com/ibdoctor/ibdoctor/internal/parse/onyx"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckMlnxQoS judges one mlnx_qos output (netdev is the interface its
// command line names, "" when unknown): PFC on no priority is
// roce.pfc_disabled, a warning, since RoCE traffic through the port is
// then lossy unless the fabric is run lossy on purpose. PFC on one or
// more priorities is a working configuration; which priority RoCE uses
// is not in this output, so it is not compared.
func CheckMlnxQoS(q *mlnxqos.QoS, file, netdev string) []finding.Finding {
	if len(q.Enabled()) > 0 {
		return nil
	}
	subj := finding.Subject{File: file, NetDev: netdev, LinkLayer: "Ethernet"}
	name := netdev
	if name == "" {
		name = "the interface"
	}
	trust := ""
	if q.Trust != "" {
		trust = fmt.Sprintf(" (trust %s)", q.Trust)
	}
	f := catalog.New("roce.pfc_disabled", subj,
		fmt.Sprintf("mlnx_qos: PFC is enabled on no priority of %s%s: RoCE traffic through it is lossy, dropped rather than paused under congestion, unless the fabric is run lossy with ECN on purpose", name, trust),
		finding.Evidence{Source: fmt.Sprintf("%s:%d", file, q.PFCLine), Value: q.PFCRaw})
	return []finding.Finding{f}
}

// pfcList renders priorities "0,2,6,7".
func pfcList(ps []int) string {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprint(p))
	}
	return strings.Join(s, ",")
}

// MlnxQoSSummary is one line on what the output configures.
func MlnxQoSSummary(q *mlnxqos.QoS) string {
	var parts []string
	if q.Trust != "" {
		parts = append(parts, "trust "+q.Trust)
	}
	if e := q.Enabled(); len(e) > 0 {
		parts = append(parts, "PFC on priority "+pfcList(e))
	} else {
		parts = append(parts, "PFC on no priority")
	}
	if q.DCBX != "" {
		parts = append(parts, "DCBX "+q.DCBX)
	}
	if len(q.TCs) > 0 {
		n := fmt.Sprintf("%d traffic classes", len(q.TCs))
		if len(q.TCs) == 1 {
			n = "1 traffic class"
		}
		parts = append(parts, n)
	}
	return "mlnx_qos: " + strings.Join(parts, ", ")
}

// CheckOnyxRoCE judges an Onyx switch's show roce: RoCE not configured
// (mode N/A) or a congestion-control mode without ECN is
// roce.ecn_disabled; in lossless mode, PFC disabled, or not enabled on
// the switch-priority the RoCE application TLV names, is
// roce.pfc_disabled. Lossy mode without PFC is the mode's design.
func CheckOnyxRoCE(o *onyx.RoCE, file string) []finding.Finding {
	var out []finding.Finding
	subj := finding.Subject{File: file, LinkLayer: "Ethernet"}
	at := func(n int) string { return fmt.Sprintf("%s:%d", file, n) }
	mode := strings.ToLower(o.Mode)
	if mode == "n/a" {
		return append(out, catalog.New("roce.ecn_disabled", subj,
			"Onyx show roce: RoCE mode N/A, RoCE is not configured on the switch: no ECN marking and no PFC for RoCE traffic",
			finding.Evidence{Source: at(o.ModeLine), Value: "RoCE mode: " + o.Mode}))
	}
	if o.CCLine > 0 && !strings.Contains(strings.ToLower(o.CC), "ecn") {
		out = append(out, catalog.New("roce.ecn_disabled", subj,
			fmt.Sprintf("Onyx show roce: RoCE mode %s with port congestion-control mode %q, not ECN: the NICs get no congestion notification", o.Mode, o.CC),
			finding.Evidence{Source: at(o.CCLine), Value: "Mode: " + o.CC}))
	}
	if mode != "lossless" {
		return out
	}
	ev := []finding.Evidence{{Source: at(o.ModeLine), Value: "RoCE mode : " + o.Mode}}
	switch {
	case o.PFCLine > 0 && o.PFC != "enabled":
		out = append(out, catalog.New("roce.pfc_disabled", subj,
			fmt.Sprintf("Onyx show roce: RoCE mode lossless but PFC %s: RoCE traffic is dropped, not paused, under congestion", o.PFC),
			append(ev, finding.Evidence{Source: at(o.PFCLine), Value: "PFC : " + o.PFC})...))
	case o.PFCLine > 0 && o.AppPriority >= 0 && len(o.PFCPrio) > 0 && !o.PFCPrio[o.AppPriority]:
		var on []int
		for p := 0; p < 8; p++ {
			if o.PFCPrio[p] {
				on = append(on, p)
			}
		}
		ev = append(ev, finding.Evidence{Source: at(o.AppLine), Value: fmt.Sprintf("Priority: %d", o.AppPriority)})
		if n := o.PrioLine[o.AppPriority]; n > 0 {
			ev = append(ev, finding.Evidence{Source: at(n), Value: fmt.Sprintf("switch-priority %d: disabled", o.AppPriority)})
		}
		out = append(out, catalog.New("roce.pfc_disabled", subj,
			fmt.Sprintf("Onyx show roce: RoCE traffic is on priority %d (application TLV) but PFC is enabled on switch-priority %s only: RoCE is lossy", o.AppPriority, pfcList(on)),
			ev...))
	}
	return out
}

// OnyxRoCESummary is one line on what show roce configures.
func OnyxRoCESummary(o *onyx.RoCE) string {
	parts := []string{"RoCE mode " + o.Mode}
	if o.Trust != "" {
		parts = append(parts, "trust "+o.Trust)
	}
	if o.AppPriority >= 0 {
		parts = append(parts, fmt.Sprintf("RoCE priority %d", o.AppPriority))
	}
	if o.CC != "" {
		parts = append(parts, "congestion control "+o.CC)
	}
	if o.PFC != "" {
		var on []int
		for p := 0; p < 8; p++ {
			if o.PFCPrio[p] {
				on = append(on, p)
			}
		}
		s := "PFC " + o.PFC
		if len(on) > 0 {
			s += " on switch-priority " + pfcList(on)
		}
		parts = append(parts, s)
	}
	return "Onyx show roce: " + strings.Join(parts, ", ")
}
