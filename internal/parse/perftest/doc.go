// Package perftest parses the output of the linux-rdma perftest tools
// (ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw and their _lat
// counterparts): the banner (device, link type, MTU, GID index, CQ
// moderation, connection type, local and remote address) and the result
// table of old and new perftest releases, in Gb/s (--report_gbits) or MB/s
// (MiB/s: perftest divides by 0x100000), with warnings such as "Conflicting
// CPU frequency values detected" interleaved, and the --out_json report.
// One file may hold several tests. Judging the results is
// internal/rules/perftest's job.
package perftest
