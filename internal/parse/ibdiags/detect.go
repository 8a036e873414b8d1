package ibdiags

import "strings"

// Kind names a tool output format.
type Kind string

// Formats Detect recognises.
const (
	KindUnknown       Kind = ""
	KindNetDiscover   Kind = "ibnetdiscover"
	KindLinkInfo      Kind = "iblinkinfo"
	KindQueryErrors   Kind = "ibqueryerrors"
	KindPerfQuery     Kind = "perfquery"
	KindForwardTables Kind = "dump_fts"
	KindSMInfo        Kind = "sminfo"
	KindSMPorts       Kind = "saquery-sm"
	KindNetPorts      Kind = "ibnetdiscover-ports"
)

// Detect guesses which infiniband-diags tool printed text, for `ibdoctor
// analyze` on a pasted file. The score (0-100) is the share of the first
// non-blank lines that carry the format's signature, raised to 100 for
// lines only that tool prints.
func Detect(text string) (Kind, int) {
	lines := strings.Split(text, "\n")
	if len(lines) > 200 {
		lines = lines[:200]
	}
	counts := map[Kind]int{}
	total := 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		total++
		switch {
		case strings.HasPrefix(t, "# Topology file: generated"):
			return KindNetDiscover, 100
		case strings.HasPrefix(t, "Unicast lids ["):
			return KindForwardTables, 100
		case strings.HasPrefix(t, "sminfo: sm lid "):
			return KindSMInfo, 100
		case t == "IsSM ports" || t == "IsSMdisabled ports":
			return KindSMPorts, 100
		case strings.HasPrefix(t, "# Port counters: Lid ") || strings.HasPrefix(t, "# Port extended counters: Lid "):
			return KindPerfQuery, 100
		case strings.HasPrefix(t, "## Summary:") && strings.Contains(t, "nodes checked"):
			return KindQueryErrors, 100
		case (strings.HasPrefix(t, "SW ") || strings.HasPrefix(t, "CA ") || strings.HasPrefix(t, "RT ")) && strings.Contains(t, " 0x") && strings.Contains(t, "'"):
			counts[KindNetPorts]++
		case strings.Contains(t, "==(") && strings.Contains(t, ")==>"):
			counts[KindLinkInfo]++
		case strings.HasPrefix(t, "Errors for ") || strings.HasPrefix(t, "GUID 0x") && strings.Contains(t, " == "):
			counts[KindQueryErrors]++
		case (strings.HasPrefix(t, "Switch") || strings.HasPrefix(t, "Ca") || strings.HasPrefix(t, "Hca") || strings.HasPrefix(t, "[")) && strings.Contains(t, `"`):
			counts[KindNetDiscover]++
		case strings.HasPrefix(t, "switchguid=") || strings.HasPrefix(t, "caguid=") || strings.HasPrefix(t, "sysimgguid="):
			counts[KindNetDiscover]++
		case strings.HasPrefix(t, "CA: ") || strings.HasPrefix(t, "Switch: 0x") || oldSwitchHeader(t):
			counts[KindLinkInfo]++
		}
	}
	if total == 0 {
		return KindUnknown, 0
	}
	best, bestN := KindUnknown, 0
	for _, k := range []Kind{KindLinkInfo, KindQueryErrors, KindNetDiscover, KindNetPorts} {
		if counts[k] > bestN {
			best, bestN = k, counts[k]
		}
	}
	return best, bestN * 100 / total
}
