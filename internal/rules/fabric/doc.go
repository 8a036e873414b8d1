// Package fabric is ibdoctor's subnet-wide view: from one collection of
// infiniband-diags outputs (taken or read back by internal/source/fabric) it
// builds one model of the fabric (nodes, links, port states, counters, SM
// state, forwarding tables, and the gaps: what could not be queried), and
// checks it with pure functions: links down or degraded, port errors,
// duplicate GUIDs and LIDs, the subnet manager, cabling against a plan, and
// — through internal/rules/routing — the routes.
package fabric
