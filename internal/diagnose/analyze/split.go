package analyze

import (
	"github.com/ibdoctor/ibdoctor/internal/parse/daosnet"
	"github.com/ibdoctor/ibdoctor/internal/parse/ganesha"
	"github.com/ibdoctor/ibdoctor/internal/parse/ifconfig"
	"github.com/ibdoctor/ibdoctor/internal/parse/lnetctl"
	"strings"
	"unicode/utf8"

	"github.com/ibdoctor/ibdoctor/internal/parse/amdsmi"
	"github.com/ibdoctor/ibdoctor/internal/parse/cellcli"
	"github.com/ibdoctor/ibdoctor/internal/parse/deepep"
	"github.com/ibdoctor/ibdoctor/internal/parse/dshbak"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethlink"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethmodule"
	"github.com/ibdoctor/ibdoctor/internal/parse/fabtests"
	"github.com/ibdoctor/ibdoctor/internal/parse/fiinfo"
	"github.com/ibdoctor/ibdoctor/internal/parse/hcatext"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdev2netdev"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiagnet"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibvload"
	"github.com/ibdoctor/ibdoctor/internal/parse/iperf"
	"github.com/ibdoctor/ibdoctor/internal/parse/iplink"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/listlinkup"
	"github.com/ibdoctor/ibdoctor/internal/parse/lsmod"
	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
	"github.com/ibdoctor/ibdoctor/internal/parse/mlnxqos"
	"github.com/ibdoctor/ibdoctor/internal/parse/mlxlink"
	"github.com/ibdoctor/ibdoctor/internal/parse/mpicheck"
	"github.com/ibdoctor/ibdoctor/internal/parse/mst"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/parse/ompihelp"
	"github.com/ibdoctor/ibdoctor/internal/parse/onyx"
	"github.com/ibdoctor/ibdoctor/internal/parse/opensm"
	"github.com/ibdoctor/ibdoctor/internal/parse/osu"
	"github.com/ibdoctor/ibdoctor/internal/parse/pingpong"
	"github.com/ibdoctor/ibdoctor/internal/parse/portinfo"
	"github.com/ibdoctor/ibdoctor/internal/parse/proc"
	"github.com/ibdoctor/ibdoctor/internal/parse/sysfspci"
	"github.com/ibdoctor/ibdoctor/internal/parse/systemctl"
	"github.com/ibdoctor/ibdoctor/internal/parse/uccl"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxinfo"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxlog"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxperf"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
)

// Kind names a tool output format analyze recognises.
type Kind string

// The kinds, as --kind names them.
const (
	KindUnknown       Kind = ""
	KindIBStat        Kind = "ibstat"
	KindIBStatus      Kind = "ibstatus"
	KindDevinfo       Kind = "ibv_devinfo"
	KindRdma          Kind = "rdma"
	KindKernel        Kind = "dmesg"
	KindTopo          Kind = "nvidia-smi-topo"
	KindEthtool       Kind = "ethtool"
	KindNCCLLog       Kind = "nccl-log"
	KindNCCLTests     Kind = "nccl-tests"
	KindPerftest      Kind = "perftest"
	KindIPerf         Kind = "iperf"
	KindNetDiscover   Kind = "ibnetdiscover"
	KindLinkInfo      Kind = "iblinkinfo"
	KindQueryErrors   Kind = "ibqueryerrors"
	KindPerfQuery     Kind = "perfquery"
	KindForwardTables Kind = "dump_fts"
	KindSMInfo        Kind = "sminfo"
	KindSMPorts       Kind = "saquery-sm"
	KindIBDiagnet     Kind = "ibdiagnet"
	KindSARecords     Kind = "saquery"
	KindMlxlink       Kind = "mlxlink"
	KindPortInfo      Kind = "smpquery"
	KindEthtoolLink   Kind = "ethtool-link"
	KindEthModule     Kind = "ethtool-module"
	KindMst           Kind = "mst"
	KindAMDSMI        Kind = "amd-smi"
	KindFiInfo        Kind = "fi_info"
	KindPingpong      Kind = "pingpong"
	KindIBDev2Netdev  Kind = "ibdev2netdev"
	KindNvsmiQuery    Kind = "nvidia-smi-q"
	KindLspci         Kind = "lspci"
	KindUCXLog        Kind = "ucx-log"
	KindShowGIDs      Kind = "show_gids"
	KindLshca         Kind = "lshca"
	KindOpenMPI       Kind = "openmpi"
	KindUlimit        Kind = "ulimit"
	KindHealthCheck   Kind = "health-check"
	KindMADError      Kind = "ibdiags-error"
	KindVerbsLog      Kind = "verbs-log"
	KindNvsmiError    Kind = "nvidia-smi-error"
	KindNvsmiTable    Kind = "nvidia-smi"
	KindUCXPerf       Kind = "ucx_perftest"
	KindOSU           Kind = "osu"
	KindMPICheck      Kind = "mpi-test-results"
	KindDeepEP        Kind = "deepep"
	KindDshbak        Kind = "dshbak"
	KindIBVLoad       Kind = "ibv-test-load"
	KindToolError     Kind = "rdma-tool-error"
	KindVerbsDevices  Kind = "ibv_devices"
	KindSysfsPCI      Kind = "sysfs-pcie"
	KindOpenSM        Kind = "opensm"
	KindIBExporter    Kind = "infiniband-exporter"
	KindDevFiles      Kind = "ls-dev-infiniband"
	KindMadClass      Kind = "ls-sys-infiniband_mad"
	KindDrvInfo       Kind = "ethtool-i"
	KindLsmod         Kind = "lsmod"
	KindUCCL          Kind = "uccl-p2p"
	KindIPLink        Kind = "ip-link"
	KindIfconfig      Kind = "ifconfig"
	KindCellCLI       Kind = "cellcli-ibport"
	KindMlnxQoS       Kind = "mlnx-qos"
	KindOnyxRoCE      Kind = "onyx-roce"
	KindListLinkup    Kind = "listlinkup"
	KindSystemctl     Kind = "systemctl-status"
	KindLnetctl       Kind = "lnetctl"
	KindGanesha       Kind = "ganesha-rdma"
	KindDAOSNet       Kind = "daos-network-scan"
	KindUCXInfo       Kind = "ucx_info"
	KindFabtests      Kind = "fi_pingpong"
)

// KindInfo describes a kind for `--kind list`.
type KindInfo struct {
	Kind        Kind   `json:"kind"`
	Description string `json:"description"`
}

