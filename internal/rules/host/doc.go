// Package host is the rule set of `ibdoctor doctor` after the node port
// rules: PCIe AER errors, GPU–NIC topology, the kernel log (Xid, fallen off
// the bus, AER, mlx5 link flaps, module and health events), RoCE
// configuration and congestion (GIDs, MTU, PFC, ECN, PHY errors), host
// limits and drivers (memlock, nvidia_peermem), container device access and
// the NCCL environment.
//
// Every rule is a pure function of an Input: the node snapshot plus the
// parsed kernel log, ethtool statistics, nvidia-smi topology, NCCL
// environment, resource limits, modules and /dev entries the caller read.
// Rules do no I/O and read no clock (the window comes from Input.Since).
package host
