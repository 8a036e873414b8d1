// Package topo computes the GPU–NIC PCIe distance matrix of a node from the
// sysfs PCI tree alone (PIX/PXB/PHB/NODE/SYS as `nvidia-smi topo -m`
// defines them in its legend), the nearest RDMA NIC of every GPU and a
// suggested NCCL_IB_HCA, and parses `nvidia-smi topo -m` output to compare
// the two views.
package topo
