package analyze

import (
	"slices"
	"strings"
	"testing"
)

// TestVerbsLogSpans: work-completion error lines of an application open a
// verbs-log output after prose or benchmark rows, and stay in the output
// of a tool that reads its own completion errors (libmlx5's dump under a
// UCX error). Lines from ofiwg/libfabric#4283, kvcache-ai/Mooncake#955 and
// openucx/ucx#1569 (testdata/realworld-fresh11).
func TestVerbsLogSpans(t *testing.T) {
	dump := "mlx5: cn10: got completion with error:\n00000000 00000000 00000000 00000000\n00000000 00000000 00000000 00000000\n00000002 00000000 00000000 00000000\n00000000 00008813 10012abe 0dd0c1d3\n"
	for _, tt := range []struct {
		name  string
		text  string
		kinds []Kind
		ids   []string
		exit  int
	}{
		{"OSU rows, libmlx5 dump, libfabric", "524288               2695.39           2672.63           2712.05         100\n" + dump +
			"libfabric:ofi_rxm:cq:rxm_cq_read_write_error():819<warn> fi_cq_readerr: err: 5, prov_err: remote access error (10)\n",
			[]Kind{KindVerbsLog}, []string{"verbs.completion_error"}, 2},
		{"glog line behind prose", "PS: with NCCL_IB_HCA=mlx5_3 it works\n\nE1023 04:59:20.346201 375956 worker_pool.cpp:294] Worker: Process failed for slice (opcode: 1, local_nic: mlx5_9, peer_nic: 192.168.1.161:16360@mlx5_7, retry_cnt: 0): transport retry counter exceeded\n",
			[]Kind{KindVerbsLog}, []string{"verbs.completion_error"}, 2},
		{"the dump under a UCX error is UCX's", "[1496344648.548260] [vegas06:14879:0]       dc_verbs.c:614  UCX  ERROR Send completion with error on qp 0x6214: remote access error syndrome 0x88\n" + dump,
			[]Kind{KindUCXLog}, []string{"ucx.completion_error"}, 2},
		// kvcache-ai/Mooncake#117 (testdata/realworld-fresh27): a slice
		// failed with "general error" on erdma_0, then the QP-fatal async
		// event on the same device.
		{"general error, then an async event", "E0222 20:07:21.119704 2179433 worker_pool.cpp:291] Worker: Process failed for slice (opcode: 0, source_addr: 0x7f5cfc000000, length: 65536, dest_addr: 140123979120640, local_nic: erdma_0, peer_nic: 10.0.0.41:7712@erdma_0, dest_rkey: 39908608, retry_cnt: 0): general error\n" +
			"W0222 20:07:21.119717 2179435 worker_pool.cpp:399] Worker: Received context async event local work queue catastrophic error for context erdma_0\n",
			[]Kind{KindVerbsLog}, []string{"verbs.async_event", "verbs.completion_error"}, 2},
		{"an informational async event alone", "I0222 20:07:21.119717 2179435 worker_pool.cpp:399] Worker: Received context async event port active for context mlx5_0\n",
			[]Kind{KindVerbsLog}, []string{"verbs.async_event"}, 0},
		// spdk/spdk#272 (testdata/realworld-fresh27): libibverbs' warnings
		// inside an SPDK nvmf_tgt log, then "No such device": no device is
		// usable; the same warnings without such a line are a warning.
		{"provider warnings in an SPDK log", "rdma.c:1136:spdk_nvmf_rdma_create: *NOTICE*: *** RDMA Transport Init ***\n" +
			"libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs1\n" +
			"libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0\n" +
			"rdma.c:1144:spdk_nvmf_rdma_create: *ERROR*: rdma_create_event_channel() failed, No such device\n" +
			"nvmf.c: 255:spdk_nvmf_tgt_listen: *ERROR*: Transport initialization failed\n",
			[]Kind{KindVerbsLog}, []string{"host.verbs_provider_missing"}, 2},
		{"provider warnings, nothing after", "rdma.c:1136:spdk_nvmf_rdma_create: *NOTICE*: *** RDMA Transport Init ***\n" +
			"libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs1\n",
			[]Kind{KindVerbsLog}, []string{"host.verbs_provider_missing"}, 1},
		// The whole of spdk/spdk#272's failure: libibverbs' warning is the
		// cause, reported alone; without it the transport lines are
		// rdma.transport_unavailable.
		{"provider warnings, then the RDMA transport failed", "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0\n" +
			"rdma.c:1144:spdk_nvmf_rdma_create: *ERROR*: rdma_create_event_channel() failed, No such device\n" +
			"transport.c:  76:spdk_nvmf_transport_create: *ERROR*: Unable to create new transport of type RDMA\n",
			[]Kind{KindVerbsLog}, []string{"host.verbs_provider_missing"}, 2},
		{"SPDK's RDMA transport failed", "transport.c:  76:spdk_nvmf_transport_create: *ERROR*: Unable to create new transport of type RDMA\n" +
			"nvmf.c: 255:spdk_nvmf_tgt_listen: *ERROR*: Transport initialization failed\n" +
			"conf.c: 284:spdk_nvmf_parse_subsystem: *ERROR*: Failed to listen on transport RDMA address 10.0.0.12:4420\n",
			[]Kind{KindVerbsLog}, []string{"rdma.transport_unavailable"}, 2},
		// kvcache-ai/Mooncake#1384 (testdata/realworld-fresh31): the
		// transfer engine's glog lines behind prose.
		{"Mooncake: no RNIC", "When initialize Mooncake transfer engine, it failed\n\n" +
			"E0115 05:20:19.945159   309 rdma_context.cpp:81] Failed to open device mlx5_8 on port  with GID 0\n" +
			"E0115 05:20:19.945191   309 rdma_transport.cpp:662] RdmaTransport: No available RNIC\n",
			[]Kind{KindVerbsLog}, []string{"rdma.transport_unavailable"}, 2},
		// k8snetworkplumbingwg/sriov-cni#348 (testdata/realworld-fresh16):
		// the same warnings in ibv_devinfo's output stay its own, read
		// with the devices it listed (none).
		{"provider warnings in ibv_devinfo's output", "root@testpod1:/# ibv_devinfo\n" +
			"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2\n" +
			"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2\n" +
			"No IB devices found\n",
			[]Kind{KindDevinfo}, []string{"host.verbs_provider_missing"}, 2},
		// The same warning inside a NCCL log, whose reader does not judge
		// it, before NCCL's "NET/IB : No device found.".
		{"a provider warning inside a NCCL log", "node1:123:123 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n" +
			"libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0\n" +
			"node1:123:123 [0] NCCL INFO NET/IB : No device found.\n" +
			"node1:123:123 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n" +
			"node1:123:123 [0] NCCL INFO Using network Socket\n",
			[]Kind{KindNCCLLog}, []string{"host.verbs_provider_missing", "nccl.socket_fallback"}, 2},
		{"prose naming a status", "In addition to the .status 9 (IBV_WC_REM_INV_REQ_ERR), there is a .vendor_err field with value 138 (or 0x8a)\n",
			nil, nil, 3},
	} {
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