// Kinds lists every kind analyze can diagnose.
var Kinds = []KindInfo{
	{KindIBStat, "ibstat (port state, rate, firmware per HCA)"},
	{KindIBStatus, "ibstatus (port state and rate with width and lane speed; its 'Fatal error: … sys files not found' when a device is absent)"},
	{KindDevinfo, "ibv_devinfo and ibv_devinfo -v"},
	{KindVerbsDevices, "ibv_devices (rdma-core): the RDMA devices user space sees and their node GUIDs; an empty table is no device usable"},
	{KindLnetctl, "lnetctl net show (Lustre LNet): the networks and their NIs; an NI with status: down is a finding"},
	{KindDAOSNet, "DAOS dmg network scan devices as its functional tests log them (NetworkDevice(host=…, device=ib0, provider=ofi+verbs;ofi_rxm, numa=0)): read, not judged beyond the devices and providers listed"},
	{KindGanesha, "NFS-Ganesha log lines of its RDMA transport (component TIRPC): failures at CRIT/MAJ/FATAL or WARN; EVENT lines are routine"},
	{KindRdma, "rdma link show / rdma statistic show (iproute2)"},
	{KindKernel, "kernel log: dmesg, dmesg -T, dmesg -x, journalctl -k, syslog (with systemd-networkd and NetworkManager carrier lines), /dev/kmsg records"},
	{KindTopo, "nvidia-smi topo -m"},
	{KindIPerf, "iperf and iperf3 results (TCP throughput): read as the rate a perftest bandwidth test in the same paste is held against"},
	{KindEthtool, "ethtool -S <netdev> (totals, or a watch/script rate view: name: 451.3k/s)"},
	{KindNCCLLog, "NCCL debug log (NCCL_DEBUG=INFO or WARN)"},
	{KindNCCLTests, "nccl-tests output (all_reduce_perf …)"},
	{KindEthtoolLink, "ethtool <netdev> (no option): Settings for …, Speed, link modes, Link detected (or those lines grep'd under the command line); ethtool --show-fec <netdev>: configured and active FEC"},
	{KindEthModule, "ethtool -m <netdev> (--module-info): transceiver identity, optical readings, alarm and warning flags"},
	{KindPingpong, "ibv_rc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong … (rdma-core examples): results and error lines"},
	{KindPerftest, "perftest output (ib_write_bw, ib_send_lat …)"},
	{KindNetDiscover, "ibnetdiscover"},
	{KindLinkInfo, "iblinkinfo"},
	{KindQueryErrors, "ibqueryerrors"},
	{KindPerfQuery, "perfquery"},
	{KindForwardTables, "dump_fts / ibroute"},
	{KindSMInfo, "sminfo"},
	{KindSMPorts, "saquery -s (the ports that run a subnet manager)"},
	{KindSARecords, "saquery record dumps (NodeRecord, PortInfoRecord …): read and summarised"},
	{KindNvsmiQuery, "nvidia-smi -q (its Remapped Rows and Retired Pages sections; a fragment or -d ROW_REMAPPER)"},
	{KindNvsmiError, "nvidia-smi's \"Unable to determine the device handle for GPU…: Unknown Error\" (a GPU NVML can no longer open: GPU is lost, Unknown Error, Timeout)"},
	{KindNvsmiTable, "nvidia-smi (the plain table, every driver generation: 384-470 and the wide 525+ layout with MIG M.; N/A and ERR! cells, the MIG devices and Processes boxes): ERR! cells and volatile uncorrectable ECC judged"},
	{KindIBDev2Netdev, "ibdev2netdev and ibdev2netdev -v (RDMA port to netdev, Up/Down)"},
	{KindMlxlink, "mlxlink / mstlink -d <dev> [-p N] [-m] [-c] [--json]: Operational, Supported, Troubleshooting, Module and Physical Counters and BER pages; runs of a loop; a grep of the counter lines"},
	{KindAMDSMI, "amd-smi static's NIC part (AMD Pensando AI NIC, ionic): each port's NETDEV, CARRIER, LINK_STATE and each RDMA device port's STATE; a port not ACTIVE or without link is port.down (a warning)"},
	{KindFiInfo, "libfabric's fi_info (provider:, fabric:, domain:, version:, type:, protocol: blocks): the endpoints a provider offers (read, no fault in it)"},
	{KindMst, "mst status and mst status -v (MFT): the MST modules and /dev/mst devices (read, no fault in it)"},
	{KindPortInfo, "smpquery portinfo|nodeinfo|switchinfo and ibportstate: dotted \"Name:.....value\" dumps (PortInfo judged)"},
	{KindLspci, "sudo lspci -vvv (PCIe ACS of the switch ports between GPUs and NICs)"},
	{KindSysfsPCI, "sysfs PCIe link files (current_link_speed/width, max_link_speed/width) as tail -v or head -v (==> FILE <==), grep (FILE:VALUE) or cat print them: the link judged against its maximum"},
	{KindIBDiagnet, "ibdiagnet 1.x/2.x console output, ibdiagnet2.log excerpts, ibdiagnet2.db_csv sections, ibdiagnet(2).lst"},
	{KindShowGIDs, "show_gids (MLNX_OFED): the GID table of each RoCE port"},
	{KindLshca, "lshca (Mellanox support tool): its per-HCA tables (RDMA, LnkStat, Link, Rate, LnkCapWidth, LnkStaWidth …)"},
	{KindUCXPerf, "ucx_perftest result tables (tag_bw, put_bw, am_lat …; the Stage column of newer UCX or the older layout) and its -f CSV rows: the Final row, bandwidth judged against --line-rate (CSV rows read, not judged: their message sizes are in the batch file)"},
	{KindOSU, "OSU Micro-Benchmarks tables (osu_latency, osu_bw, osu_bibw, osu_mbw_mr, osu_acc_latency, collectives, OpenSHMEM and UPC tests; with or without the \"#\" of the title and column header): a run that stops mid-table with a hang marker or an error, small-message latency and large-message bandwidth of TCP rather than RDMA"},
	{KindMPICheck, "MPI test programs' wrong-result lines: the MPICH test suite's \"Did not get expected value for …\" and MTest's \"Found N errors\", with or without mpirun's --tag-output and --timestamp-output labels"},
	{KindDeepEP, "DeepEP test results (tests/test_internode.py \"[tuning] Best combine: … GB/s (RDMA), … GB/s (NVL)\", tests/test_low_latency.py \"[rank N] Dispatch + combine bandwidth: … GB/s, avg_t=…\"): low-latency bandwidth under 1 GB/s and a best internode figure under half of the same operation's best in the paste"},
	{KindDshbak, "pdsh … | dshbak -c blocks (\"----------------\", the hosts, \"----------------\", their common output): the blocks of one command compared, fw_ver and OFED releases that differ between groups of hosts judged"},
	{KindIBVLoad, "ibv_generate_infiniband_test_load (ibv_message_passing) results: \"mlx4_0 rx_buffer compare : PASS\" and its per-port Mbytes/sec lines; a compare that fails is judged, throughput summarised"},
	{KindUCXInfo, "ucx_info -d (memory domains, transports, devices and their capabilities), the UCP context of ucx_info -p (its resource lines: transport/device) and ucx_info -v: a listing with no ib memory domain and no rc, ud or dc transport while tcp runs on an IPoIB interface (tcp/ib0) is mpi.rdma_not_used; \"error handling: peer failure, ep_check, keepalive\" is a capability, not an error"},
	{KindFabtests, "libfabric's fi_pingpong (util/pingpong.c: bytes, #sent, #ack, total, time, MB/sec, usec/xfer, Mxfers/sec) and the fabtests benchmarks' tables (fi_rdm_pingpong …: bytes, iters, …) with their error lines (\"fi_getinfo(): common/shared.c:1234, ret=-61 (No data available)\", \"[error] util/pingpong.c:…\"): a completed table is summarised, an error is perf.test_invalid"},
	{KindUCXLog, "UCX log lines (MPI/OpenSHMEM over UCX, ucx_perftest): completion errors, endpoint errors"},
	{KindVerbsLog, "work-completion errors in application logs: libmlx5's \"got completion with error\" CQE dump (decoded), DPDK's mlx5 \"MLX5 Error CQE: at [...], len=64\" hexdump (decoded), libfabric log lines (fi_cq_readerr prov_err), any log line ending in an ibv_wc_status text or IBV_WC_ name after a colon (\"…: transport retry counter exceeded\", with the local_nic/peer_nic it names), or printing it as a number next to completion wording (\"bad completion with status: 0xc, vendor syndrome: 0x81\"), application lines naming an ibv async event (\"Received context async event local work queue catastrophic error for context erdma_0\"), libibverbs' \"no userspace device-specific driver found\" warnings in a program's log, and a program's lines that a queue pair could not be moved to INIT, RTR or RTS (\"Failed to modify QP to RTR: Connection timed out\"), Mooncake's lines naming the GID each RDMA device uses (\"RDMA device: mlx5_3, LID: 0, GID: (GID_Index 3) 00:00:…:ff:ff:21:06:1e:14\"), SPDK's NVMe-oF RDMA host errors (\"nvme_ctrlr_fail: *ERROR*: ctrlr 192.168.0.1 in failed state.\", \"RDMA address resolution error\", \"CQ transport error -6 …\"), Mooncake's \"Failed to complete transfers after 60 seconds\", and libfabric's \"fi_getinfo: provider ofi_rxm returned -61 (No data available)\""},
	{KindHealthCheck, "the passed checks of node health-check programs: LBNL NHC's \"SUCCESS:  nhc:  Health check passed:  check_…\" (as Azure's azurehpc-health-checks prints them) and gpud scan's \"✔ ibstat ports/rates check passed\""},
	{KindUlimit, "ulimit -a (bash, zsh, dash) and /proc/<pid>/limits: the locked-memory limit RDMA registration pins pages under"},
	{KindMADError, "infiniband-diags messages that the SM/SA or the port's MAD agent cannot be reached (ibwarn: sa_get_handle: No SM/SA found on port, ibpanic: Failed to bind to the SA, mad_rpc_open_port: client_register failed), alone or in lshca's error report, and the discovery tools' SMPs that got no answer (src/query_smp.c:199; umad (DR path slid 0; dlid 0; 0,1,20 Attr 0x11:0) bad status 110; Connection timed out)"},
	{KindToolError, "the errors of RDMA tools that could not run: \"Failed to get IB devices list: …\" (ibv_devinfo, ibv_devices, perftest), ibstat's \"stat of IB device 'X' failed\" and \"'X' IB device can't be found\", libibumad's \"is ib_umad module loaded?\", libibmad's \"can't open UMAD port\", infiniband-diags' \"Failed to open '…' port '…'\""},
	{KindOpenSM, "OpenSM's log (\"UUUUUU [TTTTTTTT] 0xLL -> text\", with or without its date; its ERR XXXX messages and \"Exiting SM\") and the stack traces of its crashes (gdb or apport frames in its osm_*.c sources)"},
	{KindIBExporter, "infiniband-exporter's log (it reads ibqueryerrors): its \"Counters on 0x… port N is maxed out on PortRcvErrors\" lines"},
	{KindDevFiles, "ls -l /dev/infiniband: its character devices (uverbsN, umadN, issmN, rdma_cm, ucmN)"},
	{KindMadClass, "ls -l /sys/class/infiniband_mad (or plain ls): umadN and issmN of each InfiniBand port; a umadN without its issmN is a finding"},
	{KindDrvInfo, "ethtool -i <netdev>: driver, version, firmware-version, bus-info (read, not judged: the link state is in ethtool <netdev> or ibstat)"},
	{KindUCCL, "UCCL P2P benchmark results (p2p/benchmarks/benchmark_uccl.py and its NCCL/NIXL variants: \"[Client]   1.0 MB : 170.65 Gbps |  21.33 GB/s [|  2770.55 us]\"): the best rate against the line rate when the paste gives one; a rate that falls as messages grow"},
	{KindLsmod, "lsmod (Module, Size, Used by), whole or grepped: the rows of the RDMA modules (ib_core, ib_uverbs, rdma_ucm, the HCA drivers) and the NVIDIA ones"},
	{KindIPLink, "ip link (iproute2): interface lines (N: NAME: <FLAGS> mtu M … state STATE), and the vf N lines of an SR-IOV physical function"},
	{KindIfconfig, "ifconfig (Linux net-tools 2.x \"ib0: flags=4163<UP,…,RUNNING,…>  mtu 2044\" and 1.60 \"ib0  Link encap:UNSPEC\", FreeBSD \"mce0: flags=8843<…> metric 0 mtu 1500 … status: no carrier\"): the RDMA interfaces (IPoIB ib*, FreeBSD mce*/mlxen*) up without carrier are a port down; other interfaces are listed"},
	{KindCellCLI, "Oracle Exadata CellCLI LIST IBPORT and LIST IBPORT DETAIL: each port's status and error counters"},
	{KindMlnxQoS, "mlnx_qos -i IFACE (MLNX_OFED): DCBX mode, priority trust state, the PFC configuration's enabled row, the traffic classes"},
	{KindListLinkup, "listlinkup of Oracle's Sun Datacenter InfiniBand switches: each connector (Present with its switch ports up or down, Not present) and the internal chip-to-chip links"},
	{KindOnyxRoCE, "NVIDIA Onyx switch show roce: RoCE mode, trust, the RoCE application priority, port congestion control (ECN), PFC and its switch-priorities"},
	{KindSystemctl, "systemctl status UNIT… (\"● unit - Description\", \"×\"/\"○\" since systemd 249, no bullet in older releases; Loaded:, Active:, Main PID: and the journal lines under it): the units of the RDMA and GPU stack (nvidia-fabricmanager, nvidia-persistenced, DCGM, opensm, openibd, rdma, rdma-ndd, ibacm, srp_daemon, nv_peer_mem/nvidia-peermem, mlnx-*, ufm*) judged, others summarised; the journal lines read as a kernel/syslog log"},
	{KindOpenMPI, "Open MPI help messages about the network (openib BTL, btl base, bml r2: no active ports, device init errors, Open MPI 4's openib/UCX notice, unreachable processes, retry exceeded) and mpirun's \"N more processes have sent help message\" lines"},
}

