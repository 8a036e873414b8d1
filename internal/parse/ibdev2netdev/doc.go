// Package ibdev2netdev parses the output of MLNX_OFED's ibdev2netdev
// script: "mlx5_0 port 1 ==> ib0 (Up)" per RDMA port and its netdev, and
// with -v "0000:02:00.0 mlx5_0 (MT4115 - MT1523X04353) CX456A - ConnectX-4
// QSFP fw 12.23.1020 port 1 (ACTIVE) ==> enp2s0f0 (Up)", which adds the PCI
// function, the model and the port's own state. `column -t` spacing and
// notes after the line ("# CX-7", "(o2ib)") are accepted. Judging the
// states is internal/rules/node's job.
package ibdev2netdev
