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
	{
		ID: "paste.failure_lines", Severity: finding.Warning, Area: "paste", Step: finding.StepKernelLog,
		Title:   "lines ibdoctor does not read say something failed",
		Meaning: "No output in the file could be judged: none is of a kind ibdoctor reads (an application's or launcher's own log, a tool it does not know, a format it does not parse), or those it reads hold nothing to judge (a perftest banner without a result row), but lines it does not read say something failed: \"failed\", \"error\", \"fatal\", \"timed out\", \"cannot\", \"unable to\", \"refused\", \"unreachable\", \"exceeded\", \"core dumped\" and the like. ibdoctor cannot say what failed or how grave it is, only that the paste reports a failure, so it is not called clean: read the quoted lines. It is critical when one of the lines says the failure ended something: the program died or gave up (\"core dumped\", \"aborted\", \"exiting\", \"terminate called\", \"fatal\", a non-zero exit code), the launcher stopped the job (\"CANCELLED\", \"exited on signal\"), the RDMA connection is gone (\"retry exceeded\", the transport retry counter) or a device or controller was given up (\"in failed state\", \"unrecoverable\"); \"non-fatal\" and \"exit code 0\" do not count. Lines that name a failure without one (a counter or setting: \"errors: 0\", \"0 errors\", \"Timeout: 14\"; a word inside an identifier such as local_ack_timeout_err; \"failover\") do not count, and beside any output ibdoctor judges the lines are left to the findings of that output, unless they say the failure ended something (below) and that output found nothing critical: a healthy ibstat pasted under a job's segmentation fault does not make the paste healthy. Of each unread output the first 200 lines are read (a streamed input keeps no more); kernel and NCCL logs are read by their own rules.",
		Causes:  []string{"a failure reported by a program or tool whose output ibdoctor does not parse", "a known tool's output in a layout ibdoctor does not recognise"},
		Remedy: []string{
			"read the quoted lines and the lines around them, and find the program that printed them",
			"paste the output of the tools that show the state of what failed: ibstat, ibv_devinfo, rdma link, dmesg -T, the job's NCCL_DEBUG=INFO log, nvidia-smi -q",
			"a known tool's output whose header is missing: ibdoctor analyze --kind KIND FILE (ibdoctor analyze --kind list names the kinds)",
		},
	},
}
