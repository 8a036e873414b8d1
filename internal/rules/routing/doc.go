// Package routing analyses an InfiniBand subnet's unicast routing offline,
// from the topology (as ibnetdiscover reports it) and every switch's linear
// forwarding table (as dump_fts reports it).
//
// The input is a [Subnet]: nodes (switches and channel adapters) with their
// GUIDs, descriptions and LIDs, the physical links between ports, and per
// switch the LFT (destination LID → output port; 0 is the switch itself,
// 0xFF or a missing entry is no route). Building a Subnet from parsed tool
// output is the caller's job (internal/rules/fabric); this package does no I/O and
// reads no clock.
//
// [New] indexes a Subnet once; [Graph.Analyze] then follows the tables for
// every switch and every destination LID with shared work (one memoised walk
// per destination, O(switches × LIDs)), and reports unreachable destinations,
// forwarding loops, non-minimal routes, per-link route load and imbalance,
// and credit loops (cycles in the channel dependency graph of the routes
// that carry CA-to-CA traffic, all on one VL: SL2VL is not modelled).
// Unreachable destinations are grouped by the switch entry where the routes
// break, naming the switches whose hosts lose them. [Graph.Tree]
// recognises fat-tree tiers and reports asymmetric switches, [Graph.Path]
// traces one route hop by hop like ibtracert, and [Result.Findings] turns the
// analysis into catalogue findings (fabric.route_*, fabric.credit_loop,
// fabric.tree_asymmetric).
//
// The tests generate synthetic 2- and 3-level fat-trees with min-hop
// (up/down, destination-modulo) tables (fattree_test.go) and render them in
// the real text formats of ibnetdiscover, dump_fts and ibsim's net files
// (format_test.go); the fabric end-to-end benchmark lives here too, so that
// the generator stays out of the binary.
package routing