// ParseKind checks a --kind value.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds {
		if string(k.Kind) == s {
			return k.Kind, true
		}
	}
	return KindUnknown, false
}

// Span is one segment of a paste: lines Start..End (1-based, inclusive)
// printed by one tool.
type Span struct {
	Kind  Kind `json:"kind"`
	Start int  `json:"start"`
	End   int  `json:"end"`
}

// Lines splits text into lines without their line ends: LF, CRLF, or a
// bare CR (old Mac files, PuTTY logs, a progress bar's redraws), each
// counted as one line end as editors count them.
func Lines(text string) []string {
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// header returns the kind whose output starts at line l (a header only
// that tool prints) and how many lines before it the header begins (the
// dashes above a perftest title, the "#" above ibnetdiscover's); prev and
// next are the lines around it ("" at the ends), inHCA says whether an
// "hca_id:" line stands above it with no blank line between, inCA the
// same of a "CA '…'" line; prev2 is the line above prev.
func header(l, prev, prev2, next string, inHCA, inCA bool) (Kind, int) {
	t := strings.TrimSpace(l)
	prev = strings.TrimSpace(prev)
	if ok, back := ibdiagnet.Header(t, prev); ok {
		return KindIBDiagnet, back
	}
	switch {
	case t == "":
		return KindUnknown, 0
	case strings.HasPrefix(t, "CA '"):
		return KindIBStat, 0
	case ibstatPortHeader(t) && strings.HasPrefix(strings.TrimSpace(next), "State: ") && !inCA:
		return KindIBStat, 0 // a port block of ibstat pasted without its CA '…' line
	case strings.HasPrefix(t, "State: ") && strings.HasPrefix(strings.TrimSpace(next), "Physical state: ") && !ibstatPortHeader(strings.TrimSpace(prev)) && !inCA:
		return KindIBStat, 0 // ibstat's port fields alone ("ibstat | grep -i state")
	case strings.HasPrefix(t, "driver: ") && strings.HasPrefix(strings.TrimSpace(next), "version: "):
		return KindDrvInfo, 0 // ethtool -i: "driver: mlx5_core[ib_ipoib]" then "version: 6.10.11-amd64"
	case strings.HasPrefix(t, "Infiniband device '") && strings.HasSuffix(t, "status:"):
		return KindIBStatus, 0
	case t[0] == 'L' && proc.IsLimitsHeader(t):
		return KindUlimit, 0 // /proc/<pid>/limits
	case (t[0] == 'N' || t[0] == 'I') && strings.Contains(prev, "ibv_devinfo") && isDevinfoAbsent(t):
		return KindDevinfo, 0 // "$ ibv_devinfo" then "No IB devices found" (perftest prints it too: the command decides)
	case t[0] == 'l' && strings.Contains(prev, "ibv_devinfo") && isVerbsWarning(t):
		return KindDevinfo, 0 // libibverbs' "no userspace device-specific driver found for …/uverbs0", printed before ibv_devinfo's own output
	case t == "Failed to open device" && strings.Contains(prev, "ibv_devinfo"):
		return KindToolError, 0 // ibv_devinfo could not open a device it listed (libibverbs/examples/devinfo.c print_hca_cap)
	case t[0] == 'F' && isIBStatusFatal(t):
		return KindIBStatus, 0 // ibstatus' "Fatal error:  device '*': sys files not found …"
	case hcatext.IsShowGIDsHeader(t):
		return KindShowGIDs, 0
	case strings.IndexByte(t, '|') >= 0 && hcatext.IsLshcaHeader(t):
		// lshca's table header, with the rule of dashes and the
		// "Nodes: host" line above it.
		if isDashes(prev) && strings.HasPrefix(strings.TrimSpace(prev2), "Nodes:") {
			return KindLshca, 2
		} else if isDashes(prev) {
			return KindLshca, 1
		}
		return KindLshca, 0
	case strings.HasPrefix(t, "Dev #") && strings.HasPrefix(strings.TrimSpace(next), "Desc:"):
		return KindLshca, 0 // lshca's per-HCA block: "Dev #1", " Desc: …", " FW: …"
	case strings.HasPrefix(t, "hca_id:"):
		return KindDevinfo, 0
	case t[0] == '-' && lnetctl.Header(t) && strings.TrimSpace(next) == "local NI(s):":
		return KindLnetctl, 0 // lnetctl net show's "- net type: tcp" (the "net:" line above it not needed)
	case t[0] == 'd' && hcatext.IsDevicesHeader(t):
		return KindVerbsDevices, 0 // ibv_devices' "device  node GUID", whatever the command line above says
	case strings.HasPrefix(t, "port:") && strings.HasPrefix(strings.TrimSpace(next), "state:") && strings.Contains(next, "PORT_") && !inHCA:
		return KindDevinfo, 0 // a port block of ibv_devinfo pasted without its hca_id line
	case portinfo.Header(t):
		return KindPortInfo, 0
	case isEthtoolSettings(t):
		return KindEthtoolLink, 0
	case t[0] == 'F' && isEthtoolFEC(t):
		if strings.Contains(prev, "ethtool") && strings.Contains(prev, "--show-fec") {
			return KindEthtoolLink, 1 // the command line names the interface too
		}
		return KindEthtoolLink, 0 // ethtool --show-fec: "FEC parameters for eth0:"
	case (t[0] == 'S' || t[0] == 'D' || t[0] == 'L') && isEthtoolField(t):
		// `ethtool eth0 | grep Speed`: the field under the command line
		// (a sudo password prompt perhaps between them).
		if _, ok := ethlink.CommandNetDev(prev); ok {
			return KindEthtoolLink, 1
		}
		if _, ok := ethlink.CommandNetDev(strings.TrimSpace(prev2)); ok && isSudoPrompt(prev) {
			return KindEthtoolLink, 2
		}
	case t[0] == 'I' && ethmodule.Header(t):
		if _, ok := ethmodule.CommandNetDev(prev); ok {
			return KindEthModule, 1 // the command line above names the interface
		}
		return KindEthModule, 0
	case mst.Header(t):
		return KindMst, 0
	case (t[0] == 'D' || t[0] == 'P') && mlnxqos.Header(t):
		return KindMlnxQoS, 0 // "DCBX mode: OS controlled", "Priority trust state: dscp", "PFC configuration:"
	case t[0] == 'R' && onyx.ModeLine(t):
		return KindOnyxRoCE, 0 // "RoCE mode : lossless"
	case (t[0] == 'C' || t[0] == 'L' || t[0] == 'B') && listlinkup.IsLine(t):
		return KindListLinkup, 0 // "Connector  0A Present <-> Switch Port 20 up (Enabled)", "Link I4-A 01 <-> I4-E 09 up"
	case t[0] == 'p' && fiinfo.Header(t, strings.TrimSpace(next)):
		return KindFiInfo, 0
	case (t[0] == 'P' || t[0] == 'R') && amdsmi.Header(t, strings.TrimSpace(next)):
		return KindAMDSMI, 0
	case pingpong.Header(t), pingpong.ExchangeLine(t):
		return KindPingpong, 0
	case qperfFailedTest(t, prev, next):
		return KindPerftest, 1 // the qperf command line above

	case mlxlink.Header(t, next):
		// A loop's "===== mlx5_0 =====" banner above names the device.
		for back, b := range []string{prev, prev2} {
			if b = strings.TrimSpace(b); strings.HasPrefix(b, "===") && strings.HasSuffix(b, "===") {
				return KindMlxlink, back + 1
			} else if b != "" {
				break
			}
		}
		return KindMlxlink, 0
	case t == "NIC statistics:":
		return KindEthtool, 0
	case (strings.Contains(t, "ethtool -S ") || strings.Contains(t, "ethtool --statistics ")) &&
		(isPrompt(l) || hostPrompt(t) || strings.HasPrefix(t, "ethtool -S ") || strings.HasPrefix(t, "ethtool --statistics ")) && !strings.HasPrefix(strings.TrimSpace(next), "NIC statistics:"):
		return KindEthtool, 0 // the command (with or without a prompt) names the body that follows without its header
	case strings.HasPrefix(t, "show_counters ") || isHWCountersHeader(t) && !strings.HasPrefix(prev, "show_counters"):
		return KindRdma, 0 // MLNX_OFED show_counters: "Port 1 hw counters:"
	case strings.HasPrefix(t, "# nThread ") || strings.HasPrefix(t, "# Collective test starting") || strings.HasPrefix(t, "# nccl-tests version "):
		return KindNCCLTests, 0
	case ncclTestsTableHeader(t):
		// A pasted table without the banner (its "#" kept or stripped).
		if back := strings.TrimSpace(strings.TrimLeft(prev, "#")); strings.Contains(back, "out-of-place") {
			return KindNCCLTests, 1
		}
		return KindNCCLTests, 0
	case (strings.HasSuffix(t, " BW Test") || strings.HasSuffix(t, " Lat Test") || strings.HasSuffix(t, " Latency Test")) && isDashes(prev):
		return KindPerftest, 1
	case t == "* Waiting for client to connect... *":
		if strings.HasPrefix(prev, "****") {
			return KindPerftest, 1
		}
		return KindPerftest, 0
	case isTopoHeader(t):
		return KindTopo, 0
	case t[0] == 'G' && nvsmi.HeaderlessRow(t) && nvsmi.HeaderlessRow(strings.TrimSpace(next)) && !nvsmi.HeaderlessRow(prev) && !isTopoHeader(prev):
		return KindTopo, 0 // GPU rows of nvidia-smi topo -m pasted without the header
	case t == "==============NVSMI LOG==============",
		(t == "Remapped Rows" || t == "Retired Pages") && strings.Contains(next, " : "),
		t == "Fabric" && strings.Contains(next, " : ") && (strings.HasPrefix(strings.TrimSpace(next), "State ") || strings.HasPrefix(strings.TrimSpace(next), "Status ")),
		strings.HasPrefix(t, "GPU 0000") && !strings.Contains(t, " : ") && strings.Contains(next, " : ") && strings.HasPrefix(next, " "):
		return KindNvsmiQuery, 0 // nvidia-smi -q: its banner, a memory error section, or a GPU's block
	case t[0] == '|' && nvsmi.TableBanner(t):
		// "| NVIDIA-SMI 384.111  Driver Version: …|": the rule above it,
		// and the date nvidia-smi prints first.
		if strings.HasPrefix(prev, "+-") {
			if f := strings.Fields(strings.TrimSpace(prev2)); len(f) == 5 && len(f[4]) == 4 && strings.Count(f[3], ":") == 2 {
				return KindNvsmiTable, 2
			}
			return KindNvsmiTable, 1
		}
		return KindNvsmiTable, 0
	case (t[0] == 'N' || t[0] == 'F') && nvsmi.ToolError(t):
		return KindNvsmiTable, 0 // "No devices were found", "NVIDIA-SMI has failed because …", "Failed to initialize NVML: …"
	case t[0] == '|' && nvsmi.TableColumns(t):
		if strings.HasPrefix(prev, "+-") || strings.HasPrefix(prev, "|-") {
			return KindNvsmiTable, 1 // the GPU box pasted without the banner
		}
		return KindNvsmiTable, 0
	case t[0] == '|' && ucxperf.Header(t):
		// "| … | overhead (usec) | bandwidth (MB/s) | …": the rule above
		// it and the "=== tag_bw ===" banner above that.
		if strings.HasPrefix(prev, "+-") {
			if ucxperf.Banner(strings.TrimSpace(prev2)) != "" {
				return KindUCXPerf, 2
			}
			return KindUCXPerf, 1
		}
		return KindUCXPerf, 0
	case t == dshbak.Rule && dshbak.HostsLine(strings.TrimSpace(next)):
		return KindDshbak, 0 // dshbak -c: "----------------", "host-[040-048]", "----------------"
	case t[0] == '#' && ucxinfo.Header(t):
		return KindUCXInfo, 0 // "# Memory domain: mlx5_0", "# UCP context", "# Library version: 1.10.1"
	case t[0] == 'b' && fabtests.Header(t):
		return KindFabtests, 0 // fi_pingpong's "bytes   #sent   #ack     total …"
	case (t[0] == '#' || t[0] == 'O') && osu.Title(t):
		return KindOSU, 0 // "# OSU MPI Latency Test v5.6.2"
	case (t[0] == '#' || t[0] == 'S') && osu.ColumnHeader(t) != nil:
		return KindOSU, 0 // "# Size          Latency (us)"
	case strings.HasSuffix(t, ",avg_mr,overall_mr") && ucxperf.CSVHeader(t) >= 0:
		return KindUCXPerf, 0 // ucx_perftest -f: "msg_pow2,iterations,typical_lat,…"
	case strings.HasPrefix(t, "# Topology file: generated"):
		if prev == "#" {
			return KindNetDiscover, 1
		}
		return KindNetDiscover, 0
	case strings.Contains(t, "ports") && ibdiags.HostsLine(t): // (a cheap test first)
		return KindNetDiscover, 0
	case strings.HasPrefix(t, "Unicast lids ["):
		return KindForwardTables, 0
	case strings.HasPrefix(t, "sminfo: sm lid "):
		return KindSMInfo, 0
	case t == "IsSM ports" || t == "IsSMdisabled ports":
		return KindSMPorts, 0
	case ibdiags.IsSARecordHeader(t):
		if strings.Contains(prev, "saquery") {
			return KindSARecords, 1 // the command line above
		}
		return KindSARecords, 0
	case ibdiags.PerfQueryHeader(t): // "# Port counters: Lid …", "# PortRcvErrorDetails counters: Lid …"
		return KindPerfQuery, 0
	case strings.HasPrefix(t, "PortSelect:..") && !strings.HasPrefix(prev, "# Port") && !strings.HasPrefix(prev, "0x"):
		return KindPerfQuery, 0 // a perfquery block pasted without its header line (perfquery prints PortSelect first)
	case strings.HasPrefix(t, "Errors for ") || strings.HasPrefix(t, "## Summary:") && strings.Contains(t, "nodes checked") || ibdiags.LegacyLine(t) || ibdiags.ErrorPortLine(t):
		return KindQueryErrors, 0
	case strings.HasPrefix(t, "CA: ") || strings.HasPrefix(t, "Switch: 0x") || strings.HasPrefix(t, "Switch 0x") && strings.HasSuffix(t, ":"):
		return KindLinkInfo, 0
	case strings.HasPrefix(t, "ACSCtl:") && strings.Contains(t, "ReqRedir") || strings.HasPrefix(t, "ACSCap:") && strings.Contains(t, "ReqRedir"):
		return KindLspci, 0 // `lspci -vvv | grep ACSCtl`: the ACS registers without their device
	case strings.HasPrefix(t, "LnkCap:") || strings.HasPrefix(t, "LnkSta:"):
		return KindLspci, 0 // lspci's link lines quoted without their device (or `lspci -vvv | grep Lnk`)
	case l != t && strings.HasPrefix(t, "Capabilities: [") && strings.Contains(t, "] Express (v") && strings.Contains(t, " Port"):
		return KindLspci, 0 // an `lspci -s ADDR -vvv` excerpt from a port's Express capability
	case l == t && lspci.IsHeader(t):
		return KindLspci, 0 // "17:00.0 PCI bridge: …" at the start of the line
	}
	return KindUnknown, 0
}

func isVerbsWarning(t string) bool {
	_, ok := hcatext.VerbsWarning(t)
	return ok
}

func isDevinfoAbsent(t string) bool {
	_, ok := hcatext.DevinfoAbsent(t)
	return ok
}

func isIBStatusFatal(t string) bool {
	_, ok := hcatext.IBStatusFatal(t)
	return ok
}

// ibstatPortHeader matches ibstat's "Port 1:".
func ibstatPortHeader(t string) bool {
	n, ok := strings.CutPrefix(t, "Port ")
	n, ok2 := strings.CutSuffix(n, ":")
	return ok && ok2 && n != "" && len(n) <= 3 && strings.Trim(n, "0123456789") == ""
}

// ncclTestsTableHeader matches nccl-tests' column header "#  size  count
// type  redop  root  time  algbw  busbw  #wrong …", with or without "#".
func ncclTestsTableHeader(t string) bool {
	if !strings.Contains(t, "algbw") || !strings.Contains(t, "busbw") {
		return false
	}
	f := strings.Fields(strings.TrimLeft(t, "#"))
	return len(f) >= 6 && f[0] == "size" && f[1] == "count"
}

func isDashes(t string) bool {
	return len(t) >= 20 && strings.Trim(t, "-") == ""
}

// isTopoHeader matches the column header of `nvidia-smi topo -m` (its
// underline escapes removed).
func isTopoHeader(t string) bool {
	if !strings.Contains(t, "GPU0") || !strings.Contains(t, "Affinity") {
		return false
	}
	t = strings.ReplaceAll(strings.ReplaceAll(t, "\x1b[4m", ""), "\x1b[0m", "")
	return strings.HasPrefix(t, "GPU0")
}

// member returns the kind a line belongs to by its own shape, for tools
// whose outputs are runs of alike lines without a header: kernel logs,
// NCCL logs, rdma lines.
func member(l string) Kind {
	if m := memberBesides(l); m != KindUnknown || l == "" {
		return m
	}
	if l[0] == '[' {
		// ibnetdiscover's "[1]" port columns are not dmesg's "[  12.3]".
		end := strings.IndexByte(l, ']')
		if end < 0 || strings.Trim(l[1:end], "0123456789") == "" {
			if _, ok := wclog.MPIFabricLine(l); ok {
				return KindVerbsLog // Intel MPI's "[0] MPI startup(): libfabric provider: …"
			}
			return KindUnknown
		}
	}
	if strings.Contains(l, "NetworkDevice(") {
		if _, ok := daosnet.DeviceLine(l); ok {
			return KindDAOSNet
		}
	}
	if _, ok := ganesha.RDMALine(l); ok {
		return KindGanesha // before the kernel: its "DATE TIME : epoch" stamp is not a kernel line's
	}
	if kmsg.DetectLine(l) {
		return KindKernel
	}
	if strings.Contains(l, " ==> ") {
		if _, ok := ibdev2netdev.Line(l); ok {
			return KindIBDev2Netdev
		}
	}
	if wclog.Hint(l) && wclog.DetectLine(l) {
		return KindVerbsLog // after the kernel: a kernel line that names a status is the kernel's
	}
	return KindUnknown
}

// memberBesides is member but for kernel lines, which it does not test
// (the costly test): what can end a run of kernel lines.
func memberBesides(l string) Kind {
	if l == "" {
		return KindUnknown
	}
	if l[0] == '[' || l[0] == ' ' && strings.HasPrefix(strings.TrimSpace(l), "[") {
		if iperf.IsHeader(l) || iperf.IsConnectLine(l) {
			return KindIPerf
		}
		if _, ok := iperf.RateLine(l); ok {
			return KindIPerf // before the kernel: "[  3]  0.0-10.0 sec" is no kernel stamp
		}
	}
	if ncclMark(l) || nccllog.WatchdogHeadWrapped(l) {
		return KindNCCLLog // the second: a watchdog report's head wrapped after its colon
	}
	if (l[0] == 'N' || l[0] == 'C' || l[0] == ' ') && bareNCCL(l) {
		return KindNCCLLog // an INFO line quoted without its prefix: "NET/IB : Using [0]…"
	}
	if strings.Contains(l, ": CQE ") && wclog.HermonLine(l) {
		// The Solaris hermon (mcxnex) driver's error completions, in
		// syslog as kernel lines: read for their completion status.
		return KindVerbsLog
	}
	if strings.Contains(l, ": Test ") && (strings.Contains(l, ": Test NCCL failure ") || strings.Contains(l, ": Test CUDA failure ")) {
		return KindNCCLLog // nccl-tests' "gpu5: Test NCCL failure common.cu:343 'unhandled cuda error'"
	}
	if strings.Contains(l, " WARN ") && nccllog.LegacyWarn(l) {
		return KindNCCLLog // NCCL 2.0-2.3: "machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed"
	}
	if strings.Contains(l, " INFO ") && nccllog.LegacyInfo(l) {
		return KindNCCLLog // NCCL 2.0-2.3: "host:24500:24664 [1] INFO NET/IB: [0] mlx4_0:1/IB"
	}
	if strings.Contains(l, ": Function: ") && nccllog.OFITestLine(l) {
		return KindNCCLLog // aws-ofi-nccl's tests: "WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI …"
	}
	if strings.Contains(l, "init failed for transport") && nccllog.IBGDAInitFailedLine(l) {
		return KindNCCLLog // NVSHMEM: "…/transport.cpp:nvshmemi_transport_init:275: init failed for transport: IBGDA"
	}
	if nccllog.ErrorLine(l) {
		// The NCCL examples' "Failed, NCCL error file.cu:17 'invalid
		// usage'", PyTorch's "NCCL error in: …" and a CUDA error it
		// raised ("what():  CUDA error: unknown error").
		return KindNCCLLog
	}
	if l[0] == '#' || l[0] == ' ' {
		if ucxinfo.Line(l) {
			return KindUCXInfo // ucx_info -d's "#       error handling: peer failure, ep_check, keepalive"
		}
	}
	if strings.Contains(l, "(): ") || strings.HasPrefix(l, "[error] ") {
		if _, ok := fabtests.ErrorLine(strings.TrimSpace(l)); ok {
			return KindFabtests // "fi_getinfo(): common/shared.c:1234, ret=-61 (No data available)"
		}
	}
	// UCX lines start "[1590482937.540412] [host:pid:tid]" as a kernel
	// line may: tested first, behind a cheap look for what every UCX line
	// holds ("UCX", or its source file: "ib_mlx5_log.c:139").
	if ucxHint(l) && ucxlog.DetectLine(l) {
		return KindUCXLog
	}
	// Open MPI's help messages start with a sentence of their help file
	// ("WARNING: There is at least non-excluded one OpenFabrics device
	// found,"), behind a cheap look for the words they all hold.
	if ompihelp.Hint(l) && ompihelp.StartLine(l) {
		return KindOpenMPI
	}
	if strings.Contains(l, " rx_buffer compare : ") {
		if _, ok := ibvload.ParseCompare(l); ok {
			return KindIBVLoad
		}
	}
	if strings.HasSuffix(l, " Mbytes/sec") {
		if _, ok := ibvload.ParseRate(l); ok {
			return KindIBVLoad
		}
	}
	if deepep.Hint(l) {
		if _, ok := deepep.ParseTuning(l); ok {
			return KindDeepEP
		}
		if _, ok := deepep.ParseLowLatency(l); ok {
			return KindDeepEP
		}
	}
	if strings.Contains(l, "xpected") || strings.Contains(l, "Found ") {
		if _, ok := mpicheck.WrongResult(l); ok {
			return KindMPICheck // "Did not get expected value for reduce scatter"
		}
	}
	if strings.Contains(l, " -> ") {
		if _, _, ok := opensm.LogLine(l); ok {
			return KindOpenSM // "165028 [F0D43740] 0x01 -> osm_vendor_bind: ERR 5426: Unable to register class 129 version 1"
		}
	}
	if strings.Contains(l, "osm_") || strings.Contains(l, "opensm") {
		if _, ok := opensm.FrameLine(l); ok || opensm.ReportLine(l) {
			return KindOpenSM // "#0 0x00005636f04835a9 in get_next_switch (…) at osm_ucast_lash.c:337", "SourcePackage: opensm"
		}
	}
	if strings.Contains(l, " is maxed out on ") {
		if _, ok := ibdiags.SaturatedLine(l); ok {
			return KindIBExporter // "2021-11-10 18:30:43,512 - WARNING - Counters on 0xc42a10300dd0c0e port 1 is maxed out on PortRcvErrors"
		}
	}
	if strings.Contains(l, "IBDevice") || strings.Contains(l, "IfAddr of ") {
		// 3FS's other IBDevice.cc lines ("IBDevice mlx5_0 add active port
		// 1, linklayer ETHERNET, addrs , zones UNKNOWN") join its log.
		if _, ok := wclog.PortAddrLine(l); ok || strings.Contains(l, " IBDevice.cc:") {
			return KindVerbsLog // 3FS in syslog: "… mgmtd_main[32]: [… IBDevice.cc:441 CRITICAL] IBDevice mlx5_0:1 can't set zone by IP, fallback to UNKNOWN"
		}
	}
	if strings.Contains(l, " Gbps |") {
		if _, ok := uccl.Line(l); ok {
			return KindUCCL // "[Client]   1.0 MB : 170.65 Gbps |  21.33 GB/s"
		}
	}
	if _, ok := lsmod.Line(l); ok || lsmod.Header(l) {
		return KindLsmod // "ib_uverbs             102296  2 mlx4_ib,rdma_ucm"
	}
	if strings.Contains(l, "umad") || strings.Contains(l, "issm") {
		if _, ok := hcatext.MadClassLine(l); ok {
			return KindMadClass // "lrwxrwxrwx 1 root root 0 Nov 25 12:29 umad0 -> ../../devices/…/infiniband_mad/umad0/"
		}
	}
	if l[0] == 'c' {
		if _, ok := hcatext.DevFileLine(l); ok {
			return KindDevFiles // "crw-rw-rw-  1 root root 231, 192 Dec 28 14:10 uverbs0"
		}
	}
	if l[0] >= '1' && l[0] <= '9' && strings.Contains(l, ": <") && strings.Contains(l, " mtu ") {
		if _, ok := iplink.HeadLine(l); ok {
			return KindIPLink // "4: ens2f0: <BROADCAST,MULTICAST> mtu 9000 qdisc mq state DOWN mode DEFAULT group default qlen 1000"
		}
	}
	if strings.Contains(l, ": flags=") || strings.Contains(l, " Link encap:") {
		if _, ok := ifconfig.HeadLine(l); ok {
			return KindIfconfig // "ib0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 2044", "ib0       Link encap:UNSPEC  HWaddr 80-00-…"
		}
	}
	if strings.HasPrefix(strings.TrimLeft(l, " \t"), "link/") {
		return KindIPLink // "    link/ether 0c:42:a1:2b:74:ae brd ff:ff:ff:ff:ff:ff"
	}
	if strings.HasPrefix(strings.TrimLeft(l, " \t"), "vf ") {
		if _, ok := iplink.VFLine(l); ok {
			return KindIPLink // "    vf 0     link/ether 76:ed:fd:cf:eb:c9 brd ff:ff:ff:ff:ff:ff, spoof checking off, link-state auto"
		}
	}
	if strings.Contains(l, "IBPORT") && cellcli.CommandLine(l) {
		return KindCellCLI // "CellCLI> LIST IBPORT DETAIL"
	}
	if (l[0] == 'S' || strings.HasPrefix(l, "✔")) && passedCheck(l) {
		return KindHealthCheck // "SUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: …", "✔ ibstat ports/rates check passed (…)"
	}
	if proc.UlimitLine(l) {
		return KindUlimit // `ulimit -a` rows: "max locked memory (kbytes, -l) 64"
	}
	if strings.Contains(l, "Unable to determine the device handle") {
		if _, ok := nvsmi.HandleErrorLine(l); ok {
			return KindNvsmiError // "Unable to determine the device handle for GPU0000:03:00.0: Unknown Error"
		}
	}
	if strings.Contains(l, "umad (") {
		if _, ok := ibdiags.MADErrorLine(l); ok {
			return KindMADError // "src/query_smp.c:199; umad (DR path slid 0; dlid 0; 0,1,20 Attr 0x11:0) bad status 110; Connection timed out"
		}
	}
	if strings.Contains(l, "ib") {
		if _, ok := ibdiags.MADErrorLine(l); ok {
			return KindMADError // "ibwarn: [1685604] sa_get_handle: No SM/SA found on port :1"
		}
		if _, ok := hcatext.ToolErrorLine(strings.TrimSpace(l)); ok {
			// "ibpanic: [12345] main: stat of IB device 'mlx5_0' failed: …",
			// "ibnetdiscover: iberror: failed: Failed to open '(null)' port '0'"
			return KindToolError
		}
	}
	if (l[0] == ' ' || l[0] == 'D') && strings.HasPrefix(strings.TrimLeft(l, " "), "Did not detect devices") {
		if _, ok := hcatext.ToolErrorLine(strings.TrimSpace(l)); ok {
			return KindToolError // perftest: " Did not detect devices ", " If device exists, check if driver is up"
		}
	}
	if strings.Contains(l, "mlx") && strings.Contains(l, "Verbs device") {
		if _, ok := hcatext.ToolErrorLine(strings.TrimSpace(l)); ok {
			return KindToolError // DPDK mlx5 PMD: "mlx5_common: No Verbs device matches PCI device 0000:c3:00.2, are kernel drivers loaded?"
		}
	}
	if l[0] == 'F' && strings.HasPrefix(l, "Failed to get IB devices list") {
		if _, ok := hcatext.ToolErrorLine(strings.TrimSpace(l)); ok {
			return KindToolError // ibv_devinfo, ibv_devices, perftest: "Failed to get IB devices list: Function not implemented"
		}
	}
	if strings.HasPrefix(l, "link ") {
		f := strings.Fields(l)
		if len(f) >= 3 && strings.Contains(f[1], "/") {
			return KindRdma
		}
		// `rdma stat show -p`: "link mlx5_0/1" alone, its counters on
		// the indented lines below.
		if _, port, ok := strings.Cut(f[len(f)-1], "/"); len(f) == 2 && ok && port != "" && strings.Trim(port, "0123456789") == "" {
			return KindRdma
		}
	}
	if l[0] >= '1' && l[0] <= '9' && hcatext.IsOldRdmaLink(strings.Fields(l)) {
		return KindRdma // older rdma link: "1/1: mlx5_0/1: …"
	}
	if strings.IndexByte(l, '/') >= 0 && strings.Contains(l, "sys/class/infiniband/") && strings.Contains(l, "/ports/") && !strings.Contains(l, "/infiniband/$") && !quotedSysfsPath(l) {
		// grep . /sys/class/infiniband/*/ports/*/hw_counters/*, a grep
		// or cat of the port attributes (state, rate, phys_state …); not
		// prose naming the path with shell variables ("$device").
		return KindRdma
	}
	if sysfspci.IsLine(l) { // (a cheap test for "_link_" first)
		return KindSysfsPCI // `tail -v /sys/bus/pci/devices/ADDR/*_link_*`, a grep or cat of those files
	}
	return KindUnknown
}

// maybeHeader is false for lines header cannot match, cheaply: most lines
// of a log. Every header starts (after blanks) with one of headStarts,
// or is a prompt (an ethtool command; mp is maybePrompt(l)), or names
// ibdiagnet's files in at most four words, or ends in "Test" (perftest's
// title) or "dump:" (saquery's records).
func maybeHeader(l string, mp bool) bool {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] >= '\t' && l[i] <= '\r') {
		i++
	}
	if i == len(l) {
		return false
	}
	if l[i] >= 0x80 || strings.IndexByte(headStarts, l[i]) >= 0 {
		return true // (a Unicode blank first: header decides)
	}
	if l[i] == '|' {
		// nvidia-smi's banner and GPU column header, ucx_perftest's
		// units row.
		return strings.Contains(l, "NVIDIA-SMI") || strings.Contains(l, "Persistence-M") || strings.Contains(l, "(MB/s)")
	}
	if i == 0 && pciAddrStart(l) {
		return true // lspci's "17:00.0 PCI bridge: …"
	}
	if l[i] == 'd' && strings.HasPrefix(l[i:], "device") && strings.Contains(l, "GUID") {
		return true // ibv_devices' "    device                 node GUID"
	}
	if l[i] == 'd' && strings.HasPrefix(l[i:], "driver: ") {
		return true // ethtool -i's "driver: mlx5_core[ib_ipoib]"
	}
	if l[i] >= '0' && l[i] <= '9' && strings.Contains(l, "Couldn't") {
		return true // the pingpong programs' "0/45: Couldn't read remote address"
	}
	e := len(l)
	for e > i && (l[e-1] == ' ' || l[e-1] >= '\t' && l[e-1] <= '\r') {
		e--
	}
	t := l[:e]
	return strings.HasSuffix(t, "Test") || strings.HasSuffix(t, "dump:") || t[len(t)-1] >= 0x80 ||
		strings.HasSuffix(t, "_bw:") || strings.HasSuffix(t, "_lat:") || // a qperf test's banner
		strings.HasSuffix(t, ",avg_mr,overall_mr") || // ucx_perftest -f's CSV header
		mp || strings.Contains(t, "bdiagnet") && fewFields(t[i:], 4) // ("b" is rarer than "i")
}

