package catalog

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// specIDs are the finding IDs of the public contract; each must stay in the
// catalogue (IDs are never renamed or reused).
var specIDs = []string{
	"port.down", "port.polling", "port.disabled", "port.init_no_sm", "port.rate_below_expected",
	"port.width_degraded", "port.speed_degraded", "port.symbol_errors", "port.link_recovery",
	"port.link_flapping", "port.rcv_errors", "port.xmit_discards", "port.congestion",
	"port.counter_saturated", "port.missing", "port.fw_mismatch",
	"rdma.out_of_buffer", "rdma.retransmits", "rdma.cnp_ignored",
	"roce.pfc_storm", "roce.pause_heavy", "roce.ecn_not_effective", "roce.gid_missing_v2",
	"roce.mtu_mismatch", "roce.phy_errors",
	"pcie.link_degraded", "pcie.aer_errors", "gpu.xid", "gpu.fallen_off_bus", "gpu.reset_required", "kmsg.link_flap",
	"kmsg.module_event", "kmsg.mlx5_health", "host.memlock_limited", "topo.gpu_nic_far",
	"container.uverbs_missing", "container.rdma_cm_missing",
	"nccl.ib_disabled", "nccl.ib_hca_unknown", "nccl.ib_hca_prefix_ambiguous", "nccl.ib_hca_port_down",
	"nccl.socket_ifname_missing", "nccl.gid_index_wrong", "nccl.socket_fallback", "nccl.peermem_missing",
	"nccl.timeout", "nccl.ibv_error", "nccl.busbw_low", "nccl.small_msg_latency", "nccl.wrong_results",
	"fabric.link_down", "fabric.link_degraded", "fabric.link_errors", "fabric.duplicate_guid",
	"fabric.duplicate_lid", "fabric.no_lid", "fabric.sm_missing", "fabric.sm_multiple_masters",
	"fabric.cable_missing", "fabric.cable_unexpected", "fabric.cable_miswired",
	"fabric.route_missing", "fabric.route_loop", "fabric.route_nonminimal",
	"fabric.route_imbalance", "fabric.credit_loop", "fabric.tree_asymmetric",
	"perf.bw_low", "perf.lat_high", "perf.pair_slow", "perf.node_slow",
}

func TestSpecIDsCatalogued(t *testing.T) {
	for _, id := range specIDs {
		if _, ok := Default.Lookup(id); !ok {
			t.Errorf("contract finding ID %s is not in the catalogue", id)
		}
	}
}

func TestEntriesComplete(t *testing.T) {
	for _, m := range Default.All() {
		if m.Meaning == "" || len(m.Causes) == 0 || len(m.Remedy) == 0 || m.Area == "" || m.Step == 0 {
			t.Errorf("%s: every entry needs meaning, causes, remedy, area and step: %+v", m.ID, m)
		}
		if area, _, _ := strings.Cut(m.ID, "."); area == "" {
			t.Errorf("%s: ID must be area.name", m.ID)
		}
	}
}

// Every catalogued ID is named by at least one test outside this package
// (every ID has a rule, a test, and a line in `ibdoctor rules`).
func TestEveryIDHasATest(t *testing.T) {
	var tests strings.Builder
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, "_test.go") && !strings.Contains(p, filepath.Join("internal", "rules", "catalog")) {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			tests.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := tests.String()
	for _, m := range Default.All() {
		if !namesID(all, m.ID) {
			t.Errorf("no test names %s", m.ID)
		}
	}
}

// namesID reports whether text contains id as a whole token (not as the
// prefix of a longer ID such as nccl.busbw_low_small).
func namesID(text, id string) bool {
	word := func(c byte) bool { return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	for i := 0; ; {
		j := strings.Index(text[i:], id)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(id)
		if (j == 0 || !word(text[j-1])) && (end == len(text) || !word(text[end]) || text[end] == '.') {
			return true
		}
		i = j + 1
	}
}
