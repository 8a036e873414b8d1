package kmsg

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// Kind is the kind of a recognised kernel log event.
type Kind string

// Event kinds.
const (
	// KindXid is an NVIDIA Xid ("NVRM: Xid (PCI:0000:2b:00): 79, …").
	KindXid Kind = "xid"
	// KindFallenOffBus is the NVRM "GPU has fallen off the bus" message.
	KindFallenOffBus Kind = "fallen_off_bus"
	// KindGPUResetRequired is the NVIDIA driver's NV_ERR_RESET_REQUIRED:
	// the GPU must be reset before it runs work again.
	KindGPUResetRequired Kind = "gpu_reset_required"
	// KindAER is a PCIe AER report (drivers/pci/pcie/aer.c).
	KindAER Kind = "aer"
	// KindLink is a link change: an mlx5 netdev's "Link up/down", the IB
	// port's "Port: 1 Link ACTIVE/DOWN", or any other netdev's "Link is
	// Up/Down" (phylink, phy, Intel, Broadcom, Realtek drivers).
	KindLink Kind = "link"
	// KindModule is an mlx5 port module event or a high-temperature
	// warning.
	KindModule Kind = "module"
	// KindHealth is an mlx5 firmware health error or command timeout, a
	// firmware command that failed with a syndrome, or a failed probe.
	KindHealth Kind = "health"
	// KindPCIeBandwidth is the kernel's "available PCIe bandwidth, limited
	// by … (capable of …)" line (drivers/pci/pci.c __pcie_print_link_status):
	// the device trained below what it and its slot can do.
	KindPCIeBandwidth Kind = "pcie_bandwidth"
	// KindAERBit is one error bit of an AER report ("[ 0] RxErr",
	// "[ 7] BadDLLP", "[12] Timeout"): what kind of errors a flood is.
	KindAERBit Kind = "aer_bit"
	// KindBond is a bonding driver message (drivers/net/bonding/bond_main.c,
	// bond_3ad.c): a slave's link definitely up or down, a new active
	// slave, the bond left without any active slave or given one back, no
	// LACP partner. Interface is the bond, Detail the slave, Bond the event.
	KindBond Kind = "bond"
	// KindCrash is a user process killed by a fault the kernel logs
	// (arch/x86/mm/fault.c show_signal_msg "segfault at …", traps.c
	// "general protection fault"): Task and TaskPID name the process,
	// Detail the file the faulting instruction is in ("libnccl.so.2"),
	// "" when the line names none.
	KindCrash Kind = "crash"
	// KindMemory is an EDAC memory error (drivers/edac/edac_mc.c
	// edac_raw_mc_handle_error): Detail is the DIMM as the driver labels
	// it, MemErrors the errors the line reports, IsError an uncorrected
	// (UE) one.
	KindMemory Kind = "memory"
	// KindOops is a kernel crash report (an oops: a page fault, general
	// protection fault or BUG() in the kernel), a WARN_ON splat, a hung
	// task or a soft lockup, read over its records (oops.go): Record is
	// its first line, Detail what happened ("page fault", "WARNING",
	// "hung task", "soft lockup"), IsError a crash, Func the function it
	// faulted in, Driver the first module its call trace names and
	// DriverFunc that module's function, Task and TaskPID the task that
	// ran it, PCI the device a driver workqueue names.
	KindOops Kind = "oops"
	// KindCQ is an mlx5 completion queue error (Event.CQ says which):
	// the asynchronous error event of a whole CQ (core/eq.c "CQ error on
	// CQN 0x40a, syndrom 0x1", "syndrome" since Linux 5.0), or an error
	// completion the kernel's mlx5_ib driver polled for a kernel RDMA
	// consumer (hw/mlx5/cq.c mlx5_poll_one "Responder error cqe on cqn
	// 0x406:" and its "syndrome 0x5, vendor syndrome 0xf9" line, both
	// debug messages; mlx5_handle_error_cqe "WC error: 10, Message:
	// remote access error"). Interface is the RDMA device of the cq.c
	// lines, PCI the function of the eq.c one.
	KindCQ Kind = "cq"
	// KindTxTimeout is a netdev whose transmit queue stalled: the
	// kernel's watchdog (net/sched/sch_generic.c dev_watchdog "NETDEV
	// WATCHDOG: eth0 (mlx5_core): transmit queue 3 timed out 5376 ms",
	// since Linux 6.9 netdev_crit "NETDEV WATCHDOG: CPU: 12: transmit
	// queue 3 timed out 5376 ms"), the driver's own report (mlx5e
	// en/reporter_tx.c "TX timeout on queue: 40, SQ: 0x13106, …, usecs
	// since last trans: 28559000", en_main.c "TX timeout detected"),
	// IPoIB's (drivers/infiniband/ulp/ipoib/ipoib_main.c ipoib_timeout
	// "ib0: transmit timeout: latency 9956 msecs"). Interface is the
	// netdev, PCI its function when named, Queue the queue, StallMs how
	// long it had not sent; IsError marks the driver's failed recovery
	// ("mlx5e_safe_reopen_channels failed recovering from a tx_timeout").
	KindTxTimeout Kind = "tx_timeout"
	// KindRDMAPeer is a kernel RDMA transport that lost a peer: Lustre
	// LNet's o2ib driver (lnet/klnds/o2iblnd/o2iblnd_cb.c:
	// kiblnd_check_conns "Timed out tx for 172.31.126.87@o2ib: 403055
	// seconds", "Timed out RDMA with 10.0.0.2@o2ib (52): c: 0, oc: 0, rc:
	// 8", kiblnd_rejected "10.0.0.2@o2ib rejected: consumer defined fatal
	// error", kiblnd_cm_callback "10.0.0.2@o2ib: ADDR ERROR -110").
	// Interface is the peer (its NID), Detail what failed, StallMs how
	// long the peer had been silent when the line says. The NVMe over RDMA
	// host (drivers/nvme/host/rdma.c) is the other: Driver "nvme-rdma",
	// Interface the controller (nvme0) whose connect the target refused
	// or that did not reach it, Detail the line; Driver "nvme-fabrics"
	// marks the controller's failed reconnects ("reconnect failed"), its
	// removal ("removing"), its error recovery ("error recovery") and a
	// reconnect that worked ("reconnected"); an I/O that timed out on an
	// RDMA controller is Driver "nvme-rdma", Detail "I/O timeout", Queue
	// the queue id.
	KindRDMAPeer Kind = "rdma_peer"
	// KindDeviceGone is a driver saying its PCIe device is gone from the
	// bus: register reads return all ones, or the reset after a PCIe error
	// did not bring it back. Driver is the driver, PCI the function (when
	// the line names it), Interface the netdev or controller, Detail the
	// message.
	KindDeviceGone Kind = "device_gone"
	// KindPCIeLinkReport is a driver's own PCIe link report at probe
	// (Corundum mqnic_main.c "Link capability: gen 3 x16" then "Link
	// status: gen 3 x4"): the Classifier pairs the two lines of a device
	// and gives one event, with CapableOf and LimitedBy the capability
	// and status as printed, only when the status is below the
	// capability. Driver is the driver that printed it.
	KindPCIeLinkReport Kind = "pcie_link_report"
	// KindSlotPower is mlx5's report that the PCIe slot does not give
	// the card the power it needs (drivers/net/ethernet/mellanox/mlx5/
	// core/events.c mlx5_pcie_event "Detected insufficient power on the
	// PCIe slot (27W)."): Detail is the power the slot advertises.
	KindSlotPower Kind = "slot_power"
	// KindPanic is the kernel giving up (kernel/panic.c panic(): "Kernel
	// panic - not syncing: Fatal exception", "…: Hard LOCKUP",
	// "…: hung_task: blocked tasks"): the host stopped or rebooted.
	// Detail is the reason.
	KindPanic Kind = "panic"
	// KindMCE is an x86 machine check (arch/x86/kernel/cpu/mce/core.c):
	// print_mce's "mce: [Hardware Error]: CPU 3: Machine Check Exception:
	// 5 Bank 7: be00000000800400" (Detail "CPU 3, bank 7", IsError when an
	// exception was in progress or the status has its UC bit, 61: an
	// uncorrected error), or mce_notify_irq's "mce: [Hardware Error]:
	// Machine check events logged" (Detail "events logged": errors the
	// kernel logged, most often corrected ones; mcelog or rasdaemon has
	// them).
	KindMCE Kind = "mce"
	// KindOOM is the OOM killer killing a process (mm/oom_kill.c
	// __oom_kill_process "Out of memory: Killed process 1234 (python)
	// total-vm:…", "Memory cgroup out of memory: Killed process …";
	// before Linux 4.19 "Out of memory: Kill process 1234 (python) score
	// 900 or sacrifice child" then "Killed process 1234 (python) …"):
	// Task and TaskPID, Detail "Out of memory" or "Memory cgroup out of
	// memory" ("" on the older second line).
	KindOOM Kind = "oom"
	// KindModuleLoad is a kernel module that failed to load because it
	// was built for another kernel or another build of the modules it
	// uses (the kernel's own RDMA stack against MLNX_OFED's): the module
	// loader's kernel/module/version.c check_version (kernel/module.c
	// before Linux 5.17) "ko2iblnd: disagrees about version of symbol
	// ib_fmr_pool_unmap", kernel/module/main.c simplify_symbols
	// "ko2iblnd: Unknown symbol __ib_alloc_pd (err -22)" (before Linux
	// 3.x without " (err %d)"), check_modinfo "nvidia: version magic
	// '5.4.0-42-generic SMP mod_unload ' should be '5.4.0-48-generic SMP
	// mod_unload '". Driver is the module as the loader names it
	// (underscores for dashes: "nvidia_peermem"), Symbol the symbol,
	// Detail the wording ("disagrees about version of symbol", "Unknown
	// symbol (err -22)", the version magic clause). Lustre's LNet saying
	// it could not load a network driver is one too (lnet/lnet/api-ni.c
	// lnet_startup_lndnet "Can't load LND o2ib, module ko2iblnd,
	// rc=256"): Driver the module, Interface the LNet network type,
	// Detail "Can't load LND (rc=256)".
	KindModuleLoad Kind = "module_load"
	// KindGPUFault is an amdgpu GPU page fault (drivers/gpu/drm/amd/amdgpu
	// gmc_v9_0.c gmc_v9_0_process_interrupt, gmc_v10_0.c …: "amdgpu
	// 0000:63:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:56 vmid:8
	// pasid:32794)"): PCI the GPU, Detail the hub; the process it names
	// (amdgpu_vm.c amdgpu_vm_print_task_info " Process ray::RayWorkerW pid
	// 1138406 thread …", or older kernels' ", for process python pid 12
	// thread …" on the same line) is Task and TaskPID, an event of its own
	// with Detail "process" where printed on a line of its own.
	KindGPUFault Kind = "gpu_fault"
	// KindPeerMemSymbol is the module loader refusing a module's
	// symbol_get of the RDMA peer-memory API (kernel/module/main.c
	// __symbol_get since Linux 6.6: "failing symbol_get of non-GPLONLY
	// symbol ib_register_peer_memory_client."): Symbol the symbol. A GPU
	// driver that hooks its memory into ib_core this way (amdgpu's
	// peer-memory client, MLNX_OFED's PeerDirect API) gets no GPUDirect
	// RDMA.
	KindPeerMemSymbol Kind = "peer_mem_symbol"
	// KindGPUInitFailed is the NVIDIA driver failing to initialise a GPU
	// (open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c
	// RmInitAdapter: "NVRM: GPU 0000:01:00.0: RmInitAdapter failed!
	// (0x22:0x56:894)", its cause "NVRM: RmInitAdapter: osInitNvMapping
	// failed, bailing out of RmInitAdapter", "NVRM: osInitNvMapping: ***
	// Cannot attach gpu"; kernel-open/nvidia/nv.c "NVRM: GPU
	// 0000:01:00.0: rm_init_adapter failed, device minor number 0"): the
	// GPU cannot be opened, nvidia-smi and CUDA do not see it. PCI the GPU
	// when the line names it, Detail the message.
	KindGPUInitFailed Kind = "gpu_init_failed"
	// KindGSPTimeout is the GPU's GSP firmware that stopped answering the
	// driver (open-gpu-kernel-modules src/nvidia/src/kernel/gpu/gsp/
	// kernel_gsp.c: the heartbeat check "NVRM: GPU6 _kgspIsHeartbeatTimedOut:
	// Heartbeat timed out, currentTimeMs … timeout 5200", the RPC timeout
	// banner "NVRM: _kgspLogRpcTimeout: *** GSP Timeout ***" (older
	// drivers "_kgspLogXid119"); the GMMU's "kgmmuCheckMemSubsysError_IMPL:
	// Memory Subsystem Error detected." that comes with it): the GPU is
	// hung until it is reset. Interface the GPU as the driver numbers it
	// ("GPU6"), PCI when the line names it, Detail what timed out.
	KindGSPTimeout Kind = "gsp_timeout"
)