// fewFields says whether t (no blanks at its ends) has at most n fields
// split at ASCII blanks: Unicode blanks split more, so a line with at
// most n fields (as strings.Fields counts them) passes.
func fewFields(t string, n int) bool {
	blank := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == ' ' || c >= '\t' && c <= '\r' {
			blank = true
			continue
		}
		if blank {
			blank = false
			if n--; n == 0 {
				return false
			}
		}
	}
	return true
}

// pciAddrStart says whether l starts with a PCI address and a blank,
// "bb:dd.f " or "dddd:bb:dd.f ", as lspci's device lines do.
func pciAddrStart(l string) bool {
	hex := func(s string) bool {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return true
	}
	short := func(s string) bool { // "bb:dd.f "
		return len(s) >= 8 && s[2] == ':' && s[5] == '.' && s[7] == ' ' && hex(s[:2]) && hex(s[3:5]) && hex(s[6:7])
	}
	return short(l) || len(l) >= 13 && l[4] == ':' && hex(l[:4]) && short(l[5:])
}

// headStarts are the first characters of the headers header matches:
// "CA '", "Infiniband device", "hca_id:", "port:", "NIC statistics:",
// "ethtool -S", "show_counters", "size", "sminfo:", "Port 1 hw
// counters:", "# …", "* Waiting", "GPU0" (or the escape that underlines
// it), "GUID 0x", "Unicast lids", "Errors for", "Error check", "Switch",
// "Ca", "Hca", "Rt", "Router", "Loading IBDIAGNET", "Running version",
// "-I-", "START_", "{ CA Ports", "State:", "DEV PORT INDEX" (show_gids),
// mlxlink's page titles ("Operational Info", "Troubleshooting Info",
// "Module Info", "FEC Capability Info", "BER Monitor Info", "KR Info" …,
// `"Operational Info" : {` of --json), ibportstate's "After PortInfo
// set:", "MST modules:", pingpong's "local address:", nvidia-smi -q's
// "==============NVSMI LOG==============", "Remapped Rows", perfquery's
// "PortSelect:..", lspci's "LnkCap:", fi_pingpong's "bytes".
const headStarts = "CIhpNesP#*GUESHRL-{D\x1bOTMFBKAl\"=b"

