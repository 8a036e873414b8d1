package catalog

import (
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// routingMetas are the catalogue entries of the routing analysis
// (internal/routing): what the switches' linear forwarding tables do with
// every destination LID, the channel dependencies they induce, and the shape
// of the tree they route over.
var routingMetas = []finding.Meta{
	{
		ID: "fabric.route_missing", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "destinations unreachable through the forwarding tables",
		Meaning: "Following the switches' linear forwarding tables (LFTs) hop by hop, some sources never arrive at some destination LIDs: a switch has no entry for the LID (0xFF), its entry points to a port that is down or unconnected, or it delivers the packet to the wrong node. This is the \"A reaches B but not C\" case: traffic between those pairs is dropped while everything else works.",
		Causes:  []string{"the subnet manager has not finished a sweep since a link or node came up (tables are stale)", "a link went down after routing and the SM has not rerouted (no master SM, or it is stuck)", "the SM's routing engine failed for part of the fabric (see its log for errors on those switches)", "tables were set by hand (ibroute/smpquery) or by a second, misconfigured SM"},
		Remedy:  []string{"sminfo and saquery -s to see whether a master SM runs; check its log (/var/log/opensm.log) for routing errors", "trigger a heavy sweep: kill -HUP $(pidof opensm); then dump_fts -a again", "ibdoctor fabric path SRC DST to see where the route breaks; iblinkinfo on that switch"},
	},
	{
		ID: "fabric.route_loop", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "forwarding tables send a destination around a loop",
		Meaning: "For some destination LIDs the forwarding tables lead from switch to switch in a cycle, so packets circulate until their hop limit or timeout and never arrive. Every source whose route enters the cycle cannot reach those destinations.",
		Causes:  []string{"forwarding tables from two different routing computations (an SM failover or a partially applied sweep)", "tables edited by hand", "an SM routing-engine bug on an irregular topology"},
		Remedy:  []string{"ibdoctor fabric path SRC DST shows the cycle hop by hop", "force a full reroute from the master SM (kill -HUP $(pidof opensm)) and dump_fts -a again", "make sure only one SM is master (sminfo, saquery -s)"},
	},
	{
		ID: "fabric.route_nonminimal", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "routes longer than the minimum hop count",
		Meaning: "Some routes take more switch hops than the shortest path in the physical topology. Each extra hop adds latency and load on links that min-hop routing would not use. The finding names the switch where the detour starts (the first switch whose chosen port is not on any shortest path).",
		Causes:  []string{"a routing engine that is not min-hop for this topology (updn/ftree roots chosen badly, or LASH/DFSSSP detours for deadlock freedom)", "a cable missing on the shortest path when the SM routed, since reconnected (stale tables)", "tables edited by hand"},
		Remedy:  []string{"check the SM's routing engine and root GUIDs (opensm.conf routing_engine, root_guid_file)", "reroute after fixing the cabling (kill -HUP $(pidof opensm)); compare with ibdoctor fabric check again"},
	},
	{
		ID: "fabric.route_imbalance", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "routes concentrate on some of a switch's parallel links",
		Meaning: "Counting the source→destination pairs of channel adapters routed over each directed link, some links of a switch towards the same tier carry far more routes than their fair share (the mean of that group) while their siblings idle. Under all-to-all traffic (NCCL collectives) the hot link limits everyone: the \"bandwidth swings\" of the runbook.",
		Thresholds: []finding.Threshold{
			{Name: "imbalance_ratio", Default: limits.Float(limits.RouteImbalanceRatio), Meaning: "max/mean route count over a switch's links towards one tier from which a group is reported"},
			{Name: "imbalance_min_routes", Default: limits.Uint(limits.RouteImbalanceMinRoutes), Meaning: "groups whose busiest link carries fewer routes are ignored"},
		},
		Causes: []string{"a routing engine that ignores the tree structure (minhop on a fat-tree without LMC or ftree)", "LIDs assigned so that destination-based modulo routing maps many destinations to one port", "links that were down when the SM routed (routes moved to the survivors), now back up"},
		Remedy: []string{"use the ftree or updn routing engine for fat-trees (opensm routing_engine ftree) and reroute", "reroute after restoring links (kill -HUP $(pidof opensm)) so returned links get their share", "the finding's evidence lists the route count of every link in the group (ibdoctor fabric check --format json)"},
	},
	{
		ID: "fabric.credit_loop", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "credit loop: cyclic channel dependencies (deadlock risk)",
		Meaning: "The routes induce a cycle in the channel dependency graph: a route that arrives over link a→b and leaves over b→c makes channel a→b wait for buffer credits of b→c. When these waits form a cycle, credit-based flow control can deadlock under load and the fabric stalls. This is the check ibdiagnet's routing stage reports. The analysis assumes one virtual lane for all traffic (SL2VL ignored), so routing engines that break cycles with VLs (LASH, DFSSSP) can be reported although their VL assignment is safe.",
		Causes:  []string{"a routing engine without deadlock avoidance on a topology with cycles (minhop on a ring, torus or a fat-tree with extra cross links)", "cables that turn a tree into a graph with cycles (leaf-to-leaf or spine-to-spine links)", "tables edited by hand or mixed from two routings"},
		Remedy:  []string{"use a deadlock-free engine for this topology (ftree or updn for trees, DFSSSP/LASH with enough VLs otherwise)", "remove unintended lateral cables (ibdoctor fabric diff --plan)", "reroute and rerun ibdoctor fabric check"},
	},
	{
		ID: "fabric.tree_asymmetric", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "fat-tree is not symmetric: a switch lacks uplinks",
		Meaning: "The fabric is recognised as a fat-tree (channel adapters at tier 0, leaves with adapters at tier 1, spines above, ranked by distance from the adapters), but a switch has fewer or more uplinks than the others of its tier, reaches only part of the upper switches its group reaches, or has uneven link counts to them. Traffic through that switch has less bandwidth and routing puts more load on its remaining uplinks.",
		Causes:  []string{"an uplink cable missing, unplugged or down", "a cable plugged into the wrong spine (a second link to one spine instead of one to each)", "a spine switch or line card down"},
		Remedy:  []string{"iblinkinfo on the named switch to see which uplink ports are down or go elsewhere", "ibdoctor fabric diff --plan FILE to compare the cabling with the plan", "reseat or replace the missing cable, then reroute (kill -HUP $(pidof opensm))"},
	},
}
