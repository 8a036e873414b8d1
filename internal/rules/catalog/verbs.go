package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// verbsMetas are the findings read from the work-completion errors that
// applications and their libraries print outside the tools ibdoctor reads
// by kind (libmlx5's error CQE dump, libfabric, any log line naming an
// ibv_wc_status).
var verbsMetas = []finding.Meta{
	{
		ID: "verbs.completion_error", Severity: finding.Critical, Area: "verbs", Step: finding.StepNCCL,
		Title:   "an RDMA application got a work-completion error",
		Meaning: "An application's log, or a library in it, reports a failed RDMA work completion: libmlx5's 'got completion with error' dump of the error CQE (rdma-core providers/mlx5/cq.c; it prints every error but a flush and a transport retry exhaustion, and the CQE's syndrome gives the ibv_wc_status), a libfabric line with the provider's error ('fi_cq_readerr: err: 5, prov_err: remote access error (10)'), or a log line that ends in the ibv_wc_status_str text or IBV_WC_ name of a failed completion ('transport retry counter exceeded', IBV_WC_RETRY_EXC_ERR). The operation failed and its queue pair went to the error state: the transfer, and usually the job, fails (critical). Flushed work requests alone are fallout of an earlier error (a warning); a status the paste does not show is a warning too. The devices the lines name (a local and a peer NIC) say which path to test.",
		Causes: []string{
			"transport retry counter exceeded: the peer never acknowledged: bit errors, a link flap or drops on the path between the two NICs, a port that is down, RoCE routing or GID mismatch, or a peer process or node that died",
			"remote access error: the peer's memory registration did not allow the operation: it went away (the peer process died or deregistered the buffer), a wrong key or address, or GPUDirect RDMA failed on the peer",
			"local protection error: the local buffer is not covered by a valid registration (with GPU buffers usually GPUDirect RDMA: nvidia-peermem missing, PCIe ACS or IOMMU in the way)",
			"RNR retry counter exceeded: the peer had no receive posted for too long: it stalled or is gone",
			"remote operation, remote invalid request errors: the peer's queue pair failed, or the two ends disagree on the transport (MTU, operation, message size)",
			"flushed work requests: the queue pair was already in the error state: an earlier error (the first failure above the flushes) or a connection torn down",
		},
		Remedy: []string{
			"ibstat (or ibv_devinfo) on both hosts: the ports of the named NICs must be Active/LinkUp; ibdoctor doctor on both",
			"check the error counters and link flaps of both ports and the switch ports between them (ibqueryerrors; RoCE: ethtool -S <netdev> | grep -E 'discard|error|pause')",
			remedyPerftest,
			"local protection error: lsmod | grep peermem; disable ACS on the PCIe switches or set iommu=pt",
		},
	},
}