// ncclMark says whether l holds "NCCL INFO" or "NCCL WARN", in one scan.
// It also finds PyTorch's ProcessGroupNCCL watchdog lines ("[rank1]:[E925
// 12:18:45.8 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective
// operation timeout: WorkNCCL(SeqNum=…"), which belong with the NCCL log
// they interleave with, in the same scan.
func ncclMark(l string) bool {
	for {
		i := strings.Index(l, "NCCL")
		if i < 0 {
			return false
		}
		before, rest := l[:i], l[i+4:]
		if strings.HasPrefix(rest, " INFO") || strings.HasPrefix(rest, " WARN") ||
			strings.HasSuffix(before, "ProcessGroup") || strings.HasSuffix(before, "Work") && strings.HasPrefix(rest, "(SeqNum=") {
			return true
		}
		l = rest
	}
}

// bareNCCL says whether l is an NCCL INFO line quoted without its prefix.
func bareNCCL(l string) bool {
	_, ok := nccllog.BareInfo(l)
	return ok
}

// deviceName returns the device (and port) an HCA output's header names:
// "mlx5_0" of "CA 'mlx5_0'", "mlx5_0/1" of ibstatus' block header.
func deviceName(k Kind, l string) string {
	t := strings.TrimSpace(l)
	switch k {
	case KindIBStat:
		// A headless "Port 2:" block names no device: the same port
		// number under the next CA is not the next host's output.
		if !strings.HasPrefix(t, "CA '") {
			return ""
		}
		return strings.TrimSuffix(strings.TrimPrefix(t, "CA '"), "'")
	case KindIBStatus:
		f := strings.Fields(t)
		if len(f) >= 5 {
			return f[2] + "/" + f[4]
		}
	case KindDevinfo:
		// Likewise a "port: 2" block after a blank line.
		if !strings.HasPrefix(t, "hca_id:") {
			return ""
		}
		return strings.TrimSpace(strings.TrimPrefix(t, "hca_id:"))
	case KindIBDiagnet:
		// A second banner is the next ibdiagnet run.
		if strings.HasPrefix(t, "Running version:") || strings.HasPrefix(t, "Loading IBDIAGNET from:") {
			return "ibdiagnet banner"
		}
	}
	return ""
}

