// Package nccl reads what NCCL jobs leave behind and diagnoses it: the
// output of the nccl-tests benchmarks (all_reduce_perf and friends: header,
// rank list, per-size rows, footers) and NCCL_DEBUG=INFO logs of one or many
// ranks (which network each rank chose, GPUDirect RDMA, work-completion
// errors, watchdog timeouts, verbs resource failures).
//
// Parsers are pure (io.Reader in, typed result out) and tolerate the mess of
// real outputs: NCCL INFO lines interleaved with rows, several runs in one
// file, CRLF line ends, truncated tails. Lines they cannot read are kept as
// Skipped notes naming the line, never turned into numbers. Rules are pure
// functions from the parsed data and Options to findings.
package nccl