// Completion queue error lines (Event.CQ).
const (
	// CQEvent: the CQ error event (eq.c); CQN and Syndrome are set
	// (MLX5_CQ_ERROR_SYNDROME_*: 0x1 overrun, 0x2 access violation).
	CQEvent = "event"
	// CQErrorCQE: "Requestor|Responder error cqe on cqn 0x406:"; CQN
	// is set, Detail is Requestor or Responder.
	CQErrorCQE = "cqe"
	// CQSyndrome: the "syndrome 0x5, vendor syndrome 0xf9" line after
	// it: Syndrome (MLX5_CQE_SYNDROME_*) and VendorSyndrome are set.
	CQSyndrome = "syndrome"
	// CQWCError: "WC error: 10, Message: remote access error": WCStatus
	// is set (enum ib_wc_status), Detail is the message.
	CQWCError = "wc"
	// CQULP: a kernel RDMA consumer's own report of a failed completion
	// (drivers/nvme/host/rdma.c nvme_rdma_wr_error "RECV for CQE 0x… failed
	// with status local protection error (4)", nvmet's "SEND for CQE …"):
	// WCStatus and Detail as for CQWCError, Interface the consumer
	// ("nvme15").
	CQULP = "ulp"
	// CQQPError: mlx5_ib's report of a queue pair the HCA moved to the
	// error state (hw/mlx5/qp.c mlx5_ib_qp_err_syndrome, on a QP fatal,
	// requester or access error event of any QP, a user's or a kernel
	// consumer's: "mlx5_bond_0/1: QP 51291 error: local length error
	// (0x8e 0x0 0x0)"): Interface and Port the device and port, Queue
	// the QP number, Detail the status as ib_wc_status_msg printed the
	// CQE syndrome, VendorSyndrome the vendor syndrome.
	CQQPError = "qp"
)

// Bond events (Event.Bond).
const (
	// BondSlave: a slave's link is definitely up or down (Event.Up).
	BondSlave = "slave"
	// BondNewActive: a slave became the active one (a failover, or the
	// first slave at enslave time).
	BondNewActive = "new_active"
	// BondNoneActive: "now running without any active interface!".
	BondNoneActive = "none_active"
	// BondActiveUp: "active interface up!", "first active interface up!".
	BondActiveUp = "active_up"
	// BondNoLACP: no 802.3ad partner answered on any slave.
	BondNoLACP = "no_lacp"
)

// Health event classes (Event.HealthClass).
const (
	// HealthFatal: the firmware or the device failed (health poll, fatal
	// error, command timeout, failed probe: the function is unusable).
	HealthFatal = "fatal"
	// HealthCommand: one firmware command failed with a syndrome; the
	// driver goes on unless a probe failure follows.
	HealthCommand = "command"
)

// AER severities, normalised over the kernel's old and new spellings.
const (
	AERCorrectable = "correctable"
	AERNonFatal    = "nonfatal"
	AERFatal       = "fatal"
)

// Event is a kernel log record recognised as relevant to triage.
type Event struct {
	Kind   Kind   `json:"kind"`
	Record Record `json:"record"`
	// PCI is the device the message is about: the GPU of an Xid (function
	// .0, since Xid lines omit it), the error source of an AER report, the
	// mlx5 function of link/module/health messages.
	PCI pcie.Address `json:"pci,omitempty"`
	// Reporter is the port that received an AER message ("pcieport
	// 0000:00:01.0: AER: … received: 0000:3b:00.0").
	Reporter pcie.Address `json:"reporter,omitempty"`
	// Xid, XidPID and XidProcess are the Xid code and the process, when
	// logged; GPUInstance is the MIG "GPU-I" index (-1 without MIG).
	Xid         int    `json:"xid,omitempty"`
	XidPID      string `json:"xid_pid,omitempty"`
	XidProcess  string `json:"xid_process,omitempty"`
	GPUInstance int    `json:"gpu_instance,omitempty"`
	// GPUUUID is the GPU (or MIG device) a daemon names an Xid by, where
	// it gives no PCI address ("GPU-7540a9b3-…").
	GPUUUID string `json:"gpu_uuid,omitempty"`
	// AERSeverity is correctable, nonfatal or fatal; AERType the layer
	// ("Physical Layer"); AERDetail marks the "PCIe Bus Error" detail line
	// (one per error) as opposed to the "error received" line of the port.
	AERSeverity string `json:"aer_severity,omitempty"`
	AERType     string `json:"aer_type,omitempty"`
	AERDetail   bool   `json:"aer_detail,omitempty"`
	// Interface is the netdev or RDMA device of a link event, Port the IB
	// port number (0 for netdev events), Up the new state.
	Interface string `json:"interface,omitempty"`
	Port      int    `json:"port,omitempty"`
	Up        bool   `json:"up,omitempty"`
	// Module is the module (cage) number of a module event; Detail the
	// event text ("Cable unplugged", "High Temperature", the Xid message).
	Module int    `json:"module,omitempty"`
	Detail string `json:"detail,omitempty"`
	// IsError marks module events the driver logs as errors and health
	// events that are fatal.
	IsError bool `json:"is_error,omitempty"`
	// HealthClass is HealthFatal or HealthCommand for KindHealth.
	HealthClass string `json:"health_class,omitempty"`
	// CmdStatus is the status a failed firmware command returned (the
	// "limits exceeded(0x8)" of a HealthCommand event: 0x8). Suppressed
	// is how many messages of the same call site the kernel's rate limit
	// dropped before this one ("mlx5_cmd_out_err: 353031 callbacks
	// suppressed", lib/ratelimit.c): failures that happened but were not
	// printed.
	CmdStatus  int `json:"cmd_status,omitempty"`
	Suppressed int `json:"suppressed,omitempty"`
	// Bond is the bonding event of KindBond (BondSlave …).
	Bond string `json:"bond,omitempty"`
	// Task and TaskPID are the process of a KindCrash event.
	Task    string `json:"task,omitempty"`
	TaskPID string `json:"task_pid,omitempty"`
	// MemErrors is how many errors a KindMemory line reports.
	MemErrors int `json:"mem_errors,omitempty"`
	// Source is the file and line a WARN_ON splat names
	// ("net/core/devlink.c:8047").
	Source string `json:"source,omitempty"`
	// Func, Driver and DriverFunc of a KindOops event.
	Func       string `json:"func,omitempty"`
	Driver     string `json:"driver,omitempty"`
	DriverFunc string `json:"driver_func,omitempty"`
	// Modules of a KindOops event are the modules its header, faulting
	// instruction and sure call-trace frames name, first to last, space
	// separated ("ib_uverbs rdma_rxe"): the drivers the task was in.
	// Message is the text a WARN() printed between the "------------[
	// cut here ]------------" line and its "WARNING: CPU: …" header
	// (kernel/panic.c __warn_printk): what the check found ("memcpy:
	// detected field-spanning write (size 80) of single field …").
	Modules string `json:"modules,omitempty"`
	Message string `json:"message,omitempty"`
	// Phase is what the system was doing when a KindOops report came:
	// "probe" or "removal" of a device (its call trace says), "shutdown"
	// (the log said the host was going down before it); "" when unknown.
	Phase string `json:"phase,omitempty"`
	// Bandwidth of a KindPCIeBandwidth event: what the link gives, what
	// the device is capable of (Gb/s), the link that limits it and the
	// width and speed strings as printed ("8.0 GT/s PCIe x2").
	AvailGbps   float64      `json:"avail_gbps,omitempty"`
	CapableGbps float64      `json:"capable_gbps,omitempty"`
	LimitedAt   pcie.Address `json:"limited_at,omitempty"`
	LimitedBy   string       `json:"limited_by,omitempty"`
	CapableOf   string       `json:"capable_of,omitempty"`
	// Folded marks an event that stands for Count later events of its
	// kind and subject a streaming reader counted but did not keep (Record
	// is the first of them); Inferred is how many of a link's were a "Link
	// up" after a "Link up", counted as downs.
	// CQ is the line of a KindCQ event (CQEvent …); CQN the queue it
	// names ("0x406"); Syndrome and VendorSyndrome the syndromes it
	// prints; WCStatus the work-completion status of a CQWCError line.
	CQ             string `json:"cq,omitempty"`
	CQN            string `json:"cqn,omitempty"`
	Syndrome       int    `json:"syndrome,omitempty"`
	VendorSyndrome int    `json:"vendor_syndrome,omitempty"`
	WCStatus       int    `json:"wc_status,omitempty"`
	// Queue and StallMs of a KindTxTimeout or KindRDMAPeer event.
	Queue string `json:"queue,omitempty"`
	// Symbol is the kernel symbol a KindModuleLoad line names.
	Symbol   string `json:"symbol,omitempty"`
	StallMs  int64  `json:"stall_ms,omitempty"`
	Folded   bool   `json:"folded,omitempty"`
	Count    int    `json:"count,omitempty"`
	Inferred int    `json:"inferred,omitempty"`
}

// Weight is how many events e stands for.
func (e Event) Weight() int {
	if e.Folded {
		return e.Count
	}
	return 1
}

const bdf = `[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]`

// aerSev is every spelling of an AER severity (old kernels say Corrected
// and Uncorrected, new ones Correctable and Uncorrectable).
const aerSev = `Corrected|Correctable|Uncorrected \(Non-Fatal\)|Uncorrectable \(Non-Fatal\)|Uncorrected \(Fatal\)|Uncorrectable \(Fatal\)`

