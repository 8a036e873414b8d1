package verbs

import (
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
)

// TestCheckMPIFabrics: a Charm++ OFI abort is critical, a sockets
// provider a warning, psm2 healthy.
func TestCheckMPIFabrics(t *testing.T) {
	line := func(n int, l string) wclog.MPIFabric {
		f, ok := wclog.MPIFabricLine(l)
		if !ok {
			t.Fatalf("%q not read", l)
		}
		f.Line = n
		return f
	}
	for _, tc := range []struct {
		name string
		in   []wclog.MPIFabric
		want map[string]finding.Severity
		sum  string
	}{
		{"charm abort", []wclog.MPIFabric{line(3, "Charm++>ofi> provider: verbs;ofi_rxm"), line(26, "Reason: OFI::LrtsInit::fi_tsend error")},
			map[string]finding.Severity{"mpi.ofi_init_failed": finding.Critical}, "Charm++ on libfabric's verbs;ofi_rxm provider"},
		{"impi sockets", []wclog.MPIFabric{line(4, "[0] MPI startup(): libfabric provider: sockets")},
			map[string]finding.Severity{"mpi.rdma_not_used": finding.Warning}, "Intel MPI on libfabric's sockets provider"},
		{"impi psm2", []wclog.MPIFabric{line(14, "0: [0] init_tmi_provider(): TMI provider initialized: psm2 (1.3)")},
			map[string]finding.Severity{}, "Intel MPI on TMI's psm2 provider"},
	} {
		fs, sum := CheckMPIFabrics("log", tc.in)
		got := map[string]finding.Severity{}
		for _, f := range fs {
			got[f.ID] = f.Severity
		}
		if len(got) != len(tc.want) || sum != tc.sum {
			t.Errorf("%s: %v %q, want %v %q", tc.name, got, sum, tc.want, tc.sum)
		}
		for id, sev := range tc.want {
			if got[id] != sev {
				t.Errorf("%s: %s %s, want %s", tc.name, id, got[id], sev)
			}
		}
	}
}