// isFence matches a markdown code fence ("```", "```bash").
func isFence(l string) bool {
	return strings.IndexByte(l, '`') >= 0 && strings.HasPrefix(strings.TrimSpace(l), "```")
}

// compatible says whether a line of kind m may sit inside a segment of kind
// k without starting a new one.
func compatible(k, m Kind) bool {
	return k == m || k == KindNCCLTests && m == KindNCCLLog || k == KindPerftest && m == KindNCCLLog ||
		m == KindVerbsLog && verbsJudged(k)
}

// verbsJudged says whether a kind's parser reads the completion errors
// of its own output (libmlx5's dump or a status line inside a UCX, NCCL,
// perftest or pingpong output is that tool's error).
func verbsJudged(k Kind) bool {
	return k == KindUCXLog || k == KindNCCLLog || k == KindPerftest || k == KindPingpong || k == KindOpenMPI || k == KindNCCLTests
}

// isPrompt says whether a line is a shell prompt with a command ("$ ibstat",
// "[root@gpu17 ~]# dmesg -T", "user@host:~$ ethtool -S ens1", "# ibstat",
// or `set -x`'s "+ ibstat"): it belongs to the output that follows it.
func isPrompt(l string) bool {
	t := strings.TrimSpace(l)
	switch {
	case strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "+ "):
		return len(t) > 2
	case strings.HasPrefix(t, "# "):
		// "# ibstat" (a root prompt), not a "# nThread" comment line.
		w := strings.Fields(t[2:])
		if len(w) == 0 {
			return false
		}
		for _, c := range promptCommands {
			if strings.HasPrefix(w[0], c) {
				return true
			}
		}
		return false
	case strings.HasPrefix(t, "[") && (strings.Contains(t, "]# ") || strings.Contains(t, "]$ ")):
		return strings.Contains(t[:strings.IndexByte(t, ']')], "@")
	}
	// "user@host:~/dir$ cmd", "root@node2# cmd": the first word holds an
	// @ and ends in the prompt character.
	f := strings.Fields(t)
	if len(f) >= 2 && glyphPrompt(f[0]) {
		// zsh and fish themes: "➜  opensm git:(master) ✗ perfquery 5 1",
		// "❯ ibstat", "λ dmesg".
		return true
	}
	if len(f) >= 2 && consolePrompt(f[0]) {
		// A tool's own console: "sim> PerformanceSet …" (ibsim),
		// "ftp> get x".
		return true
	}
	if len(f) >= 2 && shellPrompt(f[0]) {
		// A container's shell without a host name: "bash-4.2# ibstat".
		return true
	}
	if len(f) >= 3 && strings.HasPrefix(f[0], "(") && strings.HasSuffix(f[0], ")") {
		f = f[1:] // a conda or venv name before the prompt: "(base) user@gpu1:~$ ibstat"
	}
	if len(f) < 2 || !strings.Contains(f[0], "@") || strings.HasPrefix(f[0], "@") {
		return false
	}
	if len(f) >= 3 && (f[1] == "%" || len(f) >= 4 && f[2] == "%") {
		return true // zsh's default "user@host ~ % cmd"
	}
	return strings.HasSuffix(f[0], "$") || strings.HasSuffix(f[0], "#")
}

