// Package analyze diagnoses pasted tool output for `ibdoctor analyze`: it
// recognises which tools printed a text (ibstat, ibstatus, ibv_devinfo,
// rdma, kernel logs, nvidia-smi topo -m, ethtool -S, NCCL logs,
// nccl-tests, perftest and the infiniband-diags fabric tools), splits a
// paste of several outputs into segments at their headers, runs each
// segment through the parser and rules the live commands use, and says
// what was skipped and why.
package analyze
