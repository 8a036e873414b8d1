package catalog

import "github.com/ibdoctor/ibdoctor/internal/finding"

// perfMetas are the findings of perftest output analysis (and, from the
// pairwise engineer, of pairwise tests).
var perfMetas = []finding.Meta{
	{
		ID: "perf.bw_low", Severity: finding.Critical, Area: "perf", Step: StepPerf,
		Title:   "RDMA bandwidth below the link's line rate",
		Meaning: "perftest bandwidth at large messages falls short of the link's line rate. A healthy HDR (200 Gb/s) link reaches about 190 Gb/s with ib_write_bw; more than 20% short is critical (the seed's threshold), more than 10% a warning.",
		Thresholds: []finding.Threshold{
			{Name: "bw_warning", Default: "90%", Meaning: "below this fraction of the line rate: warning"},
			{Name: "bw_critical", Default: "80%", Meaning: "below this fraction of the line rate: critical"},
		},
		Causes: []string{"link trained at a lower width or speed", "HCA in a narrow or slow PCIe slot (x8 instead of x16)", "congestion or errors on the path", "only one port or one QP used on a multi-port setup"},
		Remedy: []string{"ibdoctor status on both nodes (rate, width, speed)", "lspci -vv for the HCA's LnkSta", "rerun with -q 4 and a larger -s to rule out the test itself"},
	},
	{
		ID: "perf.lat_high", Severity: finding.Warning, Area: "perf", Step: StepPerf,
		Title:   "RDMA latency above the expected floor",
		Meaning: "perftest latency at small messages is above the floor of the link type: about 1 us for IB write/send (the seed's 'under 1 us'), twice that for reads (a round trip) and for RoCE. Counted from t_typical (the median), so one outlier does not trip it.",
		Thresholds: []finding.Threshold{
			{Name: "lat_factor", Default: "1.5", Meaning: "multiple of the floor above which latency is high"},
		},
		Causes: []string{"many switch hops or a detour in routing", "CPU power saving (C-states, frequency scaling) on either host", "RoCE: PFC pauses or congestion", "test run through rdma_cm or with events (-e) instead of polling"},
		Remedy: []string{"disable deep C-states, pin the test to a core near the HCA (taskset)", "ibdoctor fabric check for the route between the nodes"},
	},
	{
		ID: "perf.test_invalid", Severity: finding.Warning, Area: "perf", Step: StepPerf,
		Title:   "the test itself cannot show line rate",
		Meaning: "The perftest banner or results show a test that misleads: the two ends disagree on MTU, a RoCE test uses a link-local GID, or messages are too small to judge bandwidth. Fix the test before trusting or distrusting the network.",
		Causes:  []string{"different MTU configured on the two ends", "wrong GID index (-x) for RoCE v2", "message size (-s) too small"},
		Remedy:  []string{"rerun with the same -m on both ends, -x set to the RoCE v2 GID (show_gids), and -s 65536 or larger (or -a)"},
	},
}