// Pattern is one kernel message the classifier recognises: a row of
// Patterns.
type Pattern struct {
	// Name identifies the row (in tests and when a row is debugged).
	Name string
	// Kind is the kind of the events the row gives.
	Kind Kind
	// Error marks them as errors (Event.IsError): module events the driver
	// logs as errors, health events.
	Error bool
	// Contains are substrings a record must hold before Re is tried (a
	// cheap filter: most records hold none of them).
	Contains []string
	// Re matches the message; its named groups are the fields captured:
	//   pci       the device the message is about (Event.PCI)
	//   gpu       an Xid's "dddd:bb:dd" (Event.PCI, function .0)
	//   reporter  the port that received an AER message (Event.Reporter)
	//   srcid     an AER source as a requester ID (bus<<8|dev<<3|fn), when
	//             there is no pci; in the reporter's PCI domain
	//   xid, gi   the Xid code and the MIG GPU instance
	//   uuid      the GPU UUID a daemon names an Xid by (Event.GPUUUID)
	//   pid, process  the process an Xid names
	//   aersev    the AER severity, any spelling (Event.AERSeverity)
	//   aertype   the AER layer ("Physical Layer")
	//   iface, port, state  a link event's interface, IB port and new
	//             state (up, ACTIVE, gained or connected is up, anything
	//             else down)
	//   module    a module (cage) number
	//   detail    Event.Detail (spaces trimmed, then TrimDetail)
	//   slave     a bond's slave in the older wording (Event.Detail)
	//   probeof   the device a failed probe names, when there is no pci
	//   cmd, status, syndrome  a failed firmware command (Detail becomes
	//             "CMD failed, status S, syndrome Y")
	//   avail, capable, limitedby, limitedat, capableof  the PCIe
	//             bandwidth line's figures
	//   task, taskpid  the process of a crash
	//   memcount, memsev  an EDAC line's error count and UE or CE
	//   cqn, synd, vend, wc  a completion queue error's CQ number,
	//             syndrome and vendor syndrome (hex) and work-completion
	//             status (decimal)
	Re *regexp.Regexp
	// Set are fields every event of the row carries (a fixed Detail, an
	// AER severity where the message has none, Module -1 for a sensor).
	Set Event
	// TrimDetail is a prefix removed from the captured detail.
	TrimDetail string
}

// reGPUAddr finds the GPU of an NVRM message: "NVRM: GPU 0000:2b:00.0:
// GPU has fallen off the bus.", "NVRM: GPU at 0000:01:00.0 has fallen off
// the bus.", "NVRM: The NVIDIA GPU 0000:b3:00.0".
var reGPUAddr = regexp.MustCompile(`NVRM: (?:The NVIDIA )?GPU (?:at )?(?P<pci>` + bdf + `)`)

