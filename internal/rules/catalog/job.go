package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// jobMetas are the catalogue entries of `ibdoctor fabric job`: one job's
// flows followed through the static forwarding tables.
var jobMetas = []finding.Meta{
	{
		ID: "fabric.job_congested", Severity: finding.Warning, Area: "fabric", Step: finding.StepFabric,
		Title:   "a job's collective is predicted to collide on the static routes",
		Meaning: "The flows of the job's collective (an NCCL ring per rail in host order, a tree, all-to-all or pairs), followed hop by hop through the switches' linear forwarding tables, share links: InfiniBand routes are static, so two flows of one all-reduce can share an uplink while other uplinks idle, and the whole collective runs at the speed of its most shared link without any error counter moving. The predicted fraction is the slowest flow's share over what its own host links allow at the fabric's rate (1.0 on a contention-free fabric); each link runs at its own width × lane speed, so a link trained at 1X or SDR is a bottleneck even for one flow.",
		Thresholds: []finding.Threshold{
			{Name: "congested", Default: "0.75", Meaning: "predicted fraction below which the placement is reported (fabric job --congested)"},
		},
		Causes: []string{"ring neighbours placed under different leaves, so most flows cross the spines and several meet on one uplink", "a leaf with missing or down uplinks: the routing engine funnels its traffic through the survivors", "a routing engine that ignores the tree (minhop without ftree/updn on a fat-tree)", "a degraded link on the job's routes (narrower or slower than the fabric, or with errors): the report names the hosts whose removal takes every flow off it"},
		Remedy: []string{"write the proposed order (leaf by leaf) with ibdoctor fabric job --out-hostfile better.txt, then start the job from that file: mpirun's hostfile option, or SLURM_HOSTFILE with srun's arbitrary distribution", "restore the leaf's missing uplinks (ibdoctor fabric check lists links down) and reroute", "use the ftree routing engine for fat-trees (opensm routing_engine ftree)", "repair the degraded link (ibdoctor fabric check: fabric.link_degraded, fabric.link_errors), or leave out the hosts the report names"},
	},
}
