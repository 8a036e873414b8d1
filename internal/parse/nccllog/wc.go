package nccllog

import "fmt"

// WCStatus is an ibv_wc_status code of a work completion (rdma-core
// libibverbs/verbs.h enum ibv_wc_status; names from ibv_wc_status_str in
// libibverbs/enum_strs.c).
type WCStatus int

// WCStatusInfo explains one status for an operator.
type WCStatusInfo struct {
	Name string `json:"name"` // IBV_WC_RETRY_EXC_ERR
	Text string `json:"text"` // ibv_wc_status_str: "transport retry counter exceeded"
	// Meaning says what it usually means on a GPU cluster, "" when it
	// has no specific reading.
	Meaning string `json:"meaning,omitempty"`
	// Fallout is set for statuses that are consequences of an earlier
	// error (flushed work requests), never a root cause.
	Fallout bool `json:"fallout,omitempty"`
}

// Work-completion statuses that rules single out.
const (
	WCSuccess      WCStatus = 0
	WCLocProtErr   WCStatus = 4
	WCWRFlushErr   WCStatus = 5
	WCRemAccessErr WCStatus = 10
	WCRetryExcErr  WCStatus = 12
	WCRNRRetryErr  WCStatus = 13
)

var wcStatuses = []WCStatusInfo{
	0:  {"IBV_WC_SUCCESS", "success", "", false},
	1:  {"IBV_WC_LOC_LEN_ERR", "local length error", "a receive buffer was too small for the incoming message: mismatched peers or an application bug", false},
	2:  {"IBV_WC_LOC_QP_OP_ERR", "local QP operation error", "the work request was malformed for this QP (internal error or a mismatched plugin)", false},
	3:  {"IBV_WC_LOC_EEC_OP_ERR", "local EE context operation error", "", false},
	4:  {"IBV_WC_LOC_PROT_ERR", "local protection error", "the local buffer is not covered by a valid memory registration: with GPU buffers usually GPUDirect RDMA (nvidia-peermem missing, PCIe ACS or IOMMU blocking peer-to-peer)", false},
	5:  {"IBV_WC_WR_FLUSH_ERR", "Work Request Flushed Error", "the QP had already entered the error state and flushed its queued work: fallout of an earlier error, not the cause", true},
	6:  {"IBV_WC_MW_BIND_ERR", "memory management operation error", "", false},
	7:  {"IBV_WC_BAD_RESP_ERR", "bad response error", "the responder sent an unexpected transport opcode", false},
	8:  {"IBV_WC_LOC_ACCESS_ERR", "local access error", "protection error on local data buffers during an RDMA write-with-immediate", false},
	9:  {"IBV_WC_REM_INV_REQ_ERR", "remote invalid request error", "the peer rejected the request (message too long, invalid opcode, or the peer's QP is in error)", false},
	10: {"IBV_WC_REM_ACCESS_ERR", "remote access error", "the peer's memory key or access rights did not allow the operation: its registration went away (the peer process died or deregistered) or GPUDirect failed on the peer", false},
	11: {"IBV_WC_REM_OP_ERR", "remote operation error", "the peer could not complete the operation (its receive queue or memory failed)", false},
	12: {"IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded", "the peer never acknowledged: a lossy or broken path (bit errors, link flap, RoCE drops or routing/GID mismatch) or a dead peer process or node", false},
	13: {"IBV_WC_RNR_RETRY_EXC_ERR", "RNR retry counter exceeded", "the peer had no receive posted for too long: the peer process stalled or is gone", false},
	14: {"IBV_WC_LOC_RDD_VIOL_ERR", "local RDD violation error", "", false},
	15: {"IBV_WC_REM_INV_RD_REQ_ERR", "remote invalid RD request", "", false},
	16: {"IBV_WC_REM_ABORT_ERR", "aborted error", "the peer aborted the operation", false},
	17: {"IBV_WC_INV_EECN_ERR", "invalid EE context number", "", false},
	18: {"IBV_WC_INV_EEC_STATE_ERR", "invalid EE context state", "", false},
	19: {"IBV_WC_FATAL_ERR", "fatal error", "the HCA hit a fatal error: check dmesg for mlx5 health events and firmware asserts", false},
	20: {"IBV_WC_RESP_TIMEOUT_ERR", "response timeout error", "the response did not arrive in time", false},
	21: {"IBV_WC_GENERAL_ERR", "general error", "the driver reported an error that fits no other status: look at vendor_err and dmesg", false},
	22: {"IBV_WC_TM_ERR", "TM error", "", false},
	23: {"IBV_WC_TM_RNDV_INCOMPLETE", "TM software rendezvous", "", false},
}

// Info returns the description of a status; unknown codes get a name that
// says so.
func (s WCStatus) Info() WCStatusInfo {
	if s >= 0 && int(s) < len(wcStatuses) {
		return wcStatuses[s]
	}
	return WCStatusInfo{Name: fmt.Sprintf("status %d", int(s)), Text: "unknown status"}
}

// WCStatuses returns the table of every ibv_wc_status, indexed by code.
func WCStatuses() []WCStatusInfo { return append([]WCStatusInfo(nil), wcStatuses...) }

// String renders "12 (IBV_WC_RETRY_EXC_ERR: transport retry counter exceeded)".
func (s WCStatus) String() string {
	i := s.Info()
	return fmt.Sprintf("%d (%s: %s)", int(s), i.Name, i.Text)
}
