package nccl

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// programBWFloorGBps is the bus bandwidth below which a program's own
// result for a message of programBWMinSize or more is too slow for any
// network NCCL runs on: one 1 Gb/s Ethernet link carries 0.125 GB/s, an
// RDMA NIC of 100 Gb/s or more about a hundred times that. Smaller
// messages are latency bound and are not judged.
const (
	programBWFloorGBps float64 = 0.1
	programBWMinSize   int64   = 1 << 20
)

// programBWFindings judges the bus bandwidth a program printed in its own
// words beside an NCCL log (nccllog.ProgramBW) whose communicator crosses
// the network (connections "via NET/…" or more than one node): under
// programBWFloorGBps at a message of programBWMinSize or more is
// nccl.busbw_low, a warning (the fabric's rate is not in the paste).
func programBWFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	var nets []string
	for _, p := range lg.Procs {
		for k := range p.Via {
			name := strings.TrimSuffix(k, "/GDRDMA")
			if !contains(nets, name) {
				nets = append(nets, name)
			}
		}
		if p.NNodes > 1 && len(nets) == 0 {
			nets = append(nets, fmt.Sprintf("%d nodes", p.NNodes))
		}
	}
	if len(nets) == 0 {
		return nil
	}
	for _, b := range lg.ProgramBW {
		if b.Size < programBWMinSize || b.GBps >= programBWFloorGBps {
			continue
		}
		f := catalog.New("nccl.busbw_low", subj, fmt.Sprintf("the program's own result says bus bandwidth %.2f GB/s at %s messages over the network (%s): under %.1f GB/s, less than one 1 Gb/s Ethernet link carries, where an RDMA NIC of 100 Gb/s or more gives about %.0f GB/s",
			b.GBps, FormatBytes(b.Size), strings.Join(nets, ", "), programBWFloorGBps, floorNICGbps/8*0.8),
			finding.Evidence{Source: at(b.Source, b.Line), Value: b.Text})
		f.Severity = finding.Warning
		f.Causes = []string{
			"the net plugin or transport moves data through host memory or a slow path (GDR 0, a socket fallback, a plugin bug or a debug build)",
			"a link or port on the path degraded (rate, width, errors) or RoCE drops and retransmissions",
			"the benchmark times something other than the transfer (setup, synchronisation)",
		}
		f.Remedy = []string{
			"ib_write_bw -d DEV --report_gbits on one node, ib_write_bw -d DEV --report_gbits HOST on the other (DEV: the RDMA device the plugin uses, HOST: the first node): what the link itself carries",
			"all_reduce_perf -b 8 -e 1G -f 2 -g 1 (nccl-tests) across the nodes with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET, read with 'ibdoctor analyze'",
			"ibdoctor doctor on each node: port state, rate, error counters",
		}
		return []finding.Finding{f}
	}
	return nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
