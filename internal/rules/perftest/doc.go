// Package perftest reads and judges the output of the linux-rdma perftest
// tools (ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw and their _lat
// counterparts) and builds validated argument vectors to run them.
//
// The parser reads the banner (device, link type, MTU, GID index, CQ
// moderation, connection type, local and remote address) and the result
// table of old and new perftest releases, in Gb/s (--report_gbits) or MB/s
// (MiB/s: perftest divides by 0x100000), with warnings such as "Conflicting
// CPU frequency values detected" interleaved. One file may hold several
// tests. Rules are pure functions from parsed results and Options to
// findings.
package perftest
