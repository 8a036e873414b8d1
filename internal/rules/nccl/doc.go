// Package nccl judges what NCCL jobs leave behind: nccl-tests results
// parsed by internal/parse/nccltests (CheckTests: corrupted results, busbw
// below the expectation, busbw inconsistent with algbw, slow small
// messages, in-place asymmetry, runs that stop before the plateau, copies
// of a non-MPI binary) and NCCL debug logs parsed by internal/parse/nccllog
// (CheckLog: socket fallback, IB disabled, GPUDirect RDMA disabled,
// work-completion errors, verbs resource failures, timeouts).
//
// Both are pure functions from the parsed data and options to findings.
package nccl
