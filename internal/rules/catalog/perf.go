package catalog

import (
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// perfMetas are the findings of perftest output analysis (and, from the
// pairwise engineer, of pairwise tests).
var perfMetas = []finding.Meta{
	{
		ID: "perf.bw_low", Severity: finding.Critical, Area: "perf", Step: finding.StepPerf,
		Title:   "RDMA bandwidth below the link's line rate",
		Meaning: "perftest bandwidth at large messages falls short of the link's line rate. A healthy HDR (200 Gb/s) link reaches about 190 Gb/s with ib_write_bw; more than 20% short is critical, more than 10% a warning. Without a line rate, bandwidth that falls under half its plateau at the largest messages, or intervals of one message size of which one is under half the best, is a warning: a link holds a steady rate under a steady load. Without a line rate, a best average under 0.1 Gb/s (about 12 MB/sec) at 64 KiB or more is a warning too: no working RDMA link is that slow (Soft-RoCE or soft-iWARP over 1 GbE moves about 110 MB/sec).",
		Thresholds: []finding.Threshold{
			{Name: "bw_warning", Default: limits.Pct(limits.PerfBWWarn), Meaning: "below this fraction of the line rate: warning"},
			{Name: "bw_critical", Default: limits.Pct(limits.PerfBWCrit), Meaning: "below this fraction of the line rate: critical"},
		},
		Causes: []string{"link trained at a lower width or speed", "HCA in a narrow or slow PCIe slot (x8 instead of x16)", "congestion or errors on the path", "only one port or one QP used on a multi-port setup"},
		Remedy: []string{"ibdoctor status on both nodes (rate, width, speed)", "lspci -vv for the HCA's LnkSta", "rerun ib_write_bw with -q 4 and a larger -s (e.g. -s 1048576) to rule out the test itself"},
	},
	{
		ID: "perf.lat_high", Severity: finding.Warning, Area: "perf", Step: finding.StepPerf,
		Title:   "RDMA latency above the expected floor",
		Meaning: "perftest latency at small messages is above the floor of the link type: about 1 us for IB write/send, twice that for reads (a round trip) and for RoCE. Counted from t_typical (the median), so one outlier does not trip it. A software device (rxe, siw) runs in the kernel's network stack and is not held to the hardware floor, but over 100 us at 4 KiB or less is a warning: Soft-RoCE answers in tens of microseconds.",
		Thresholds: []finding.Threshold{
			{Name: "lat_factor", Default: limits.Float(limits.PerfLatFactor), Meaning: "multiple of the floor above which latency is high"},
		},
		Causes: []string{"many switch hops or a detour in routing", "CPU power saving (C-states, frequency scaling) on either host", "RoCE: PFC pauses or congestion", "test run through rdma_cm or with events (-e) instead of polling"},
		Remedy: []string{"disable deep C-states, pin the test to a core near the HCA (taskset)", "ibdoctor fabric check for the route between the nodes"},
	},
	{
		ID: "perf.test_invalid", Severity: finding.Warning, Area: "perf", Step: finding.StepPerf,
		Title:   "the test itself cannot show line rate",
		Meaning: "The perftest banner or results show a test that misleads: the two ends disagree on MTU, a RoCE test uses a link-local GID or an all-zero one (no GID at that index: critical when the test then could not connect), or messages are too small to judge bandwidth. Fix the test before trusting or distrusting the network. A run that died on a completion error (\"Failed status N\") measured nothing: its ibv_wc_status says where to look, 12 (retry exceeded) at the path or the peer, 4 (local protection) at memory registration or GPUDirect, 10 (remote access) at the peer's registration; each is critical, as a job doing the same transfers between these hosts fails the same way (a flush, 5, alone is a warning: the consequence of an error not shown). A test that could not start is critical when its local port is not ACTIVE or its device cannot create the test's verbs resources (device attributes, a queue pair), a warning otherwise (peer not reached, QP not brought up).",
		Thresholds: []finding.Threshold{
			{Name: "min_bw_bytes", Default: limits.Uint(limits.PerfMinBWBytes), Meaning: "largest message below which a bandwidth test cannot show line rate"},
		},
		Causes: []string{"different MTU configured on the two ends", "wrong GID index (-x) for RoCE v2", "message size (-s) too small", "the run died on a completion error: status 12 a lossy or broken path or a dead peer, status 4 a buffer not registered (GPUDirect: nvidia-peermem, PCIe ACS/IOMMU)"},
		Remedy: []string{"rerun ib_write_lat / ib_write_bw with the same -m on both ends, -x set to the RoCE v2 GID index (show_gids), and -s 65536 or larger (or -a)", "after a completion error: ibdoctor check on both nodes (port state, error counters), and for GPU buffers lsmod | grep peermem"},
	},
	{
		ID: "perf.benchmark_stopped", Severity: finding.Warning, Area: "perf", Step: finding.StepPerf,
		Title:   "a benchmark stopped in the middle of its table",
		Meaning: "An OSU Micro-Benchmarks run (osu_latency, osu_bw, osu_acc_latency, the OpenSHMEM and UPC tests …) printed rows up to some message size and then a hang marker or an error instead of the next row: the benchmark did not finish. The rows before it say whether the path worked at the smaller sizes; a hang at one size usually points at the MPI or SHMEM layer's protocol switch there (eager to rendezvous, the RMA path of a provider), less often at the link.",
		Causes:  []string{"the MPI/SHMEM transport or libfabric provider in use mishandles the protocol that takes over at that size (rendezvous, RMA over a layered provider such as ofi_rxm)", "a peer process died or was killed (see the error after the last row)", "the link or the peer stopped answering (port down, retry exceeded)"},
		Remedy:  []string{"rerun the same benchmark with the MPI library's debug output (libfabric: FI_LOG_LEVEL=debug; UCX: UCX_LOG_LEVEL=info) to see what the last transfer waited for", "fi_info -p verbs (libfabric) or ucx_info -d (UCX): the providers and transports the run could choose; pin another one and rerun", "ib_write_bw -a between the same two hosts: if verbs runs through every size, the link is fine and the fault is in the MPI layer"},
	},
	{
		ID: "perf.deepep_bw_low", Severity: finding.Warning, Area: "perf", Step: finding.StepPerf,
		Title:   "DeepEP's RDMA bandwidth far under what it reaches",
		Meaning: "DeepEP's tests (tests/test_internode.py, tests/test_low_latency.py) print the bandwidth of their dispatch and combine kernels. Low-latency dispatch + combine under 1 GB/s, with operations averaging far above their minimum, says the RDMA path stalls most of the time; a best internode figure under half of the same operation's best in another run of the paste (usually the same test on more nodes) says the bandwidth collapses as the test scales. The jobs run, slowly: a warning.",
		Causes:  []string{"adaptive routing off or congestion on the switches the larger run crosses", "NVSHMEM/IBGDA settings (queue pairs per rank, NVSHMEM_IB_ENABLE_IBGDA, the GID index on RoCE) that differ from DeepEP's guidance", "a port of one node slower than the rest (rate, PCIe, errors)"},
		Remedy:  []string{"ibstat on every node: all ports Active at the expected rate", "ib_write_bw between the nodes of the slow run (-d the HCA of each GPU) to find a slow pair", "ibdoctor fabric check for errors and routing on the paths the larger run uses"},
	},
	// Pairwise tests (ibdoctor perf pairwise, internal/pairwise): culprits
	// inferred from a matrix of node-pair tests.
	{
		ID: "perf.node_slow", Severity: finding.Critical, Area: "perf", Step: finding.StepPerf,
		Title:   "node is slow with every partner",
		Meaning: "Every pairwise test this node took part in (at least two partners) fell below the slow fraction of the reference: the median, over all nodes, of each node's best pair. The common factor is the node itself: its port, cable, PCIe slot or host.",
		Thresholds: []finding.Threshold{
			{Name: "slow_fraction", Default: limits.Float(limits.PairSlowFraction), Meaning: "a pair is slow below this fraction of the reference bandwidth (latency: above reference / fraction)"},
		},
		Causes: []string{"port trained at a lower width or speed, or a degraded cable/transceiver", "HCA in a narrow or slow PCIe slot", "host throttled: CPU frequency, IRQ affinity, another job on the node", "link errors causing retransmissions"},
		Remedy: []string{"ibdoctor doctor on the node (port rate, PCIe, kernel log in runbook order)", "swap the node's cable or move it to another switch port, then rerun ibdoctor perf pairwise"},
	},
	{
		ID: "perf.pair_slow", Severity: finding.Warning, Area: "perf", Step: finding.StepPerf,
		Title:   "one node pair is slow",
		Meaning: "This pair's test fell below the slow fraction of the reference while both nodes did well with other partners: the problem lies on the path between them (a switch link or route they share), or it was transient.",
		Thresholds: []finding.Threshold{
			{Name: "slow_fraction", Default: limits.Float(limits.PairSlowFraction), Meaning: "a pair is slow below this fraction of the reference"},
		},
		Causes: []string{"a degraded inter-switch link or a congested route used only by this pair", "unbalanced routing (several flows share one uplink)", "a transient: another job's traffic during the test"},
		Remedy: []string{"rerun the pair alone (ibdoctor perf pairwise with a two-line hosts file)", "ibtracert between the two LIDs and ibdoctor fabric check on the links it crosses"},
	},
	{
		ID: "perf.link_slow", Severity: finding.Critical, Area: "perf", Step: finding.StepPerf,
		Title:   "pairs leaving one leaf switch are slow",
		Meaning: "Every cross-leaf pair with a node behind this leaf is slow while pairs inside the leaf are fine (or were not tested): the leaf's uplinks to the spines are degraded or missing. Needs a topology file.",
		Causes:  []string{"leaf uplink cables down or trained narrow/slow", "uplink errors (symbol errors, link recovery)", "routing sends the leaf's traffic over too few uplinks"},
		Remedy:  []string{"ibdoctor fabric check: link width/speed and errors of the leaf's uplinks", "iblinkinfo on the leaf switch"},
	},
	{
		ID: "perf.switch_slow", Severity: finding.Critical, Area: "perf", Step: finding.StepPerf,
		Title:   "every pair through one switch is slow",
		Meaning: "Every pair through this leaf (including pairs inside it) or through this spine is slow while the rest of the matrix is fine: the switch itself is the common factor. Needs a topology file.",
		Causes:  []string{"switch overheating or in a degraded mode", "switch firmware fault or misconfiguration (QoS, buffers)", "most of its links degraded at once (power, recabling)"},
		Remedy:  []string{"ibdoctor fabric check on the switch's ports", "check the switch's temperature, fans and firmware (vendor tools or UFM)"},
	},
	{
		ID: "perf.pair_failed", Severity: finding.Warning, Area: "perf", Step: finding.StepPerf,
		Title:   "a pairwise test failed",
		Meaning: "The test between two nodes did not complete: an agent refused or was busy, the client could not reach the server side, or the test program failed. The pair is missing from the matrix.",
		Causes:  []string{"agent not running, wrong address or token", "firewall between the nodes on the test port", "perftest failed (device name, GID index, port down)"},
		Remedy:  []string{"curl -H 'Authorization: Bearer $TOKEN' http://<agent>/api/v1/perf/info", "read the error in the finding's evidence"},
	},
	{
		ID: "perf.node_failed", Severity: finding.Critical, Area: "perf", Step: finding.StepPerf,
		Title:   "every pairwise test of a node failed",
		Meaning: "No test with this node completed (at least two partners tried): its agent is unreachable or refuses, or its network is down.",
		Causes:  []string{"agent down, wrong address or token in the hosts file", "node's test network or port down"},
		Remedy:  []string{"curl -H 'Authorization: Bearer $TOKEN' http://<agent>/api/v1/perf/info", "ibdoctor check on the node"},
	},
}
