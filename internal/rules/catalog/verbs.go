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
		ID: "rdma.transport_unavailable", Severity: finding.Critical, Area: "rdma", Step: finding.StepContainer,
		Title:   "an application's RDMA transport could not start",
		Meaning: "An application says its RDMA transport did not start because no RDMA device was usable: Mooncake's transfer engine could not open its device with the GID index it was given ('Failed to open device mlx5_8 on port  with GID 0', 'Disable device mlx5_8') and then had none left ('RdmaTransport: No available RNIC', 'RdmaTransport: cannot initialize RDMA resources'); SPDK's NVMe-oF target could not create its RDMA transport ('Unable to create new transport of type RDMA', 'Failed to listen on transport RDMA address …'). The application then runs without RDMA or not at all: critical. One device refused while the transport still started on others is a warning.",
		Causes: []string{
			"the GID index the application uses has no usable entry on that port: on RoCE, GID index 0 is the link-local address of a netdev, and a port with no netdev (or no IP on it in this network namespace) has no GID there; the RoCE v2 entry is at another index",
			"the device is not visible where the application runs: the container or pod lacks /dev/infiniband (the RDMA device plugin), or the device name differs there",
			"the port is down or the device name configured for the application (Mooncake's device list, SPDK's listen address) is wrong",
			"libibverbs has no provider for the device (libibverbs warns 'no userspace device-specific driver found')",
		},
		Remedy: []string{
			"ibv_devinfo -v in the same container or pod as the application: the device must be listed, its port PORT_ACTIVE, with the GID index it uses filled in",
			"show_gids (or rdma link show and ibdev2netdev) there: the GID index of the RoCE v2 entry with the port's IP address; give that index to the application (Mooncake: MC_GID_INDEX) or leave it unset so it picks one",
			"name only devices the container has (Mooncake's device list, SPDK's listen address on a netdev of an RDMA device); in Kubernetes, request the RDMA device from its device plugin",
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
