// Package fabric is ibdoctor's subnet-wide view: it runs the
// infiniband-diags tools (or reads their saved outputs), builds one model of
// the fabric (nodes, links, port states, counters, SM state, forwarding
// tables, and the gaps: what could not be queried), and checks it with pure
// functions: links down or degraded, port errors, duplicate GUIDs and LIDs,
// the subnet manager, cabling against a plan, and — through
// internal/routing — the routes.
package fabric
