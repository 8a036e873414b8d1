// Package topo computes the GPU–NIC PCIe distance matrix of a node from the
// sysfs PCI tree alone (PIX/PXB/PHB/NODE/SYS as the legend of `nvidia-smi
// topo -m` defines them), the nearest RDMA NIC of every GPU and a suggested
// NCCL_IB_HCA, and compares that matrix with nvidia-smi's own (parsed by
// internal/parse/nvsmi).
package topo
