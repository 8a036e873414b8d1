// Package ethtool reads NIC driver statistics: the text of `ethtool -S
// <netdev>` saved in a bundle (Parse), and the live values through the
// SIOCETHTOOL ioctl on Linux (ReadLive). The triage rules use the mlx5
// priority-flow-control, ECN and physical-layer counters (mlx5 counters.rst).
package ethtool
