package verbs

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckMPIFabrics judges the fabric lines of Intel MPI and Charm++
// (wclog.MPIFabricLine): a Charm++ OFI abort is mpi.ofi_init_failed
// (critical: every process exits before the program starts); a provider
// or transfer mode over TCP or UDP sockets (wclog.SlowFabric) is
// mpi.rdma_not_used (a warning: the job runs, between nodes at a
// fraction of the fabric's speed). An RDMA or Omni-Path provider (mlx,
// verbs, psm2, psm3, efa, cxi, dapl, ofa, tmi) is what a cluster should
// use: summary says which was chosen.
func CheckMPIFabrics(source string, fs []wclog.MPIFabric) (out []finding.Finding, summary string) {
	at := func(f wclog.MPIFabric) finding.Evidence {
		return finding.Evidence{Source: fmt.Sprintf("%s:%d", source, f.Line), Value: f.Text}
	}
	var provider wclog.MPIFabric
	var slow []wclog.MPIFabric
	for _, f := range fs {
		if f.Provider == "" {
			continue
		}
		if provider.Provider == "" {
			provider = f
		}
		if wclog.SlowFabric(f.Provider) && len(slow) < 3 {
			slow = append(slow, f)
		}
	}
	for _, f := range fs {
		if f.Abort == "" {
			continue
		}
		sum := fmt.Sprintf("%s's OFI (libfabric) layer aborted: %q", f.Program, f.Abort)
		if provider.Provider != "" {
			sum += fmt.Sprintf(" on the provider %s", provider.Provider)
		}
		sum += "; the processes exit before the program starts"
		ev := []finding.Evidence{at(f)}
		if provider.Provider != "" {
			ev = append(ev, at(provider))
		}
		out = append(out, catalog.New("mpi.ofi_init_failed", finding.Subject{File: source}, sum, ev...))
		break
	}
	if len(slow) > 0 {
		f := slow[0]
		sum := fmt.Sprintf("%s runs over %s: messages between nodes go through TCP/UDP sockets, not over the RDMA or Omni-Path fabric, at a fraction of its bandwidth and with tens of microseconds of latency", f.Program, describeProvider(f))
		var ev []finding.Evidence
		for _, s := range slow {
			ev = append(ev, at(s))
		}
		out = append(out, catalog.New("mpi.rdma_not_used", finding.Subject{File: source}, sum, ev...))
	}
	if provider.Provider != "" {
		summary = fmt.Sprintf("%s on %s", provider.Program, describeProvider(provider))
	}
	return out, summary
}

// describeProvider names what a fabric line chose.
func describeProvider(f wclog.MPIFabric) string {
	switch {
	case strings.Contains(f.Text, "libfabric provider") || f.Program == "Charm++":
		return "libfabric's " + f.Provider + " provider"
	case strings.Contains(f.Text, "TMI provider"):
		return "TMI's " + f.Provider + " provider"
	}
	return "the " + f.Provider + " data transfer mode"
}
