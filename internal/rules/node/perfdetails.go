package node

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Detail is one counter of a perfquery detail block with its evidence.
type Detail struct {
	Name     string
	Value    uint64
	Evidence finding.Evidence
}

// detailSet is what a perfquery detail attribute breaks down: the
// finding its non-zero counters make and what each counter says.
type detailSet struct {
	id, what string
	meaning  map[string]string
}

// detailSets are the attributes `perfquery -E` (PortRcvErrorDetails) and
// `perfquery -D` (PortXmitDiscardDetails) print: the causes behind
// PortRcvErrors and PortXmitDiscards (IBTA vol 1, 16.1.4 performance
// management, the optional PortRcvErrorDetails and PortXmitDiscardDetails
// attributes).
var detailSets = map[string]detailSet{
	"PortRcvErrorDetails": {id: "port.rcv_errors", what: "packets received with errors", meaning: map[string]string{
		"PortLocalPhysicalErrors": "physical errors on this link (bit errors, bad framing): the cable, a transceiver or the peer port",
		"PortMalformedPktErrors":  "malformed packets from the peer (a faulty peer port or firmware)",
		"PortBufferOverrunErrors": "receive buffer overruns: the peer sent without flow-control credits",
		"PortDLIDMappingErrors":   "packets whose destination LID this port does not own or route: a stale or wrong forwarding table",
		"PortVLMappingErrors":     "packets on a VL the SL-to-VL table does not map: the QoS configuration of the subnet manager",
		"PortLoopingErrors":       "packets that would loop back out of the port they came in on: a routing loop",
	}},
	"PortXmitDiscardDetails": {id: "port.xmit_discards", what: "packets discarded on send", meaning: map[string]string{
		"PortInactiveDiscards":           "discarded because the port was not ACTIVE: the link was down",
		"PortNeighborMTUDiscards":        "larger than the neighbour's MTU: the MTUs of the two ends differ",
		"PortSwLifetimeLimitDiscards":    "held in a switch past their lifetime: congestion",
		"PortSwHOQLifetimeLimitDiscards": "head of a queue past the head-of-queue lifetime: a stalled peer or a credit loop",
	}},
}

// ErrorDetails judges one perfquery detail block of the port called name
// (PortRcvErrorDetails, PortXmitDiscardDetails): the non-zero counters,
// each with what it means, as the finding of the total they break down.
// ok is false when every counter is zero or the set is none of those.
func ErrorDetails(subj finding.Subject, name, set string, ds []Detail) (f finding.Finding, ok bool) {
	ds0, known := detailSets[set]
	if !known {
		return f, false
	}
	var parts []string
	var ev []finding.Evidence
	for _, d := range ds {
		m, isDetail := ds0.meaning[d.Name]
		if !isDetail || d.Value == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d (%s)", d.Name, d.Value, m))
		ev = append(ev, d.Evidence)
	}
	if len(parts) == 0 {
		return f, false
	}
	return catalog.New(ds0.id, subj, fmt.Sprintf("%s: %s by cause (%s): %s; %s", name, ds0.what, set, strings.Join(parts, "; "), totalsNote), ev...), true
}
