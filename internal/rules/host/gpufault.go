package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// checkGPUFault reports the amdgpu GPU page faults of the kernel log
// (gpu.page_fault, a warning as NVIDIA's Xid 31 is: the process died,
// the GPU stays usable), one finding per GPU, naming the hubs and
// the processes whose GPU context faulted.
func checkGPUFault(in *Input) []finding.Finding {
	type tally struct {
		n           int
		hubs, procs []string
		ev          []finding.Evidence
	}
	ts := map[pcie.Address]*tally{}
	var keys []pcie.Address
	for _, e := range in.events() {
		if e.Kind != kmsg.KindGPUFault {
			continue
		}
		t, ok := ts[e.PCI]
		if !ok {
			t = &tally{}
			ts[e.PCI] = t
			keys = append(keys, e.PCI)
		}
		if e.Task != "" {
			if p := e.Task + " pid " + e.TaskPID; !slices.Contains(t.procs, p) {
				t.procs = append(t.procs, p)
			}
		}
		if e.Detail == "process" {
			continue // the line naming the process of a fault counted already
		}
		t.n += e.Weight()
		if !slices.Contains(t.hubs, e.Detail) {
			t.hubs = append(t.hubs, e.Detail)
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, a := range keys {
		t := ts[a]
		if t.n == 0 {
			continue
		}
		tg := pciTarget(in.Snap, a)
		subj, label := tg.subject(in.Snap.Host), tg.label()
		if label == "" || label == string(a) {
			label = "GPU " + string(a)
		}
		who := "the process it names"
		if len(t.procs) > 0 {
			who = strings.Join(t.procs, ", ")
		}
		out = append(out, catalog.New("gpu.page_fault", subj,
			fmt.Sprintf("%s (amdgpu): %s %s (%s): a GPU kernel of %s accessed memory its GPU page table does not map or permit; ROCm stops that process's GPU queues and the process dies or hangs (its collective peers time out)",
				label, plural(t.n, "GPU page fault", "GPU page faults"), in.window(), strings.Join(t.hubs, ", "), who), t.ev...))
	}
	return out
}

// checkPeerMemSymbol reports a kernel that refused a GPU driver's hooks
// into the RDMA peer-memory API (nccl.peermem_missing): since Linux 6.6
// symbol_get of a symbol not exported GPL-only fails
// (kernel/module/main.c __symbol_get), and MLNX_OFED's ib_core exports
// ib_register_peer_memory_client that way, so a driver that looks it up
// at run time (amdgpu's peer-memory client) cannot register GPU memory
// with the HCA: no GPUDirect RDMA.
func checkPeerMemSymbol(in *Input) []finding.Finding {
	var syms []string
	var ev []finding.Evidence
	n, amd := 0, false
	for _, e := range in.events() {
		if e.Kind == kmsg.KindGPUFault || (e.Kind == kmsg.KindDriverError && e.Driver == "amdgpu") {
			amd = true
		}
		if e.Kind != kmsg.KindPeerMemSymbol {
			continue
		}
		n += e.Weight()
		if !slices.Contains(syms, e.Symbol) {
			syms = append(syms, e.Symbol)
		}
		if len(ev) < maxEvidence && !e.Folded {
			ev = append(ev, in.logEvidence(e.Record))
		}
	}
	if n == 0 {
		return nil
	}
	who := "a GPU driver's peer-memory client, one that looks the API up at run time,"
	if amd {
		who = "amdgpu's peer-memory client, the ROCm analogue of nvidia-peermem,"
	}
	slices.Sort(syms)
	f := catalog.New("nccl.peermem_missing", finding.Subject{Host: in.Snap.Host},
		fmt.Sprintf("The kernel refused %s (%s %s: failing symbol_get of %s): the RDMA stack's ib_core exports the peer-memory API without GPL-only, which kernels from 6.6 on refuse to symbol_get, so GPU memory is not registered with the HCA: no GPUDirect RDMA through the peer-memory API; RDMA of GPU buffers fails or is staged through host memory unless DMA-BUF is used",
			who, plural(n, "line", "lines"), in.window(), strings.Join(syms, ", ")), ev...)
	f.Causes = []string{
		"a kernel of 6.6 or later with an MLNX_OFED/DOCA-OFED ib_core (it exports ib_register_peer_memory_client not GPL-only) and a GPU driver that looks the symbol up with symbol_get",
		"GPU driver (amdgpu-dkms, ROCm) and OFED versions not supported together on this kernel",
	}
	f.Remedy = []string{
		"use DMA-BUF for GPU memory registration (in-kernel RDMA stack or a DOCA-OFED with dma-buf support; RCCL/NCCL pick it up: NCCL_DMABUF_ENABLE=1), then check NCCL_DEBUG=INFO says GPU Direct RDMA Enabled",
		"install an OFED and GPU driver pair whose release notes support this kernel (ofed_info -s; modinfo amdgpu | grep ^version; and the running kernel)",
		"lsmod | grep -e ib_core -e peer shows which ib_core is loaded and whether a peer-memory client registered",
	}
	return []finding.Finding{f}
}
