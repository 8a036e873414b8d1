package ucx

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdev2netdev"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxperf"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// CheckPerf judges ucx_perftest tables. A bandwidth test (a name ending
// in "_bw") whose Final row's overall bandwidth falls short of the line
// rate (Gb/s; 0: not known) is perf.bw_low, with the thresholds perftest
// results are judged by (critical under limits.PerfBWCrit of the rate,
// a warning under limits.PerfBWWarn). Without a line rate nothing is
// judged but noted; a table without its Final row is noted (the run was
// cut or failed before it ended). CSV rows (-f) are not judged against the
// line rate: their message sizes come from the batch file, not the output.
func CheckPerf(tests []*ucxperf.Test, lineRateGbps float64, source string) (out []finding.Finding, notes []string) {
	csv := 0
	defer func() {
		if csv > 0 {
			notes = append(notes, fmt.Sprintf("%d CSV rows (-f): the message size of each is set by its batch file line, which the output does not show, so bandwidth is not judged against the line rate (small messages reach a fraction of it by nature)", csv))
		}
	}()
	for _, t := range tests {
		name := t.Name
		if name == "" {
			name = "ucx_perftest"
		}
		if t.Final == nil {
			notes = append(notes, fmt.Sprintf("line %d: %s printed no Final row (%d progress rows): the run was cut or stopped before it ended, not judged", t.Line, name, len(t.Rows)))
			continue
		}
		if !IsBandwidthTest(t.Name) {
			continue
		}
		if t.CSV {
			csv++
			continue
		}
		if lineRateGbps <= 0 {
			notes = append(notes, fmt.Sprintf("%s: bandwidth not judged: give --line-rate (e.g. 200 for HDR, 400 for NDR)", name))
			continue
		}
		gbps := t.Final.BWOverall * 8 / 1000
		frac := gbps / lineRateGbps
		if frac >= limits.PerfBWWarn {
			continue
		}
		f := catalog.New("perf.bw_low", finding.Subject{File: source},
			fmt.Sprintf("ucx_perftest %s reached %.1f of %.0f Gb/s (%.0f%%) overall", name, gbps, lineRateGbps, frac*100),
			finding.Evidence{Source: fmt.Sprintf("%s:%d", source, t.Final.Line), Value: fmt.Sprintf("Final: %d iterations, %.2f MB/s overall", t.Final.Iterations, t.Final.BWOverall)})
		if frac >= limits.PerfBWCrit {
			f.Severity = finding.Warning
		}
		out = append(out, f)
	}
	return out, notes
}

// IsBandwidthTest says whether a ucx_perftest test measures bandwidth
// (tag_bw, put_bw, ucp_am_bw, stream_bw …); "" (unnamed) does not count.
func IsBandwidthTest(name string) bool {
	return len(name) > 3 && name[len(name)-3:] == "_bw"
}

// CheckNetDevices judges the UCX_NET_DEVICES a ucx_perftest run was given
// (set at line of source): UCX names its RDMA devices by device and port
// ("mlx5_0:1", what ucx_info -d lists for the rc, ud and dc transports)
// and its TCP transport's by network interface, so a list of IPoIB
// interfaces alone ("ib0") leaves UCX only TCP over IPoIB on an
// InfiniBand host: mpi.rdma_not_used, a warning (the run works, at a
// fraction of the port's bandwidth), with the bandwidth the run reached.
func CheckNetDevices(netDevices string, line int, tests []*ucxperf.Test, source string) []finding.Finding {
	devs := strings.Split(netDevices, ",")
	for _, d := range devs {
		if strings.Contains(d, ":") || !ibdev2netdev.IPoIB(d) {
			return nil
		}
	}
	sum := fmt.Sprintf("UCX_NET_DEVICES=%s names only IPoIB interfaces: UCX's InfiniBand transports (rc, ud, dc) take an HCA port (mlx5_0:1), so UCX runs its tcp transport over IPoIB and RDMA is not used", netDevices)
	for _, t := range tests {
		row := t.Final
		if row == nil && len(t.Rows) > 0 {
			row = &t.Rows[len(t.Rows)-1]
		}
		if row == nil || !IsBandwidthTest(t.Name) && t.Name != "" {
			continue
		}
		name := t.Name
		if name != "" {
			name = " " + name
		}
		sum += fmt.Sprintf("; ucx_perftest%s reached %.0f MB/s (%.1f Gb/s), a small fraction of an InfiniBand port", name, row.BWOverall, row.BWOverall*8/1000)
		break
	}
	f := catalog.New("mpi.rdma_not_used", finding.Subject{File: source, NetDev: devs[0]}, sum,
		finding.Evidence{Source: fmt.Sprintf("%s:%d", source, line), Value: "UCX_NET_DEVICES=" + netDevices})
	f.Causes = []string{"UCX_NET_DEVICES set to the IPoIB interface (ib0) instead of the HCA port behind it (mlx5_0:1): UCX matches its RDMA transports by device:port and its tcp transport by interface"}
	f.Remedy = []string{
		"ucx_info -d | grep -E 'Transport|Device': the HCA ports (mlx5_0:1) UCX's rc, ud and dc transports can use",
		"ibdev2netdev (or rdma link show): the HCA port behind " + devs[0] + "; set UCX_NET_DEVICES to that port (UCX_NET_DEVICES=mlx5_0:1) or leave it unset, and UCX_TLS=rc,sm,self to require RDMA",
		"rerun ucx_perftest with the same flags: tag_bw over RDMA should reach most of the port's line rate",
	}
	return []finding.Finding{f}
}