// Patterns are the kernel messages the classifier recognises, tried in
// order; the first that matches a record gives its event. Adding a driver
// message is adding a row here and a sample line in the test.
var Patterns = []Pattern{
	// NVIDIA/open-gpu-kernel-modules kernel_rc.c: "NVRM: Xid (PCI:%04x:%02x:%02x[ GPU-I:%02u[ GPU-CI:%02u]]): %d, pid=%s, name=%s, %s";
	// older drivers print the address without "PCI:" ("NVRM: Xid (0000:01:00): 13, 0005 …").
	// People who paste a log often elide or mask the address ("Xid (PCI:...): 145, …",
	// "Xid (PCI:0000:xx:00): 79, …"): the Xid is still read, with no GPU address.
	{Name: "nvidia-xid", Kind: KindXid, Contains: []string{"NVRM:"}, Set: Event{GPUInstance: -1},
		Re: regexp.MustCompile(`NVRM: Xid \((?:PCI:)?(?:(?P<gpu>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?: GPU-I:(?P<gi>\d+))?(?: GPU-CI:\d+)?|[^():]*(?::[^():]*){0,3})\): (?P<xid>\d+), (?:pid=(?P<pid>[^,]*), name=(?P<process>[^,]*), )?(?P<detail>.*)`)},
	// NVIDIA k8s-device-plugin's health check (internal/rm/health.go, older
	// nvidia.go): "XidCriticalError: Xid=%d on Device=%s, the device will go
	// unhealthy." or "…; marking device as unhealthy." (kept as
	// "nvidia-device-plugin: …" by the record reader); the GPU by UUID.
	{Name: "device-plugin-xid", Kind: KindXid, Contains: []string{"XidCriticalError: Xid="}, Set: Event{GPUInstance: -1},
		Re: regexp.MustCompile(`XidCriticalError: Xid=(?P<xid>\d+) on Device=(?P<uuid>(?:GPU|MIG)-[0-9A-Za-z/-]+)[,;]? ?(?:uuid=\S+, )?(?P<detail>.*)`)},
	// The driver's status NV_ERR_RESET_REQUIRED, 0x62 "Reset required" (open-gpu-kernel-modules src/common/sdk/nvidia/inc/nvstatuscodes.h),
	// from an assert "NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @
	// kernel_channel.c:2874" or a refused GSP RPC "NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=…; status=0x00000062" (no Xid is printed).
	{Name: "nvidia-reset-required", Kind: KindGPUResetRequired, Error: true, Contains: []string{"NVRM:", "NV_ERR_RESET_REQUIRED"}, Set: Event{Detail: "NV_ERR_RESET_REQUIRED"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?.*NV_ERR_RESET_REQUIRED`)},
	{Name: "nvidia-gsp-rpc-reset-required", Kind: KindGPUResetRequired, Error: true, Contains: []string{"NVRM:", "GspRm", "status=0x00000062"}, Set: Event{Detail: "GSP RPC failed with NV_ERR_RESET_REQUIRED (0x62)"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?\w+: GspRm\w+ failed: .*\bstatus=0x00000062\b`)},
	// The driver failing to initialise a GPU (KindGPUInitFailed).
	{Name: "nvidia-rminitadapter-failed", Kind: KindGPUInitFailed, Error: true, Contains: []string{"NVRM:", "RmInitAdapter failed!"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?(?P<detail>RmInitAdapter failed! \(0x[0-9a-fA-F]+:0x[0-9a-fA-F]+:\d+\))`)},
	{Name: "nvidia-rm-init-adapter-failed", Kind: KindGPUInitFailed, Error: true, Contains: []string{"NVRM:", "rm_init_adapter failed"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?(?P<detail>rm_init_adapter(?:\(\d+\))? failed(?:, device minor number \d+)?)`)},
	{Name: "nvidia-init-nv-mapping-failed", Kind: KindGPUInitFailed, Error: true, Contains: []string{"NVRM:", "osInitNvMapping"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?(?P<detail>osInitNvMapping: \*+ Cannot attach gpu|RmInitAdapter: osInitNvMapping failed)`)},
	// The GSP firmware not answering (KindGSPTimeout); "GPU6" is the driver's GPU instance.
	{Name: "nvidia-gsp-heartbeat", Kind: KindGSPTimeout, Error: true, Contains: []string{"NVRM:", "eartbeat timed out"}, Set: Event{Detail: "GSP heartbeat timed out"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?(?:(?P<iface>GPU\d+) )?\w*[Hh]eartbeat\w*: (?:\w+ )?[Hh]eartbeat timed out`)},
	{Name: "nvidia-gsp-rpc-timeout", Kind: KindGSPTimeout, Error: true, Contains: []string{"NVRM:", "GSP Timeout"}, Set: Event{Detail: "GSP RPC timeout"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?(?:(?P<iface>GPU\d+) )?_kgspLog(?:RpcTimeout|Xid119): \*+ GSP Timeout \*+`)},
	{Name: "nvidia-memsys-error", Kind: KindGSPTimeout, Error: true, Contains: []string{"NVRM:", "Memory Subsystem Error detected"}, Set: Event{Detail: "memory subsystem error"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?(?:(?P<iface>GPU\d+) )?\w+: Memory Subsystem Error detected`)},
	// "NVRM: GPU at 0000:01:00.0 has fallen off the bus." (one record; Events joins the multi-line form).
	{Name: "nvidia-fallen-off-bus", Kind: KindFallenOffBus, Contains: []string{"NVRM:", "fallen off the bus"}, Set: Event{Detail: "GPU has fallen off the bus"},
		Re: reGPUAddr},
	// The driver's status NV_ERR_GPU_IS_LOST, 0x0F "GPU lost from the bus" (open-gpu-kernel-modules
	// src/common/sdk/nvidia/inc/nvstatuscodes.h): the GPU no longer answers on PCIe, with no "fallen off
	// the bus" line. An assert prints its name (utils/nvassert.c nvAssertOkFailed: "NVRM: nvAssertOkFailedNoLog:
	// Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @
	// kernel_ce_gv100.c:106"), an RPC to the GSP its code (kernel/vgpu/rpc.c _issueRpcAndWait: "NVRM:
	// _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!"), and a GPU the driver has
	// marked lost skips its work (kernel-open/nvidia/nv.c: "NVRM: GPU is lost, skipping nvidia_ioctl").
	{Name: "nvidia-gpu-is-lost", Kind: KindFallenOffBus, Contains: []string{"NVRM:", "NV_ERR_GPU_IS_LOST"}, Set: Event{Detail: "GPU lost from the bus (NV_ERR_GPU_IS_LOST)"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?.*NV_ERR_GPU_IS_LOST`)},
	{Name: "nvidia-rpc-gpu-is-lost", Kind: KindFallenOffBus, Contains: []string{"NVRM:", "rpcSendMessage failed with status 0x0000000f"}, Set: Event{Detail: "GSP RPC failed with NV_ERR_GPU_IS_LOST (0x0F): GPU lost from the bus"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?\w+: rpcSendMessage failed with status 0x0000000f\b`)},
	{Name: "nvidia-gpu-lost-skipping", Kind: KindFallenOffBus, Contains: []string{"NVRM:", "GPU is lost, skipping"}, Set: Event{Detail: "GPU lost from the bus (the driver skips its work)"},
		Re: regexp.MustCompile(`NVRM: (?:GPU (?P<pci>` + bdf + `): )?GPU is lost, skipping`)},
	// Firmware-first (GHES/CPER) AER, aer.c cper_print_aer: "<drv> <bdf>: [AER: ]aer_layer=<layer>, aer_agent=<agent>"; Events takes the severity from the CPER lines before it.
	{Name: "aer-firmware-first", Kind: KindAER, Contains: []string{"aer_layer="}, Set: Event{AERSeverity: AERCorrectable, AERDetail: true, Detail: "firmware-first"},
		Re: regexp.MustCompile(`\S+ (?P<pci>` + bdf + `): (?:AER: )?aer_layer=(?P<aertype>[^,]+), aer_agent=`)},
	// aer.c aer_print_error: "<drv> <bdf>: [AER: ]PCIe Bus Error: severity=<sev>, type=<layer>, [id=XXXX](<agent> ID)";
	// a mail client may wrap it after the severity ("severity=Uncorrected (Non-Fatal),", then "type=…" on a line of its own).
	{Name: "aer-detail", Kind: KindAER, Contains: []string{"PCIe Bus Error"}, Set: Event{AERDetail: true},
		Re: regexp.MustCompile(`\S+ (?P<pci>` + bdf + `): (?:AER: )?PCIe Bus Error: severity=(?P<aersev>` + aerSev + `)(?:, type=(?P<aertype>[^,]+)|,?\s*$)`)},
	// aer.c aer_isr_one_error/aer_print_port_info: "AER: [Multiple ]<sev> error received: <bdf>|id=XXXX";
	// since Linux 6.x aer_print_source: "AER: [Multiple ]Correctable error message received from <bdf>".
	{Name: "aer-received", Kind: KindAER, Contains: []string{" error ", "received"},
		Re: regexp.MustCompile(`\S+ (?P<reporter>` + bdf + `): (?:AER: )?(?P<detail>(?:Multiple )?(?P<aersev>` + aerSev + `)) error (?:message )?received(?::| from) (?:(?P<pci>` + bdf + `)|id=(?P<srcid>[0-9a-fA-F]{4}))`)},
	// pci.c __pcie_print_link_status: "<drv> <bdf>: 15.752 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x2 link at <bdf> (capable of 31.504 Gb/s with 8.0 GT/s PCIe x4 link)".
	{Name: "pcie-bandwidth", Kind: KindPCIeBandwidth, Contains: []string{"available PCIe bandwidth, limited by"},
		Re: regexp.MustCompile(`\S+ (?P<pci>` + bdf + `): (?P<avail>[0-9.]+) Gb/s available PCIe bandwidth, limited by (?P<limitedby>.+?) link at (?P<limitedat>` + bdf + `) \(capable of (?P<capable>[0-9.]+) Gb/s with (?P<capableof>.+?) link\)`)},
	// en_main.c mlx5e_update_carrier via netdev_info: "mlx5_core <bdf> <netdev>: Link up|down".
	{Name: "mlx5-netdev-link", Kind: KindLink, Contains: []string{"mlx5_core"}, Set: Event{Driver: "mlx5_core"},
		Re: regexp.MustCompile(`mlx5_core (?P<pci>` + bdf + `) (?P<iface>\S+): Link (?P<state>up|down)\s*$`)},
	// mlx5 IB port events: "mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE" (INIT and ARMED are neither up nor down).
	{Name: "mlx5-ib-port-link", Kind: KindLink, Contains: []string{"mlx5_core"}, Set: Event{Driver: "mlx5_core"},
		Re: regexp.MustCompile(`mlx5_core (?P<pci>` + bdf + `) (?P<iface>\S+): Port: (?P<port>\d+) Link (?P<state>ACTIVE|DOWN)\b`)},
	// Any other netdev's carrier change, as its driver prints it after the dev_printk
	// prefix "<driver> <device> <netdev>: ": phylink and phy_print_status
	// ("Link is Down", "Link is Up - 1Gbps/Full - flow control rx/tx"), ixgbe/i40e/ice/bnxt_en
	// ("NIC Link is Up 10 Gbps, Flow Control: RX/TX"), igb ("igb: eth0 NIC Link is Down"),
	// tg3 ("Link is up at 1000 Mbps"), mtk_soc_eth ("eth0: port 2 link down").
	{Name: "netdev-link", Kind: KindLink, Contains: []string{"ink "},
		Re: regexp.MustCompile(`^(?P<driver>[\w.-]+) (?:(?P<pci>` + bdf + `)|\S+) (?P<iface>[\w.@-]+): (?:[\w-]+: [\w.@-]+ )?(?:NIC )?(?:port (?P<port>\d+) )?[Ll]ink (?:is )?(?P<state>[Uu]p|[Dd]own|UP|DOWN)\b`)},
	// The same without a device: pr_info of older and out-of-tree drivers
	// ("e1000e: eth0 NIC Link is Down", "r8125: eth2: link up") and mlx4_en's
	// en_print ("mlx4_en: eth2: Link Up").
	{Name: "netdev-link-driver", Kind: KindLink, Contains: []string{"ink "},
		Re: regexp.MustCompile(`^(?P<driver>[\w-]+): (?P<iface>[\w.@-]+)(?::| NIC) [Ll]ink (?:is )?(?P<state>[Uu]p|[Dd]own|UP|DOWN)\b`)},
	// FreeBSD's kernel (sys/net/if.c do_link_state_change, if_printf: "<ifname>: link state changed to UP|DOWN"),
	// as a FreeBSD/OPNsense/pfSense syslog keeps it ("Jul 20 21:12:13 kernel: igb1: link state changed to DOWN").
	{Name: "freebsd-link-state", Kind: KindLink, Contains: []string{": link state changed to "},
		Re: regexp.MustCompile(`^(?P<iface>(?P<driver>[A-Za-z][A-Za-z_]*?)\d[\w.]*): link state changed to (?P<state>UP|DOWN)\s*$`)},
	// A network daemon's record of the kernel's carrier change, as ParseText
	// keeps it ("<daemon>: <line>"): systemd-networkd's link_update
	// ("systemd-networkd: ib6: Lost carrier", "… Gained carrier") and
	// NetworkManager's ("NetworkManager: <info>  [1692.1] device (ib0):
	// carrier: link connected", "… link disconnected (deferring action for 6 seconds)").
	{Name: "networkd-carrier", Kind: KindLink, Contains: []string{"systemd-networkd: ", "arrier"},
		Re: regexp.MustCompile(`^systemd-networkd: (?P<iface>[\w.@-]+): (?P<state>[Ll]ost|[Gg]ained) carrier\s*$`)},
	{Name: "networkmanager-carrier", Kind: KindLink, Contains: []string{"NetworkManager: ", "carrier: link "},
		Re: regexp.MustCompile(`^NetworkManager: (?:<\w+> +)?(?:\[[\d.]+\] )?device \((?P<iface>[\w.@-]+)\): carrier: link (?P<state>connected|disconnected)\b`)},
	// bond_main.c, slave_info/netdev_info on the bond: "bond0: (slave eno50): link status definitely down, disabling slave";
	// before Linux 5.3 "bond0: link status definitely down for interface eno50, disabling it"; "… definitely up, 10000 Mbps full duplex".
	{Name: "bond-slave-link", Kind: KindBond, Contains: []string{"link status definitely "}, Set: Event{Bond: BondSlave},
		Re: regexp.MustCompile(`^(?:bonding: )?(?P<iface>[\w.@-]+): (?:\(slave (?P<detail>[\w.@-]+)\): )?link status definitely (?P<state>up|down)(?: for interface (?P<slave>[\w.@-]+))?`)},
	// "bond0: (slave eno49): making interface the new active one", before 5.3 "bond0: making interface eno49 the new active one".
	{Name: "bond-new-active", Kind: KindBond, Contains: []string{"the new active one"}, Set: Event{Bond: BondNewActive},
		Re: regexp.MustCompile(`^(?:bonding: )?(?P<iface>[\w.@-]+): (?:\(slave (?P<detail>[\w.@-]+)\): )?making interface (?:(?P<slave>[\w.@-]+) )?the new active one`)},
	// bond_select_active_slave: "bond1: now running without any active interface!".
	{Name: "bond-none-active", Kind: KindBond, Contains: []string{"now running without any active interface"}, Set: Event{Bond: BondNoneActive},
		Re: regexp.MustCompile(`^(?:bonding: )?(?P<iface>[\w.@-]+): now running without any active interface`)},
	// "bond0: active interface up!", older "bond0: first active interface up!".
	{Name: "bond-active-up", Kind: KindBond, Contains: []string{"active interface up!"}, Set: Event{Bond: BondActiveUp},
		Re: regexp.MustCompile(`^(?:bonding: )?(?P<iface>[\w.@-]+): (?:first )?active interface up!`)},
	// bond_3ad.c: "bond0: No 802.3ad response from the link partner for any adapters in the bond" (older: "Warning: No …").
	{Name: "bond-no-lacp", Kind: KindBond, Contains: []string{"No 802.3ad response"}, Set: Event{Bond: BondNoLACP},
		Re: regexp.MustCompile(`^(?:bonding: )?(?P<iface>[\w.@-]+): (?:Warning: )?No 802\.3ad response from the link partner`)},
	// events.c port_module: "Port module event[error]: module %u, Cable error, %s".
	// The PCI address may be cut from a quoted line ("mlx5_core: Port module
	// event[error]: …", realworld-fresh30 dmesg-gx10glm-aoc-module-high-temp-link-down.txt).
	{Name: "mlx5-module-error", Kind: KindModule, Error: true, Contains: []string{"mlx5_core"}, TrimDetail: "Cable error, ",
		Re: regexp.MustCompile(`mlx5_core(?: (?P<pci>` + bdf + `))?: .*?Port module event\[error\]: module (?P<module>\d+), \s*(?P<detail>.*)$`)},
	// Older kernels: "Port module event: module %u, Cable error, %s".
	{Name: "mlx5-module-cable-error", Kind: KindModule, Error: true, Contains: []string{"mlx5_core"}, TrimDetail: "Cable error, ",
		Re: regexp.MustCompile(`mlx5_core(?: (?P<pci>` + bdf + `))?: .*?Port module event: module (?P<module>\d+), \s*(?P<detail>Cable error.*)$`)},
	// events.c port_module: "Port module event: module %u, %s" (plugged, unplugged).
	{Name: "mlx5-module", Kind: KindModule, Contains: []string{"mlx5_core"},
		Re: regexp.MustCompile(`mlx5_core(?: (?P<pci>` + bdf + `))?: .*?Port module event: module (?P<module>\d+), (?P<detail>.*)$`)},
	// events.c temp_warn: "High temperature on sensors with bit set %llx %llx".
	{Name: "mlx5-high-temperature", Kind: KindModule, Error: true, Contains: []string{"mlx5_core"}, Set: Event{Module: -1},
		Re: regexp.MustCompile(`mlx5_core (?P<pci>` + bdf + `): .*?(?P<detail>High temperature on sensors.*)$`)},
	// eq.c: "mlx5_core 0000:02:00.0: mlx5_eq_int:556:(pid 0): CQ error on CQN 0x40a, syndrom 0x1" (cq_err_event_notifier and "syndrome" since Linux 5.0).
	{Name: "mlx5-cq-error-event", Kind: KindCQ, Contains: []string{"CQ error on CQN "}, Set: Event{CQ: CQEvent},
		Re: regexp.MustCompile(`mlx5_core (?P<pci>` + bdf + `): .*?CQ error on CQN (?P<cqn>0x[0-9a-fA-F]+), syndrome? (?P<synd>0x[0-9a-fA-F]+)`)},
	// hw/mlx5/cq.c mlx5_poll_one, mlx5_ib_dbg: "infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:"
	// (before Linux 4.12 mlx5_ib_dbg printed "mlx5_0:mlx5_poll_one:…" through pr_debug).
	{Name: "mlx5-ib-error-cqe", Kind: KindCQ, Contains: []string{" error cqe on cqn "}, Set: Event{CQ: CQErrorCQE},
		Re: regexp.MustCompile(`^(?:infiniband )?(?P<iface>[\w.-]+): ?(?:\w+:\d+:\(pid \d+\): )?(?P<detail>Requestor|Responder) error cqe on cqn (?P<cqn>0x[0-9a-fA-F]+)`)},
	// The line mlx5_poll_one prints after it: "… mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9".
	{Name: "mlx5-ib-error-cqe-syndrome", Kind: KindCQ, Contains: []string{"syndrome 0x", ", vendor syndrome 0x"}, Set: Event{CQ: CQSyndrome},
		Re: regexp.MustCompile(`^(?:infiniband )?(?P<iface>[\w.-]+): ?(?:\w+:\d+:\(pid \d+\): )?syndrome (?P<synd>0x[0-9a-fA-F]+), vendor syndrome (?P<vend>0x[0-9a-fA-F]+)\s*$`)},
	// hw/mlx5/cq.c dump_cqe, mlx5_ib_warn (every status but a flush): "infiniband mlx5_0: dump_cqe:272:(pid 709): dump error cqe", then
	// the CQE in hex (mlx5_dump_err_cqe); the Classifier reads the syndromes from the dump's last line (cqedump.go).
	{Name: "mlx5-ib-dump-error-cqe", Kind: KindCQ, Contains: []string{"dump error cqe"}, Set: Event{CQ: CQErrorCQE},
		Re: regexp.MustCompile(`^(?:infiniband )?(?P<iface>[\w.-]+): ?(?:\w+:\d+:\(pid \d+\): )?dump error cqe\s*$`)},
	// hw/mlx5/cq.c mlx5_handle_error_cqe, mlx5_ib_warn (every status but a flush): "infiniband mlx5_0: mlx5_handle_error_cqe:332:(pid 0): WC error: 10, Message: remote access error".
	{Name: "mlx5-ib-wc-error", Kind: KindCQ, Contains: []string{"WC error: "}, Set: Event{CQ: CQWCError},
		Re: regexp.MustCompile(`^(?:infiniband )?(?P<iface>[\w.-]+): ?(?:\w+:\d+:\(pid \d+\): )?WC error: (?P<wc>\d+), [Mm]essage: (?P<detail>.+)$`)},
	// A kernel consumer's failed completion, printed with ib_wc_status_msg: nvme_rdma_wr_error "nvme nvme15: RECV for CQE 0x00000000ce392ed9 failed with status local protection error (4)",
	// nvmet_rdma "nvmet_rdma: SEND for CQE 0x… failed with status … (12)." (drivers/nvme/host/rdma.c, drivers/nvme/target/rdma.c).
	{Name: "rdma-ulp-wc-error", Kind: KindCQ, Contains: []string{" for CQE ", " failed with status "}, Set: Event{CQ: CQULP},
		Re: regexp.MustCompile(`^(?:nvme (?P<iface>nvme\d+): |(?P<iface2>nvmet_rdma): )?(?:[A-Z_]+(?: [A-Z_]+)?) for CQE (?:0x[0-9a-fA-F]+ )?failed with status (?P<detail>[^()]+?) \((?P<wc>\d+)\)`)},
	// hw/mlx5/qp.c mlx5_ib_qp_err_syndrome, pr_err: "%s/%d: QP %d error: %s (0x%x 0x%x 0x%x)" (device/port, QP number, the error
	// syndrome through ib_wc_status_msg, vendor syndrome, hardware syndrome type and syndrome): "mlx5_bond_0/1: QP 51291 error: local length error (0x8e 0x0 0x0)".
	{Name: "mlx5-ib-qp-error-syndrome", Kind: KindCQ, Contains: []string{": QP ", " error: ", " (0x"}, Set: Event{CQ: CQQPError},
		Re: regexp.MustCompile(`^(?:infiniband )?(?P<iface>[\w.-]+)/(?P<port>\d+): QP (?P<queue>\d+) error: (?P<detail>[^()]+?) \((?P<vend>0x[0-9a-fA-F]+) 0x[0-9a-fA-F]+ 0x[0-9a-fA-F]+\)\s*$`)},
	// amdgpu GPU page faults (gmc_v9_0.c gmc_v9_0_process_interrupt dev_err "[%s] %s page fault (src_id:%u ring:%u vmid:%u pasid:%u",
	// with ", for process %s pid %d thread %s pid %d)" on older kernels; "retry"/"no-retry" before "page fault" on some).
	{Name: "amdgpu-page-fault", Kind: KindGPUFault, Error: true, Contains: []string{"amdgpu", "page fault (src_id:"},
		Re: regexp.MustCompile(`^amdgpu (?P<pci>` + bdf + `): (?:amdgpu: )?\[(?P<detail>\w+)\] (?:(?:no-)?retry )?page fault \(src_id:\d+ ring:\d+ vmid:\d+ pasid:\d+(?:, for process (?P<task>\S+) pid (?P<taskpid>\d+))?`)},
	// amdgpu_vm.c amdgpu_vm_print_task_info: " Process ray::RayWorkerW pid 1138406 thread ray::RayWorkerW pid 1138406".
	{Name: "amdgpu-page-fault-process", Kind: KindGPUFault, Contains: []string{"amdgpu", " Process ", " thread "}, Set: Event{Detail: "process"},
		Re: regexp.MustCompile(`^amdgpu (?P<pci>` + bdf + `): (?:amdgpu: )?\s*Process (?P<task>\S+) pid (?P<taskpid>\d+) thread `)},
	// kernel/module/main.c __symbol_get (Linux 6.6+): "failing symbol_get of non-GPLONLY symbol %s." for the peer-memory API.
	{Name: "peer-mem-symbol-get", Kind: KindPeerMemSymbol, Error: true, Contains: []string{"failing symbol_get of non-GPLONLY symbol ", "peer_memory"},
		Re: regexp.MustCompile(`failing symbol_get of non-GPLONLY symbol (?P<symbol>\w*peer_mem\w*)`)},
	// A stalled transmit queue. The driver's report: mlx5e en/reporter_tx.c mlx5e_tx_reporter_timeout "mlx5_core 0000:af:00.0 enp175s0f0: TX timeout on queue: 40,
	// SQ: 0x13106, CQ: 0x5b5, SQ Cons: 0x1 SQ Prod: 0x1, usecs since last trans: 28559000", en_main.c mlx5e_tx_timeout "TX timeout detected" (bnxt_en: "TX timeout detected, starting reset task!").
	{Name: "netdev-tx-timeout", Kind: KindTxTimeout, Contains: []string{"TX timeout "},
		Re: regexp.MustCompile(`^\s*[\w.-]+ (?:(?P<pci>` + bdf + `)|\S+) (?P<iface>[\w.@-]+): TX timeout (?:on queue: (?P<queue>\d+)(?:.*?usecs since last trans: (?P<usecs>\d+))?|detected)`)},
	// net/sched/sch_generic.c dev_watchdog: WARN_ONCE "NETDEV WATCHDOG: eth0 (mlx5_core): transmit queue 3 timed out[ 5376 ms]" (" ms" since Linux 6.4),
	// since Linux 6.9 netdev_crit "mlx5_core 0000:af:00.0 eth0: NETDEV WATCHDOG: CPU: 12: transmit queue 3 timed out 5376 ms"; before 2.6.27 "NETDEV WATCHDOG: eth0: transmit timed out".
	{Name: "netdev-watchdog", Kind: KindTxTimeout, Contains: []string{"NETDEV WATCHDOG: "}, Set: Event{Detail: "watchdog"},
		Re: regexp.MustCompile(`(?:^\s*(?P<driver>[\w.-]+) (?:(?P<pci>` + bdf + `)|\S+) (?P<iface2>[\w.@-]+): )?NETDEV WATCHDOG: (?:(?P<iface>[\w.@-]+)(?: \((?P<driver2>[^)]*)\))?|CPU: \d+): transmit (?:queue (?P<queue>\d+) )?timed out(?: (?P<msecs>\d+) ms)?`)},
	// drivers/infiniband/ulp/ipoib/ipoib_main.c ipoib_timeout, ipoib_warn: "ib0: transmit timeout: latency 9956 msecs".
	{Name: "ipoib-tx-timeout", Kind: KindTxTimeout, Contains: []string{": transmit timeout: latency "},
		Re: regexp.MustCompile(`(?:^|\s)(?P<iface>[\w.@-]+): transmit timeout: latency (?P<msecs>\d+) msecs`)},
	// The driver gave up recovering the queue: mlx5e en/reporter_tx.c mlx5e_tx_reporter_timeout_recover "mlx5e_safe_reopen_channels failed recovering from a tx_timeout, err(-110).",
	// older en_main.c "mlx5e_open_locked failed recovering from a tx_timeout, err(-12).", ipoib/ipoib.c "mlx5i_open failed recovering from a tx_timeout, err(%d).".
	{Name: "netdev-tx-timeout-recovery-failed", Kind: KindTxTimeout, Error: true, Contains: []string{" failed recovering from a tx_timeout"},
		Re: regexp.MustCompile(`^\s*[\w.-]+ (?:(?P<pci>` + bdf + `)|\S+) (?P<iface>[\w.@-]+): (?:\w+:\d+:\(pid \d+\): )?(?P<detail>\w+ failed recovering from a tx_timeout, err\(-?\d+\))`)},
	// Lustre LNet o2ib (lnet/klnds/o2iblnd/o2iblnd_cb.c): kiblnd_check_txs_locked "Timed out tx for 172.31.126.87@o2ib: 403055 seconds",
	// kiblnd_check_conns "Timed out RDMA with 10.0.0.2@o2ib (52): c: 0, oc: 0, rc: 8" (older "Timed out RDMA with 10.0.0.2@o2ib").
	{Name: "lnet-o2ib-timeout", Kind: KindRDMAPeer, Contains: []string{"Timed out ", "@o2ib"},
		Re: regexp.MustCompile(`(?P<detail>Timed out (?:tx for|RDMA with)) (?P<iface>[\w.:-]+@o2ib\d*)(?:: (?P<secs>\d+) seconds| \((?P<secs2>\d+)\))?`)},
	// kiblnd_rejected: "LNetError: …(o2iblnd_cb.c:2781:kiblnd_rejected()) 10.0.0.2@o2ib rejected: consumer defined fatal error" (or "no listener at 987",
	// "o2iblnd no resources"); kiblnd_cm_callback: "…kiblnd_cm_callback()) 10.0.0.2@o2ib: ADDR ERROR -110" (the peer's address did not resolve),
	// "ROUTE ERROR -110", "UNREACHABLE -110", "CONNECT ERROR -110".
	{Name: "lnet-o2ib-rejected", Kind: KindRDMAPeer, Contains: []string{"@o2ib", "rejected"},
		Re: regexp.MustCompile(`kiblnd_\w+\(\)\) (?P<iface>[\w.:-]+@o2ib\d*) (?P<detail>rejected)\b`)},
	{Name: "lnet-o2ib-cm-error", Kind: KindRDMAPeer, Contains: []string{"@o2ib: "},
		Re: regexp.MustCompile(`(?P<iface>[\w.:-]+@o2ib\d*): (?P<detail>(?:(?:ADDR|ROUTE|CONNECT) ERROR|UNREACHABLE) -?\d+)`)},
	// NVMe over RDMA host (drivers/nvme/host/rdma.c), Driver "nvme-rdma", Interface the controller: nvme_rdma_conn_rejected
	// "nvme nvme0: Connect rejected: status 8 (invalid service ID)." (status is the RDMA CM reject reason, rdma_reject_msg; since 4.11,
	// with " nvme status %d (%s)" when the target says why); nvme_rdma_alloc_queue "rdma connection establishment failed (-104)"
	// (4.x: "rdma_resolve_addr wait failed (-104)."), "rdma_resolve_addr failed (%d)."; nvme_rdma_addr_resolved "rdma_resolve_route
	// failed (%d)."; nvme_rdma_route_resolved "rdma_connect failed (%d)." (5.10+: "rdma_connect_locked failed (%d).").
	{Name: "nvme-rdma-rejected", Kind: KindRDMAPeer, Contains: []string{"nvme", ": Connect rejected"}, Set: Event{Driver: "nvme-rdma"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): (?P<detail>Connect rejected[:,] status -?\d+(?: \([^)]*\))?(?: nvme status -?\d+ \([^)]*\))?)`)},
	{Name: "nvme-rdma-cm-failed", Kind: KindRDMAPeer, Contains: []string{"nvme", " failed (-"}, Set: Event{Driver: "nvme-rdma"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): (?P<detail>(?:rdma connection establishment|rdma_resolve_addr wait|rdma_resolve_addr|rdma_resolve_route|rdma_connect(?:_locked)?) failed \(-\d+\))`)},
	// The fabrics host's reconnect loop (rdma.c, tcp.c): nvme_*_reconnect_ctrl_work "Failed reconnect attempt, requeueing..." (4.x),
	// "Failed reconnect attempt 3" (4.14+), "Failed reconnect attempt 3/600" (6.x); nvme_*_reconnect_or_remove "Removing controller..."
	// when it gives up (ctrl_loss_tmo spent). Driver "nvme-fabrics": the rule counts them only for a controller with RDMA failures.
	{Name: "nvme-fabrics-reconnect-failed", Kind: KindRDMAPeer, Contains: []string{"nvme", "Failed reconnect attempt"}, Set: Event{Driver: "nvme-fabrics", Detail: "reconnect failed"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): Failed reconnect attempt\b`)},
	// The target a fabrics controller connected to, rdma.c (and tcp.c) nvme_*_create_ctrl: "nvme nvme0: new ctrl: NQN \"nqn.2016-06.io.spdk:cnode1\",
	// addr 192.168.1.130:4420" (6.x adds ", hostnqn: …"); Detail "addr 192.168.1.130:4420", for the rule to name the target.
	{Name: "nvme-fabrics-new-ctrl", Kind: KindRDMAPeer, Contains: []string{"nvme", ": new ctrl: NQN "}, Set: Event{Driver: "nvme-fabrics"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): new ctrl: NQN "[^"]*", (?P<detail>addr [^\s,]+)`)},
	{Name: "nvme-fabrics-removing", Kind: KindRDMAPeer, Contains: []string{"nvme", ": Removing controller..."}, Set: Event{Driver: "nvme-fabrics", Detail: "removing"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): Removing controller\.\.\.`)},
	// An I/O that timed out on an NVMe over RDMA controller, rdma.c nvme_rdma_timeout: "nvme nvme0: I/O 33 QID 10 timeout" (4.8 to 6.4),
	// "nvme nvme0: I/O tag 33 (0021) opcode 0x1 (I/O Cmd) QID 10 timeout" (6.5+). The line ends at "timeout": that is rdma.c's own
	// wording. NVMe over PCIe (pci.c nvme_timeout) always goes on (", aborting", ", reset controller", ", disable controller",
	// ", completion polled"), nvme-tcp names the PDU type ("I/O tag 33 (0021) type 4 opcode …", older "queue 3: timeout request …").
	// Driver "nvme-rdma", Detail "I/O timeout", Queue the queue id (0 the admin queue).
	{Name: "nvme-rdma-io-timeout", Kind: KindRDMAPeer, Contains: []string{"nvme", " QID ", " timeout"}, Set: Event{Driver: "nvme-rdma", Detail: "I/O timeout"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): I/O (?:tag )?\d+ (?:\([0-9a-fA-F]+\) opcode 0x[0-9a-fA-F]+ \([^()]*\) )?QID (?P<queue>\d+) timeout\s*$`)},
	// The fabrics host's error recovery (rdma.c nvme_rdma_error_recovery, tcp.c nvme_tcp_error_recovery): "nvme nvme0: starting error
	// recovery" (it tears the queues down and reconnects them), and its end, nvme_*_reconnect_ctrl_work "nvme nvme0: Successfully
	// reconnected (1 attempt)" ("(%d attempts)"; 4.x "Successfully reconnected"). Driver "nvme-fabrics": the rule counts them only for
	// a controller with RDMA failures or timeouts.
	{Name: "nvme-fabrics-error-recovery", Kind: KindRDMAPeer, Contains: []string{"nvme", ": starting error recovery"}, Set: Event{Driver: "nvme-fabrics", Detail: "error recovery"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): starting error recovery\s*$`)},
	{Name: "nvme-fabrics-reconnected", Kind: KindRDMAPeer, Contains: []string{"nvme", ": Successfully reconnected"}, Set: Event{Driver: "nvme-fabrics", Detail: "reconnected"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): Successfully reconnected\b`)},
	// A device gone from the bus, as its driver says it. Intel 10GbE ixgbe_main.c ixgbe_remove_adapter (called by ixgbe_check_remove when a
	// register read returns all ones), and Wangxun ngbe/txgbe the same: e_dev_err "ixgbe 0000:05:00.0: Adapter removed".
	{Name: "nic-adapter-removed", Kind: KindDeviceGone, Contains: []string{": Adapter removed"},
		Re: regexp.MustCompile(`^\s*(?P<driver>ixgbe|ngbe|txgbe) (?P<pci>` + bdf + `)(?: [^:]*)?: (?P<detail>Adapter removed)`)},
	// igb_main.c igb_rd32, igc_main.c igc_rd32, fm10k_common.c fm10k_read_reg: netdev_err "igb 0000:03:00.0 eno1: PCIe link lost" (newer igb
	// and igc, fm10k: "PCIe link lost, device now detached"); before the netdev is registered "(unnamed net_device) (uninitialized)".
	{Name: "nic-pcie-link-lost", Kind: KindDeviceGone, Contains: []string{": PCIe link lost"},
		Re: regexp.MustCompile(`^\s*(?P<driver>igb|igc|fm10k) (?P<pci>` + bdf + `)(?: (?P<iface>[\w.@-]+)| \(unnamed net_device\) \(uninitialized\))?: (?P<detail>PCIe link lost)`)},
	// mlx5 health.c mlx5_error_sw_reset: mlx5_core_err "mlx5_core 0004:01:00.0: mlx5_error_sw_reset:252:(pid 1618): PCI channel offline, stop
	// waiting for NIC IFC" (pci_channel_offline: the PCI core cut the device off after an error, or it is gone).
	{Name: "mlx5-pci-channel-offline", Kind: KindDeviceGone, Contains: []string{"mlx5_core", "PCI channel offline, stop"}, Set: Event{Driver: "mlx5_core"},
		Re: regexp.MustCompile(`mlx5_core (?P<pci>` + bdf + `): (?:\w+:\d+:\(pid \d+\): )?(?P<detail>PCI channel offline)`)},
	// NVMe over PCIe, drivers/nvme/host/pci.c nvme_reset_work: dev_warn "nvme nvme1: Disabling device after reset failure: -5" (the
	// controller did not come back from a reset, often one after a PCIe error; the driver removes it, its namespaces go away).
	{Name: "nvme-disabled-after-reset", Kind: KindDeviceGone, Contains: []string{"nvme", "Disabling device after reset failure"}, Set: Event{Driver: "nvme"},
		Re: regexp.MustCompile(`(?:^|\s)nvme (?P<iface>nvme\d+): (?P<detail>Disabling device after reset failure: -?\d+)`)},
	// A driver's own link report at probe, Corundum mqnic_main.c (and its DPDK port): dev_info " Link capability: gen %d x%d", then " Link status: gen %d x%d"
	// ("mqnic 0000:01:00.0:  Link status: gen 3 x4"); the Classifier pairs them. Markdown emphasis around the text ("**_Link status: gen 3 x4_**") is read through.
	{Name: "driver-pcie-link-report", Kind: KindPCIeLinkReport, Contains: []string{"Link ", ": gen "},
		Re: regexp.MustCompile(`^\s*(?P<driver>[\w.-]+) (?P<pci>` + bdf + `):[\s*_]*Link (?P<detail>capability|status): (?P<link>gen \d+ x\d+)`)},
	// events.c mlx5_pcie_event (mlx5_core_warn_rl): "mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).".
	{Name: "mlx5-slot-power", Kind: KindSlotPower, Contains: []string{"insufficient power on the PCIe slot"},
		Re: regexp.MustCompile(`mlx5_core (?P<pci>` + bdf + `): .*?Detected insufficient power on the PCIe slot \((?P<detail>\d+W)\)`)},
	// health.c and cmd.c: a health miss, a fatal syndrome, a command timeout, recovery given up. A command timeout is
	// cmd.c wait_func_handle_exec_timeout "cmd[0]: ACCESS_REG(0x805) No done completion" (or, when mlx5_cmd_eq_recover found the lost
	// completion on the command EQ, "cmd[0]: CREATE_EQ(0x301) recovered after timeout"; "cmd0:" in Linux 5.8-5.10), wait_func "ACCESS_REG(0x805) timeout. Will cause a leak of a
	// command resource", and mlx5_cmd_comp_handler "Command completion arrived after timeout (entry idx = 0)." when the answer comes late.
	{Name: "mlx5-health", Kind: KindHealth, Error: true, Contains: []string{"mlx5_core"}, Set: Event{HealthClass: HealthFatal},
		Re: regexp.MustCompile(`mlx5_core (?P<pci>` + bdf + `): .*?(?P<detail>device's health compromised[^\n]*|Fatal error \d+ detected|synd 0x[0-9a-fA-F]+: [^\n]*|\S+\(0x[0-9a-fA-F]+\) timeout\. Will cause a leak of a command resource|\S+\(0x[0-9a-fA-F]+\) No done completion|[A-Z0-9_]+\([^()\s]*\) recovered after timeout|Command completion arrived after timeout|health recovery flow aborted[^\n]*|FW is unable to respond[^\n]*)`)},
	// main.c: the function could not be brought up ("mlx5_load_one failed with error code -22", "handle_hca_cap failed", "failed to allocate command entry").
	{Name: "mlx5-init-failed", Kind: KindHealth, Error: true, Contains: []string{"mlx5_core"}, Set: Event{HealthClass: HealthFatal},
		Re: regexp.MustCompile(`mlx5_core (?P<pci>` + bdf + `): .*?(?P<detail>(?:mlx5_load_one|mlx5_init_one|mlx5_function_setup|mlx5_init_once|handle_hca_cap|set_hca_cap|mlx5_cmd_init) failed[^\n]*|failed to allocate command entry|init one failed[^\n]*)`)},
	// The driver core: "mlx5_core 0000:03:00.0: probe with driver mlx5_core failed with error -22", "mlx5_core.eth: probe of mlx5_core.eth.2 failed with error -22" (an auxiliary device: Events places it on the function logged last).
	{Name: "mlx5-probe-failed", Kind: KindHealth, Error: true, Contains: []string{"mlx5_", "failed with error"}, Set: Event{HealthClass: HealthFatal},
		Re: regexp.MustCompile(`^(?:mlx5_core|mlx5_ib)(?:\.\w+)?:? (?:(?P<pci>` + bdf + `): )?(?P<detail>probe (?:of (?P<probeof>\S+) |with driver \S+ )failed with error -?\d+)`)},
	// cmd.c mlx5_cmd_out_err: "CREATE_TIS(0x912) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x595b5d), err(-22)".
	{Name: "mlx5-command-failed", Kind: KindHealth, Error: true, Contains: []string{"op_mod(", "syndrome"}, Set: Event{HealthClass: HealthCommand},
		Re: regexp.MustCompile(`(?:(?P<pci>` + bdf + `)\D.*?)?(?P<cmd>\w+)\(0x[0-9a-fA-F]+\) op_mod\(0x[0-9a-fA-F]+\) failed, status (?P<status>[^,]+), syndrome \((?P<syndrome>0x[0-9a-fA-F]+)\)`)},
	// arch/x86/mm/fault.c show_signal_msg: "pt_main_thread[2536443]: segfault at 7f797fe00000 ip … sp … error 4 in libnccl.so.2[7f7c7ac00000+d3d3000]"
	// (print_vma_addr names the file; since 6.1 " likely on CPU 3 (core 3, socket 0)" may follow).
	{Name: "segfault", Kind: KindCrash, Contains: []string{"]: segfault at "},
		Re: regexp.MustCompile(`^(?P<task>[^\[\]]{1,64})\[(?P<taskpid>\d+)\]: segfault at [0-9a-fA-F]+\b(?:.*? in (?P<detail>[^\[\s]+)\[[0-9a-fA-F]+\+[0-9a-fA-F]+\])?`)},
	// arch/x86/kernel/traps.c: "traps: python[1234] general protection fault ip:7f0c… sp:7ffd… error:0 in libibverbs.so.1.14.47.0[7f0c…+…]" (a SIGSEGV too).
	{Name: "general-protection", Kind: KindCrash, Contains: []string{"] general protection fault ip:"},
		Re: regexp.MustCompile(`^(?:traps: )?(?P<task>[^\[\]]{1,64})\[(?P<taskpid>\d+)\] general protection fault ip:[0-9a-fA-F]+\b(?:.*? in (?P<detail>[^\[\s]+)\[[0-9a-fA-F]+\+[0-9a-fA-F]+\])?`)},
	// edac_mc.c edac_raw_mc_handle_error via edac_mc_printk: "EDAC MC3: 1 UE memory read error on CPU_SrcID#1_MC#1_Chan#2_DIMM#0 (channel:2 slot:0 …)",
	// "EDAC MC0: 1 CE Unknown on unknown memory ( page:0x0 …)" (ghes_edac); a driver may name itself ("EDAC skx MC3: …").
	{Name: "edac-memory", Kind: KindMemory, Contains: []string{"EDAC ", " on "},
		Re: regexp.MustCompile(`^EDAC (?:\w+ )?MC\d+: (?P<memcount>\d+) (?P<memsev>UE|CE) .*?\bon (?P<detail>\S.*?) \(`)},
	// kernel/panic.c panic(): pr_emerg("Kernel panic - not syncing: %s\n", buf); its end marker "---[ end Kernel panic - not syncing: … ]---" is no second panic.
	{Name: "kernel-panic", Kind: KindPanic, Error: true, Contains: []string{"Kernel panic - not syncing: "},
		Re: regexp.MustCompile(`^Kernel panic - not syncing: (?P<detail>.*?)\s*$`)},
	// arch/x86/kernel/cpu/mce/core.c print_mce: pr_emerg(HW_ERR "CPU %d: Machine Check%s: %Lx Bank %d: %016Lx\n") (" Exception" while MCIP is set), with pr_fmt "mce: ".
	{Name: "mce-print", Kind: KindMCE, Contains: []string{"[Hardware Error]: CPU ", ": Machine Check"},
		Re: regexp.MustCompile(`^(?:mce: )?\[Hardware Error\]: CPU (?P<mcecpu>\d+): Machine Check(?P<mceexc> Exception)?: [0-9a-fA-F]+ Bank (?P<mcebank>\d+): (?P<mcestatus>[0-9a-fA-F]{1,16})\b`)},
	// mce_notify_irq: pr_info(HW_ERR "Machine check events logged\n").
	{Name: "mce-logged", Kind: KindMCE, Contains: []string{"Machine check events logged"}, Set: Event{Detail: "events logged"},
		Re: regexp.MustCompile(`^(?:mce: )?\[Hardware Error\]: Machine check events logged\s*$`)},
	// mm/oom_kill.c __oom_kill_process: pr_err("%s: Killed process %d (%s) total-vm:…", message, …), message "Out of memory" or
	// "Memory cgroup out of memory"; before 4.19 oom_kill_process's "%s: Kill process %d (%s) score %u or sacrifice child", then "Killed process %d (%s) total-vm:…".
	{Name: "oom-kill", Kind: KindOOM, Contains: []string{"Kill", " process "},
		Re: regexp.MustCompile(`^(?:(?P<detail>Out of memory|Memory cgroup out of memory)(?: \([\w ]+\))?: Kill(?:ed)? process|Killed process) (?P<taskpid>\d+) \((?P<task>[^()]{1,64})\)`)},
	// A module built for another kernel or RDMA stack (KindModuleLoad). The module loader, pr_warn with the module's name:
	// kernel/module/version.c check_version (kernel/module.c before 5.17) "%s: disagrees about version of symbol %s", the
	// symbol's CRC in the module differs from the running kernel's (or the loaded module's that exports it);
	// kernel/module/main.c simplify_symbols "%s: Unknown symbol %s (err %d)" (2.6 kernels: no " (err %d)"), the symbol
	// could not be resolved (-22 after a version mismatch, -2 or 0 when nothing exports it); check_modinfo pr_err
	// "%s: version magic '%s' should be '%s'". Its "no symbol version for %s" is a warning the loader goes on after.
	{Name: "module-symbol-version", Kind: KindModuleLoad, Error: true, Contains: []string{"disagrees about version of symbol "}, Set: Event{Detail: "disagrees about version of symbol"},
		Re: regexp.MustCompile(`^\s*(?P<driver>[\w-]{1,64}): disagrees about version of symbol (?P<symbol>\S+)\s*$`)},
	{Name: "module-unknown-symbol", Kind: KindModuleLoad, Error: true, Contains: []string{"Unknown symbol "}, Set: Event{Detail: "Unknown symbol"},
		Re: regexp.MustCompile(`^\s*(?P<driver>[\w-]{1,64}): Unknown symbol (?P<symbol>[^\s()]+)(?: \(err (?P<moderr>-?\d+)\))?\s*$`)},
	{Name: "module-version-magic", Kind: KindModuleLoad, Error: true, Contains: []string{": version magic '"},
		Re: regexp.MustCompile(`^\s*(?P<driver>[\w-]{1,64}): (?P<detail>version magic '[^']*' should be '[^']*')`)},
	// Lustre lnet/lnet/api-ni.c lnet_startup_lndnet, CERROR after request_module found no driver for the network:
	// "LNetError: 172781:0:(api-ni.c:2533:lnet_startup_lndnet()) Can't load LND o2ib, module ko2iblnd, rc=256" (rc is
	// modprobe's wait status: 256 is exit status 1).
	{Name: "lnet-lnd-load", Kind: KindModuleLoad, Error: true, Contains: []string{"Can't load LND "}, Set: Event{Detail: "Can't load LND"},
		Re: regexp.MustCompile(`Can't load LND (?P<iface>\w+), module (?P<driver>[\w-]+), rc=(?P<moderr>-?\d+)`)},
	// aer.c __aer_print_error: "<drv> <bdf>: [AER: ]  [ 0] RxErr  (First)": the bits of a report, what kind of errors a flood is.
	{Name: "aer-bit", Kind: KindAERBit, Contains: []string{"] "},
		Re: regexp.MustCompile(`\S+ (?P<pci>` + bdf + `): (?:AER:)? *\[ ?\d+\] (?P<detail>[A-Za-z][\w/]*(?: [A-Za-z][\w/]*)*)`)},
}

