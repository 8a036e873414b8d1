package wclog

import (
	"strings"
	"testing"
)

// Intel MPI's I_MPI_DEBUG lines and Charm++'s OFI lines, as the programs
// print them (analyze testdata/realworld-fresh63: Intel MPI 2019 on the
// sockets provider, Intel MPI 5.1.3 on TMI/PSM2 with the launcher's rank
// prefix, Charm++ on verbs;ofi_rxm aborting in LrtsInit).
func TestMPIFabricLine(t *testing.T) {
	for _, tc := range []struct {
		line, program, provider, abort string
		ok, slow                       bool
	}{
		{"[0] MPI startup(): libfabric provider: sockets", "Intel MPI", "sockets", "", true, true},
		{"[0] MPI startup(): libfabric provider: mlx", "Intel MPI", "mlx", "", true, false},
		{"[0] MPI startup(): libfabric provider: tcp;ofi_rxm", "Intel MPI", "tcp;ofi_rxm", "", true, true},
		{"0: [0] init_tmi_provider(): TMI provider initialized: psm2 (1.3)", "Intel MPI", "psm2", "", true, false},
		{"init_tmi_provider(): TMI provider initialized: psm2 (1.3)", "Intel MPI", "psm2", "", true, false},
		{"[0] MPI startup(): shm and dapl data transfer modes", "Intel MPI", "dapl", "", true, false},
		{"[1] MPI startup(): tcp data transfer mode", "Intel MPI", "tcp", "", true, true},
		{"Charm++>ofi> provider: verbs;ofi_rxm", "Charm++", "verbs;ofi_rxm", "", true, false},
		{"Reason: OFI::LrtsInit::fi_tsend error", "Charm++", "", "OFI::LrtsInit::fi_tsend error", true, false},
		{"[0] MPI startup(): libfabric version: 1.7.2a", "", "", "", false, false},
		{"0: [0] MPI startup(): Multi-threaded optimized library", "", "", "", false, false},
		{"[0] MPI startup(): libfabric provider: ", "", "", "", false, false},
	} {
		f, ok := MPIFabricLine(tc.line)
		if ok != tc.ok || ok && (f.Program != tc.program || f.Provider != tc.provider || f.Abort != tc.abort || SlowFabric(f.Provider) != tc.slow) {
			t.Errorf("%q: %+v %v", tc.line, f, ok)
		}
		if ok && !DetectLine(tc.line) {
			t.Errorf("%q: DetectLine false", tc.line)
		}
	}
	lg, err := Parse(strings.NewReader("Charm++>ofi> provider: verbs;ofi_rxm\nError value: -11\nReason: OFI::LrtsInit::fi_tsend error\n"), "x")
	if err != nil || len(lg.MPIFabrics) != 2 || lg.MPIFabrics[1].Line != 3 {
		t.Fatalf("%+v %v", lg, err)
	}
}