// hostPrompt says whether t starts with a bare host name prompt, the word
// ending in $ or # ("receiver$ watch 'sudo ethtool -S eth2'").
func hostPrompt(t string) bool {
	w, rest, ok := strings.Cut(t, " ")
	if !ok || len(w) < 2 || w[len(w)-1] != '$' && w[len(w)-1] != '#' || strings.TrimSpace(rest) == "" {
		return false
	}
	return strings.Trim(w[:len(w)-1], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~:/") == ""
}

// shellPrompt says whether a word is a shell's own prompt: "bash-4.2#",
// "sh-5.1$", "bash$".
func shellPrompt(w string) bool {
	if len(w) < 2 || w[len(w)-1] != '#' && w[len(w)-1] != '$' {
		return false
	}
	name, ver, _ := strings.Cut(w[:len(w)-1], "-")
	switch name {
	case "bash", "sh", "zsh", "ash", "dash", "ksh":
	default:
		return false
	}
	return strings.Trim(ver, "0123456789.") == ""
}

// glyphPrompt says whether a line's first word is the prompt glyph of a
// shell theme (oh-my-zsh robbyrussell's ➜, pure's and starship's ❯,
// powerlevel's ▶, fish's λ …): only such glyphs, which no tool starts an
// output line with, and no bullets of prose (•, ·, –).
func glyphPrompt(w string) bool {
	if w == "" || w[0] < utf8.RuneSelf {
		return false
	}
	for _, r := range w {
		if !strings.ContainsRune(promptGlyphs, r) {
			return false
		}
	}
	return true
}

// promptGlyphs are the characters shell themes draw their prompts with.
const promptGlyphs = "➜❯❮λ▶➤»❱⚡➔"

// consolePrompt says whether a word is an interactive console's prompt:
// a short lower-case name and '>' ("sim>", "ftp>").
func consolePrompt(w string) bool {
	name, ok := strings.CutSuffix(w, ">")
	if !ok || len(name) == 0 || len(name) > 12 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; (c < 'a' || c > 'z') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// promptCommands start the commands a root prompt "# …" is recognised by.
var promptCommands = []string{"ib", "rdma", "dmesg", "journalctl", "nvidia-smi", "ethtool", "mpirun", "srun", "all_", "perfquery", "dump_fts", "sminfo", "saquery", "cat", "sudo", "./", "show_gids", "mlx", "mst", "smpquery", "lspci", "setpci"}

// Split cuts a paste into spans, one per tool output, at the headers only
// one tool prints and where runs of alike lines (kernel log, NCCL log)
// begin and end. Spans cover every line in order; lines before the first
// recognised output form a KindUnknown span. Lines that fit no kind stay in
// the span they appear in (its parser reports them as skipped).
func Split(ls []string) []Span {
	var out []Span
	sp := newSplitter(func(s Span) { out = append(out, s) })
	for i, l := range ls {
		next := ""
		if i+1 < len(ls) {
			next = ls[i+1]
		}
		sp.step(l, next)
	}
	sp.end()
	return out
}

// splitter is Split read a line at a time, each line with the one after
// it, so that a big input is split as it streams: it holds the last few
// lines, not the input. A span is emitted when it ends; the lines of the
// span being read may still move to the next one, up to splitBack lines
// above the line read last.
type splitter struct {
	cur Span
	// n is the number of lines read; line p of the splitBack lines
	// above the next is back[p%splitBack].
	n    int
	back [splitBack]string
	// hca says an "hca_id:" line stands above the next line with no
	// blank line between (its "port:" lines are that device's).
	hca bool
	// ca says a "CA '…'" line stands above the next line with no blank
	// line between (its "Port N:" blocks are that CA's).
	ca bool
	// seen are the device names of the current HCA output: a name seen
	// again is the next host's output (ibstat run over ssh on many
	// nodes). At most maxSeen are kept.
	seen map[string]bool
	emit func(Span)
	// mp is maybePrompt of the line read last.
	mp bool
}

// splitBack is how far above the line being read a new span may start:
// a header one line up (the dashes above a perftest title), then a
// prompt up to three lines above that.
const splitBack = 4

// maxSeen bounds the device names remembered in one HCA output.
const maxSeen = 1024

func newSplitter(emit func(Span)) *splitter {
	return &splitter{cur: Span{Kind: KindUnknown, Start: 1}, seen: map[string]bool{}, emit: emit}
}

// step reads the next line; next is the line after it ("" at the end).
func (s *splitter) step(l, next string) {
	s.n++
	s.mp = maybePrompt(l)
	s.read(l, next)
	s.back[s.n%splitBack] = l
	if t := strings.TrimSpace(l); t == "" {
		s.hca, s.ca = false, false
	} else if t[0] == 'h' && strings.HasPrefix(t, "hca_id:") {
		s.hca = true
	} else if t[0] == 'C' && strings.HasPrefix(t, "CA '") {
		s.ca = true
	}
}

// read reads line s.n, l.
func (s *splitter) read(l, next string) {
	n := s.n
	// A markdown code fence (GitHub issues, chat) closes the output it
	// follows: the prose after it is not that tool's.
	if isFence(l) {
		if s.cur.Kind != KindUnknown {
			s.open(KindUnknown, n)
			clear(s.seen)
		}
		return
	}
	if strings.Contains(l, " - ") && strings.HasPrefix(strings.TrimSpace(next), "Loaded:") && systemctl.IsHead(l, next) {
		if s.cur.Kind != KindSystemctl {
			s.open(KindSystemctl, n)
		}
		return // "● opensm.service - OpenSM" above its "Loaded:" field
	}
	if s.cur.Kind == KindSystemctl && !isPrompt(l) && systemctlMember(l) {
		return // the unit's fields and the journal lines under it
	}
	if s.cur.Kind == KindKernel && dmesgStamped(l) {
		return // a dmesg line goes on with the kernel run: nothing else starts "[  12.345678] "
	}
	if maybeHeader(l, s.mp) {
		prev, prev2 := "", ""
		if n > 1 {
			prev = s.back[(n-1)%splitBack]
		}
		if n > 2 {
			prev2 = s.back[(n-2)%splitBack]
		}
		if k, back := header(l, prev, prev2, next, s.hca, s.ca); k != KindUnknown {
			if k == KindIBDiagnet && s.cur.Kind == KindUnknown && ibdiagnet.IsLinkMessage(strings.TrimSpace(l)) {
				// A quoted link-check message: the lines above it that
				// no tool claimed (the stage's other messages, the
				// prose around them) are ibdiagnet's excerpt too.
				s.cur.Kind = KindIBDiagnet
				return
			}
			start := max(n-back, s.cur.Start)
			name := deviceName(k, l)
			// saquery -s prints PortInfoRecord dumps under "IsSM ports".
			if k == KindSARecords && s.cur.Kind == KindSMPorts {
				return
			}
			if k != s.cur.Kind || name != "" && s.seen[name] {
				s.open(k, start)
				clear(s.seen)
			}
			if name != "" && len(s.seen) < maxSeen {
				s.seen[name] = true
			}
			return
		}
	}
	var m Kind
	if s.cur.Kind == KindKernel {
		m = memberBesides(l) // a kernel line continues the run: not tested
	} else {
		m = member(l)
	}
	if m == KindToolError && (s.cur.Kind == KindIBStat || s.cur.Kind == KindMADError) && n > 1 && !isPrompt(s.back[(n-1)%splitBack]) {
		// ibstat's own ibpanic under its output (the ibstat reader notes
		// where it crashed); the "Failed to open '…' port '…'" a diags
		// tool exits with after the MAD error that caused it.
		return
	}
	if m == KindVerbsLog && (s.cur.Kind == KindDevinfo || s.cur.Kind == KindRdma) && isVerbsWarning(l) {
		// libibverbs' provider warnings in ibv_devinfo's output, or in
		// one pasted under rdma link: those readers judge them with the
		// devices the tool listed.
		return
	}
	if m == KindOpenMPI && s.cur.Kind == KindNCCLTests {
		if a, ok := ompihelp.AggregateLine(l); ok && !a.Topic.Known() {
			// mpirun's folded line for a help message that is not about
			// the network ("help-mca-var.txt /
			// mutually-exclusive-vars"), printed among the result rows.
			return
		}
	}
	if m != KindUnknown && !compatible(s.cur.Kind, m) {
		s.open(m, n)
	}
}

// systemctlMember says whether l goes on a systemctl status block: a
// blank or indented line (its fields, CGroup tree), a journal line under
// it, or journalctl's "-- No entries --" and hints.
func systemctlMember(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || l != t || strings.HasPrefix(t, "-- ") || strings.HasPrefix(t, "Hint: ") || strings.HasPrefix(t, "Warning: ") || kmsg.DetectLine(l)
}

// open starts a span of kind k at line start, or at a prompt (and blank
// lines) right above it.
func (s *splitter) open(k Kind, start int) {
	cur := s.cur
	for p := start - 1; (p > cur.Start || p == cur.Start && cur.Kind == KindUnknown) && p >= start-3; p-- {
		l := s.back[p%splitBack]
		if isPrompt(l) {
			start = p
			break
		}
		if strings.TrimSpace(l) != "" {
			break
		}
	}
	if start > cur.Start {
		cur.End = start - 1
		s.emit(cur)
	}
	s.cur = Span{Kind: k, Start: start}
}

// end closes the last span.
func (s *splitter) end() {
	if s.n > 0 {
		s.cur.End = s.n
		s.emit(s.cur)
	}
}

// isHWCountersHeader matches show_counters' "Port 1 hw counters:".
func isHWCountersHeader(t string) bool {
	return strings.HasPrefix(t, "Port ") && strings.HasSuffix(t, " hw counters:") && len(strings.Fields(t)) == 4
}

// isEthtoolFEC matches ethtool --show-fec's "FEC parameters for eth0:".
func isEthtoolFEC(t string) bool {
	_, ok := ethlink.FECHeader(t)
	return ok
}

// isEthtoolField matches the fields of `ethtool eth0` that a grep keeps:
// "Speed: 100000Mb/s", "Duplex: Full", "Link detected: yes".
func isEthtoolField(t string) bool {
	return strings.HasPrefix(t, "Speed: ") && strings.HasSuffix(t, "Mb/s") || t == "Speed: Unknown!" ||
		strings.HasPrefix(t, "Duplex: ") || t == "Link detected: yes" || t == "Link detected: no"
}

// isSudoPrompt matches sudo's password prompt ("[sudo] password for
// user:", localised after "[sudo]").
func isSudoPrompt(t string) bool {
	return strings.HasPrefix(t, "[sudo] ") || strings.HasPrefix(t, "Password:")
}

// isEthtoolSettings matches ethtool's "Settings for eth0:" header.
func isEthtoolSettings(t string) bool {
	_, ok := ethlink.Header(t)
	return ok
}

// ucxHint says whether l may be a UCX log line, cheaply: it names UCX
// (or is the endpoint error handler's line of a UCP program), or starts with the fatal handler's "[host:pid:…]" (a name, a colon and
// a digit inside the bracket, which no kernel stamp has), its "[" perhaps
// cut off by the paste ("b5244:224582:0:224582] ib_mlx5_log.c:139 …").
func ucxHint(l string) bool {
	if strings.Contains(l, "UCX") || strings.Contains(l, "error handling callback") {
		return true
	}
	if len(l) < 4 {
		return false
	}
	start := 0
	if l[0] == '[' {
		start = 1
	} else if sp := strings.IndexByte(l, ' '); sp < 2 || l[sp-1] != ']' {
		return false // the cut prefix is the first word: "host:pid:…]"
	}
	i := start
	for i < len(l) && (l[i] >= 'a' && l[i] <= 'z' || l[i] >= 'A' && l[i] <= 'Z' || l[i] >= '0' && l[i] <= '9' || l[i] == '-' || l[i] == '_' || l[i] == '.') {
		i++
	}
	return i > start && i+1 < len(l) && l[i] == ':' && l[i+1] >= '0' && l[i+1] <= '9'
}

// dmesgStamped says whether l starts with dmesg's own stamp, "[   12.345678] "
// or "[  +0.000844] " (seconds since boot, under 10^9: UCX's
// "[1590482937.540412] [host:pid]" epoch stamp is not one), followed by
// text that is not another bracket, or by the printk caller id of a kernel
// built with CONFIG_PRINTK_CALLER ("[  200.105524][  T292] igb …"); the
// caller id alone is the prefix of such a kernel with printk.time off
// ("[  T292] igb …", kernel/printk/printk.c info_print_prefix).
func dmesgStamped(l string) bool {
	if len(l) < 5 || l[0] != '[' {
		return false
	}
	if _, ok := kmsg.CutCallerID(l); ok {
		return true
	}
	i := 1
	for i < len(l) && l[i] == ' ' {
		i++
	}
	if i < len(l) && l[i] == '+' {
		i++
	}
	d := i
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i == d || i-d > 9 || i >= len(l) || l[i] != '.' {
		return false
	}
	i++
	f := i
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i == f || i >= len(l) || l[i] != ']' {
		return false
	}
	rest := l[i+1:]
	if _, ok := kmsg.CutCallerID(strings.TrimPrefix(rest, " ")); ok {
		return true
	}
	return len(rest) > 0 && rest[0] == ' ' && (len(rest) == 1 || rest[1] != '[')
}

// qperfFailedTest tells a qperf verbs test's banner ("rc_bw:", printed by
// qperf before it runs the test) below the qperf command line, followed by
// qperf's error that the test could not start ("failed to modify QP to
// RTR: Invalid argument", linux-rdma/qperf src/rdma.c): a failed start that
// the perftest reader judges. A banner followed by results is not read.
func qperfFailedTest(t, prev, next string) bool {
	if !strings.HasSuffix(t, ":") || !strings.Contains(prev, "qperf ") || !strings.HasPrefix(strings.TrimSpace(next), "failed to ") {
		return false
	}
	name := t[:len(t)-1]
	if !strings.HasPrefix(name, "rc_") && !strings.HasPrefix(name, "uc_") && !strings.HasPrefix(name, "ud_") && !strings.HasPrefix(name, "xrc_") {
		return false
	}
	return strings.Contains(prev, " "+name)
}

// quotedSysfsPath says whether l only quotes a sysfs path in an error
// message: a program's report that it could not read the file
// (node_exporter's 'err="error obtaining InfiniBand class info: failed to
// read file \"/sys/class/infiniband/mlx5_0/ports/1/counters/VL15_dropped\":
// invalid argument"'), which holds no value of the file.
func quotedSysfsPath(l string) bool {
	i := strings.Index(l, "/sys/class/infiniband/")
	if i <= 0 || l[i-1] != '"' && l[i-1] != '\'' {
		return false
	}
	low := strings.ToLower(l[:i])
	return strings.Contains(low, "error") || strings.Contains(low, "failed") || strings.Contains(low, "unable to")
}
