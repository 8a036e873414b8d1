package perftest

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/perftest"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// TCPRate is a TCP throughput measured beside a perftest run in the same
// paste (iperf or iperf3): Source is its file:line, Text the line.
type TCPRate struct {
	Gbps         float64
	Source, Text string
	Tool         string
}

// belowTCP is the share of the TCP rate under which RDMA on the same path
// is judged slow: hardware RDMA moves at least what TCP does on the same
// link, with the CPU out of the data path.
const belowTCP = 0.5

// CheckAgainstTCP compares the bandwidth tests of results with a TCP
// rate measured in the same paste: a best average (at MinBWBytes or more)
// under half of it is perf.bw_low. On hardware RDMA that is critical (the
// RDMA path is broken or misconfigured, since TCP on the same link goes
// faster); on Soft-RoCE or soft-iWARP (rxe, siw) a warning: those run
// the RDMA transport on the CPU, one kernel thread per direction, and
// are routinely slower than TCP with the NIC's offloads.
func CheckAgainstTCP(results []*perftest.Result, tcp TCPRate) []finding.Finding {
	var fs []finding.Finding
	if tcp.Gbps <= 0 {
		return nil
	}
	for _, r := range results {
		if r.Kind != perftest.KindBW || len(r.BW) == 0 {
			continue
		}
		best, _ := bestBW(r.BW)
		if best == nil || best.AvgGbps >= belowTCP*tcp.Gbps {
			continue
		}
		subj := finding.Subject{File: r.Source, Device: r.Device}
		sum := fmt.Sprintf("%s reached %.3g Gb/s (%.4g MB/sec) at %d B, %.0f%% of the %.3g Gbit/s that TCP (%s) measured in the same paste: RDMA on the same path should move at least what TCP does",
			name(r), best.AvgGbps, best.AvgGbps/mibGbps, best.Bytes, 100*best.AvgGbps/tcp.Gbps, tcp.Gbps, tcp.Tool)
		f := catalog.New("perf.bw_low", subj, sum,
			finding.Evidence{Source: at(r, best.Line), Value: fmt.Sprintf("%d B × %d: average %.3g Gb/s", best.Bytes, best.Iterations, best.AvgGbps)},
			finding.Evidence{Source: tcp.Source, Value: tcp.Text})
		if SoftDevice(r.Device) {
			f.Severity = finding.Warning
			f.Summary += fmt.Sprintf("; %s is software RDMA (Soft-RoCE or soft-iWARP): its transport runs on the CPU without the NIC's TCP offloads, so it is CPU-bound and often several times slower than TCP, not a fabric fault", r.Device)
			f.Causes = []string{"Soft-RoCE (rdma_rxe) or soft-iWARP (siw) computes the ICRC, segments and acknowledges every packet on the CPU: one core's throughput caps it, while TCP uses the NIC's segmentation and checksum offloads",
				"a small RDMA MTU (1024, common on rxe) multiplies the per-packet work",
				"a VM's virtual NIC adds a copy per packet"}
			f.Remedy = []string{"for RDMA at line rate use the NIC's hardware RoCE (ibv_devices lists an mlx5_*, bnxt_re*, irdma* device on it) instead of rxe",
				"watch the cores during the test (top, then 1 for one line per core): one core at 100% in softirq or in the rxe kernel threads is the limit",
				"rerun with larger messages and several QPs: ib_send_bw -a -q 4 PEER (rxe scales a little with QPs)"}
		} else {
			f.Causes = []string{"the RDMA traffic takes another, slower path than the TCP test (another port, a lower-rate link, a device on the wrong NUMA node or a narrow PCIe slot)",
				"RoCE without working PFC or ECN: drops and go-back-N retransmission",
				"a path MTU of 1024 or lower, or a single QP with small messages"}
			f.Remedy = []string{"ibv_devinfo -v: the device the test used, its port's state, rate and active_mtu; ibdev2netdev: its netdev is the one the TCP test used",
				"ethtool -S NETDEV and rdma statistic show: drops, out_of_sequence, packet_seq_err during the test",
				"rerun with several QPs and large messages: ib_write_bw -q 4 -s 1048576 PEER"}
		}
		fs = append(fs, f)
	}
	return fs
}