// reCmdStatus is the code of a command status as cmd.c prints it after
// its name ("limits exceeded(0x8)").
var reCmdStatus = regexp.MustCompile(`\(0x([0-9a-fA-F]{1,2})\)$`)

// reCmdSuppressed is the kernel's rate-limit note for the mlx5 command
// error message (lib/ratelimit.c ___ratelimit: "%s: %d callbacks
// suppressed", the function of the rate-limited print: mlx5_cmd_out_err,
// mlx5_cmd_check before Linux 5.19). It comes right before the next
// message of that print that passes.
var reCmdSuppressed = regexp.MustCompile(`^(?:mlx5_cmd_out_err|mlx5_cmd_check): (\d+) callbacks suppressed`)

// reMlx5Addr is the function an mlx5_core message is about.
var reMlx5Addr = regexp.MustCompile(`mlx5_core (` + bdf + `)[: ]`)

// reCPERSev is the severity of a firmware-first error on the CPER lines
// before its AER line (drivers/firmware/efi/cper.c: "{N}[Hardware Error]:
// event severity: corrected|recoverable|fatal", "Error 0, type:
// corrected").
var reCPERSev = regexp.MustCompile(`\[Hardware Error\]: +(?:event severity|Error \d+, type): (corrected|recoverable|fatal)`)

