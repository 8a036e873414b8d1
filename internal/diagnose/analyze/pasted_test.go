package analyze

import (
	"slices"
	"strings"
	"testing"
)

// TestPastedKinds: node, kernel and counter outputs as people paste them
// are recognised as their kind and judged (see also the real-world
// corpus).
func TestPastedKinds(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		kinds []Kind
		ids   []string
		exit  int
	}{
		{"saquery NodeRecord", "sudo saquery 134 -C mlx5_1\nNodeRecord dump:\nlid.....................134\nnode_type...............Channel Adapter\nNodeDescription.........MT4119 ConnectX5   Mellanox Technologies\n",
			[]Kind{KindSARecords}, nil, 0},
		{"topo cut before the legend, every NIC at NODE",
			"\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\tNODE\tSYS\t0-31\t0\nGPU1\tSYS\t X \tSYS\tNODE\t32-63\t1\nNIC0\tNODE\tSYS\t X \tSYS\nNIC1\tSYS\tNODE\tSYS\t X \n",
			[]Kind{KindTopo}, []string{"topo.gpu_nic_far", "topo.gpu_nic_far"}, 1},
		{"topo without NIC columns", "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tPHB\t0-15\t0\nGPU1\tPHB\t X \t0-15\t0\n",
			[]Kind{KindTopo}, nil, 0},
		{"ethtool body after its prompt, no header", "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n$ ethtool -S ens1f0np0 | grep -E 'phy|pause'\nrx_packets_phy: 1000000000\ntx_packets_phy: 1000000000\nrx_pause_ctrl_phy: 0\ntx_pause_ctrl_phy: 90000000\n",
			[]Kind{KindIBStat, KindEthtool}, []string{"roce.pause_heavy"}, 1},
		{"show_counters", "show_counters mlx5_1\nPort 1 hw counters:\nout_of_buffer: 0\nlocal_ack_timeout_err: 17\nreq_cqe_error: 2\nreq_cqe_flush_error: 40\n",
			[]Kind{KindRdma}, []string{"rdma.retransmits"}, 1},
		{"rdma stat show -p", "link mlx5_0/1\n    rx_write_requests 0\n    out_of_buffer 12\n    local_ack_timeout_err 0\n",
			[]Kind{KindRdma}, []string{"rdma.out_of_buffer"}, 1},
		{"dmesg without stamps", "mlx5_core 0000:03:00.0: handle_hca_cap failed\nmlx5_core 0000:03:00.0: mlx5_load_one failed with error code -22\nmlx5_core: probe of 0000:03:00.0 failed with error -22\n",
			[]Kind{KindKernel}, []string{"kmsg.mlx5_health"}, 2},
		{"perfquery of one port", "# Port extended counters: Lid 2052 port 1 (CapMask: 0x5300)\nPortSelect:......................1\nLinkDownedCounter:...............1\nPortXmitDiscards:................20046\nPortXmitWait:....................41864608\n",
			[]Kind{KindPerfQuery}, []string{"port.xmit_discards"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p.txt", Text: tt.text}}, Options{})
			var kinds []Kind
			for _, s := range r.Files[0].Segments {
				if s.Kind != KindUnknown {
					kinds = append(kinds, s.Kind)
				}
			}
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.ID)
			}
			if !slices.Equal(kinds, tt.kinds) || !slices.Equal(got, tt.ids) || r.ExitCode != tt.exit {
				t.Errorf("kinds %v findings %v exit %d; want %v %v %d (%s)", kinds, got, r.ExitCode, tt.kinds, tt.ids, tt.exit, strings.Join(skips(r), "; "))
			}
		})
	}
}

func skips(r *Report) []string {
	var out []string
	for _, s := range r.Files[0].Segments {
		out = append(out, s.Skipped...)
	}
	return out
}
