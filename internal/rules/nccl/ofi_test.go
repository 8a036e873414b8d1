package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestOFIFindings: failures of the aws-ofi-nccl net plugin. Lines from
// aws/aws-ofi-nccl#1020 (fi_getinfo found no provider in a p5
// container), #156 (a completion error on EFA, RC 20) and #22 (fi_av_open
// refused on both ranks), realworld-fresh35.
func TestOFIFindings(t *testing.T) {
	const (
		getinfo = "[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available\n"
		cqErr   = "[1,13]<stdout>:nccl-tests-worker-1:35:89 [5] ofi_process_cq:1039 NCCL WARN NET/OFI Request 0x7fbb944701b8 completed with error. RC: 20. Error: unknown error. Completed length: 0, Request: { buffer_index: 255, dev: 1, size: 0, state: CREATED, direction: SEND }\n"
		av      = "WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n"
	)
	tests := []struct {
		name, input string
		want        []string
		sum         []string
	}{
		{"fi_getinfo failed, nothing else", getinfo, []string{"libfabric.provider_unavailable/critical"}, []string{"fi_getinfo failed 1 time(s) (No data available)", "no EFA network"}},
		// aws-ofi-nccl 1.x (aws/aws-ofi-nccl#67, realworld-fresh69).
		{"no optimal provider", "10.3.35.83: WARN: Function: find_ofi_provider Line: 543: NET/OFI Couldn't find any optimal provider\n",
			[]string{"libfabric.provider_unavailable/critical"}, []string{"fi_getinfo failed 1 time(s) (No data available)"}},
		{"fi_getinfo failed, NCCL uses its IB transport", getinfo +
			"[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.0.1<0>\n" +
			"[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] NCCL INFO Using network IB\n",
			[]string{"libfabric.provider_unavailable/warning"}, []string{"NCCL uses its IB transport instead"}},
		{"fi_getinfo failed, the same host's process uses IB", "gpu1:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available\n" +
			"gpu1:1929:1937 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n" +
			"gpu1:1929:1937 [0] NCCL INFO Using network IB\n",
			[]string{"libfabric.provider_unavailable/warning"}, []string{"NCCL uses its IB transport instead"}},
		{"fi_getinfo failed, another host says nothing of its network", "gpu1:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available\n" +
			"gpu1:1929:1937 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n" +
			"gpu1:1929:1937 [0] NCCL INFO Using network IB\n" +
			"gpu2:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available\n",
			[]string{"libfabric.provider_unavailable/critical"}, []string{"fi_getinfo failed 2 time(s)"}},
		{"fi_getinfo failed, sockets", getinfo +
			"[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n" +
			"[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] NCCL INFO Using network Socket\n",
			[]string{"libfabric.provider_unavailable/critical", "nccl.socket_fallback/warning"}, []string{"fi_getinfo failed"}},
		{"completion error", cqErr, []string{"nccl.ibv_error/critical"}, []string{"RC 20 (unknown error) on a SEND request", "security group"}},
		{"completion error 113", "h:1:2 [0] NCCL WARN NET/OFI Request 0x55d0 (send) completed with error: err: 113, flags: 0, prov_errno: 4106, strerror: Unreachable remote, len: 0\n",
			[]string{"nccl.ibv_error/critical"}, []string{"RC 113 (Unreachable remote)", "error 113 (host unreachable)"}},
		{"completion error without a code", "h:1:2 [0] NCCL WARN NET/OFI Fatal: rx buffer recv completed with error\n",
			[]string{"nccl.ibv_error/critical"}, []string{"got a completion error on h: an error completion, 1 time(s)"}},
		// aws/aws-ofi-nccl#229 (analyze testdata/realworld-fresh43,
		// nccl-tests-nccl229-efa-provider-tcp-ofi-rxm-2node.txt): two
		// hosts on the tcp;ofi_rxm provider, not efa.
		{"tcp;ofi_rxm provider on two hosts", "ip-192-168-16-255:25604:25604 [0] NCCL INFO NET/Socket : Using [0]eth0:192.168.16.255<0>\n" +
			"ip-192-168-16-255:25604:25604 [0] NCCL INFO NET/OFI Selected Provider is tcp;ofi_rxm\n" +
			"ip-192-168-29-243:24447:24447 [0] NCCL INFO NET/Socket : Using [0]eth0:192.168.29.243<0>\n" +
			"ip-192-168-29-243:24447:24447 [0] NCCL INFO NET/OFI Selected Provider is tcp;ofi_rxm\n",
			[]string{"nccl.socket_fallback/critical"}, []string{"aws-ofi-nccl selected libfabric provider tcp;ofi_rxm on 2 process(es)", "not efa"}},
		{"efa provider on two hosts", "a:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)\n" +
			"b:2:2 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 4 nics)\n",
			nil, nil},
		{"AV open refused on both ranks", av + av, []string{"nccl.resource_error/critical"}, []string{"fi_av_open failed 2 time(s) (Invalid argument)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.input), "t.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
			for _, s := range tt.sum {
				if !strings.Contains(a.Findings[0].Summary, s) {
					t.Errorf("summary %q lacks %q", a.Findings[0].Summary, s)
				}
			}
			if len(a.Findings) > 0 && strings.Contains(a.Findings[0].Summary, "IBV_WC") {
				t.Errorf("an OFI error read as an ibv_wc_status: %q", a.Findings[0].Summary)
			}
		})
	}
}
