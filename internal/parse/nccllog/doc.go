// Package nccllog parses NCCL_DEBUG=INFO logs of one or many ranks and
// PyTorch NCCL watchdog reports: which network each process chose, its IB
// devices and socket interfaces, GPUDirect RDMA per HCA, channels and
// connections, NCCL_* overrides, and the warnings rules judge
// (work-completion errors with their ibv_wc_status, failed verbs calls,
// timeouts).
//
// The parser is pure (io.Reader in, Log out) and finds the NCCL prefix
// wherever a pasted line starts; lines that are not NCCL's are passed over.
// Judging the log is internal/rules/nccl's job.
package nccllog
