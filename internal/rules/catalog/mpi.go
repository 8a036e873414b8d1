package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// mpiMetas are the findings read from Open MPI's help messages about the
// network (the openib, btl base and bml r2 help files of open-mpi/ompi).
var mpiMetas = []finding.Meta{
	{
		ID: "mpi.rdma_not_used", Severity: finding.Warning, Area: "mpi", Step: finding.StepNCCL,
		Title:   "MPI (Open MPI, UCX, Intel MPI) cannot use the RDMA device",
		Meaning: "Open MPI says one of its transports gave up on the host's RDMA device: the openib BTL found an OpenFabrics device but no ACTIVE port ('no active ports found'), no connection scheme that works on a port ('no cpcs for port'), no device of the requested type, an error initialising the device, or a BTL found no network interface at all ('btl:no-nics'). Messages between nodes then go over another transport (TCP, slower), or the job cannot connect; on one node shared memory carries them and nothing is lost. Open MPI 4's stock notice that openib leaves InfiniBand ports to UCX ('ib port not selected', with the 'error initializing an OpenFabrics device' that follows it) is an info: UCX is meant to carry the traffic. UCX told to use only an IPoIB interface (UCX_NET_DEVICES=ib0, as a ucx_perftest command line sets it) is the same loss: UCX names its RDMA devices by HCA port (mlx5_0:1), so with an interface alone it runs its tcp transport over IPoIB (a warning). UCX's own listing says the same when ucx_info -d or ucx_info -p (openucx/ucx src/tools/info/tl_info.c, the UCP context's resource lines) names no memory domain of the ib component and no rc, ud or dc transport while its tcp transport runs on an IPoIB interface (tcp/ib0): this UCX cannot drive the HCA and MPI over it runs on TCP over IPoIB (a warning). Intel MPI's I_MPI_DEBUG startup lines name the fabric it chose ('[0] MPI startup(): libfabric provider: sockets' since Intel MPI 2019, 'shm and tcp data transfer modes' before it); Charm++'s OFI layer prints 'Charm++>ofi> provider: …': libfabric's sockets, tcp or udp provider is the same loss (a warning).",
		Causes: []string{
			"the HCA port is not ACTIVE: cable, switch port or subnet manager (ibstat shows State and Physical state)",
			"RoCE port without an IP address or GID for rdmacm, or a port type the connection schemes do not support",
			"Open MPI 4 or later with openib: InfiniBand ports are left to UCX by design (btl_openib_allow_ib=false)",
			"an Open MPI build without UCX on an InfiniBand cluster: then nothing carries the traffic over RDMA",
			"an Omni-Path (hfi1) or TrueScale (qib) adapter with the ob1 pml: Open MPI drives these through PSM2 (the cm pml with the psm2 or ofi mtl); openib and UCX leave them unused and TCP carries the traffic",
		},
		Remedy: []string{
			"ibstat on the named host: every port the job uses must be State: Active, Physical state: LinkUp; sminfo must answer",
			"ompi_info | grep -i ucx: the ucx pml must be built in; mpirun --mca pml ucx uses it, mpirun --mca btl ^openib silences the openib notices",
			"ibdoctor doctor on the named host",
			"Intel MPI or Charm++ on libfabric: fi_info -l lists the providers libfabric found on the node; set I_MPI_OFI_PROVIDER (or FI_PROVIDER) to the fabric's provider (mlx, verbs, psm2) and rerun with I_MPI_DEBUG=5 to see the one chosen",
		},
	},
	{
		ID: "mpi.ofi_init_failed", Severity: finding.Critical, Area: "mpi", Step: finding.StepNCCL,
		Title:   "The OFI (libfabric) layer of a parallel runtime aborted at startup",
		Meaning: "Charm++ built for its OFI machine layer (src/arch/ofi/machine.C) aborts with 'Reason: OFI::LrtsInit::<call> error' when a libfabric call fails while the processes exchange their addresses in LrtsInit: every process calls CmiAbort and the job never starts. The 'Error value' line before it is libfabric's negative errno (-11 is -FI_EAGAIN, the provider had no resources or no connection to send on; fi_errno(3)). The provider line ('Charm++>ofi> provider: verbs;ofi_rxm') says which provider failed.",
		Causes: []string{
			"the provider's device is not usable on a node (port down, no IPoIB address for verbs;ofi_rxm, which resolves peers by IP)",
			"a libfabric version whose verbs or rxm provider does not work with this Charm++ or this rdma-core",
			"the launcher started the processes without the environment the provider needs (FI_PROVIDER, memlock limit)",
		},
		Remedy: []string{
			"fi_info -p verbs on each node: the provider must list the HCA; ibstat must show the port Active",
			"rerun with FI_LOG_LEVEL=debug to see which libfabric call failed and why; try another provider with FI_PROVIDER (tcp to separate the fabric from the program)",
			"ulimit -l on the nodes: verbs needs unlimited locked memory",
		},
	},
	{
		ID: "mpi.unreachable", Severity: finding.Critical, Area: "mpi", Step: finding.StepNCCL,
		Title:   "Open MPI processes cannot reach each other",
		Meaning: "No transport Open MPI tried can connect two of its processes ('unreachable proc' of the bml r2 component): the job aborts. The BTLs attempted say which transports were left; without an RDMA or TCP one between the hosts, the network path the job needs is missing. The TCP transport's own failures read the same way: 'Open MPI failed to TCP connect to a peer MPI process' (the job may hang or fail) and 'received unexpected process identifier' (a connection reached another process than the one dialled and was closed).",
		Causes: []string{
			"the RDMA transport was disabled or failed on one host (port down, openib or UCX not usable) and TCP was excluded",
			"the two hosts share no network the allowed BTLs can use (btl_tcp_if_include names an interface one host lacks)",
			"a BTL list without 'self' or 'vader'/'sm' for processes on the same host",
			"an interface address several hosts share (docker0's 172.17.0.1, virbr0, a NAT or link-local address): the TCP transport connects to another host's process ('received unexpected process identifier')",
		},
		Remedy: []string{
			"read the host pair named; ibstat and ibdoctor doctor on both",
			"rerun with mpirun --mca btl_base_verbose 100 (or mpirun --mca pml ucx with UCX_LOG_LEVEL=info) to see why each transport was not usable",
			"for TCP errors name the cluster network's interface: mpirun --mca btl_tcp_if_include <interface> (or --mca btl_tcp_if_exclude lo,docker0,virbr0)",
		},
	},
	{
		ID: "mpi.transport_error", Severity: finding.Critical, Area: "mpi", Step: finding.StepNCCL,
		Title:   "Open MPI's InfiniBand transport hit a network error",
		Meaning: "The openib BTL reports that the InfiniBand retry count (or the receiver-not-ready retry count) between two processes was exceeded, or that the OpenFabrics stack raised a network error event: the peer did not acknowledge over this path. Retry exhaustion kills the job; an error event may. openib's handle_wc line (btl_openib_component.c: \"error polling LP CQ with status REMOTE ACCESS ERROR status number 10 … vendor error 136\") is any work request that completed in error: the connection is dead and the job fails (a warning when every one is WORK REQUEST FLUSHED ERROR, work returned from a queue pair already in error: look for the first failure); its poll_device line (\"error polling HP CQ with -2 errno says Device or resource busy\") is ibv_poll_cq itself failing, critical.",
		Causes: []string{
			"bit errors, a link flap or congestion drops on the path between the two hosts",
			"the peer process or node died or hung",
			"a port that went down during the job (the error event names it)",
			"remote or local access and protection errors: a memory registration the peer no longer holds or a bug in the transport or application (vendor error names the HCA's reason)",
		},
		Remedy: []string{
			"check the port error counters and link flaps of both hosts and the switch ports between them (ibqueryerrors, ibdoctor doctor on both)",
			remedyPerftest,
		},
	},
	{
		ID: "mpi.wrong_results", Severity: finding.Critical, Area: "mpi", Step: finding.StepNCCL,
		Title:   "an MPI test computed wrong results",
		Meaning: "An MPI test program compared what an operation delivered with what it must deliver and found a difference: the MPICH test suite's \"Did not get expected value\" or MTest's \"Found N errors\". Data that arrives wrong is worse than a failure: a job would go on with it. The cause is in the stack that moved the data (the MPI library's collective or its transport, UCX or the openib BTL, the HCA's offloads) more often than in the link, whose errors the hardware's CRCs catch.",
		Causes: []string{
			"a bug in the MPI library's collective algorithm or in the transport it used (UCX dc/rc, hardware tag matching, the openib BTL)",
			"an offload or firmware defect of the HCA (tag matching, atomics)",
			"memory corruption on one host (bad DIMM, a GPU buffer registered wrongly)",
		},
		Remedy: []string{
			"rerun the test with another transport (UCX_TLS=rc,sm, or without UCX_DC_VERBS_TM_ENABLE) and with another collective component (mpirun --mca coll ^hcoll or --mca coll_tuned_use_dynamic_rules 1) to find the layer that breaks it",
			"ompi_info and ucx_info -v: the library versions, to compare with their release notes and open issues",
			"rerun on a subset of the hosts (mpirun -H) to see whether one host always takes part",
		},
	},
}
