// Package limits holds threshold tables that more than one rule set reads,
// as typed values: the code judges with them and the catalogue (`ibdoctor
// rules`) prints them, so the documented default is the value in force.
package limits

import "strconv"

// Counter is the row of one IBTA PortCounters error counter (IBTA Vol. 1,
// 16.1.3.5 PortCounters). Three readers share it: the node rules judge
// the total since the counters were last cleared (status, check, doctor),
// the fabric rules judge the same total read over the fabric (perfquery,
// ibqueryerrors) or its growth over a baseline, and the agent judges the
// per-minute rate over its window.
type Counter struct {
	// Sysfs is the name under sys/class/infiniband/DEV/ports/N/counters.
	Sysfs string `json:"counter"`
	// PMA is the PortCounters attribute name perfquery and ibqueryerrors
	// print.
	PMA string `json:"pma"`
	// Label names it in summaries ("symbol errors").
	Label string `json:"label"`
	// Total: a total at or above this reports (a warning; over a fabric
	// baseline, growth by it or more reports).
	Total uint64 `json:"total"`
	// PerMin is the agent's limit in events per minute averaged over its
	// window; 0 where the agent judges the counter otherwise (link_downed
	// is counted as flaps).
	PerMin float64 `json:"per_min,omitempty"`
	// NodeID is the finding the node rules and the agent report for it.
	NodeID string `json:"node_id"`
}

// The IBTA error counters ibdoctor judges on every port: one row each.
var (
	SymbolError = Counter{Sysfs: "symbol_error", PMA: "SymbolErrorCounter", Label: "symbol errors",
		Total: 10, PerMin: 10, NodeID: "port.symbol_errors"}
	LinkErrorRecovery = Counter{Sysfs: "link_error_recovery", PMA: "LinkErrorRecoveryCounter", Label: "link error recoveries",
		Total: 1, PerMin: 0.2, NodeID: "port.link_recovery"}
	LinkDowned = Counter{Sysfs: "link_downed", PMA: "LinkDownedCounter", Label: "link downed",
		Total: 1, NodeID: "port.link_flapping"}
	RcvErrors = Counter{Sysfs: "port_rcv_errors", PMA: "PortRcvErrors", Label: "receive errors",
		Total: 10, PerMin: 10, NodeID: "port.rcv_errors"}
	XmitDiscards = Counter{Sysfs: "port_xmit_discards", PMA: "PortXmitDiscards", Label: "transmit discards",
		Total: 10, PerMin: 10, NodeID: "port.xmit_discards"}
)

// Counters is the table in the order reports list it.
var Counters = []Counter{SymbolError, LinkErrorRecovery, LinkDowned, RcvErrors, XmitDiscards}

// XmitWaitTicks is the PortXmitWait total (or growth over a baseline) at
// or above which the fabric rules report a congestion hot spot.
const XmitWaitTicks uint64 = 10000

// Uint formats a count the way the catalogue prints it.
func Uint(v uint64) string { return strconv.FormatUint(v, 10) }

// Float formats a limit the way the catalogue prints it ("0.2", "10").
func Float(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
