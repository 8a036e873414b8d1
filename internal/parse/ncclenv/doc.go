// Package ncclenv reads an NCCL job's environment (a KEY=VALUE file,
// /proc/<pid>/environ, or this process's) and interprets the variables that
// select the network exactly as NCCL does: NCCL_IB_HCA and
// NCCL_SOCKET_IFNAME lists with NCCL's prefix matching, '^' exclusion, '='
// exact matching and ":port" suffixes (NVIDIA/nccl src/misc/utils.cc
// parseStringList/matchIfList, src/transport/net_ib.cc, src/misc/socket.cc),
// NCCL_IB_GID_INDEX and NCCL_IB_DISABLE.
package ncclenv
