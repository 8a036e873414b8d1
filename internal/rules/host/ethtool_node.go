package host

import (
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
)

// AnalyzeEthtoolOnNode judges `ethtool -S` outputs with what is known of
// the node's RDMA ports — from a paste's `rdma link` and `rdma statistic`
// or a --root — for `ibdoctor analyze`: where a netdev's port and its
// DCQCN hw_counters are known, ECN is judged too (roce.ecn_not_effective)
// and subjects name the port. Without such a port it finds what
// AnalyzeEthtool finds.
func CheckEthtoolOnNode(snap *snapshot.Snapshot, stats ...*ethtool.Stats) []finding.Finding {
	if snap == nil {
		snap = &snapshot.Snapshot{}
	}
	in := &Input{Snap: snap, Ethtool: stats, standalone: true}
	var out []finding.Finding
	for _, check := range []func(*Input) []finding.Finding{checkPFCStorm, checkPauseHeavy, checkECN, checkPHY, checkRxDrops} {
		out = append(out, check(in)...)
	}
	src := ""
	if len(stats) == 1 {
		src = stats[0].Source
	}
	return fileSubjects(out, src)
}
