// Package gather reads, from a node root, everything the host rules judge
// besides the sysfs snapshot: the kernel log (live from /dev/kmsg or saved
// under cmd/), ethtool statistics of RoCE netdevs (live through the
// SIOCETHTOOL ioctl or saved), `nvidia-smi topo -m`, the network
// interfaces, the job's locked-memory limit and environment, the loaded
// kernel modules and the /dev/infiniband entries. Nothing here is fatal: a
// source that cannot be read becomes a note, and the rules that need it stay
// silent.
package gather
