package nccl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// ibgdaFindings reports NVSHMEM's IBGDA fallback warnings printed in the
// job's log beside NCCL's (nccllog.EventIBGDAFallback): the GPU cannot
// ring the NIC's doorbell, so a CPU proxy does (or the NIC is skipped).
// The job runs, slower: one warning naming the devices.
func ibgdaFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	var out []finding.Finding
	for _, e := range lg.Events {
		if e.Kind != nccllog.EventIBGDAInitFailed {
			continue
		}
		f := catalog.New("nvshmem.ibgda_fallback", subj, "NVSHMEM could not initialise its IBGDA transport at all (\"init failed for transport: IBGDA\", nvshmemi_transport_init): GPU-initiated RDMA is unusable on this node, so the kernels that need it (DeepEP's low-latency mode, NVSHMEM_IB_ENABLE_IBGDA=1 jobs) cannot run; rerun with NVSHMEM_DEBUG=INFO for the reason the IBGDA transport printed above this line (mlx5dv/DEVX support, PeerMappingOverride, GPU memory registration)",
			finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
		f.Severity = finding.Critical
		out = append(out, f)
		break
	}
	var evs []nccllog.Event
	var devs []string
	n := 0
	for _, e := range lg.Events {
		if e.Kind != nccllog.EventIBGDAFallback {
			continue
		}
		evs = append(evs, e)
		n += e.Weight()
		if e.HCA != "" && !slices.Contains(devs, e.HCA) {
			devs = append(devs, e.HCA)
		}
	}
	if len(evs) == 0 {
		return out
	}
	what := "its NICs"
	if len(devs) > 0 {
		what = strings.Join(firstN(devs, 6), ", ")
	}
	sum := fmt.Sprintf("NVSHMEM's IBGDA transport could not map the doorbell (UAR) or memory of %s into the GPU (%d warning(s)): GPU-initiated RDMA is off there, and a CPU proxy posts the work instead (or the NIC is skipped), so NVSHMEM traffic (DeepEP, expert-parallel all-to-all) runs at a CPU proxy's latency and message rate", what, n)
	if slices.ContainsFunc(evs, func(e nccllog.Event) bool { return strings.Contains(e.Text, "error=800") }) {
		sum += "; cudaHostRegister's error 800 (cudaErrorNotPermitted) is a driver loaded without PeerMappingOverride=1"
	}
	f := catalog.New("nvshmem.ibgda_fallback", subj, sum)
	for _, e := range evs[:min(3, len(evs))] {
		f.Evidence = append(f.Evidence, finding.Evidence{Source: at(e.Source, e.Line), Value: "WARN: " + e.Text})
	}
	return append(out, f)
}

// tracebackFindings reports the ranks that printed a Python traceback
// under their launcher's tag (nccllog.EventTraceback) in a log whose
// NCCL lines show nothing critical: the program raised an exception on
// those ranks. A warning naming them; what the exception was is on the
// traceback's last line, which the paste may not hold.
func tracebackFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	var ranks []int
	var first *nccllog.Event
	for i, e := range lg.Events {
		if e.Kind != nccllog.EventTraceback {
			continue
		}
		if first == nil {
			first = &lg.Events[i]
		}
		if !slices.Contains(ranks, e.Rank) {
			ranks = append(ranks, e.Rank)
		}
	}
	if first == nil {
		return nil
	}
	slices.Sort(ranks)
	who := "a rank"
	if ranks = slices.DeleteFunc(ranks, func(r int) bool { return r < 0 }); len(ranks) > 0 {
		who = "rank(s) " + joinInts(ranks, 8)
	}
	sum := fmt.Sprintf("%s raised a Python exception (traceback at line %d) and stopped; the NCCL lines of the log show no failure that explains it, so the traceback's last line (the exception) says whether a collective failed or returned a wrong result, or the application did", who, first.Line)
	f := catalog.New("nccl.rank_exception", subj, sum, finding.Evidence{Source: at(first.Source, first.Line), Value: first.Text})
	if len(ranks) > 0 {
		f.Subject.Rank = joinInts(ranks, 8)
	}
	return []finding.Finding{f}
}
