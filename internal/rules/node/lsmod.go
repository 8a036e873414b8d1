package node

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/lsmod"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckLsmod judges lsmod's rows of the RDMA and GPU modules. A module
// that is absent is judged only where lsmod shows it would be listed:
// every RDMA module links against ib_core, so ib_core's "Used by" names
// each one loaded even when the paste is a grep of lsmod. With ib_core
// and an HCA driver loaded:
//   - no ib_uverbs: no /dev/infiniband/uverbsN, libibverbs opens no
//     device (container.uverbs_missing, critical);
//   - no rdma_ucm: no /dev/infiniband/rdma_cm, librdmacm cannot connect
//     (container.rdma_cm_missing, a warning);
//   - the nvidia module loaded without nvidia_peermem (or nv_peer_mem)
//     in ib_core's or nvidia's holders: GPUDirect RDMA through
//     peer memory is off (nccl.peermem_missing as a note: NCCL can use
//     DMA-BUF instead on recent kernels and drivers).
func CheckLsmod(mods []lsmod.Module, file string) []finding.Finding {
	var core, gpu *lsmod.Module
	loaded := map[string]bool{}
	for i, m := range mods {
		loaded[m.Name] = true
		switch m.Name {
		case "ib_core":
			core = &mods[i]
		case "nvidia":
			gpu = &mods[i]
		}
	}
	if core == nil {
		return nil
	}
	for _, h := range core.UsedBy {
		loaded[h] = true
	}
	var drivers []string
	for n := range loaded {
		if lsmod.Driver(n) {
			drivers = append(drivers, n)
		}
	}
	if len(drivers) == 0 {
		return nil
	}
	slices.Sort(drivers)
	subj := finding.Subject{File: file}
	ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", file, core.Line), Value: fmt.Sprintf("ib_core used by %s", strings.Join(core.UsedBy, ","))}
	drv := strings.Join(drivers, ", ")
	var out []finding.Finding
	if !loaded["ib_uverbs"] {
		out = append(out, catalog.New("container.uverbs_missing", subj,
			fmt.Sprintf("lsmod shows the RDMA driver %s loaded but not ib_uverbs (ib_core's holders do not name it): without it there is no /dev/infiniband/uverbsN, so libibverbs opens no device, ibv_devinfo lists none and NCCL, MPI and UCX run without RDMA", drv), ev))
	}
	if !loaded["rdma_ucm"] {
		out = append(out, catalog.New("container.rdma_cm_missing", subj,
			fmt.Sprintf("lsmod shows the RDMA driver %s loaded but not rdma_ucm (ib_core's holders do not name it): without it there is no /dev/infiniband/rdma_cm, so programs that connect through librdmacm (rdma_create_event_channel fails) cannot connect", drv), ev))
	}
	if gpu != nil && !loaded["nvidia_peermem"] && !loaded["nv_peer_mem"] && !slices.Contains(gpu.UsedBy, "nvidia_peermem") && !slices.Contains(gpu.UsedBy, "nv_peer_mem") {
		f := catalog.New("nccl.peermem_missing", subj,
			"lsmod shows the nvidia module and the RDMA driver "+drv+" but not nvidia_peermem (nor nv_peer_mem): GPUDirect RDMA through peer memory is off; NCCL 2.13 and later can register GPU memory through DMA-BUF instead (Linux 5.12+, open GPU kernel modules), so this is only a note",
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, gpu.Line), Value: "nvidia used by " + strings.Join(gpu.UsedBy, ",")}, ev)
		f.Severity = finding.Info
		out = append(out, f)
	}
	return out
}