// reCPERDevice is the device of a CPER PCIe error section
// (drivers/firmware/efi/cper.c cper_print_pcie: "{1}[Hardware Error]:
// device_id: 0000:5e:00.0", after "section_type: PCIe error"); the
// "vendor_id: 0x144d, device_id: 0xa808" line after it is not an address.
var reCPERDevice = regexp.MustCompile(`\[Hardware Error\]: +device_id: (` + bdf + `)\s*$`)

// match returns the first row of Patterns that matches text, with its
// submatches.
func match(text string) (*Pattern, []string) {
rows:
	for i := range Patterns {
		p := &Patterns[i]
		for _, c := range p.Contains {
			if !strings.Contains(text, c) {
				continue rows
			}
		}
		if m := p.Re.FindStringSubmatch(text); m != nil {
			return p, m
		}
	}
	return nil, nil
}

// event builds the row's event from its submatches.
func (p *Pattern) event(r Record, m []string) Event {
	e := p.Set
	e.Kind, e.Record = p.Kind, r
	if p.Error {
		e.IsError = true
	}
	for i, name := range p.Re.SubexpNames() {
		v := m[i]
		if name == "" || v == "" {
			continue
		}
		switch name {
		case "pci":
			e.PCI = addr(v)
		case "gpu":
			e.PCI = addr(v + ".0")
		case "reporter":
			e.Reporter = addr(v)
		case "xid":
			e.Xid, _ = strconv.Atoi(v)
		case "gi":
			e.GPUInstance, _ = strconv.Atoi(v)
		case "uuid":
			e.GPUUUID = v
		case "pid":
			e.XidPID = v
		case "process":
			e.XidProcess = v
		case "aersev":
			e.AERSeverity = severityName(v)
		case "aertype":
			e.AERType = strings.TrimSpace(v)
		case "iface", "iface2":
			e.Interface = v
		case "port":
			e.Port, _ = strconv.Atoi(v)
		case "state":
			e.Up = strings.EqualFold(v, "up") || v == "ACTIVE" || strings.EqualFold(v, "gained") || v == "connected"
		case "module":
			e.Module, _ = strconv.Atoi(v)
		case "detail":
			e.Detail = strings.TrimPrefix(strings.TrimSpace(v), p.TrimDetail)
		case "slave":
			e.Detail = v
		case "probeof":
			if e.PCI == "" {
				e.PCI = addr(v)
			}
		case "avail":
			e.AvailGbps, _ = strconv.ParseFloat(v, 64)
		case "capable":
			e.CapableGbps, _ = strconv.ParseFloat(v, 64)
		case "limitedby":
			e.LimitedBy = strings.TrimSpace(v)
		case "limitedat":
			e.LimitedAt = addr(v)
		case "capableof":
			e.CapableOf = strings.TrimSpace(v)
		case "task":
			e.Task = v
		case "taskpid":
			e.TaskPID = v
		case "memcount":
			e.MemErrors, _ = strconv.Atoi(v)
		case "memsev":
			e.IsError = v == "UE"
		case "cqn":
			e.CQN = strings.ToLower(v)
		case "synd":
			x, _ := strconv.ParseUint(v[2:], 16, 32)
			e.Syndrome = int(x)
		case "vend":
			x, _ := strconv.ParseUint(v[2:], 16, 32)
			e.VendorSyndrome = int(x)
		case "wc":
			e.WCStatus, _ = strconv.Atoi(v)
		case "queue":
			e.Queue = v
		case "driver", "driver2":
			e.Driver = v
		case "symbol":
			e.Symbol = v
		case "moderr":
			if e.Detail == "Unknown symbol" {
				e.Detail += " (err " + v + ")"
			} else {
				e.Detail += " (rc=" + v + ")"
			}
		case "link":
			e.LimitedBy = v
		case "usecs":
			n, _ := strconv.ParseInt(v, 10, 64)
			e.StallMs = n / 1000
		case "msecs":
			e.StallMs, _ = strconv.ParseInt(v, 10, 64)
		case "secs", "secs2":
			n, _ := strconv.ParseInt(v, 10, 64)
			e.StallMs = n * 1000
		case "mcecpu":
			e.Detail = "CPU " + v + ", bank " + m[p.Re.SubexpIndex("mcebank")]
		case "mceexc":
			e.IsError = true
		case "mcestatus":
			// MCi_STATUS bit 61 (UC): the error was not corrected.
			x, _ := strconv.ParseUint(v, 16, 64)
			e.IsError = e.IsError || x&(1<<61) != 0
			e.Detail += ", status 0x" + strings.ToLower(v)
		}
	}
	if i := p.Re.SubexpIndex("cmd"); i >= 0 && m[i] != "" {
		st := strings.TrimSpace(m[p.Re.SubexpIndex("status")])
		e.Detail = fmt.Sprintf("%s failed, status %s, syndrome %s", m[i], st, m[p.Re.SubexpIndex("syndrome")])
		if sm := reCmdStatus.FindStringSubmatch(st); sm != nil {
			v, _ := strconv.ParseUint(sm[1], 16, 8)
			e.CmdStatus = int(v)
		}
	}
	if i := p.Re.SubexpIndex("srcid"); i >= 0 && e.PCI == "" && m[i] != "" && e.Reporter != "" {
		dom, _, _ := strings.Cut(string(e.Reporter), ":")
		e.PCI = idToAddress(dom, m[i])
	}
	return e
}

