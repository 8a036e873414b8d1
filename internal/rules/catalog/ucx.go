package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// ucxMetas are the findings read from UCX logs (MPI, OpenSHMEM,
// ucx_perftest and UCX-based frameworks).
var ucxMetas = []finding.Meta{
	{
		ID: "ucx.completion_error", Severity: finding.Critical, Area: "ucx", Step: finding.StepNCCL,
		Title:   "UCX got an InfiniBand work-completion error",
		Meaning: "A UCX transport on an HCA port got a work completion with an error ('Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 …)', or the verbs transports' 'Send completion with error: …'). The mlx5 CQE syndrome is decoded to the ibv_wc_status the mlx5 provider reports: 0x15 (status 12, retry exceeded) means the peer never acknowledged: a lossy or broken path or a dead peer; 0x4 (status 4, local protection) a memory registration problem, with GPU buffers usually GPUDirect RDMA; 0x13/0x14 (status 10/11, remote access/operation) the peer's memory or QP went away, often because the peer process died. The remote LID of the work request names the peer to look at; errors on many ranks that all name one LID point at that node or the path to it.",
		Causes: []string{
			"status 12: bit errors, a link flap or congestion drops on the path to the peer; the peer process or node died; RoCE routing or GID mismatch",
			"status 4: GPUDirect RDMA registration failed (nvidia-peermem not loaded, PCIe ACS or IOMMU blocks peer-to-peer), or a buffer freed while in flight",
			"status 10: the peer's memory registration went away (the peer process died or deregistered) or GPUDirect failed on the peer",
			"status 11: the peer's QP or receive queue failed (the peer process died, or a transport or MTU mismatch between the ends)",
			"status 13: the peer had no receive posted for too long: it stalled or is gone",
		},
		Remedy: []string{
			"find the node with the remote LID (smpquery nodedesc <lid>) and run ibdoctor doctor on both ends",
			"check the port error counters and link flaps of both HCAs and the switch ports between them (ibqueryerrors)",
			"status 4: lsmod | grep peermem; disable ACS on the PCIe switches or set iommu=pt",
			remedyPerftest,
		},
	},
	{
		ID: "ucx.error", Severity: finding.Critical, Area: "ucx", Step: finding.StepNCCL,
		Title:   "UCX reported an error",
		Meaning: "A UCX ERROR or FATAL line that is not a work-completion error: an endpoint timeout (the peer stopped answering), a destination UCX cannot reach over any transport, a connection reset, a verbs or DEVX call that failed, or a device it does not recognise. The first error in time is the cause; the MPI layer's 'Error: ucp_ep_create(…) failed' lines and later errors of the same kind are its consequences. Without an error, UCX's warning that a device it was told to use is not available is reported too: critical when the devices it offers instead are all TCP (the process sees no RDMA device, so its traffic goes over sockets), a warning when they include RDMA devices (a wrong name in UCX_NET_DEVICES).",
		Causes: []string{
			"Endpoint timeout: the peer process or node died or hung, or the path to it lost packets long enough (UD and keepalive timeouts)",
			"Destination is unreachable: no transport both ends share (UCX_TLS or UCX_NET_DEVICES differ, a device down, RoCE without a routable GID, TCP to an interface that cannot route)",
			"a failed verbs or DEVX call (ibv_reg_mr, mlx5dv_devx_obj_create): locked-memory limit, firmware too old for the feature, or a device in error",
			"Connection reset: the peer closed its endpoint (it exited or crashed)",
			"a device not available: the container was started without /dev/infiniband, the RDMA driver is not loaded, or UCX_NET_DEVICES names a device this node lacks",
		},
		Remedy: []string{
			"read the first error and the host it names; run ibdoctor doctor on that host and on its peer",
			"ucx_info -d on both ends: the same transports and devices must be listed and ACTIVE; align UCX_TLS and UCX_NET_DEVICES",
			"rerun with UCX_LOG_LEVEL=info to see the transports each endpoint selected",
		},
	},
}
