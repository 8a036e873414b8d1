package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestIBGDAFallback: NVSHMEM's IBGDA fallback warnings beside an NCCL log
// (sgl-project/sglang#9435, realworld-fresh70): one warning naming the
// devices and the driver setting error 800 points to.
func TestIBGDAFallback(t *testing.T) {
	const in = "mjt-worker-0:20353:23626 [3] NCCL INFO Init timings - ncclCommInitRankConfig: rank 3 nranks 32 total 2.29 (kernels 0.00, alloc 0.00, bootstrap 0.45, allgathers 0.19, topo 0.50, graphs 0.09, connections 1.03, rest 0.02)\n" +
		"WARN: cudaHostRegister with IoMemory failed with error=800. We may need to use a fallback path.\n" +
		"\n" +
		"WARN: ibgda_nic_mem_gpu_map failed. We may need to use the CPU fallback path.\n" +
		"WARN: ibgda_alloc_and_map_qp_uar with GPU as handler failed. We may need to enter the CPU fallback path.\n" +
		"WARN: GPU cannot map UAR of device mlx5_bond_0. Skipping...\n" +
		"WARN: GPU cannot map UAR of device mlx5_bond_1. Skipping...\n" +
		"WARN: disk almost full\n"
	lg, err := nccllog.Parse(strings.NewReader(in), "log")
	if err != nil {
		t.Fatal(err)
	}
	a := CheckLog(lg, LogOptions{})
	if diff := cmp.Diff([]string{"nvshmem.ibgda_fallback/warning"}, ids(a.Findings)); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	f := a.Findings[0]
	for _, s := range []string{"mlx5_bond_0, mlx5_bond_1", "(5 warning(s))", "PeerMappingOverride=1"} {
		if !strings.Contains(f.Summary, s) {
			t.Errorf("summary %q lacks %q", f.Summary, s)
		}
	}
	if f.Evidence[0].Source != "log:2" {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// TestRankTraceback: a rank's traceback after a complete init
// (vllm-project/vllm#13052, realworld-fresh70) is a warning; beside a
// critical NCCL failure it adds nothing.
func TestRankTraceback(t *testing.T) {
	const init = "w-cl2ns:13423:13423 [0] NCCL INFO ncclCommInitRank comm 0x3c020f80 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 70 commId 0x86078063f5a85ee6 - Init COMPLETE\n"
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"tagged", init + "[rank0]: Traceback (most recent call last):\n[rank0]:   File \"/home/ray/test.py\", line 43, in <module>\n", []string{"nccl.rank_exception/warning"}},
		{"tag taken off", init + "Traceback (most recent call last):\n", []string{"nccl.rank_exception/warning"}},
		{"in prose", init + "I get a Traceback (most recent call last): after init\n", nil},
		{"beside a truncated message", "h:1:2 [1] transport/net_socket.cc:488 NCCL WARN NET/Socket : peer 10.0.5.194<41988> message truncated : receiving 4 bytes instead of 2.\n[rank9]: Traceback (most recent call last):\n", []string{"nccl.call_failed/critical"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tc.in), "log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tc.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIBGDAInitFailed: NVSHMEM's "init failed for transport: IBGDA"
// (deepseek-ai/DeepEP#139, realworld-fresh77) means the IBGDA transport
// is unusable: critical, with the line as evidence.
func TestIBGDAInitFailed(t *testing.T) {
	const in = "/repo/nvshmem_src/src/host/transport/transport.cpp:nvshmemi_transport_init:275: init failed for transport: IBGDA\n"
	lg, err := nccllog.Parse(strings.NewReader(in), "log")
	if err != nil {
		t.Fatal(err)
	}
	a := CheckLog(lg, LogOptions{})
	if diff := cmp.Diff([]string{"nvshmem.ibgda_fallback/critical"}, ids(a.Findings)); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	if a.Findings[0].Evidence[0].Source != "log:1" {
		t.Errorf("evidence %+v", a.Findings[0].Evidence)
	}
	for _, l := range []string{"nvshmemi_transport_init:275: init failed for transport: IBRC", "init failed for transport: IBGDA"} {
		if nccllog.IBGDAInitFailedLine(l) {
			t.Errorf("%q read as IBGDA init failure", l)
		}
	}
}