// linkBelow says whether a driver's link status "gen 3 x4" is below its
// capability "gen 3 x16": a lower generation or fewer lanes.
func linkBelow(status, capability string) bool {
	var sg, sw, cg, cw int
	if _, err := fmt.Sscanf(status, "gen %d x%d", &sg, &sw); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(capability, "gen %d x%d", &cg, &cw); err != nil {
		return false
	}
	return sg < cg || sw < cw
}

// severityName normalises "Corrected"/"Correctable", "Uncorrected
// (Non-Fatal)"/"Uncorrectable (Non-Fatal)" and the fatal spellings.
func severityName(s string) string {
	switch {
	case strings.Contains(s, "Non-Fatal"):
		return AERNonFatal
	case strings.Contains(s, "Fatal"):
		return AERFatal
	}
	return AERCorrectable
}

func addr(s string) pcie.Address {
	a, err := pcie.ParseAddress(s)
	if err != nil {
		return ""
	}
	return a
}

// idToAddress converts the "id=00e8" requester ID of older AER messages
// (bus<<8 | device<<3 | function) to an address in the reporter's domain.
func idToAddress(domain string, id string) pcie.Address {
	v, err := strconv.ParseUint(id, 16, 16)
	if err != nil {
		return ""
	}
	return addr(fmt.Sprintf("%s:%02x:%02x.%d", domain, v>>8, (v&0xff)>>3, v&7))
}

