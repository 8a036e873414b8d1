package nccl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// duplicateGPUFindings reports NCCL's refusal of a communicator whose
// ranks share a GPU (init.cc: "Duplicate GPU detected : rank 0 and rank 1
// both on CUDA device 1000", then ncclInvalidUsage): nccl.call_failed,
// naming the ranks, the GPU's PCI address and the host, with what gives
// each rank its own GPU. The program's own report of the failed call
// ("Failed, NCCL error …:17 'invalid usage'") is quoted with it.
func duplicateGPUFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	i := slices.IndexFunc(lg.Events, func(e nccllog.Event) bool { return e.Kind == nccllog.EventDuplicateGPU })
	if i < 0 {
		return nil
	}
	d := lg.Events[i]
	where := "one host"
	if d.Host != "" {
		where = "host " + d.Host
	}
	sum := fmt.Sprintf("NCCL refused the communicator: rank %d and rank %s both chose the GPU at PCI %s on %s (NCCL WARN Duplicate GPU detected), so ncclCommInitRank returned 'invalid usage' and the job cannot start. NCCL takes one rank per GPU: each rank must select its own device",
		d.Rank, d.Peer, d.BusID, where)
	evs := []finding.Evidence{{Source: at(d.Source, d.Line), Value: d.Text}}
	if j := slices.IndexFunc(lg.Events, func(e nccllog.Event) bool { return e.Kind == nccllog.EventFailed }); j >= 0 {
		e := lg.Events[j]
		sum += fmt.Sprintf("; the program then stopped (line %d): %s", e.Line, e.Text)
		evs = append(evs, finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
	}
	f := catalog.New("nccl.call_failed", subj, sum, evs...)
	f.Causes = []string{
		"more ranks started on the node than it has GPUs (mpirun -np, torchrun --nproc_per_node, srun --ntasks-per-node)",
		"every rank calls cudaSetDevice(0) or sees the same single GPU (CUDA_VISIBLE_DEVICES set to one device for all ranks)",
	}
	f.Remedy = []string{
		"start no more ranks per node than GPUs: nvidia-smi -L counts them; torchrun --nproc_per_node=<GPUs>, mpirun --map-by ppr:<GPUs>:node",
		"select the GPU by local rank before NCCL init: torch.cuda.set_device(int(os.environ['LOCAL_RANK'])), or cudaSetDevice(local_rank) in C++",
		"Slurm: srun --gpus-per-task=1 (or --gpu-bind=single:1) so each task sees its own GPU; otherwise set CUDA_VISIBLE_DEVICES per rank",
	}
	return []finding.Finding{f}
}

// watchdogCUDAFinding reports a rank that PyTorch's ProcessGroupNCCL
// took down on a CUDA error (e.Watchdog: c10::CUDAError "CUDA error:
// unknown error" thrown from WorkNCCL::finishedGPUExecutionInternal in
// its watchdog, workCleanupLoop before PyTorch 2.0): the GPU faulted
// under NCCL's work, which the kernel log of that host records as an
// NVIDIA Xid. Out of memory is the process's own doing, not a fault.
func watchdogCUDAFinding(e nccllog.Event, fails []nccllog.Event, subj finding.Subject, at func(string, int) string) finding.Finding {
	who := "a rank"
	switch {
	case e.Rank >= 0:
		who = fmt.Sprintf("rank %d", e.Rank)
	case e.Tag != "":
		who = fmt.Sprintf("the worker tagged [%s] (torchrun's role and local rank)", e.Tag)
	}
	if e.Host != "" {
		who += " on " + e.Host
	}
	oom := strings.Contains(strings.ToLower(e.Error), "out of memory")
	var sum string
	if oom {
		sum = fmt.Sprintf("%s died: PyTorch's ProcessGroupNCCL raised 'CUDA error: %s' while it watched NCCL's work on the GPU; the process ran out of GPU memory and its collectives never complete for the other ranks", who, e.Error)
	} else {
		sum = fmt.Sprintf("%s died on a GPU fault: PyTorch's ProcessGroupNCCL watchdog got 'CUDA error: %s' querying the GPU work of NCCL, so the GPU (or its driver) failed under the job and every other rank stops with it; look in the kernel log of that host for an NVIDIA Xid at that time", who, e.Error)
	}
	evs := []finding.Evidence{{Source: at(e.Source, e.Line), Value: e.Text}}
	for _, o := range fails {
		if len(evs) >= 4 {
			break
		}
		if o.Line != e.Line && (o.Rank != e.Rank || o.Tag != e.Tag || o.Host != e.Host) {
			evs = append(evs, finding.Evidence{Source: at(o.Source, o.Line), Value: o.Text})
		}
	}
	f := catalog.New("nccl.call_failed", subj, sum, evs...)
	if oom {
		f.Causes = []string{"the process's tensors, NCCL's buffers and the caching allocator's reserve exceed the GPU's memory"}
		f.Remedy = []string{
			"nvidia-smi on that host for other processes holding GPU memory",
			"lower the batch size or enable activation checkpointing; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation",
		}
		return f
	}
	f.Causes = []string{
		"the GPU fell off the bus or hit an uncorrectable memory error (Xid 79, 48, 63/64, 94/95)",
		"a kernel crashed on the GPU (Xid 13, 31, 43: illegal memory access, MMU fault)",
		"the NVIDIA driver hit an internal error, or an NVLink/PCIe error reset the GPU",
	}
	f.Remedy = []string{
		"dmesg -T | grep -iE 'NVRM: Xid|fallen off the bus' on the host of that rank, at the time of the crash (journalctl -k there)",
		"nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT on that host; drain the node if the Xid points at the hardware",
		"resume the job from its last checkpoint on other nodes; ibdoctor analyze the host's kernel log",
	}
	return f
}
