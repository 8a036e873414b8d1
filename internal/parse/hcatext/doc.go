// Package hcatext parses the text that the HCA tools print — ibstat,
// ibstatus, ibv_devinfo [-v], `rdma link show` and `rdma statistic show` —
// into a snapshot.Snapshot, so the node rules that judge a live node judge
// a pasted output too. Each parsed value remembers the line it came from,
// so findings can cite FILE:LINE instead of a sysfs path.
package hcatext
