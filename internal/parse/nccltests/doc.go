// Package nccltests parses the output of the nccl-tests benchmarks
// (all_reduce_perf and friends): the header, the rank list, the per-size
// rows and the footers of the text output, and the JSON report newer
// releases write with -J.
//
// The parser is pure (io.Reader in, Output out) and tolerates the mess of
// real outputs: NCCL INFO lines interleaved with rows, several runs in one
// file, `mpirun --tag-output` prefixes, CRLF line ends, truncated tails.
// Lines it cannot read are kept as Skipped notes naming the line, never
// turned into numbers. Judging the numbers is internal/rules/nccl's job.
package nccltests
