package catalog

import (
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

var (
	remedyFabricCheck = "ibdoctor fabric check (after the fix) to confirm"
	remedyLinkReset   = "ibportstate <lid> <port> reset (or the switch CLI) to retrain the link"
	causeSMRouting    = "subnet manager routing engine could not route around a failure, or stopped before finishing a sweep"
	remedySMResweep   = "force a heavy sweep: kill -HUP $(pidof opensm), or restart the SM; check its log (/var/log/opensm.log)"
)

// fabricMetas are the catalogue entries of the fabric area: subnet-wide
// discovery, link and counter checks, cabling against a plan, routing.
var fabricMetas = []finding.Meta{
	{
		ID: "fabric.link_down", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "fabric link down or not active",
		Meaning: "A port that the cabling plan (or its peer) expects up is Down, Polling or Disabled, or a physically up link never became Active (no SM configured it).",
		Causes:  []string{causeCable, "switch port disabled (ibportstate, SM policy)", "link up physically but the SM did not bring it to Active"},
		Remedy:  []string{"ibportstate <lid> <port> to query this end; iblinkinfo shows both ends", remedyReseat, "ibportstate <lid> <port> enable", remedyFabricCheck},
	},
	{
		ID: "fabric.link_degraded", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "fabric link below the expected width or speed",
		Meaning: "A link trained at a lower width or lane speed than expected: the plan if one is given; else, for the width, the majority of the links between the same tiers, and for the lane speed, the best that both ends' kinds of node (a switch's model, a CA's description without its host name) reach elsewhere in the fabric, since generations mix by design (EDR HCAs on an HDR switch). Without a plan a slow lane speed is critical only when at least two other links from the same switch to the same kind of node run faster; otherwise a warning. Both ends are named.",
		Thresholds: []finding.Threshold{
			{Name: "expectation", Default: "plan, else majority width between the same tiers and the best speed both ends' kinds reach", Meaning: "what counts as the expected width and speed"},
		},
		Causes: []string{causeCable, "one lane dead in a 4X cable (link falls back to 1X or 2X)", "speed mismatch or an old transceiver on one end", "port configured for a lower width or speed"},
		Remedy: []string{"iblinkinfo: read the 'Could be' hints on both ends", remedyReseat, remedyLinkReset, remedyFabricCheck},
	},
	{
		ID: "fabric.link_errors", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "fabric port error counters above threshold or growing",
		Meaning: "A switch or HCA port's PortCounters show symbol errors, link error recoveries, link-downed events, receive errors or transmit discards at or above the thresholds, or, against a baseline collection (--baseline), growing. Critical when link-downed grew since the baseline or an error counter grew by an order of magnitude.",
		Thresholds: []finding.Threshold{
			{Name: "symbol_errors", Default: limits.Uint(limits.SymbolError.Total), Meaning: "SymbolErrorCounter at or above this (or any growth over a baseline) reports; the node's symbol_error limit too"},
			{Name: "link_error_recovery", Default: limits.Uint(limits.LinkErrorRecovery.Total), Meaning: "LinkErrorRecoveryCounter at or above this (or growth by it) reports"},
			{Name: "link_downed", Default: limits.Uint(limits.LinkDowned.Total), Meaning: "LinkDownedCounter at or above this reports; growth over a baseline is critical"},
			{Name: "rcv_errors", Default: limits.Uint(limits.RcvErrors.Total), Meaning: "PortRcvErrors at or above this (or growth by it) reports"},
			{Name: "xmit_discards", Default: limits.Uint(limits.XmitDiscards.Total), Meaning: "PortXmitDiscards at or above this (or growth by it) reports"},
			{Name: "xmit_wait", Default: limits.Uint(limits.XmitWaitTicks), Meaning: "PortXmitWait ticks at or above this report a congestion hot spot"},
		},
		Causes: []string{causeCable, "marginal transceiver or dirty connector (symbol errors, recoveries)", "congestion downstream (xmit_wait, discards)", "link flapping (link-downed)"},
		Remedy: []string{"perfquery <lid> <port> and again after a minute to see growth", "ibqueryerrors --data to list every port with errors", remedyReseat, "perfquery -R <lid> <port> to clear after the fix, then watch"},
	},
	{
		ID: "fabric.congestion", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "fabric port congestion hot spot (xmit_wait)",
		Meaning: "A port's PortXmitWait (ticks with data to send but no flow-control credits) is high, or grew fast against a baseline: the credit-based flow control is throttling it: jobs see their bandwidth swing.",
		Thresholds: []finding.Threshold{
			{Name: "xmit_wait", Default: limits.Uint(limits.XmitWaitTicks), Meaning: "PortXmitWait ticks (or growth over a baseline) at or above this report"},
		},
		Causes: []string{"a slow receiver or an oversubscribed link downstream", "route imbalance concentrating flows (see fabric.route_imbalance)", "jobs sharing links without QoS separation"},
		Remedy: []string{"perfquery <lid> <port> twice to measure the rate of PortXmitWait", "ibdoctor fabric check for route imbalance", "separate traffic classes with SLs; tune congestion control"},
	},
	{
		ID: "fabric.duplicate_guid", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "duplicate node or port GUID on the fabric",
		Meaning: "Two nodes or ports report the same GUID. Discovery merges them, the SM gives them one LID, and traffic meant for one reaches the other (\"link up but cannot ping\").",
		Causes:  []string{"HCA or switch firmware burnt with a copied GUID image", "virtual function or simulator GUIDs not made unique", "replaced board kept the old GUID"},
		Remedy:  []string{"ibnetdiscover 2>&1 | grep Duplicate", "on the node that holds it: mstflint -d <pci> q to read the burnt GUIDs; re-burn unique GUIDs (mstflint or the vendor tool)"},
	},
	{
		ID: "fabric.duplicate_lid", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "duplicate LID",
		Meaning: "Two ports hold the same LID: packets to that LID reach only one of them.",
		Causes:  []string{"two subnet managers on a split fabric assigned LIDs independently", "static LID configuration (guid2lid file) collides", "a port kept a stale LID after a merge"},
		Remedy:  []string{"sminfo and saquery -s to see which SMs run", remedySMResweep},
	},
	{
		ID: "fabric.no_lid", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "port without a LID",
		Meaning: "An active switch or CA port has LID 0: the subnet manager has not configured it, so nothing can be routed to it.",
		Causes:  []string{"no subnet manager running", "the SM cannot reach this node (broken path, partition)", "the SM has not finished its sweep"},
		Remedy:  []string{"sminfo to check for a master SM", "start the subnet manager (systemctl start opensm)", remedySMResweep},
	},
	{
		ID: "fabric.sm_missing", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "no master subnet manager",
		Meaning: "No subnet manager answers as master. Existing routes keep working, but new links, new nodes, failed links and LID changes are not handled.",
		Causes:  []string{"opensm stopped or crashed", "the switch-embedded SM is disabled", "the SM node lost its fabric port"},
		Remedy:  []string{"sminfo", "systemctl status opensm; journalctl -u opensm", "run the SM on two management nodes (master/standby, different priorities)"},
	},
	{
		ID: "fabric.smp_timeout", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "fabric nodes did not answer directed-route SMPs",
		Meaning: "A discovery tool (ibnetdiscover, ibswitches, ibhosts, iblinkinfo, ibqueryerrors: libibnetdisc) sent a directed-route subnet management packet along a path and got no answer: its 'src/query_smp.c:NNN; umad (DR path slid 0; dlid 0; 0,1,20,34 Attr 0x11:0) bad status 110; Connection timed out' line (110 is ETIMEDOUT; attribute 0x11 is NodeInfo, 0x15 PortInfo). The node at the end of that path, or a link on it, did not respond, so it and whatever lies behind it are missing from the output. The rest of the fabric was read; this is a fault to look at, not an outage (a warning).",
		Causes:  []string{"the node at the end of the path is powered off, hung or rebooting (its HCA or switch management does not answer)", "a link on the path is bad or flapping (symbol errors, a port in Init), and SMPs are lost", "the fabric is busy and MADs time out (a large fabric or a slow switch CPU): a longer timeout (-t) or fewer retries in flight helps"},
		Remedy:  []string{"rerun the discovery with a longer timeout (ibnetdiscover -t 1000) to see whether the same path times out again", "follow the path hop by hop (smpquery -D nodeinfo 0,1,20 and longer prefixes of the path) to find the last node that answers", "iblinkinfo on the last switch that answers: the port on the path that is down, in Init or with errors"},
	},
	{
		ID: "fabric.sm_issm_missing", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "umadN without issmN: no subnet manager can run on this host",
		Meaning: "ib_umad (drivers/infiniband/core/user_mad.c) gives each InfiniBand port two devices, umadN (management datagrams) and issmN; a subnet manager opens /dev/infiniband/issmN to set the IsSM bit of its port's capability mask (OpenSM's osm_vendor_set_sm, 'ERR 5431: setting IS_SM capmask: cannot open file'), which tells the fabric an SM lives there. A listing of /sys/class/infiniband_mad with umadN but no issmN means OpenSM cannot take the port: on a host that must run the fabric's SM the ports stay in Initializing and IPoIB and RDMA fail (critical when the paste shows OpenSM failing); a host that runs no SM loses nothing (a warning).",
		Causes:  []string{"a kernel whose ib_umad does not create issmN for the port, with the HCA firmware in use (a regression between the kernel and the firmware: a firmware update or the previous kernel brings it back)", "the port is not InfiniBand (Ethernet/RoCE ports get no issm)", "an ib_umad module that does not match the running kernel (an out-of-tree driver stack)"},
		Remedy:  []string{"ls -l /sys/class/infiniband_mad /dev/infiniband: issmN next to each umadN", "journalctl -u opensm (ERR 5431 cannot open issm) and sminfo: is a master SM running elsewhere", "ethtool -i ib0 (the firmware-version) and the running kernel: update the HCA firmware or boot the previous kernel, then systemctl restart opensm"},
	},
	{
		ID: "fabric.sm_crashed", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "the subnet manager process crashed",
		Meaning: "A stack trace of OpenSM (gdb's or a crash reporter's frames in its osm_*.c sources, with the signal: 11 is a segmentation fault) shows the subnet manager process died. While no SM is master, nothing configures the fabric: ports that restart stay in Initializing, lost links are not routed around. Whether a standby SM took over, or a service manager restarted it, is not in such a paste (a warning); sminfo says.",
		Causes:  []string{"a bug in OpenSM, often in one routing engine on a topology it handles badly (the frames name it: osm_ucast_lash.c is LASH, osm_ucast_ftree.c fat-tree)", "a fabric change (a switch added, links lost) that takes the routing engine down a path it does not survive", "memory exhaustion or a corrupted configuration or cache file"},
		Remedy:  []string{"sminfo: is a master SM running now, and which one", "systemctl status opensm; journalctl -u opensm (restarts, the last messages before the crash)", "switch to another routing engine (opensm.conf routing_engine updn or ftree) or an OpenSM release with the fix, and report the trace upstream (github.com/linux-rdma/opensm)", "run a second SM as standby (a lower sm_priority on another node) so a crash does not leave the fabric unmanaged"},
	},
	{
		ID: "fabric.sm_log_errors", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "the subnet manager logged errors",
		Meaning: "OpenSM's log (osm_log: 'UUUUUU [TTTTTTTT] 0x01 -> func: ERR XXXX: text') holds error messages while the SM kept running: a node or port it could not configure, a MAD that timed out, a routing or partition problem. The SM still manages the fabric, but the part the errors name may be unreachable or misconfigured (a warning). The code (the ERR number) and the function name what failed.",
		Causes:  []string{"nodes or links that do not answer the SM's MADs (timeouts: ERR 3120 and the like): a dead node, a bad link", "a configuration the SM rejects (partitions.conf, QoS, routing engine files)", "a routing engine that could not route the topology and fell back to minhop"},
		Remedy:  []string{"grep ERR /var/log/opensm.log: which error codes repeat, and since when", "sminfo and ibdoctor fabric check to see the state of the fabric the SM manages", "iblinkinfo around the nodes the errors name"},
	},
	{
		ID: "fabric.sm_multiple_masters", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "more than one master subnet manager",
		Meaning: "Several SMs claim master state: the fabric is split or the SMs disagree, and they overwrite each other's LIDs and routes.",
		Causes:  []string{"the fabric was split and merged again", "two SMs with the same priority and no handover (different SM keys)"},
		Remedy:  []string{"saquery -s to list the SM ports, then sminfo with each one's LID to compare state and priority", "set distinct priorities (sm_priority) and a common sm_key", remedySMResweep},
	},
	{
		ID: "fabric.cable_missing", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "planned cable missing",
		Meaning: "The cabling plan has a link between two ports that the discovered fabric does not have (and the ports are not simply swapped with another cable).",
		Causes:  []string{"cable not installed or unplugged", "cable or transceiver dead at one end (port Polling)", "node or switch powered off"},
		Remedy:  []string{"check both ports in iblinkinfo", "install or reseat the cable", remedyFabricCheck},
	},
	{
		ID: "fabric.cable_unexpected", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "cable not in the plan",
		Meaning: "The discovered fabric has a link the cabling plan does not list (between ports the plan leaves free, or to a node the plan does not know).",
		Causes:  []string{"extra cable installed", "plan out of date", "node added without updating the plan"},
		Remedy:  []string{"update the plan if the link is intended; else remove the cable"},
	},
	{
		ID: "fabric.cable_miswired", Severity: finding.Critical, Area: "fabric", Step: finding.StepFabric,
		Title:   "cables swapped between ports",
		Meaning: "Ports the plan connects to each other are cabled to other planned ports: typically two cables swapped. Reported once per group of swapped cables, not as missing plus unexpected links.",
		Causes:  []string{"cables plugged into neighbouring ports", "labels swapped at installation"},
		Remedy:  []string{"move the cables to the planned ports named in the finding", remedyFabricCheck},
	},
	{
		ID: "fabric.ibdiagnet_error", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "ibdiagnet stage reports errors that no specific check covers",
		Meaning: "ibdiagnet counted errors in a stage (its Summary table, or -E- lines of the stage) that do not map to a link, counter, GUID, LID or subnet manager finding: routing, partition keys, virtualization, cables, temperature, or nodes that did not answer. The stage's counts and lines are the evidence; its details are in ibdiagnet2.log.",
		Causes:  []string{"a check ibdiagnet runs beyond links, counters, identities and the SM (routing, partitions, cables, temperature) found a problem", "nodes did not answer ibdiagnet's queries (MADs timed out or were dropped)"},
		Remedy:  []string{"grep -- '-E-' /var/tmp/ibdiagnet2/ibdiagnet2.log to read the stage's error lines", "run ibdiagnet again to see whether the errors persist", remedyFabricCheck},
	},
	{
		ID: "fabric.qos_mismatch", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "SL-to-VL mapping disagrees across the fabric or with the QoS plan",
		Meaning: "A packet keeps its service level (SL) end to end; each port's SLtoVLMappingTable (IBA 7.6.6) picks the virtual lane it uses on the next hop, and the port's VL arbitration tables (IBA 7.6.9) give each VL its share of the link. Nodes that map an SL to different VLs mix traffic classes the plan meant to separate; an SL that maps to VL 15 is dropped; a VL with weight 0 in both the high and the low arbitration table is never sent, so traffic on it stalls.",
		Causes: []string{
			"OpenSM runs without QoS (qos FALSE, the default) on part of the fabric, or a second SM with another opensm.conf programmed some switches",
			"different qos_ca_sl2vl, qos_swe_sl2vl and qos_sw0_sl2vl templates in opensm.conf, or a qos_policy_file that overrides them",
			"qos_vlarb_high / qos_vlarb_low without an entry (or with weight 0) for a VL that qos_sl2vl uses; qos_max_vls larger than the VLs arbitrated",
			"switch or HCA firmware that supports fewer VLs (VLCap) than qos_max_vls",
		},
		Remedy: []string{
			"smpquery sl2vl <lid> <out port> and smpquery vlarb <lid> <port> on a disagreeing node",
			"set qos TRUE and one qos_sl2vl (e.g. qos_sl2vl 0,1,2,3,...) with qos_vlarb_high / qos_vlarb_low weights for every VL it uses in opensm.conf (opensm -c writes a template with every option), then restart OpenSM so it reprograms every port",
			"align the per-type templates (qos_ca_*, qos_swe_*, qos_sw0_*) or remove them so qos_* applies everywhere",
			remedyFabricCheck,
		},
	},
	{
		ID: "fabric.mtu_below_fabric", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "host link runs a smaller IB MTU than the rest of the fabric",
		Meaning: "A CA port's link MTU (PortInfo NeighborMTU, which the host shows as ibv_devinfo active_mtu) is below the MTU most CA links of the fabric run. The subnet manager sets a link's MTU no larger than the smaller MtuCap of its two ends, and an RDMA connection (NCCL, UCX, MPI) runs the smaller active MTU of its two ports, so every connection to this host cuts messages into more packets (twice as many at 2048 as at 4096) and gets less bandwidth than its peers. The MtuCap of both ends says which end limits it: the HCA, the switch port, or neither (then the MTU was set lower than both support: reset the link so the subnet manager sets it again). Read with fabric check --mtu (smpquery portinfo of both ends of every CA link).",
		Causes: []string{
			"the switch port at the other end supports or is configured for a smaller MTU (an older switch or a gateway)",
			"the HCA supports a smaller MTU (an older generation)",
			"the link was set to a smaller MTU earlier and kept it",
		},
		Remedy: []string{
			"smpquery portinfo <lid> <port> and smpquery portinfo <peer-lid> <peer-port>: compare NeighborMTU and MtuCap of both ends",
			"ibv_devinfo | grep -E 'hca_id|port:|max_mtu|active_mtu' on the host to see what the HCA reports",
			"move the cable to a switch port that supports the fabric's MTU, or raise the limiting port's MTU in the switch configuration",
			remedyLinkReset + " so the subnet manager sets the MTU again",
			"ibdoctor fabric check --mtu (after the fix) to confirm",
		},
	},
	// The routing IDs (fabric.route_*, fabric.credit_loop,
	// fabric.tree_asymmetric) live in routing.go with the routing analysis.
}