// Classify recognises the events of one record; most records give none.
// A driver's failure line no pattern knows is a KindDriverError event.
func Classify(r Record) []Event {
	p, m := match(r.Text)
	if p == nil {
		if e, ok := driverErrorClass(r.Text); ok {
			e.Record = r
			return []Event{e}
		}
		return nil
	}
	return []Event{p.event(r, m)}
}

// Events classifies every record of a log, in order. A "The NVIDIA GPU
// <bdf>" line followed within three records by "fallen off the bus" (a
// multi-line message a journal split into lines) counts as one event.
func Events(recs []Record) []Event {
	var out []Event
	c := NewClassifier()
	for _, r := range recs {
		out = append(out, c.Add(r)...)
	}
	return append(out, c.Flush()...)
}

// Classifier classifies the records of one log in order, as Events does,
// one record at a time: what it keeps between records is a few fields,
// and the classes of recent message texts (a flood repeats one message).
type Classifier struct {
	pending     pcie.Address
	pendingLeft int
	cperSev     string
	cperLeft    int
	// cperPCIeLeft counts down the records of a CPER PCIe section
	// ("section_type: PCIe error"); ffDev is the device a firmware-first
	// error was reported for from its section, whose aer_layer line
	// (printed when the firmware passed the AER registers) is the same
	// error, within ffLeft records.
	cperPCIeLeft int
	ffDev        pcie.Address
	ffLeft       int
	lastMlx5     pcie.Address
	// suppressed is the count of the last rate-limit note for the mlx5
	// command error message, for the next such message within
	// suppressedLeft records.
	suppressed     int
	suppressedLeft int
	seen           map[string]*textClass
	// dumpDev is the RDMA device of an error CQE being dumped, for its
	// hex lines within dumpLeft records (cqedump.go).
	dumpDev  string
	dumpLeft int
	// linkCapDev and linkCap are the device and text of the last
	// driver link capability line, for the status line after it.
	linkCapDev pcie.Address
	linkCap    string
	// oops is the kernel crash report being read (oops.go); goingDown
	// says the log said the host was shutting down or rebooting.
	oops      oopsState
	goingDown bool
	// refcount is the last refcount_t saturation message read
	// (lib/refcount.c), for the WARN_ON splat printed after it.
	refcount string
	// warnMsg is the first line after a "cut here" marker, for the
	// WARN_ON header within warnLeft records after it.
	warnMsg  string
	cutHere  bool
	warnLeft int
	out      [2]Event // what Add returns, reused
	// oopsDone and cqeEv are where oopsLine and cqeDump leave an event:
	// an Event is 600 bytes, too big to return by value on every record.
	oopsDone, cqeEv Event
}

// textClass is what the patterns say about one message text.
type textClass struct {
	p         *Pattern
	ev        Event        // the pattern's event without its record
	cper      string       // the CPER severity the text sets, "" when none
	cperPCIe  bool         // a CPER "section_type: PCIe error" line
	cperOther bool         // a CPER section of another type
	cperDev   pcie.Address // a CPER PCIe section's "device_id: <bdf>"
	mlx5      pcie.Address
	nvrmGPU   pcie.Address // the GPU of an NVRM line that is not an event
	cmdSupp   int          // the count of an mlx5 command error rate-limit note
	// drvErr is the KindDriverError event of a text no pattern took
	// (drivererr.go), nil for most texts.
	drvErr *Event
}

// maxSeen bounds the texts a Classifier remembers; maxSeenText the
// length of one.
const (
	maxSeen     = 4096
	maxSeenText = 512
)

// NewClassifier returns a classifier for one log.
func NewClassifier() *Classifier {
	return &Classifier{seen: map[string]*textClass{}}
}

func (c *Classifier) class(text string) *textClass {
	if tc, ok := c.seen[text]; ok {
		return tc
	}
	tc := &textClass{}
	var m []string
	if tc.p, m = match(text); tc.p != nil {
		tc.ev = tc.p.event(Record{}, m)
	}
	if strings.Contains(text, "[Hardware Error]") {
		if m := reCPERSev.FindStringSubmatch(text); m != nil {
			tc.cper = map[string]string{"corrected": AERCorrectable, "recoverable": AERNonFatal, "fatal": AERFatal}[m[1]]
		}
		if _, sec, ok := strings.Cut(text, "section_type: "); ok {
			tc.cperPCIe, tc.cperOther = strings.HasPrefix(sec, "PCIe error"), !strings.HasPrefix(sec, "PCIe error")
		}
		if m := reCPERDevice.FindStringSubmatch(text); m != nil {
			tc.cperDev = addr(m[1])
		}
	}
	if strings.Contains(text, "mlx5_core ") {
		if m := reMlx5Addr.FindStringSubmatch(text); m != nil {
			tc.mlx5 = addr(m[1])
		}
	}
	if tc.p == nil && strings.Contains(text, "callbacks suppressed") {
		if m := reCmdSuppressed.FindStringSubmatch(text); m != nil {
			tc.cmdSupp, _ = strconv.Atoi(m[1])
		}
	}
	if tc.p == nil && strings.Contains(text, "NVRM:") {
		if m := reGPUAddr.FindStringSubmatch(text); m != nil {
			tc.nvrmGPU = addr(m[1])
		}
	}
	if tc.p == nil {
		if ev, ok := driverErrorClass(text); ok {
			tc.drvErr = &ev
		}
	}
	if len(text) <= maxSeenText {
		if len(c.seen) >= maxSeen {
			clear(c.seen)
		}
		c.seen[text] = tc
	}
	return tc
}

// Add returns the events of the next record of the log (most give none).
// The slice is valid until the next call: it is reused, so that a log of
// millions of events allocates none for them. A kernel crash report is
// given when it ends, so call Flush at the end of the log.
func (c *Classifier) Add(r Record) []Event {
	ended := c.oopsLine(r)
	evs := c.add(r)
	if !ended {
		return evs
	}
	if len(evs) == 0 {
		c.out[0] = c.oopsDone
		return c.out[:1]
	}
	// evs is c.out[:1]: the report began on an earlier record.
	c.out[1] = c.out[0]
	c.out[0] = c.oopsDone
	return c.out[:2]
}

func (c *Classifier) add(r Record) []Event {
	tc := c.class(r.Text)
	if tc.cper != "" {
		c.cperSev, c.cperLeft = tc.cper, 20
	} else if c.cperLeft > 0 {
		c.cperLeft--
	}
	var evs []Event
	if tc.p != nil {
		c.out[0] = tc.ev
		c.out[0].Record = r
		evs = c.out[:1]
	}
	if tc.cperPCIe {
		c.cperPCIeLeft = 12
	} else if tc.cperOther {
		c.cperPCIeLeft = 0
	} else if c.cperPCIeLeft > 0 {
		c.cperPCIeLeft--
	}
	if c.ffLeft > 0 {
		c.ffLeft--
	}
	if tc.cperDev != "" && c.cperPCIeLeft > 0 && len(evs) == 0 {
		// A firmware-first PCIe error, reported by the CPER section alone
		// (the firmware may pass no AER registers, so no aer_layer line).
		sev := AERNonFatal
		if c.cperLeft > 0 {
			sev = c.cperSev
		}
		c.out[0] = Event{Kind: KindAER, Record: r, PCI: tc.cperDev, AERSeverity: sev, AERDetail: true, Detail: "firmware-first"}
		evs = c.out[:1]
		c.cperPCIeLeft = 0
		c.ffDev, c.ffLeft = tc.cperDev, 20
		return evs
	}
	if tc.mlx5 != "" {
		c.lastMlx5 = tc.mlx5
	}
	if tc.cmdSupp > 0 {
		c.suppressed, c.suppressedLeft = tc.cmdSupp, 4
	} else if c.suppressedLeft > 0 {
		c.suppressedLeft--
	}
	if len(evs) == 1 && evs[0].Kind == KindPCIeLinkReport {
		if evs[0].Detail == "capability" {
			c.linkCapDev, c.linkCap = evs[0].PCI, evs[0].LimitedBy
			return nil
		}
		capOf := c.linkCap
		if c.linkCapDev != evs[0].PCI || !linkBelow(evs[0].LimitedBy, capOf) {
			return nil
		}
		c.linkCapDev = ""
		evs[0].CapableOf = capOf
	}
	for i := range evs {
		if evs[i].Kind == KindHealth && evs[i].HealthClass == HealthCommand && c.suppressedLeft > 0 {
			evs[i].Suppressed = c.suppressed
			c.suppressedLeft = 0
		}
		if evs[i].Kind == KindHealth && evs[i].PCI == "" {
			evs[i].PCI = c.lastMlx5 // "mlx5_core.eth: probe of mlx5_core.eth.2 failed": the function probed last
		}
		if evs[i].Kind == KindAER && evs[i].Detail == "firmware-first" && c.cperLeft > 0 {
			evs[i].AERSeverity = c.cperSev
		}
		if evs[i].Kind == KindAER && evs[i].Detail == "firmware-first" && c.ffLeft > 0 && evs[i].PCI == c.ffDev {
			// The aer_layer line of the error its section reported.
			c.ffLeft = 0
			return nil
		}
	}
	if len(evs) == 0 && strings.Contains(r.Text, "NVRM:") {
		if tc.nvrmGPU != "" {
			c.pending, c.pendingLeft = tc.nvrmGPU, 3
			return c.driverError(r, tc)
		}
		if c.pendingLeft > 0 && strings.Contains(r.Text, "fallen off the bus") {
			c.out[0] = Event{Kind: KindFallenOffBus, Record: r, PCI: c.pending, Detail: "GPU has fallen off the bus"}
			evs = c.out[:1]
			c.pendingLeft = 0
		}
	}
	if c.pendingLeft > 0 {
		c.pendingLeft--
	}
	if c.cqeDump(r, tc, &c.cqeEv) && len(evs) == 0 {
		c.out[0] = c.cqeEv
		evs = c.out[:1]
	}
	if len(evs) == 0 {
		return c.driverError(r, tc)
	}
	return evs
}

// driverError gives the catch-all event of a record nothing else took;
// a line inside a crash report is the report's, not one of its own.
func (c *Classifier) driverError(r Record, tc *textClass) []Event {
	if tc.drvErr == nil || c.oops.open {
		return nil
	}
	c.out[0] = *tc.drvErr
	c.out[0].Record = r
	return c.out[:1]
}
