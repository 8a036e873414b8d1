package catalog

import (
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

var (
	remedyNCCLDebug = "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read it with 'ibdoctor nccl log'"
	remedyPerftest  = "test the single link with ib_write_bw / ib_write_lat between the two nodes ('ibdoctor perf pairwise')"
)

// ncclMetas are the findings read from NCCL logs and nccl-tests output.
// The NCCL environment findings (nccl.ib_hca_unknown, ...) live in
// triage.go.
var ncclMetas = []finding.Meta{
	{
		ID: "nccl.socket_loopback", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL's socket transport lists the loopback interface beside a real one",
		Meaning: "A process's \"NET/Socket : Using\" line lists lo (127.0.0.1) together with another interface. NCCL's own pick leaves lo out whenever another interface is up (src/misc/socket.cc ncclFindInterfaces tries \"^docker,lo\" before \"docker\" and \"lo\"), so lo is listed because NCCL_SOCKET_IFNAME matches it. Each listed interface is one network device of the socket transport; a connection over lo hands the peer 127.0.0.1, which a rank on another host cannot reach, so inter-node connections over it fail or hang. A job on one host is not hurt (not reported).",
		Causes:  []string{"NCCL_SOCKET_IFNAME set to a list or an exclusion that matches lo (\"lo,eth0\", \"^docker\")", "a launcher or container image that sets NCCL_SOCKET_IFNAME for single-node tests"},
		Remedy:  []string{"set NCCL_SOCKET_IFNAME to the cluster network interface only (=eth0), or unset it", "ip -br addr on each node to see which interface carries the address other nodes reach", "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read it with 'ibdoctor nccl log'"},
	},
	{
		ID: "nccl.socket_fallback", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL runs over sockets instead of IB/RoCE",
		Meaning: "The NCCL log shows a rank using the Socket transport (NET/Socket, 'Using network Socket') for inter-node traffic, or its IB transport finding no device ('NET/IB : No device found.') with no net plugin in sight, which leaves NCCL only sockets. aws-ofi-nccl's net plugin selecting a libfabric provider that runs over the host's IP stack ('NET/OFI Selected Provider is tcp;ofi_rxm': tcp, sockets or udp, alone or under ofi_rxm/ofi_rxd) instead of efa is the same fallback: the traffic goes through libfabric over TCP. Training still works but at a fraction of the speed with high CPU load: GPUs look busy at a third of their normal utilisation. Critical when RDMA devices exist or IB was expected (--expect-ib, or the job's environment asks for IB: NCCL_IB_DISABLE=0 or NCCL_IB_HCA set), or when the NCCL lines sit in the output of a multi-node nccl-tests run (the busbw shortfall is then its evidence); otherwise a warning.",
		Causes: []string{
			"NCCL_IB_DISABLE=1 in the environment (see nccl.ib_disabled)",
			"the container lacks /dev/infiniband/uverbs* and rdma_cm, so NCCL finds no IB device",
			"NCCL_IB_HCA names devices that do not exist or whose ports are down",
			"libibverbs / rdma-core missing in the image",
		},
		Remedy: []string{
			"ibdoctor doctor on the node (devices, container access, NCCL environment)",
			"pass the RDMA devices into the container (docker run --device=/dev/infiniband, the RDMA shared device plugin on Kubernetes)",
			"unset NCCL_IB_DISABLE; check NCCL_IB_HCA against ibstat",
			remedyNCCLDebug,
		},
	},
	{
		ID: "nccl.ibv_error", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL got an InfiniBand work-completion error",
		Meaning: "A work request completed with an ibv_wc_status other than success ('NET/IB : Got completion from peer ... with error N'). The first error in time is the cause; later flush errors (status 5) are fallout. 12 (retry exceeded) means the peer did not acknowledge: a lossy path, a dead peer or wrong RoCE routing; 4 (local protection) means a memory registration problem, often GPUDirect RDMA (nvidia-peermem, ACS/IOMMU).",
		Causes: []string{
			"status 12: packet loss or a link flap on the path, the peer process or node died, RoCE routing/GID mismatch",
			"status 4: GPUDirect RDMA registration failed (nvidia-peermem not loaded, PCIe ACS or IOMMU blocks peer-to-peer)",
			"status 13: the peer's receive queue was not ready (RNR)",
		},
		Remedy: []string{
			"check port error counters and link flaps on both ends of the named peer (ibdoctor doctor on both nodes)",
			"status 4: lsmod | grep peermem; disable ACS on the PCIe switches or set iommu=pt",
			remedyPerftest,
		},
	},
	{
		ID: "nccl.resource_error", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL could not create verbs resources",
		Meaning: "A verbs call that sets up communication failed (ibv_reg_mr, ibv_create_qp, ibv_create_cq, ibv_modify_qp, ibv_open_device): NCCL cannot build its connections and aborts or falls back.",
		Causes: []string{
			"locked-memory limit too low (ulimit -l) for memory registration: 'Cannot allocate memory'",
			"container without the RDMA devices or without IPC_LOCK",
			"ibv_modify_qp 'Network is unreachable' / 'Connection timed out': wrong GID index or no route for RoCE",
			"too many QPs or MRs for the HCA (many processes per node)",
		},
		Remedy: []string{
			"ulimit -l unlimited for the job (limits.conf, systemd LimitMEMLOCK, docker run --ulimit memlock=-1)",
			"give the container the RDMA devices and the IPC_LOCK capability",
			"RoCE: set NCCL_IB_GID_INDEX to the RoCE v2 GID (show_gids)",
		},
	},
	{
		ID: "nccl.ib_async_event", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL got an InfiniBand async event",
		Meaning: "NCCL's verbs async thread printed an ibv async event (ibv_get_async_event(3)). 'port error' means the port left ACTIVE under the job (its link went down), 'local catastrophic error' that the HCA failed (device fatal), CQ and work-queue errors that a QP went to the error state: those are critical and the job's connections over that device fail. A failed path migration or SRQ error is a warning. 'port active', 'LID change', 'SM change', 'P_Key change', 'client reregistration', 'GID table change' are the fabric reconfiguring (a subnet manager sweep, a link coming back): informational, unless they repeat.",
		Causes: []string{
			"port error: cable, transceiver or switch port fault; the peer switch port reset; the SM took the port down",
			"local catastrophic error: HCA firmware fault, PCIe error or the device was reset",
			"work-queue errors: a QP error caused by a bad memory registration or a peer that went away",
		},
		Remedy: []string{
			"ibstat and dmesg on the named host for the port's state and the mlx5 lines at that time (ibdoctor doctor there)",
			"IB: perfquery -C <dev> -P <port> for LinkDownedCounter and the error counters",
			"local catastrophic error: mlxfwmanager --query and the kernel log's mlx5 health lines; drain the node",
		},
	},
	{
		ID: "nccl.timeout", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "collective operation timed out",
		Meaning: "A collective did not complete within the watchdog timeout (PyTorch ProcessGroupNCCL 'Watchdog caught collective operation timeout', or an NCCL timeout warning). A rank whose sequence number lags the others is the straggler to look at first. With links that look fine, follow the triage order: dmesg for GPU/PCIe errors, memory registration, perftest on the single link, only then NCCL itself.",
		Causes: []string{
			"a rank hung or died (GPU Xid, OOM, a stuck data loader)",
			"intermittent bit errors or link flaps on the path",
			"an unstable PCIe link between GPU and NIC",
			"ranks called collectives in different orders (application bug)",
		},
		Remedy: []string{
			"find the lagging rank (lowest SeqNum) and run ibdoctor doctor on its node",
			"dmesg for Xid and AER errors on every node of the job",
			remedyPerftest,
		},
	},
	{
		ID: "nccl.connect_failed", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL could not open a TCP connection to a peer rank",
		Meaning: "NCCL's bootstrap (the ranks exchange their addresses over TCP before any collective) and its socket transport connect to the other ranks over the interface NCCL_SOCKET_IFNAME picks; 'Connect to ADDR failed : ERR' means that connection failed and NCCL returned ncclSystemError (the 'bootstrap.cc:N -> 2' lines after it): the communicator is not created and the job does not start. 'No route to host' is no IP route, or a firewall that rejects; 'Connection refused' a peer that is not listening (it exited, or has not started); 'Connection timed out' packets dropped on the way. Other wordings of the same failure: 'socketPollConnect: Connect to ADDR returned 113(No route to host)' (newer releases), 'Call to recv failed : Connection reset by peer' (the connection was open and the peer closed it: that rank died first, or a firewall reset it), 'Net : Socket creation failed : Address family not supported by protocol' (socket() refused the address family NCCL picked: an IPv6 address on a host or container with IPv6 off).",
		Causes: []string{
			"a firewall (firewalld, iptables, a security group) rejects the ports NCCL listens on between the nodes",
			"NCCL_SOCKET_IFNAME (or NCCL's default choice) picks an interface or address the peer cannot reach: docker0, a NAT or a host-only network",
			"the peer rank died or never started, so nothing listens at its address",
		},
		Remedy: []string{
			"ping the peer's address from the failing rank's host, over the interface NCCL named in its 'Bootstrap : Using' line",
			"allow TCP between the nodes on the job's network in their firewalls (firewalld, iptables, the cloud security group)",
			"set NCCL_SOCKET_IFNAME to an interface both nodes reach each other on",
		},
	},
	{
		ID: "nccl.call_failed", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "an NCCL call failed and the program stopped",
		Meaning: "The program (nccl-tests: 'HOST: Test NCCL failure common.cu:345 'unhandled system error'') got an error back from NCCL and aborted, and the paste shows nothing that explains it (no completion error, verbs failure or timeout). The text is ncclGetErrorString of the result: 'unhandled system error' (ncclSystemError) is a failed system or library call (a socket connect or accept, shared memory under /dev/shm, a verbs call), 'unhandled cuda error' a failed CUDA call, 'internal error' a failure inside NCCL or its net plugin, 'invalid argument' / 'invalid usage' a wrong call or setting, 'remote process exited or there was a network error' a peer that died or a broken connection. The NCCL WARN line printed before it names the call. NCCL's own error return trace out of communicator setup ('init.cc:1534 -> 2', 'bootstrap.cc:285 -> 2': the result code climbing out of ncclCommInitRank) is the same failure seen from inside NCCL: the communicator was never built. mpirun's report that a process exited with a non-zero status ('mpirun detected that one or more processes exited with non-zero status … Exit code: 3') or on a signal, beside an NCCL log with nothing critical in it, is a job that died too.",
		Causes: []string{
			"unhandled system error: a socket to a peer failed (firewall, wrong NCCL_SOCKET_IFNAME), /dev/shm too small in a container, or a verbs call failed",
			"unhandled cuda error: a CUDA error on a GPU (Xid, out of memory, a bad driver install)",
			"remote process exited or there was a network error: a peer died, or the network between the nodes dropped",
		},
		Remedy: []string{
			remedyNCCLDebug,
			"docker run --shm-size=1g (or --ipc=host) when the ranks run in containers",
			"dmesg on every node of the job for Xid and AER errors",
		},
	},
	{
		ID: "nccl.warned", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL printed warnings that no rule classifies",
		Meaning: "The log holds NCCL WARN lines of a wording ibdoctor does not read, and nothing else in it is a warning or worse. NCCL prints WARN only where an operation failed or was refused (a call, a configuration value, a topology search that fell back), so the lines deserve a read before the log is called clean. Beside a finding that explains the job's trouble they are a note instead.",
		Causes: []string{
			"a failed call or refused setting in a wording this version of ibdoctor does not know",
			"an NCCL_* environment value NCCL rejected or ignored",
			"a topology search that fell back to a slower pattern",
		},
		Remedy: []string{
			"read the quoted lines and the NCCL source file and line they name (src/<file>:<line> in github.com/NVIDIA/nccl at the logged version)",
			remedyNCCLDebug,
		},
	},
	{
		ID: "nccl.gdr_disabled", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "GPUDirect RDMA is disabled",
		Meaning: "NCCL reports GPU Direct RDMA disabled for an HCA: network traffic is staged through host memory, costing bandwidth and CPU. A job shown to run on one node (nNodes 1, or every rank on one host) gets a note instead: NCCL uses its network transport only between nodes.",
		Causes:  []string{"nvidia-peermem (or nv_peer_mem) not loaded", "GPU and NIC too far apart in PCIe (NCCL_NET_GDR_LEVEL)", "dma-buf not supported by kernel or driver"},
		Remedy:  []string{"modprobe nvidia-peermem", "nvidia-smi topo -m to check GPU-NIC distance"},
	},
	{
		ID: "nccl.rank_exception", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "a rank of the job raised a Python exception",
		Meaning: "A rank printed a Python traceback ('Traceback (most recent call last):', under torchrun's per-rank tag '[rank0]: ' when the launcher adds it) in a log whose NCCL lines show no failure of their own: that rank's program raised an exception and stopped, after or around its NCCL calls. The traceback's last line names the exception; an assertion on a collective's result (a sanity check of an all-reduce) or an error NCCL returned is a communication fault, anything else is the application's. A warning, since the log does not say which; a critical NCCL finding beside it is reported instead.",
		Causes: []string{
			"an error NCCL or the CUDA runtime returned inside the collective, raised by the framework (the line after the traceback names it)",
			"a communication check (an all-reduce whose result is not what every rank expects) that failed: mismatched NCCL or framework versions between ranks, or a faulty path between GPUs",
			"a fault of the application itself (its code, its data, out of memory)",
		},
		Remedy: []string{
			"read the traceback to its last line on every rank that printed one: the exception and the call that raised it",
			"rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read the log with 'ibdoctor nccl log' for a warning of NCCL before the exception",
		},
	},
	{
		ID: "nvshmem.ibgda_fallback", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NVSHMEM's IBGDA transport cannot let the GPU drive the NIC",
		Meaning: "NVSHMEM's IBGDA transport (GPU-initiated RDMA, used by DeepEP and the expert-parallel kernels of SGLang and vLLM) maps each NIC's UAR (its doorbell page) and queue memory into the GPU so that GPU threads post RDMA work themselves. NVSHMEM warns when it cannot ('WARN: cudaHostRegister with IoMemory failed with error=800. We may need to use a fallback path.', 'WARN: ibgda_nic_mem_gpu_map failed.', 'WARN: ibgda_alloc_and_map_qp_uar with GPU as handler failed. We may need to enter the CPU fallback path.', src/modules/transport/ibgda/ibgda.cpp; older releases 'WARN: GPU cannot map UAR of device mlx5_0. Skipping...'): a CPU thread then rings the doorbells (through GDRCopy or host memory), or the NIC is skipped. The job runs, with the latency and message rate of a CPU proxy instead of GPU-initiated RDMA. When the transport cannot be initialised at all ('init failed for transport: IBGDA', src/host/transport/transport.cpp nvshmemi_transport_init), the kernels that need it (DeepEP's low-latency mode) cannot run: critical.",
		Causes: []string{
			"cudaHostRegister of I/O memory refused (CUDA error 800, cudaErrorNotPermitted): the NVIDIA driver was loaded without PeerMappingOverride=1 (NVreg_RegistryDwords), which IBGDA needs",
			"the container or VM cannot map the NIC's BAR into the GPU (IOMMU, virtualisation, a bond or VF device)",
			"NVSHMEM_IBGDA_NIC_HANDLER set to a CPU handler, or a GPU/driver combination without the mapping support",
		},
		Remedy: []string{
			"load the NVIDIA driver with options nvidia NVreg_EnableStreamMemOPs=1 NVreg_RegistryDwords=\"PeerMappingOverride=1;\" (NVIDIA's IBGDA requirements) and reboot or reload the driver",
			"cat /proc/driver/nvidia/params | grep RegistryDwords on the node to check the setting",
			"rerun with NVSHMEM_DEBUG=INFO to see which NIC handler NVSHMEM chose per device",
		},
	},
	{
		ID: "nccl.wrong_results", Severity: finding.Critical, Area: "nccl", Step: finding.StepPerf,
		Title:   "nccl-tests found wrong results (data corruption)",
		Meaning: "nccl-tests validated the output buffers and found elements out of bounds (#wrong > 0, 'Out of bounds values : N FAILED'). Data got corrupted between GPUs: never a tuning issue.",
		Causes:  []string{"faulty GPU memory or GPU (check Xid 48/63/64, ECC)", "PCIe or NVLink errors", "a broken NCCL/driver/firmware combination or a bug in a plugin"},
		Remedy:  []string{"nvidia-smi -q -d ECC and dmesg for Xid on every node", "rerun with fewer nodes to isolate the node that corrupts", "drain the node until the cause is found"},
	},
	{
		ID: "nccl.busbw_low", Severity: finding.Critical, Area: "nccl", Step: finding.StepPerf,
		Title:   "large-message bus bandwidth below expectation",
		Meaning: "The bus bandwidth at large message sizes, where it should plateau, is below the expectation (--expect-busbw, or the fraction of the per-GPU network line rate). When small messages are slow too, look at the network links; when only large ones are, the bandwidth path (link width/speed, PCIe, one NIC shared by several GPUs).",
		Thresholds: []finding.Threshold{
			{Name: "busbw_warning", Default: limits.Pct(limits.NCCLBusBWWarn), Meaning: "below this fraction of the expectation: warning"},
			{Name: "busbw_critical", Default: limits.Pct(limits.NCCLBusBWCrit), Meaning: "below this fraction of the expectation: critical (a 20% shortfall)"},
			{Name: "line_rate_efficiency", Default: limits.Float(limits.NCCLEfficiency), Meaning: "expected busbw of a multi-node run = NICs in use per node x line rate (Gb/s) / 8 x this, when --line-rate (or --root) gives the rate: busbw is bounded by each node's aggregate NIC bandwidth"},
		},
		Causes: []string{"a degraded link on the path (width or speed)", "NCCL uses sockets or fewer NICs than expected", "GPU-NIC PCIe path degraded or crossing sockets", "congestion from other jobs"},
		Remedy: []string{"ibdoctor nccl log on the run's NCCL_DEBUG=INFO output", "ibdoctor doctor on the nodes", remedyPerftest},
	},
	{
		ID: "nccl.nics_unused", Severity: finding.Critical, Area: "nccl", Step: finding.StepPerf,
		Title:   "NCCL drives fewer NICs per node than the node has",
		Meaning: "A multi-node run's bus bandwidth is bounded by each node's aggregate NIC bandwidth, and each GPU drives the NIC nearest to it. The NCCL log inside the output ('NET/IB : Using [0]mlx5_0:1/IB …') lists fewer NICs on a host than it has (--nics-per-node, --root) or than it has GPUs: the run is stuck on a fraction of the bandwidth. Critical when the node's NIC count is known; a warning when only the rank layout (one NIC per GPU) suggests more.",
		Causes:  []string{"NCCL_IB_HCA names only some of the HCAs", "ports down or not ACTIVE on the host, so NCCL leaves them out", "the container sees only some /dev/infiniband/uverbs devices"},
		Remedy:  []string{"ibdoctor doctor on the host (ports, container access, NCCL_IB_HCA)", remedyNCCLDebug},
	},
	{
		ID: "nccl.mixed_link_layers", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL's IB transport mixes InfiniBand and Ethernet (RoCE) ports",
		Meaning: "The devices NCCL's IB transport uses ('NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE …') include ports of both link layers. NCCL spreads its channels over every device in that list, so some rings run over the Ethernet port, often the host's front-end NIC (on Azure ND H100 v5 mlx5_1 is the Ethernet NIC among eight InfiniBand HCAs): those rings run at its speed, and when its peers' device of the same index is an InfiniBand port they cannot connect at all. Set NCCL_IB_HCA to the ports meant for the job.",
		Causes: []string{
			"NCCL_IB_HCA unset on a host whose front-end Ethernet NIC is a ConnectX (mlx5) device with RDMA",
			"an NCCL_IB_HCA prefix that also matches the Ethernet device (mlx5_1 matches mlx5_1, mlx5_10 …)",
		},
		Remedy: []string{
			"NCCL_IB_HCA==<the InfiniBand ports, comma-separated> ('=' matches names exactly), or NCCL_IB_HCA=^=<the Ethernet device> to exclude it",
			"ibdev2netdev and ibstat on the host: which mlx5 device is the Ethernet port",
		},
	},
	{
		ID: "nccl.efa_nics_missing", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "aws-ofi-nccl finds fewer EFA NICs than the instance type has",
		Meaning: "aws-ofi-nccl names the EC2 instance type ('NET/OFI Running on p4d.24xlarge platform') and how many NICs its libfabric provider found ('Selected provider is efa, fabric is efa (found 1 nics)'), and the type has more EFA interfaces than that (p4d.24xlarge and p4de.24xlarge 4, p5.48xlarge and p5e.48xlarge 32, p5en.48xlarge 16, trn1.32xlarge 8, trn1n.32xlarge 16: one per network card, AWS EC2 User Guide). NCCL spreads its inter-node traffic over the NICs the plugin finds, so the node gets only that fraction of its network bandwidth; collectives across nodes run correspondingly slower.",
		Causes: []string{
			"the instance launched with one EFA interface instead of one per network card (network card index 0 only)",
			"a Kubernetes pod that requests fewer vpc.amazonaws.com/efa devices than the node has, or a container given only some /dev/infiniband/uverbs* devices",
			"an EFA interface detached, or the efa driver failed to bind one (dmesg | grep -i efa)",
		},
		Remedy: []string{
			"fi_info -p efa -t FI_EP_RDM on the node and in the container: one entry per EFA device the process sees",
			"ls /sys/class/infiniband on the node: one rdmap device per EFA interface",
			"launch the instance with an EFA interface on every network card (EC2 launch template: InterfaceType efa, NetworkCardIndex 0 to N-1)",
			"Kubernetes: request every EFA device of the node (resources.limits vpc.amazonaws.com/efa: 4 on p4d.24xlarge, 32 on p5.48xlarge)",
		},
	},
	{
		ID: "nccl.small_msg_latency", Severity: finding.Warning, Area: "nccl", Step: finding.StepPerf,
		Title:   "small messages slow while large messages are fine",
		Meaning: "The smallest messages take far longer than the latency floor while the large-message bandwidth is healthy. Small slow and large fine points to the NCCL algorithm/protocol choice or the PCIe path, not the links.",
		Thresholds: []finding.Threshold{
			{Name: "small_latency", Default: limits.Float(limits.NCCLSmallLatencyUS) + "us", Meaning: "time of the smallest message above which small messages count as slow"},
		},
		Causes: []string{"NCCL_ALGO/NCCL_PROTO forced (e.g. Ring with Simple for tiny messages)", "GPU-NIC traffic crossing CPU sockets (PHB/SYS paths)", "CPU power saving or proxy thread starved"},
		Remedy: []string{"unset NCCL_ALGO / NCCL_PROTO overrides", "nvidia-smi topo -m: check the GPU-NIC distance", "pin the proxy threads, disable deep C-states"},
	},
	{
		ID: "nccl.busbw_inconsistent", Severity: finding.Warning, Area: "nccl", Step: finding.StepPerf,
		Title:   "busbw does not match algbw x the collective's factor",
		Meaning: "nccl-tests computes busbw = algbw x factor (allreduce 2(n-1)/n, allgather/reducescatter/alltoall (n-1)/n, broadcast/reduce/sendrecv 1). A row that disagrees means the rank count or the collective is not what the header says: a mixed or edited output.",
		Causes:  []string{"output of several runs concatenated or edited", "the collective was named wrongly (--collective)"},
		Remedy:  []string{"rerun the test and keep its output unedited"},
	},
	{
		ID: "nccl.inplace_asymmetry", Severity: finding.Warning, Area: "nccl", Step: finding.StepPerf,
		Title:   "in-place and out-of-place bandwidth differ",
		Meaning: "At large sizes in-place and out-of-place runs move the same data and should agree within a few percent. A large gap points to noise (other jobs, congestion) or memory placement problems.",
		Thresholds: []finding.Threshold{
			{Name: "inplace_gap", Default: limits.Pct(limits.NCCLInplaceGap), Meaning: "relative busbw difference above which the finding fires"},
		},
		Causes: []string{"other traffic during the test (congestion, another job)", "GPU clocks throttling during the run", "bandwidth that swings: credit starvation in the fabric"},
		Remedy: []string{"rerun all_reduce_perf (nccl-tests) with more iterations (-n 100) on an idle fabric", "check port.congestion on the nodes"},
	},
	{
		ID: "nccl.busbw_collapse", Severity: finding.Warning, Area: "nccl", Step: finding.StepPerf,
		Title:   "bus bandwidth collapses at some message sizes",
		Meaning: "Bus bandwidth grows with the message size up to a plateau. A run whose busbw, at messages of 1 MiB and more, falls under half the best of the smaller sizes at two sizes or more stalls at those sizes: the fabric congests (an all-to-all's incast, pause storms on RoCE, adaptive routing off), or NCCL switches protocol, algorithm or buffer there and that path is slow.",
		Causes:  []string{"fabric congestion at those sizes: incast of an all-to-all, PFC pause storms (RoCE), adaptive routing off", "NCCL's protocol, algorithm or buffer choice at those sizes (NCCL_BUFFSIZE, NCCL_ALGO, NCCL_PROTO)", "another job sharing the links during the run"},
		Remedy:  []string{"rerun the nccl-tests binary (alltoall_perf, all_reduce_perf) on an idle fabric with more iterations (-n 100) to see whether the dip repeats", "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING to see the algorithm and protocol chosen at those sizes", "check port.congestion and the pause and ECN counters of the ports (ethtool -S <netdev> | grep -Ei 'pause|ecn|discard')"},
	},
	{
		ID: "nccl.no_plateau", Severity: finding.Info, Area: "nccl", Step: finding.StepPerf,
		Title:   "bus bandwidth still rising at the largest size",
		Meaning: "The busbw curve was still climbing at the largest message size, so the run ended before the bandwidth plateau: its peak understates what the fabric can do.",
		Thresholds: []finding.Threshold{
			{Name: "plateau_growth", Default: limits.Pct(limits.NCCLPlateauGrowth), Meaning: "busbw growth between the two largest sizes that counts as still rising"},
		},
		Causes: []string{"maximum message size (-e) too small for this many ranks"},
		Remedy: []string{"rerun all_reduce_perf (nccl-tests) with a larger -e (e.g. -e 8G) so the curve flattens"},
	},
	{
		ID: "nccl.test_not_distributed", Severity: finding.Warning, Area: "nccl", Step: finding.StepPerf,
		Title:   "every process ran its own single-rank test",
		Meaning: "The output holds several headers and rank lists that each start at rank 0: an nccl-tests binary built without MPI was launched by mpirun, so each process ran alone and the numbers say nothing about the network.",
		Causes:  []string{"nccl-tests built without MPI=1"},
		Remedy:  []string{"rebuild nccl-tests with 'make MPI=1 MPI_HOME=...' and rerun"},
	},
	{
		ID: "nccl.tests_no_output", Severity: finding.Warning, Area: "nccl", Step: finding.StepPerf,
		Title:   "a multi-rank nccl-tests launch printed nothing",
		Meaning: "The paste shows an mpirun/srun line that starts an nccl-tests binary on two or more ranks and no output of it (nccl-tests prints its '# nThread' banner once every rank has started), while another run in the same paste printed its result table: the multi-rank job stalled before the test began, or its output was left out of the paste.",
		Causes: []string{
			"the ranks cannot reach each other: MPI's out-of-band or TCP transport on an interface the other host cannot reach, a firewall",
			"NCCL's bootstrap or network setup hangs across ranks (wrong NCCL_SOCKET_IFNAME, a net plugin or libfabric provider that does not start)",
			"the output was not pasted",
		},
		Remedy: []string{
			"mpirun -np 2 hostname with the same hosts and MPI options: the launch itself must work",
			"rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read where the ranks stop (ibdoctor analyze on the log)",
		},
	},
}
