package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// toolErrMetas are the findings read from the errors RDMA tools print
// when they cannot run at all.
var toolErrMetas = []finding.Meta{
	{
		ID: "container.umad_missing", Severity: finding.Warning, Area: "container", Step: finding.StepContainer,
		Title:   "/dev/infiniband/umadN missing or not openable",
		Meaning: "The user-MAD interface is absent or cannot be opened where the tool ran (libibumad's \"can't read ABI version from /sys/class/infiniband_mad/abi_version …: is ib_umad module loaded?\", libibmad's \"can't open UMAD port\", infiniband-diags' \"Failed to open '(null)' port '0'\"): infiniband-diags (ibnetdiscover, perfquery, saquery, smpquery, older ibstat) and a subnet manager cannot send management datagrams from here. Verbs traffic (NCCL, MPI, perftest) does not use it, so jobs still run: a warning.",
		Causes:  []string{"the ib_umad module is not loaded (/sys/class/infiniband_mad absent)", "a container started without /dev/infiniband/umadN (only uverbs passed, or no device at all)", "not root: the umad device nodes are not openable by the user (Permission denied)"},
		Remedy:  []string{"modprobe ib_umad", "lsmod | grep -E 'ib_|mlx'", "ls -l /dev/infiniband", "docker run --device=/dev/infiniband ... (every umadN and uverbsN), or run the tool as root"},
	},
}
