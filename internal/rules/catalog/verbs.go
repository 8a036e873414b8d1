package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// verbsMetas are the findings read from the work-completion errors that
// applications and their libraries print outside the tools ibdoctor reads
// by kind (libmlx5's error CQE dump, libfabric, any log line naming an
// ibv_wc_status).
var verbsMetas = []finding.Meta{
	{
		ID: "verbs.completion_error", Severity: finding.Critical, Area: "verbs", Step: finding.StepNCCL,
		Title:   "an RDMA application got a work-completion error",
		Meaning: "An application's log, or a library in it, reports a failed RDMA work completion: libmlx5's 'got completion with error' dump of the error CQE (rdma-core providers/mlx5/cq.c; it prints every error but a flush and a transport retry exhaustion, and the CQE's syndrome gives the ibv_wc_status), a libfabric line with the provider's error ('fi_cq_readerr: err: 5, prov_err: remote access error (10)'), or a log line that ends in the ibv_wc_status_str text or IBV_WC_ name of a failed completion ('transport retry counter exceeded', IBV_WC_RETRY_EXC_ERR). The operation failed and its queue pair went to the error state: the transfer, and usually the job, fails (critical). Flushed work requests alone are fallout of an earlier error (a warning); a status the paste does not show is a warning too. The devices the lines name (a local and a peer NIC) say which path to test.",
		Causes: []string{
			"transport retry counter exceeded: the peer never acknowledged: bit errors, a link flap or drops on the path between the two NICs, a port that is down, RoCE routing or GID mismatch, or a peer process or node that died",
			"remote access error: the peer's memory registration did not allow the operation: it went away (the peer process died or deregistered the buffer), a wrong key or address, or GPUDirect RDMA failed on the peer",
			"local protection error: the local buffer is not covered by a valid registration (with GPU buffers usually GPUDirect RDMA: nvidia-peermem missing, PCIe ACS or IOMMU in the way)",
			"RNR retry counter exceeded: the peer had no receive posted for too long: it stalled or is gone",
			"remote operation, remote invalid request errors: the peer's queue pair failed, or the two ends disagree on the transport (MTU, operation, message size)",
			"flushed work requests: the queue pair was already in the error state: an earlier error (the first failure above the flushes) or a connection torn down",
			"local length error: a message came in larger than the receive buffer the local side posted (or a send was longer than the port allows): the two ends disagree on message sizes, as an iSER initiator and target that negotiated different data segment lengths or header sizes, or run versions that do",
		},
		Remedy: []string{
			"ibstat (or ibv_devinfo) on both hosts: the ports of the named NICs must be Active/LinkUp; ibdoctor doctor on both",
			"check the error counters and link flaps of both ports and the switch ports between them (ibqueryerrors; RoCE: ethtool -S <netdev> | grep -E 'discard|error|pause')",
			remedyPerftest,
			"local protection error: lsmod | grep peermem; disable ACS on the PCIe switches or set iommu=pt",
		},
	},
	{
		ID: "verbs.async_event", Severity: finding.Critical, Area: "verbs", Step: finding.StepNCCL,
		Title:   "an RDMA application got an async event",
		Meaning: "An application's log names an ibv async event, libibverbs' ibv_event_type_str text of what ibv_get_async_event(3) returned ('Received context async event local work queue catastrophic error for context erdma_0'). 'port error' means the port left ACTIVE under the application (its link went down), 'local catastrophic error' that the HCA failed (device fatal), CQ and work-queue errors ('local work queue catastrophic error', IBV_EVENT_QP_FATAL) that a queue pair or completion queue went to the error state: those are critical, the transfers over it fail. A failed path migration or SRQ error is a warning. 'port active', 'LID change', 'SM change', 'P_Key change', 'client reregistration', 'GID table change', 'communication established', 'last WQE reached' are the fabric reconfiguring or a queue's normal life: informational.",
		Causes: []string{
			"port error: cable, transceiver or switch port fault; the peer switch port reset; the SM took the port down",
			"local catastrophic error: HCA firmware fault, PCIe error or the device was reset",
			"work-queue errors: a work request the queue pair could not execute (a bad memory registration or key, a peer that went away, a transport error) or a driver or firmware fault of the device",
			"other events: a failed path migration or SRQ error the application must handle, or the fabric reconfiguring (a subnet manager sweep, a port coming back)",
		},
		Remedy: []string{
			"ibstat (or ibv_devinfo) and dmesg -T on the host at that time: the port's state and the driver's lines for the named device (ibdoctor doctor there)",
			"port error: IB: perfquery -C <dev> -P <port> for LinkDownedCounter and the error counters; RoCE: ethtool -S <netdev> | grep -E 'error|discard'",
			"local catastrophic error: mlxfwmanager --query and the kernel log's health lines for the device; drain the node",
			"work-queue errors: read the application's lines just before the event (the failed work completion and its status) and the kernel log of both hosts",
		},
	},
	{
		ID: "verbs.qp_setup_failed", Severity: finding.Critical, Area: "verbs", Step: finding.StepNCCL,
		Title:   "an RDMA application could not connect a queue pair",
		Meaning: "An application's log says ibv_modify_qp(3) could not move a queue pair to INIT, RTR (Ready To Receive, where the path to the peer is set) or RTS (Ready To Send): 'Failed to modify QP to RTR: Connection timed out' (rdma-core's rc_pingpong.c and the programs built like it: Mooncake's transfer engine, UCCL, DeepEP). Every RC connection goes through those states before it carries a byte, so that connection never came up: critical. The error number says which part failed. ETIMEDOUT (110) happens on RoCE only: moving to RTR resolves the peer's GID, an IP address, to the MAC the packets go to (the kernel's ib_resolve_eth_dmac, drivers/infiniband/core/verbs.c, through ARP or IPv6 neighbour discovery with a one-second timeout in core/addr.c), and nobody answered from the network device of the GID index used. EINVAL (22) is an attribute the port rejects: a GID index with no entry, a path MTU above the port's active MTU, a port that is not ACTIVE, a destination LID of 0 on InfiniBand. ENETUNREACH (101) and EHOSTUNREACH (113): the host has no route to the peer's address from that network device. A connection whose queue pair reached RTR but whose peer's first message never came is counted too: DeepSeek 3FS's 'IBSocket RDMA://<peer>/mlx5_0:1/953 accept timeout, port {mlx5_1:1, ifaddrs [], zones [UNKNOWN], ETHERNET, ACTIVE}' (src/common/net/ib/IBSocket.cc), where a RoCE port listing no IP address has no RoCE v2 GID with one.",
		Causes: []string{
			"ETIMEDOUT (110): the peer's address in its GID is not reachable from the network device of the local GID index: a link-local (fe80::) or RoCE v1 GID used between subnets, two NICs in one IP subnet answering ARP for each other (ARP flux), a VLAN or switch port misconfigured, or the peer's port or netdev down",
			"ETIMEDOUT (110): the two ends use GID indexes of different kinds (RoCE v1 on one, v2 on the other, or IPv4 against IPv6 entries)",
			"EINVAL (22): a GID index with no entry on the port, a path MTU above the active MTU of one of the ports, the local port not ACTIVE, or a destination LID of 0 on InfiniBand (the peer's LID not exchanged)",
			"ENETUNREACH (101), EHOSTUNREACH (113): no route from the GID's network device to the peer's IP address",
			"other error numbers: the device, its driver or the program's attributes (read the program's message and the kernel log)",
		},
		Remedy: []string{
			"show_gids on both hosts (or rdma link show and ibv_devinfo -v): give both ends the index of the RoCE v2 GID that holds the IPv4 address of the port's netdev (not the fe80:: link-local entry)",
			"ETIMEDOUT (110): from the netdev of that GID, reach the peer's address: ping -I <netdev> <peer IP>, then ip neigh show dev <netdev>; with several NICs in one subnet set net.ipv4.conf.all.arp_ignore=1 and arp_announce=2, or give each NIC its own subnet or routing table",
			"EINVAL (22): ibv_devinfo -v on both hosts: the port used is PORT_ACTIVE, the GID index exists, and the path MTU the program sets is no larger than active_mtu",
			remedyPerftest,
		},
	},
	{
		ID: "rdma.cm_connect_failed", Severity: finding.Critical, Area: "rdma", Step: finding.StepPort,
		Title:   "an RDMA CM connection could not be made",
		Meaning: "A program connecting through the RDMA connection manager (librdmacm) got an error event instead of the connection: rping's 'cma event RDMA_CM_EVENT_ADDR_ERROR, error -19' (rdma-core librdmacm/examples/rping.c cma_event_handler, then 'waiting for addr/route resolution state 1'). ADDR_ERROR: the peer's IP address could not be resolved to an RDMA device and port (rdma_resolve_addr); ROUTE_ERROR: no path to it (rdma_resolve_route; on InfiniBand the SA path query); UNREACHABLE and CONNECT_ERROR: the peer's CM did not answer or the connection failed. No program using the RDMA CM (rping, NVMe-oF, NFS over RDMA, perftest -R, MPI and UCX over rdma_cm) can connect that way: critical. The error is the negative errno of the kernel's resolution (drivers/infiniband/core/cma.c, addr.c): -19 ENODEV, the address resolved to a network interface that has no RDMA device bound to it; -110 ETIMEDOUT, ARP or the SA query got no answer; -101 ENETUNREACH, no route. RDMA_CM_EVENT_REJECTED alone is a warning: the peer's CM answered and refused the connection (most often nothing listening on the port yet).",
		Causes: []string{
			"error -19 (ENODEV): the interface that routes to the peer's address has no RDMA device: the RDMA device is on another interface, the address is on a bond, bridge, VLAN or tunnel that the RDMA device is not bound to, or a Soft-RoCE (rxe) or soft-iWARP (siw) device was not created on that interface (rxe runs on Ethernet interfaces only)",
			"error -110 (ETIMEDOUT): ARP or neighbour discovery for the peer's address got no answer on the RDMA interface (the peer is down or on another subnet), or on InfiniBand the subnet manager did not answer the path query",
			"error -101/-113 (ENETUNREACH/EHOSTUNREACH): no route to the peer's address from this host",
			"REJECTED: nothing listening on the peer's port (the server side not started, already gone, or on another port), or the peer refused the connection's parameters",
		},
		Remedy: []string{
			"rdma link show (or ibdev2netdev): the RDMA device and the network interface it is bound to; ip route get PEER_IP must leave through that interface",
			"Soft-RoCE: rdma link add rxe0 type rxe netdev NETDEV on the Ethernet interface that holds the address",
			"ping PEER_IP and ip neigh show dev NETDEV: the peer's address answers on the RDMA interface",
			"test the connection on its own: rping -s -a LOCAL_IP -v on the peer, rping -c -a PEER_IP -v -C 3 here",
		},
	},
	{
		ID: "rdma.transport_unavailable", Severity: finding.Critical, Area: "rdma", Step: finding.StepContainer,
		Title:   "an application's RDMA transport could not start",
		Meaning: "An application says its RDMA transport did not start because no RDMA device was usable: Mooncake's transfer engine could not open its device with the GID index it was given ('Failed to open device mlx5_8 on port  with GID 0', 'Disable device mlx5_8') and then had none left ('RdmaTransport: No available RNIC', 'RdmaTransport: cannot initialize RDMA resources'); SPDK's NVMe-oF target could not create its RDMA transport ('Unable to create new transport of type RDMA', 'Failed to listen on transport RDMA address …'); librdmacm could not create its event channel, which opens /dev/infiniband/rdma_cm (LDMS's zap_rdma: 'z_rdma_listen: rdma_create_event_channel failed. zerr 7', then ldmsd's 'Error 7 listening on the 'rdma' transport.' and the daemon exits); brpc's RDMA endpoint (rdma_endpoint.cpp, in FalconFS and other brpc programs) could not create a completion channel, completion queue or queue pair ('Fail to create comp channel for CQ: Too many open files [24]') or its RDMA initialisation stopped ('rdma_recv_block_type incorrect'). The application then runs without RDMA or not at all: critical. One device refused while the transport still started on others is a warning, unless a later line of the same log says the program then died (\"Fatal Python error: Segmentation fault\", \"core dumped\"): critical. Mooncake's rdma_context.cpp \"Failed to create completion queue: Cannot allocate memory [12]\" (ibv_create_cq failed) is read as the reason the device that follows was disabled.",
		Causes: []string{
			"the GID index the application uses has no usable entry on that port: on RoCE, GID index 0 is the link-local address of a netdev, and a port with no netdev (or no IP on it in this network namespace) has no GID there; the RoCE v2 entry is at another index",
			"the device is not visible where the application runs: the container or pod lacks /dev/infiniband (the RDMA device plugin), or the device name differs there",
			"the port is down or the device name configured for the application (Mooncake's device list, SPDK's listen address) is wrong",
			"libibverbs has no provider for the device (libibverbs warns 'no userspace device-specific driver found')",
			"rdma_create_event_channel failed: /dev/infiniband/rdma_cm is missing where the program runs: the rdma_ucm kernel module is not loaded, or the container was not given that device",
			"an RDMA resource of the transport could not be created (brpc's rdma_endpoint.cpp: 'Fail to create comp channel for CQ: Too many open files [24]'): the process reached its open-files limit (each completion channel is a file descriptor) or its locked-memory limit, as set for the process when started (a systemd unit's LimitNOFILE/LimitMEMLOCK), not in an interactive shell",
		},
		Remedy: []string{
			"ibv_devinfo -v in the same container or pod as the application: the device must be listed, its port PORT_ACTIVE, with the GID index it uses filled in",
			"show_gids (or rdma link show and ibdev2netdev) there: the GID index of the RoCE v2 entry with the port's IP address; give that index to the application (Mooncake: MC_GID_INDEX) or leave it unset so it picks one",
			"name only devices the container has (Mooncake's device list, SPDK's listen address on a netdev of an RDMA device); in Kubernetes, request the RDMA device from its device plugin",
			"when rdma_create_event_channel failed: ls -l /dev/infiniband must list rdma_cm; if not, modprobe rdma_ucm on the host (and docker run --device=/dev/infiniband/rdma_cm in a container)",
			"when an RDMA resource could not be created: cat /proc/PID/limits for the running program ('Max open files', 'Max locked memory'); raise them where it is started (LimitNOFILE=, LimitMEMLOCK= in its systemd unit)",
		},
	},
	{
		ID: "rdma.port_no_address", Severity: finding.Warning, Area: "rdma", Step: finding.StepContainer,
		Title:   "an application found no IP address on an RDMA port's network device",
		Meaning: "DeepSeek 3FS maps each RDMA port to its network device (ibdev2netdev) and that device's IP addresses to a network zone from its configured subnets (src/common/net/ib/IBDevice.cc). 'IfAddr of mlx5_0:1 -> bond0 not found, maybe running in container!' says the network device has no address where the service runs, 'IBDevice mlx5_0:1's netdev is unknown' that no network device was found for the port; 'can't set zone by IP, fallback to UNKNOWN' follows. The port is then used without an address or zone: on RoCE a port whose network device has no IP address has no RoCE v2 GID that a peer can route to, and clients whose zone differs cannot pick it, so connections through it time out. A warning; critical when 3FS then refuses the device ('IBDevice mlx5_0:1's zone is unknown!!!', without allow_unknown_zone) or finds no RoCE v2 GID.",
		Causes: []string{
			"the service runs in a container or network namespace without the host's RDMA network devices or their addresses (docker without --network host)",
			"the network device name ibdev2netdev reports differs from the one in the namespace (a bond or a renamed interface), or the interface has no IP address",
			"no subnet in 3FS's ib_devices configuration (subnets, network_zones) contains the port's address, and no default_network_zone is set",
		},
		Remedy: []string{
			"ibdev2netdev and ip -br addr show in the same container as the service: the port's network device must be there with its IPv4 address",
			"docker run --network host --device=/dev/infiniband for the service (or move the RDMA network device into the container's namespace with its address)",
			"show_gids: the port needs a RoCE v2 GID holding that address; then set 3FS's ib_devices subnets to the port's subnet (or default_network_zone)",
		},
	},
	{
		ID: "verbs.wr_flushed", Severity: finding.Info, Area: "verbs", Step: finding.StepNCCL,
		Title:   "an RDMA server logged flushed work requests of a closed connection",
		Meaning: "The only completion errors in the log are flushes (status 5, IBV_WC_WR_FLUSH_ERR, 'Work Request Flushed Error') printed by SPDK's NVMe-oF target for a queue pair being torn down ('rdma.c:3868:spdk_nvmf_rdma_poller_poll: *ERROR*: Error on CQ 0x183b300, request 0x25446792, type 0, status: (5): Work Request Flushed Error'). When a host disconnects, the target moves the queue pair to the error state and every work request still posted comes back flushed; SPDK itself logs them at debug level since (lib/nvmf/rdma.c: 'If qpair is in ERR state, we will receive completions for all posted and not completed Work Requests with IBV_WC_WR_FLUSH_ERR status. Don't log an error in that case'). With no other error in the log, this is the normal end of a connection: informational.",
		Causes: []string{
			"a host (initiator) disconnected or was stopped: the target flushes the work requests it still had posted on that connection",
			"if hosts did report I/O errors at that time, the first non-flush error is on their side: read the host's log (its nvme_rdma and nvme_qpair lines) and dmesg -T of both machines",
		},
		Remedy: []string{
			"nothing to do when the host disconnected on purpose; otherwise read the host's log and dmesg -T on both machines for the first error before the flushes",
			"SPDK 20.01-20.10 log these flushes as errors; newer releases print them only with the rdma debug log flag",
		},
	},
	{
		ID: "nvmf.connection_failed", Severity: finding.Critical, Area: "verbs", Step: finding.StepNCCL,
		Title:   "SPDK's NVMe-oF RDMA host lost or could not make its connection to a target",
		Meaning: "SPDK's NVMe-oF host library (lib/nvme) says a controller reached over RDMA failed: 'nvme_ctrlr_fail: *ERROR*: ctrlr 192.168.0.1 in failed state.' (newer: '[nqn.2014-08.org.nvmexpress.discovery, 0] in failed state.'), after which every I/O to that controller is aborted until it is reset or reconnected: critical. The lines before it say why: 'RDMA address resolution error' or 'RDMA route resolution error' (nvme_rdma.c: the RDMA CM could not find a local RDMA device with a route to the target's address, rdma_resolve_addr/rdma_resolve_route), 'Failed to connect rqpair' (the queue pair's connection did not complete), 'CQ transport error -6 (No such device or address) on qpair id 0' (nvme_qpair.c: polling the queue pair's completions failed; SPDK before 21.01 printed every such failure as 'CQ error, abort requests after transport retry counter exceeded', whatever the work completion's status). A CM event other than the one awaited ('Expected RDMA_CM_EVENT_DISCONNECTED but received RDMA_CM_EVENT_TIMEWAIT_EXIT') with no failed controller is a warning.",
		Causes: []string{
			"address or route resolution error: no local RDMA device has an IP address in the target's subnet, or the route to the target goes out of a network interface that is not an RDMA device's; the target address or port is wrong",
			"a queue pair that failed under I/O: the target went away (nvmf_tgt stopped or crashed, its port down), or the RDMA path dropped packets until the transport retry counter ran out (link errors, a link flap, RoCE without lossless flow control)",
			"a connection that never came up: the target does not listen on that address and service id over RDMA, or rejected the host (host NQN not allowed on the subsystem)",
		},
		Remedy: []string{
			"from the host, reach the target's address through the RDMA device's interface: ip route get TARGET_IP (the device must be an RDMA device's, ibdev2netdev or rdma link show), then ping -I NETDEV TARGET_IP",
			"ibv_devinfo -v on both machines: the ports must be PORT_ACTIVE; RoCE: show_gids lists a RoCE v2 GID with the interface's IP address",
			"on the target: the subsystem listens on that address over RDMA (scripts/rpc.py nvmf_get_subsystems) and its log has no error at that time",
			"with the kernel host, the same target: nvme discover --transport=rdma --traddr=TARGET_IP --trsvcid=4420; dmesg -T on both machines for the RDMA port's link and driver lines",
			remedyPerftest,
		},
	},
	{
		ID: "nvmf.target_qpair_failed", Severity: finding.Critical, Area: "verbs", Step: finding.StepNCCL,
		Title:   "SPDK's NVMe-oF RDMA target could not set up a host's queue pair",
		Meaning: "SPDK's NVMe-oF target (lib/nvmf/rdma.c) says it could not create or set up the RDMA queue pair of a host's connection: 'rdma_create_qp failed: errno 12: Cannot allocate memory', 'Failed to initialize nvmf_rdma_qpair with qpair=0x…' (poll_group_add), 'RDMA CQ resize failed: errno 11: Resource temporarily unavailable', or a queue pair whose verbs state is not a valid one ('QP#0: bad state updated: 192, maybe hardware issue', 'expected state: IBV_QPS_ERR, actual state: IBV_QPS_UNKNOWN'). The host's connect or discover then fails ('Failed to write to /dev/nvme-fabrics: Connection reset by peer'): critical. Lines of nvmf_rdma_dump_qpair_contents ('Dumping contents of queue pair (QID 0)') alone are the teardown after such an error: a warning.",
		Causes: []string{
			"ENOMEM or EAGAIN from rdma_create_qp or ibv_resize_cq: the RDMA device or the process ran out of a resource: locked memory (ulimit -l), the hugepage memory SPDK registers, or the device's queue pairs or completion queue entries (max_qp, max_cqe) for the configured queue depth and number of connections",
			"a queue pair in an unknown state: the RDMA device or its driver failed (a firmware or driver error, a soft-RoCE/soft-iWARP device), or the target runs an SPDK older than the fixes for its device",
		},
		Remedy: []string{
			"ulimit -l in the target's shell (unlimited), and grep -i huge /proc/meminfo: the hugepages SPDK needs are reserved (scripts/setup.sh with HUGEMEM)",
			"ibv_devinfo -v on the target: max_qp, max_cqe and max_qp_wr of the device against the transport's queue depth and the number of hosts",
			"lower the RDMA transport's queue depth (max_queue_depth of scripts/rpc.py nvmf_create_transport) or the number of queues per host, then connect again",
			"dmesg -T on the target for the RDMA driver's errors at that time",
		},
	},
	{
		ID: "lnet.ni_down", Severity: finding.Critical, Area: "rdma", Step: finding.StepPort,
		Title:   "a Lustre LNet network interface (NI) is down",
		Meaning: "Lustre's `lnetctl net show` lists an NI of an LNet network with 'status: down' ('- nid: 10.0.0.1@o2ib', 'status: down', lnet/utils/lnetctl.c): LNet sends nothing through it. With no other NI (than the loopback 0@lo) up, the node reaches no Lustre server or client over LNet and its mounts hang: critical; with another NI up, a warning (one path lost).",
		Causes: []string{
			"the network device under the NI is down or has no IP address (ib0, a RoCE bond): port down, cable, or the interface not configured",
			"o2ib: the RDMA device under the interface is not active (the InfiniBand port not ACTIVE, the subnet manager not reachable) or ko2iblnd could not use it",
			"LNet health marked the NI down after failed sends (lnet_health_sensitivity), a peer network unreachable from it",
		},
		Remedy: []string{
			"ip addr show on the NI's interface: it must be UP with the IP address of the NID",
			"o2ib: ibstat or ibv_devinfo for the RDMA device under the interface: the port must be Active / PORT_ACTIVE",
			"lnetctl stats show and lnetctl net show for LNet's counters and the NI's health; lctl ping a peer NID over that network",
			"dmesg -T | grep -i -e lnet -e o2ib for LNet's and ko2iblnd's errors",
		},
	},
	{
		ID: "nfs.ganesha_rdma_error", Severity: finding.Critical, Area: "rdma", Step: finding.StepNCCL,
		Title:   "NFS-Ganesha's RDMA transport logged a failure",
		Meaning: "NFS-Ganesha's log has a line of its RDMA transport (component TIRPC, libntirpc's rpc_rdma.c/svc_rdma.c; 'rpc :TIRPC :CRIT :…rdma…') at a failure level: CRIT, MAJ or FATAL is critical (the NFS/RDMA transport or a client's connection over it failed), WARN a warning. Its EVENT lines ('xdr_rdma_reg_mr: total_rdma_reg_mem … registered', 'xdr_rdma_add_inbufs_hdr()') are the transport registering memory and buffers: routine, not judged.",
		Causes: []string{
			"the RDMA device or port under the NFS/RDMA listener failed or went down, or a client's connection was lost (completion errors, a peer that went away)",
			"memory registration failed: the locked-memory limit of the ganesha.nfsd service (LimitMEMLOCK) or the device's memory-region limits",
		},
		Remedy: []string{
			"read the Ganesha log lines around the failure (the TIRPC component's, and the NFS ones that follow)",
			"ibv_devinfo -v on the server: the RDMA port used by the NFS/RDMA listener must be PORT_ACTIVE",
			"cat /proc/PID/limits of ganesha.nfsd: 'Max locked memory' must be unlimited for RDMA",
			"dmesg -T on the server for the RDMA driver's errors at that time",
		},
	},
	{
		ID: "rdma.transfer_timeout", Severity: finding.Critical, Area: "rdma", Step: finding.StepNCCL,
		Title:   "an application's RDMA transfers did not complete in time",
		Meaning: "Mooncake's store says a batch of transfers it gave its transfer engine did not complete within the timeout ('transfer_task.cpp:305] Failed to complete transfers after 60 seconds for batch 2586731328', mooncake-store src/transfer_task.cpp and client.cpp): the put or get of those keys returns TRANSFER_FAIL, and a serving engine that needs them at start (SGLang HiCache, vLLM's KV connector) fails or stalls. A transfer that never completes, rather than one that failed with a completion error, is a path on which the work requests or the connection handshake get no answer: critical.",
		Causes: []string{
			"the transfer engine's RDMA connection to the peer segment never came up or hangs: the two ends use GID indexes that cannot reach each other (RoCE: a link-local or RoCE v1 GID, MC_GID_INDEX), a port is down, or the handshake's TCP address is not reachable",
			"the transfer engine uses a device or protocol the peer does not have (a device list naming NICs of another rail, RDMA on one side and TCP on the other)",
			"the peer process holding the segment stalled or exited",
		},
		Remedy: []string{
			"read the transfer engine's lines before the timeout (handshake, 'Failed to modify QP', completion errors, 'mark it inactive') on both ends",
			"ibv_devinfo -v and show_gids on both hosts: the devices Mooncake uses are PORT_ACTIVE and the GID index it uses holds the RoCE v2 GID with the interface's IP address",
			remedyPerftest,
		},
	},
	{
		ID: "libfabric.provider_unavailable", Severity: finding.Critical, Area: "verbs", Step: finding.StepNCCL,
		Title:   "libfabric found no endpoint of an RDMA provider",
		Meaning: "libfabric's debug log (FI_LOG_LEVEL=info or debug; the format of src/log.c, 'libfabric:PID:TIME:PREFIX:PROV:SUBSYS:FUNC():LINE<LEVEL> MSG') says a provider's getinfo returned an error ('fi_getinfo: provider ofi_rxm returned -61 (No data available)', src/fabric.c): that provider offers no endpoint matching the application's request. libfabric logs it at the warn level when the application named the provider (FI_PROVIDER, or the prov_name of its hints): the application then gets no endpoint from it: critical. At the info level it is one of the providers fi_getinfo tried; for verbs, or ofi_rxm and ofi_rxd (the utility providers that build reliable-datagram endpoints over verbs' connected ones, fi_rxm(7)), it means RDMA is not what the application gets: a warning. 'Need core provider, skipping ofi_rxm' lines are ofi_rxm's own search for a core provider to layer over skipping the utility providers, and are not judged. A provider that answers with an empty list ('fi_getinfo: provider efa output empty list', logged at the warn level whoever asked) found no device or endpoint that fits: a warning; for efa, no EFA device is visible where the program runs (the finding then names efa's causes and remedies). The aws-ofi-nccl net plugin of NCCL reports the same failure in its own words: 'NET/OFI OFI fi_getinfo() call failed: No data available' (later releases) and 'NET/OFI Couldn't find any optimal provider' (find_ofi_provider of the 1.x releases, src/nccl_ofi_net.c: fi_getinfo returned -FI_ENODATA for the GPUDirect hints and for the plain ones): the plugin does not start, so NCCL has no EFA network and aborts or falls back to its own transports: critical, a warning when every process of that host uses NCCL's IB transport instead.",
		Causes: []string{
			"the verbs provider offers no domain that fits the request: the RDMA device's port is down or has no IP address (verbs needs an IPoIB or RoCE interface with an address for its rdma_cm endpoints), or the request asks for capabilities verbs lacks",
			"the libfabric build or its version lacks the provider combination asked for (verbs;ofi_rxm), or FI_PROVIDER / FI_VERBS_IFACE narrows the choice to nothing",
		},
		Remedy: []string{
			"fi_info -p verbs and fi_info -p 'verbs;ofi_rxm' -t FI_EP_RDM on that host: the first lists the verbs domains, the second must list the RDM endpoints over them",
			"ibv_devinfo and ip -br addr: the RDMA device's port PORT_ACTIVE and its network interface up with an IP address",
			"rerun with FI_LOG_LEVEL=debug and read the provider's lines before the failed getinfo",
		},
	},
	{
		ID: "verbs.data_mismatch", Severity: finding.Critical, Area: "verbs", Step: finding.StepPort,
		Title:   "a verbs test received data that differs from what was sent",
		Meaning: "A verbs test program compared the data it received with the pattern it sent and found a difference (ibv_generate_infiniband_test_load's \"rx_buffer compare : FAIL\"). The link's CRCs drop a damaged packet, so data that arrives wrong was damaged where no CRC covers it: host memory, PCIe, the HCA, or the program's own buffer handling.",
		Causes:  []string{"memory or PCIe errors on one host (see the kernel log for AER and EDAC lines)", "an HCA or firmware defect", "the test's buffers reused before their transfers completed"},
		Remedy:  []string{"dmesg -T | grep -iE 'aer|edac|mlx'", "rerun the test after reseating the card, and once with another HCA or host to find the part that follows the failure"},
	},
}
