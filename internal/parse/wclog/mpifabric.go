package wclog

import (
	"strings"
)

// MPIFabric is a line in which an MPI library or Charm++ names the fabric
// it runs its messages over, or says its libfabric (OFI) layer aborted.
type MPIFabric struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	// Program is "Intel MPI" or "Charm++".
	Program string
	// Provider is the fabric or libfabric provider the line names
	// ("sockets", "psm2", "verbs;ofi_rxm", "dapl"); "" for an abort.
	Provider string
	// Abort is the reason of a Charm++ OFI abort ("OFI::LrtsInit::fi_tsend
	// error"), "" for a fabric line.
	Abort string
}

// MPIFabricLine reads (Line left 0):
//
//   - Intel MPI's I_MPI_DEBUG startup lines, with the launcher's "0: "
//     rank prefix or none: 2019 and later name the libfabric provider
//     ("[0] MPI startup(): libfabric provider: sockets"), 4.x and 5.x the
//     data transfer modes ("[0] MPI startup(): shm and dapl data transfer
//     modes", "tcp data transfer mode") and, on TMI, the provider
//     ("[0] init_tmi_provider(): TMI provider initialized: psm2 (1.3)");
//   - Charm++'s OFI machine layer (src/arch/ofi/machine.C): the provider
//     it chose ("Charm++>ofi> provider: verbs;ofi_rxm") and the reason of
//     its CmiAbort ("Reason: OFI::LrtsInit::fi_tsend error").
func MPIFabricLine(l string) (MPIFabric, bool) {
	t := strings.TrimSpace(l)
	if rest, ok := strings.CutPrefix(t, "Charm++>ofi> provider: "); ok {
		p := strings.TrimSpace(rest)
		return MPIFabric{Text: t, Program: "Charm++", Provider: p}, p != ""
	}
	if rest, ok := strings.CutPrefix(t, "Reason: "); ok && strings.HasPrefix(rest, "OFI::") {
		return MPIFabric{Text: t, Program: "Charm++", Abort: strings.TrimSpace(rest)}, true
	}
	// "0: [0] MPI startup(): …": the launcher's prefix and the rank, each
	// of which a paste (or a normaliser) may have dropped.
	msg := strings.TrimLeft(cutLauncher(t), " ")
	if strings.HasPrefix(msg, "[") {
		i := strings.Index(msg, "] ")
		if i < 0 {
			return MPIFabric{}, false
		}
		msg = msg[i+2:]
	}
	f := MPIFabric{Text: t, Program: "Intel MPI"}
	switch {
	case strings.HasPrefix(msg, "MPI startup(): libfabric provider: "):
		f.Provider = strings.TrimSpace(strings.TrimPrefix(msg, "MPI startup(): libfabric provider: "))
	case strings.HasPrefix(msg, "init_tmi_provider(): TMI provider initialized: "):
		p := strings.TrimPrefix(msg, "init_tmi_provider(): TMI provider initialized: ")
		p, _, _ = strings.Cut(p, " ")
		f.Provider = p
	case strings.HasPrefix(msg, "MPI startup(): ") && (strings.HasSuffix(msg, " data transfer modes") || strings.HasSuffix(msg, " data transfer mode")):
		m := strings.TrimPrefix(msg, "MPI startup(): ")
		m = strings.TrimSuffix(strings.TrimSuffix(m, " data transfer modes"), " data transfer mode")
		// "shm and dapl", "shm-dapl", "tcp": the fabric between nodes.
		m = strings.TrimPrefix(strings.TrimPrefix(m, "shm and "), "shm-")
		f.Provider = strings.TrimSpace(m)
	default:
		return MPIFabric{}, false
	}
	return f, f.Provider != "" && !strings.ContainsAny(f.Provider, " \t")
}

// cutLauncher drops the "0: " rank prefix a launcher (mpirun -l,
// mpiexec.hydra -prepend-rank) puts before a rank's lines.
func cutLauncher(t string) string {
	i := strings.Index(t, ": ")
	if i <= 0 || strings.Trim(t[:i], "0123456789") != "" {
		return t
	}
	return t[i+2:]
}

// SlowFabric says whether a provider or transfer mode MPIFabricLine read
// carries messages between nodes over TCP or UDP sockets, not over an
// RDMA or Omni-Path fabric: libfabric's sockets, tcp and udp providers
// (alone or under ofi_rxm/ofi_rxd), Intel MPI's tcp mode.
func SlowFabric(p string) bool {
	core, _, _ := strings.Cut(strings.ToLower(p), ";")
	switch core {
	case "sockets", "tcp", "udp":
		return true
	}
	return false
}

// mpiFabricHint is the cheap test for MPIFabricLine.
func mpiFabricHint(l string) bool {
	return strings.Contains(l, "Charm++>ofi> provider") || strings.Contains(l, "Reason: OFI::") ||
		strings.Contains(l, "MPI startup(): ") && (strings.Contains(l, "provider") || strings.Contains(l, "data transfer mode")) ||
		strings.Contains(l, "init_tmi_provider(): ")
}
