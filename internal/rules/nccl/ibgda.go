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
		return nil
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
	return []finding.Finding{f}
}
