package nccllog

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Log is a parsed NCCL_DEBUG=INFO log of one or many ranks (one file may
// hold the interleaved output of every process of a job).
type Log struct {
	Source string `json:"source"`
	// Version is the NCCL version ("2.19.3+cuda12.3"), "" when not logged.
	Version string `json:"version,omitempty"`
	// Procs are the processes seen, keyed by host and pid, in first-seen
	// order. Lines without a "host:pid:tid" prefix belong to a process
	// with an empty host.
	Procs []*Proc `json:"procs"`
	// Events are the warnings that rules judge, in line order.
	Events []Event `json:"events,omitempty"`
	// NCCLLines counts lines that carried an NCCL prefix.
	NCCLLines int `json:"nccl_lines"`
	// ProgramBW are the bus bandwidths the program printed in its own
	// words beside the log (programbw.go).
	ProgramBW []ProgramBW `json:"program_bw,omitempty"`
	// Instance is the first cloud GPU instance type with an accelerated
	// network that a line names (cloud.go), nil when none.
	Instance *Instance `json:"instance,omitempty"`
}

// Proc is what one process logged about its setup.
type Proc struct {
	// Source is the file the process logged to (logs merged with
	// Merge keep where each line came from).
	Source string `json:"source"`
	Host   string `json:"host,omitempty"`
	Pid    int    `json:"pid,omitempty"`
	// Ranks are the communicator ranks of this process ("comm 0x… rank R
	// nranks N … Init COMPLETE"); one process may drive several GPUs.
	Ranks  []int `json:"ranks,omitempty"`
	NRanks int   `json:"nranks,omitempty"`
	// MaxNRanks is the size of the largest communicator the process
	// logged, MaxRanks its ranks in communicators of that size: a job
	// that also builds smaller ones (tensor-parallel groups) keeps its
	// world ranks apart from theirs.
	MaxNRanks int   `json:"max_nranks,omitempty"`
	MaxRanks  []int `json:"max_ranks,omitempty"`
	// NNodes is the node count of the communicator ("comm 0x… rank 0
	// nRanks 2 nNodes 1 …", NCCL 2.12 and later), 0 when not logged;
	// NNodesLine is where.
	NNodes     int `json:"nnodes,omitempty"`
	NNodesLine int `json:"nnodes_line,omitempty"`
	// Network is what "Using network X" said: "IB", "Socket" or a plugin
	// name; "" when the line is absent (older NCCL).
	Network     string `json:"network,omitempty"`
	NetworkLine int    `json:"network_line,omitempty"`
	// NetworkText is that line's message ("Using network Socket",
	// NCCL 2.3's "Using internal Network Socket").
	NetworkText string `json:"network_text,omitempty"`
	// IBDevices are from "NET/IB : Using [0]mlx5_0:1/IB [1]…".
	IBDevices []IBDevice `json:"ib_devices,omitempty"`
	IBLine    int        `json:"ib_line,omitempty"`
	// IBNoDevice is the line of "NET/IB : No device found." (NCCL 2.3:
	// "Net/IB: call to devices() returned 0 devices."), 0 when absent;
	// IBNoDeviceText is that message.
	IBNoDevice     int    `json:"ib_no_device,omitempty"`
	IBNoDeviceText string `json:"ib_no_device_text,omitempty"`
	// InitFailed is the line of the first error return through
	// communicator setup: NCCLCHECK (include/checks.h) logs "init.cc:1534
	// -> 2" (init.cu, bootstrap.cc/.cu likewise) as a failed call's
	// result climbs out of ncclCommInitRank; 0 when absent. InitCode is
	// that ncclResult_t (2 ncclSystemError …), InitFailedText the message.
	InitFailed     int    `json:"init_failed,omitempty"`
	InitCode       int    `json:"init_code,omitempty"`
	InitFailedText string `json:"init_failed_text,omitempty"`
	// ErrReturn is the line of the first error return of any file
	// ("include/net.h:25 -> 2", "transport/net.cc:515 -> 2", "proxy.cc:1519
	// -> 6"): a call inside NCCL failed and its error climbed out of the
	// function that logged it; 0 when absent. ErrCode and ErrReturnText
	// are its ncclResult_t and message.
	ErrReturn     int    `json:"err_return,omitempty"`
	ErrCode       int    `json:"err_code,omitempty"`
	ErrReturnText string `json:"err_return_text,omitempty"`
	// ErrTraces counts the process's error return lines: a failed call
	// that climbs out logs one per NCCLCHECK level ("net_ib.cc:652 -> 2",
	// "net.cc:… -> 2", "init.cc:… -> 2"); a probe whose caller tests the
	// result itself logs one.
	ErrTraces int `json:"err_traces,omitempty"`
	// WentOn is the line after ErrReturn where the same process shows
	// its setup going on ("Using network IB", "Init COMPLETE", "Connected
	// all rings", a channel's "via NET/…"); 0 when none. A single trace
	// followed by such a line is an error its caller caught: RCCL's
	// ncclIbDmaBufSupport (src/transport/net_ib.cc) logs
	// "net_ib.cc:652 -> 2" through NCCLCHECKGOTO(rocmLibraryInit()) when
	// DMA-BUF is off (NCCL_DMABUF_ENABLE unset) and ncclIbGetProperties
	// then leaves NCCL_PTR_DMABUF out and goes on.
	WentOn     int    `json:"went_on,omitempty"`
	WentOnText string `json:"went_on_text,omitempty"`
	// NetPlugin is the external net plugin the process shows: "Loaded net
	// plugin NAME" of NET/Plugin, or the first line of a plugin's own
	// "NET/<name>" prefix (NET/OFI, NET/IBext, NET/AWS…); NetPluginLine
	// is that line. "" when the log shows none: NCCL's own IB and Socket
	// transports, or a log cut before the plugin spoke.
	NetPlugin     string `json:"net_plugin,omitempty"`
	NetPluginLine int    `json:"net_plugin_line,omitempty"`
	// OFIProvider is the libfabric provider aws-ofi-nccl selected
	// ("NET/OFI Selected Provider is tcp;ofi_rxm", newer "Selected
	// provider is efa, fabric is efa-direct (found 4 nics)"): "efa",
	// "tcp;ofi_rxm"; OFIProviderLine is that line, 0 when absent.
	OFIProvider     string `json:"ofi_provider,omitempty"`
	OFIProviderLine int    `json:"ofi_provider_line,omitempty"`
	// OFINICs is the count of that line's "(found 4 nics)": the
	// fi_getinfo entries of the selected provider, one per NIC the
	// process sees; 0 when the line has none.
	OFINICs int `json:"ofi_nics,omitempty"`
	// OFIPlatform is the EC2 instance type aws-ofi-nccl names in "NET/OFI
	// Running on p4d.24xlarge platform, …" (src/platform-aws.cpp; 2020
	// releases "Running on P4d platform, …"); OFIPlatformLine is that
	// line, 0 when absent.
	OFIPlatform     string `json:"ofi_platform,omitempty"`
	OFIPlatformLine int    `json:"ofi_platform_line,omitempty"`
	// NoVerbs is the line of "Failed to open libibverbs.so[.1]": the image
	// lacks rdma-core, so NCCL cannot use IB at all; 0 when absent.
	NoVerbs int `json:"no_verbs,omitempty"`
	// BootstrapLo is the line of "Bootstrap : Using [0]lo:127.0.0.1<0>"
	// (NCCL 2.19+: "Bootstrap: Using lo:127.0.0.1<0>") when every address
	// the process bootstraps on is a loopback one (127.0.0.0/8, ::1); 0
	// otherwise. NCCL's bootstrapNetInit (src/bootstrap.cc) falls back to
	// lo when it finds no other interface.
	BootstrapLo int `json:"bootstrap_lo,omitempty"`
	// SocketIfs are from "NET/Socket : Using [0]eth0:10.0.0.1<0> …".
	SocketIfs  []string `json:"socket_ifs,omitempty"`
	SocketLine int      `json:"socket_line,omitempty"`
	// SocketLo is set when every address of the last "NET/Socket : Using"
	// line is a loopback one ("NET/Socket : Using [0]lo:127.0.0.1<0>",
	// NCCL_SOCKET_IFNAME=lo): no other host can reach that transport.
	SocketLo bool `json:"socket_lo,omitempty"`
	// NetIfs are the interfaces of NCCL 2.3's findInterfaces
	// (src/include/socket.h: "NET : Using interface ib0:12.12.12.102<0>"),
	// which chose the addresses of the bootstrap and of the socket
	// transport; each once, at its first line.
	NetIfs []NetIf `json:"net_ifs,omitempty"`
	// Sideband is the interface NCCL 2.3's IB transport named for its
	// out-of-band connection setup (src/transport/net_ib.cu initDevices:
	// "NET/IB : Using interface ib0 for sideband communication"), printed
	// before it looks for devices; SidebandLine is where.
	Sideband     string `json:"sideband,omitempty"`
	SidebandLine int    `json:"sideband_line,omitempty"`
	// IBDisable is the value of "NCCL_IB_DISABLE set by environment to N."
	// (-1 when not logged) and its line.
	IBDisable     int `json:"ib_disable"`
	IBDisableLine int `json:"ib_disable_line,omitempty"`
	// GDR lists "GPU Direct RDMA Enabled/Disabled for HCA n 'name'" of the
	// IB transport.
	GDR []GDRState `json:"gdr,omitempty"`
	// Channels is the channel count from "Channel 00/08 : …" lines.
	Channels int `json:"channels,omitempty"`
	// Trees is set when the log shows tree connections ("Trees [0] …").
	Trees bool `json:"trees,omitempty"`
	// Via counts network connections by transport: "NET/IB", "NET/IB/GDRDMA",
	// "NET/Socket", or a plugin name.
	Via map[string]int `json:"via,omitempty"`
	// ViaIBDevs has bit N set when a connection went over NET/IB device N
	// ("via NET/IB/N", N the index in the "NET/IB : Using" list; 0..63).
	ViaIBDevs uint64 `json:"via_ib_devs,omitempty"`
	// ViaNoGDRLine and ViaNoGDRText are the first connection line over
	// NCCL's IB transport without "/GDRDMA" ("Channel 00/0 : 1[0] -> 0[0]
	// [receive] via NET/IB/1"): that connection stages its data through
	// host memory. 0 and "" when none.
	ViaNoGDRLine int    `json:"via_no_gdr_line,omitempty"`
	ViaNoGDRText string `json:"via_no_gdr_text,omitempty"`
	// RingGDR is the GDR flag of "Connected all rings, use ring PXN 0 GDR
	// 0" (NCCL 2.19+): whether the communicator uses GPU Direct RDMA.
	// RingGDRLine is its line (0 when not logged), RingGDRText the message.
	RingGDR     bool   `json:"ring_gdr,omitempty"`
	RingGDRLine int    `json:"ring_gdr_line,omitempty"`
	RingGDRText string `json:"ring_gdr_text,omitempty"`
	// DMABuf is the line of "DMA-BUF is available on GPU device N" (0
	// when absent), DMABufText its message: the GPU can export its
	// memory to the NIC without nvidia-peermem.
	DMABuf     int    `json:"dmabuf,omitempty"`
	DMABufText string `json:"dmabuf_text,omitempty"`
	// Env holds "NCCL_X set by environment to V" (NCCL_ALGO, NCCL_PROTO,
	// NCCL_IB_HCA, …): the overrides that explain many performance
	// complaints.
	Env map[string]string `json:"env,omitempty"`
	// FirstLine is the first line of this process.
	FirstLine int `json:"first_line"`
	// ConnRetry is the process's last run of connect retries (see
	// ConnRetry); nil when it printed none.
	ConnRetry *ConnRetry `json:"conn_retry,omitempty"`
}

// NetIf is one "NET : Using interface NAME:ADDR" of NCCL 2.3.
type NetIf struct {
	Name string `json:"name"`
	Addr string `json:"addr"`
	Line int    `json:"line"`
}

// IBDevice is one entry of "NET/IB : Using": device, port, link layer.
type IBDevice struct {
	Name      string `json:"name"`
	Port      int    `json:"port"`
	LinkLayer string `json:"link_layer"` // IB or RoCE
}

// GDRState is one "GPU Direct RDMA … for HCA" line.
type GDRState struct {
	HCA     string `json:"hca"`
	Enabled bool   `json:"enabled"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
}

// EventKind classifies an Event.
type EventKind string

// Event kinds.
const (
	EventCompletion EventKind = "completion" // NET/IB work-completion error
	EventResource   EventKind = "resource"   // a verbs call failed
	EventTimeout    EventKind = "timeout"    // watchdog or NCCL timeout
	EventWarn       EventKind = "warn"       // any other NCCL WARN
	// EventAsync is an ibv async event NCCL's async thread printed
	// (net_ib: "NET/IB : [mlx5_0:1 ]Got async event : port error",
	// "… Got non-fatal async event: port error(10)", "… async fatal
	// event[ on QP (…) …]: local catastrophic error", "… GID table
	// changed"): Async is libibverbs' ibv_event_type_str text, HCA and
	// Port the device when printed.
	EventAsync EventKind = "async"
	// EventConnect is a TCP connection to a peer that failed (bootstrap
	// or NET/Socket, include/socket.h and misc/socket.cc: "Connect to
	// 192.168.80.157<34630> failed : No route to host",
	// "socketStartConnect: Connect to … failed : Connection refused"):
	// Peer is the address without its port, Error the errno text. A
	// socket call that failed without naming a peer ("Call to recv
	// failed : Connection reset by peer", "Net : Socket creation failed
	// : Address family not supported by protocol") is one too: Call is
	// the call ("recv", "socket"), Peer "" unless the line names one.
	EventConnect EventKind = "connect"
	// EventFailed is a program's report that an NCCL or CUDA call
	// returned an error and it stops (nccl-tests' NCCLCHECK and
	// CUDACHECK: "gpu5: Test NCCL failure common.cu:343 'unhandled cuda
	// error'"): Call is "NCCL" or "CUDA", Error the error string, Host
	// the host it names.
	EventFailed EventKind = "failed"
	// EventDuplicateGPU is init.cc's refusal of a communicator two of
	// whose ranks sit on one GPU ("Duplicate GPU detected : rank 0 and
	// rank 1 both on CUDA device 1000"): ncclCommInitRank returns
	// ncclInvalidUsage and the job cannot start. Rank is the rank that
	// printed it, Peer the other rank, BusID the GPU's PCI address.
	EventDuplicateGPU EventKind = "duplicate_gpu"
	// EventIBGDAFallback is NVSHMEM's report that its IBGDA transport
	// (GPU-initiated RDMA, which DeepEP and the MoE kernels of SGLang and
	// vLLM use) cannot let the GPU ring a NIC's doorbell and falls back
	// to a CPU proxy or skips the NIC (see ibgdaFallback). HCA is the
	// device when the line names it.
	EventIBGDAFallback EventKind = "ibgda_fallback"
	// EventIBGDAInitFailed is NVSHMEM's report that its IBGDA transport
	// could not be initialised at all (src/host/transport/transport.cpp
	// nvshmemi_transport_init: "init failed for transport: IBGDA"): no
	// GPU-initiated RDMA, and the kernels that need it cannot run.
	EventIBGDAInitFailed EventKind = "ibgda_init_failed"
	// EventTraceback is the head of a Python traceback a rank printed
	// under its launcher's "[rankN]:" tag ("[rank0]: Traceback (most
	// recent call last):", torchrun's per-rank output prefix): that rank
	// raised an exception. Rank is N.
	EventTraceback EventKind = "traceback"
)

// Event is one warning line that rules judge.
type Event struct {
	Kind   EventKind `json:"kind"`
	Source string    `json:"source"`
	Line   int       `json:"line"`
	Host   string    `json:"host,omitempty"`
	Pid    int       `json:"pid,omitempty"`
	Text   string    `json:"text"`

	// Completion errors: "Got completion from peer P with status=S
	// opcode=O len=L vendor err V (Req) … hca H".
	Peer      string   `json:"peer,omitempty"`
	Status    WCStatus `json:"status,omitempty"`
	Opcode    int      `json:"opcode,omitempty"`
	VendorErr int      `json:"vendor_err,omitempty"`
	HCA       string   `json:"hca,omitempty"`
	Req       string   `json:"req,omitempty"`

	// Net is "OFI" for the events of the aws-ofi-nccl net plugin (see
	// ofiWarn): its completion errors carry RC, the libfabric error
	// number (fi_cq_err_entry.err, an errno), not an ibv_wc_status, and
	// Req the request's direction (SEND, RECV) when printed; its
	// resource errors name a libfabric call (fi_getinfo, fi_av_open …).
	Net string `json:"net,omitempty"`
	RC  int    `json:"rc,omitempty"`

	// Async events: the event's text ("port error"), and the port of
	// HCA (0 when not printed).
	Async string `json:"async,omitempty"`
	Port  int    `json:"port,omitempty"`

	// Resource errors: "Call to ibv_reg_mr failed with error E". The IB
	// transport's "NET/IB : Unable to open device D" is one too, Call
	// "ibv_open_device" and HCA D.
	Call  string `json:"call,omitempty"`
	Error string `json:"error,omitempty"`
	// A failed ibv_modify_qp of NCCL 2.24 and later names the QP and
	// its address (misc/ibvwrap.cc, ibvModifyQpLog): "… failed with 61
	// No data available, on dev roceP2p1s0f0:1, curr state INIT, next
	// state RTR, local GID index 3, local GID ::, remote GID …". HCA and
	// Port are the device and port, CurrState and NextState the
	// transition, GIDIndex the source GID index and LocalGID the GID
	// NCCL read at it (inet_ntop's text, "N/A" when it could not read
	// it; "" when the line does not print it, and GIDIndex is then 0).
	CurrState string `json:"curr_state,omitempty"`
	NextState string `json:"next_state,omitempty"`
	GIDIndex  int    `json:"gid_index,omitempty"`
	LocalGID  string `json:"local_gid,omitempty"`

	// Timeouts: PyTorch "[Rank R] Watchdog caught collective operation
	// timeout: WorkNCCL(SeqNum=S, OpType=O, …, Timeout(ms)=T) ran for M
	// milliseconds". Rank is -1 when the line does not say.
	Rank      int    `json:"rank"`
	SeqNum    int64  `json:"seq_num,omitempty"`
	OpType    string `json:"op_type,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
	RanForMS  int64  `json:"ran_for_ms,omitempty"`

	// Heartbeat is PyTorch's heartbeat monitor report that the
	// ProcessGroupNCCL watchdog thread itself stopped ("ProcessGroupNCCL's
	// watchdog got stuck for 480 seconds without making progress in
	// monitoring enqueued collectives", PyTorch 2.3+; "Heartbeat monitor
	// timed out!" before): an NCCL or CUDA call it waits on never
	// returned. StuckS is the seconds it names (0 when it names none).
	Heartbeat bool  `json:"heartbeat,omitempty"`
	StuckS    int64 `json:"stuck_s,omitempty"`

	// BusID is the PCI address ("0000:01:00.0") of the GPU a duplicate
	// GPU event names.
	BusID string `json:"bus_id,omitempty"`

	// Watchdog is set on a CUDA error (Call "CUDA") that PyTorch's
	// ProcessGroupNCCL raised while it watched the GPU work of NCCL
	// ("terminate called after throwing an instance of 'c10::CUDAError'
	// / what(): CUDA error: unknown error" above the frames of
	// ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal and
	// workCleanupLoop, or "Process group watchdog thread terminated with
	// exception: CUDA error: …"): the process died on a fault of its GPU.
	Watchdog bool `json:"watchdog,omitempty"`
	// Tag is the launcher's tag of the process that printed the event,
	// torchrun's "[default3]:" (role and local rank) as "default3"; ""
	// when the line has none.
	Tag string `json:"tag,omitempty"`

	// Retries and RetryLimit are, for a connect that failed after NCCL
	// retried it (see ConnRetry), the retries the log shows (the last
	// attempt number printed, or the retry lines) and the budget printed
	// with them (0 when the wording prints none).
	Retries    int `json:"retries,omitempty"`
	RetryLimit int `json:"retry_limit,omitempty"`

	// Repeats counts later events of the same kind and subject that a
	// folding Parser did not keep (their lines and texts are not kept):
	// rules count the event 1 + Repeats times.
	Repeats int `json:"repeats,omitempty"`
}

// Weight is how many events e stands for: itself and its Repeats.
func (e Event) Weight() int { return 1 + e.Repeats }

var (
	reVersion   = regexp.MustCompile(`(?:^|NCCL INFO |^)NCCL version (\S+)`)
	reIBUsing   = regexp.MustCompile(`^NET/IB ?: Using (.*)$`)
	reIBDev     = regexp.MustCompile(`\[(\d+)\]([^:\s\[\]]+):(\d+)/(IB|RoCE)`)
	reSockUsing = regexp.MustCompile(`^NET/Socket ?: Using (.*)$`)
	reSockIf    = regexp.MustCompile(`\[\d+\]([^:\s]+):`)
	reNetwork   = regexp.MustCompile(`^Using network (.+?)\s*$`)
	reIBDisable = regexp.MustCompile(`NCCL_IB_DISABLE set by environment to (\d+)`)
	reGDR       = regexp.MustCompile(`^NET/(IB|[^:/]*?) ?: GPU Direct RDMA (?:\([^)]*\) )?(Enabled|enabled|Disabled|disabled) for (?:GPU \S+ / )?HCA (\d+)(?: '([^']*)')?`)
	reVia       = regexp.MustCompile(`via NET/([^/\s]+)/\d+(/GDRDMA)?`)
	reCompl     = regexp.MustCompile(`Got completion (?:from peer (\S+) )?with (?:error |status=)(?:[^()=,]*\()?(\d+)\)?`)
	reOpcode    = regexp.MustCompile(`opcode[ =](?:[^()=,]*\()?(\d+)`)
	reVendor    = regexp.MustCompile(`vendor[ _]err[ =]?(\d+)`)
	reReq       = regexp.MustCompile(`\((Send|Recv|Flush|Read|Write|Unknown)\)`)
	reHCA       = regexp.MustCompile(` hca (\S+)`)
	// reCall ends at the line's end, where a paste may close a quote
	// around the message ("…ibv_create_qp failed“"). NCCL 2.19 and later
	// write the errno number before its text and the QP transition after
	// it: "failed with 110 Connection timed out, on dev mlx5_1:1, curr
	// state INIT, next state RTR, …".
	reCall = regexp.MustCompile(`Call to (ibv_\w+) failed(?: with (?:error )?(?:\d+ )?(.+?))?(?:, on dev .*)?[\s"'“”‘’.)\]]*$`)
	// reQPLog is ibvModifyQpLog's text after a failed ibv_modify_qp
	// (misc/ibvwrap.cc, NCCL 2.24 and later): "on dev %s:%d, curr state
	// %s, next state %s, local GID index %d, local GID %s, remote GID %s".
	// A paste may end it early; it is read as far as it goes.
	reQPLog = regexp.MustCompile(`, on dev (\S+?):(-?\d+)(?:, curr state (\w+), next state (\w+)(?:, local GID index (-?\d+)(?:, local GID ([^,\s]+))?)?)?`)
	// reLegacy is a line of NCCL 2.0-2.3, which printed no "NCCL" before
	// the level: "host:pid:tid [dev] INFO msg", "host:pid:tid [dev]
	// misc/ibvwrap.cu:269 WARN msg" (the host field as pasted: "machine
	// [0] …" where the poster hid it).
	// reAsync is a line of NCCL's ibv async event thread (transport/net_ib
	// ncclIbAsyncThreadMain, every wording since 2.0).
	reAsync = regexp.MustCompile(`NET/IB ?: (?:([^\s:]+):(\d+) )?(?:Got (?:non-fatal )?async (?:error )?event ?: ?|async fatal event(?: on \w+ \([^)]*\)[^:]*)?: )(.+?)(?:\(\d+\)| event type: \d+.*)?[\s"'“”‘’.)\]]*$`)
	// reGIDChanged is the GID table change NCCL words on its own.
	reGIDChanged = regexp.MustCompile(`NET/IB ?: ([^\s:]+):(\d+) GID table changed`)
	// reAsyncUnknown is an event NCCL's thread does not name: "NET/IB :
	// mlx5_0:1 unknown event type (22)".
	reAsyncUnknown = regexp.MustCompile(`NET/IB ?: ([^\s:]+):(\d+) unknown event type \((\d+)\)`)
	reLegacy       = regexp.MustCompile(`^(\S+) \[\d+\] (?:[\w./-]+\.(?:cu|cc|c|h):\d+ (WARN)|(INFO)) (.*)$`)
	reWatchdog     = regexp.MustCompile(`(?:\[Rank (\d+)\] )?Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+).*?Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds`)
	// reConnect is a failed connect to a peer: include/socket.h and
	// misc/socket.cc "Connect to ADDR failed : ERR", and misc/socket.cc
	// socketPollConnect (newer releases) "socketPollConnect: Connect to ADDR
	// returned 113(No route to host) errno 115(Operation now in
	// progress)", whose first errno is the connect's result (the second
	// is what errno held, EINPROGRESS of the non-blocking connect).
	reConnect = regexp.MustCompile(`\bConnect to (\S+?)(?:<\d+>)? (?:failed ?: ?(.+?)|returned -?\d+\(([^)]*)\).*?)\s*$`)
	// reSockCall is a socket system call that failed: NCCL's SYSCHECK
	// macros (include/socket.h, include/checks.h) print "Call to NAME
	// failed : strerror(errno)" ("Call to recv failed : Connection
	// reset by peer", NCCL 2.0-2.x socketProgress), newer releases "Net :
	// Call to recv from ADDR failed : ERR"; createListenSocket and
	// ncclSocketListen print "Net : Socket creation failed : ERR".
	reSockCall = regexp.MustCompile(`\bCall to (recv|send|connect|accept|bind|listen|socket|setsockopt|getsockname|poll)(?: (?:from|to) (\S+?)(?:<\d+>)?)? failed ?: ?(.+?)\s*$|\bSocket creation failed ?: ?(.+?)\s*$`)
	// reClosed is socketProgress's read of 0 bytes where it expected data:
	// "Net : Connection closed by remote peer" (include/socket.h),
	// "socketProgress: Connection closed by remote peer HOST<PORT>"
	// (misc/socket.cc).
	reClosed = regexp.MustCompile(`\bConnection closed by remote peer(?: (\S+?)(?:<\d+>)?)?\s*$`)
	// reBadFamily is misc/socket.cc's refusal to connect to a peer
	// address that is no IP address ("Net : connecting to address  with
	// family 33621 is neither AF_INET(2) nor AF_INET6(10)"): the address
	// came from a unique ID or bootstrap message that is not NCCL's.
	reBadFamily = regexp.MustCompile(`\bconnecting to address\s*(\S*)\s+with family (\d+) is neither AF_INET`)
	reTimeout   = regexp.MustCompile(`(?i)\btime(?:d)? ?out\b`)
	// reAnyRank finds the rank of a PyTorch line that does not put it
	// right before "Watchdog": "[PG ID 0 PG GUID 0(default_pg) Rank 1]",
	// or the launcher's "[rank1]:" prefix.
	reAnyRank = regexp.MustCompile(`\bRank (\d+)\]|\[rank(\d+)\]:`)
	// reDetected is PyTorch 2.x's "[PG ID 0 … Rank 1] Exception (either an
	// error or timeout) detected by watchdog at work: 808".
	reDetected = regexp.MustCompile(`detected by watchdog at work: (\d+)`)
)

// pyNCCLErrors are ncclResult_t's names as PyTorch, CuPy and Ray raise
// them ("ncclInternalError: Internal check failed."), with the text
// ncclGetErrorString gives each (src/misc/utils.cc).
var pyNCCLErrors = map[string]string{
	"ncclUnhandledCudaError": "unhandled cuda error",
	"ncclSystemError":        "unhandled system error",
	"ncclInternalError":      "internal error",
	"ncclInvalidArgument":    "invalid argument",
	"ncclInvalidUsage":       "invalid usage",
	"ncclRemoteError":        "remote process exited or there was a network error",
}

// pythonNCCLError reads "ncclInternalError: Internal check failed." (a
// launcher's prefix before it, such as Ray's "(LLMEngine pid=…, ip=…)",
// which names the host).
func pythonNCCLError(line string) (Event, bool) {
	i := strings.Index(line, "nccl")
	if i < 0 {
		return Event{}, false
	}
	name, msg, ok := strings.Cut(line[i:], ": ")
	text, known := pyNCCLErrors[name]
	if !ok || !known || i > 0 && isWord(line[i-1]) {
		return Event{}, false
	}
	return Event{Kind: EventFailed, Rank: -1, Host: launcherIP(line[:i]), Call: "NCCL", Error: text + " (" + strings.TrimSpace(msg) + ")", Text: line}, true
}

// pyErrDetail takes the "Last error:" line after a Python NCCL error
// (true: read) and adds the line after it, the detail NCCL gives ("Proxy
// Call to rank 7 failed (Connect)"), to the error; that line is still read
// as any line (false), since it may be an NCCL record of its own (a
// completion error). Any other line ends the error as it is.
func (p *Parser) pyErrDetail(line string) bool {
	t := strings.TrimSpace(stripLauncher(line))
	switch {
	case t == "Last error:" && !p.lastErr:
		p.lastErr = true
		return true
	case p.lastErr && t != "":
		p.pyErr.Error += "; last error: " + t
	}
	p.flushPyErr()
	return false
}

// flushPyErr records the Python NCCL error held.
func (p *Parser) flushPyErr() {
	if p.pyErr != nil {
		p.event(*p.pyErr)
		p.pyErr, p.lastErr = nil, false
	}
}

// stripLauncher cuts a launcher's "(name pid=N, ip=A) " prefix (Ray).
func stripLauncher(line string) string {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "(") {
		if j := strings.Index(t, ") "); j > 0 && strings.Contains(t[:j], "pid=") {
			return t[j+2:]
		}
	}
	return t
}

// launcherIP is the ip= a launcher's prefix names ("" when none).
func launcherIP(prefix string) string {
	_, ip, ok := strings.Cut(prefix, "ip=")
	if !ok {
		return ""
	}
	if j := strings.IndexAny(ip, ",) "); j >= 0 {
		ip = ip[:j]
	}
	return ip
}

// testFailure reads nccl-tests' report of a failed NCCL or CUDA call:
// "HOST: Test NCCL failure FILE:LINE 'error string'" (newer releases add
// " / last error" inside the quotes), "HOST: Test CUDA failure …".
func testFailure(line string) (Event, bool) {
	// One scan for ": Test " (most lines have none), then the call.
	i, call := -1, ""
	for off := 0; ; {
		j := strings.Index(line[off:], ": Test ")
		if j < 0 {
			return Event{}, false
		}
		at := off + j
		rest := line[at+len(": Test "):]
		if strings.HasPrefix(rest, "NCCL failure ") {
			i, call = at, "NCCL"
		} else if strings.HasPrefix(rest, "CUDA failure ") {
			i, call = at, "CUDA"
		}
		if i >= 0 {
			break
		}
		off = at + 1
	}
	rest := line[i+len(": Test NCCL failure "):]
	q := strings.IndexByte(rest, '\'')
	if q < 0 || !strings.HasSuffix(strings.TrimSpace(rest), "'") {
		return Event{}, false
	}
	host := firstField(line[:i])
	if strings.ContainsAny(host, "[]<>") {
		host = "" // a tag or prefix, not the host nccl-tests printed
	}
	msg := strings.TrimSuffix(strings.TrimSpace(rest[q+1:]), "'")
	return Event{Kind: EventFailed, Rank: -1, Host: host, Call: call, Error: msg, Text: strings.TrimSpace(line)}, true
}

// splitNCCLLine splits "host:pid:tid [dev] [file.cc:line] NCCL LEVEL msg".
// Pasted logs drop the host ("[0] NCCL INFO …") or everything before
// "NCCL WARN"; those lines keep an empty host and pid 0. Hand-written
// because it runs on every line of logs that reach gigabytes.
func splitNCCLLine(line string) (host string, pid int, level, msg string, ok bool) {
	rest := line
	off := 0
	for {
		i := strings.Index(rest, "NCCL ")
		if i < 0 {
			return "", 0, "", "", false
		}
		after := rest[i+len("NCCL "):]
		for _, lv := range []string{"INFO", "WARN", "ABORT", "TRACE"} {
			if strings.HasPrefix(after, lv) && (len(after) == len(lv) || after[len(lv)] == ' ') {
				if prose(line[:off+i]) {
					return "", 0, "", "", false
				}
				level, msg = lv, strings.TrimSpace(after[len(lv):])
				if f := firstField(line[:off+i]); f != "" {
					host, pid = splitHostPid(f)
				}
				return host, pid, level, msg, true
			}
		}
		off += i + len("NCCL ")
		rest = after
	}
}

// prose says whether the text before "NCCL LEVEL" is words of a sentence
// ("Sure~ My NCCL INFO log is shown below." above a pasted log) rather
// than a record's prefix: NCCL's own (debug.cc: "host:pid:tid [cudaDev]
// [file.cc:line] "), what pastes keep of it ("[0] ", nothing) and what
// launchers add ("[1,0]<stdout>:", "[default3]:", "0: ", "(Worker
// pid=…)") all hold a colon, bracket, digit or other sign that words and
// sentence punctuation lack.
func prose(prefix string) bool {
	letters := false
	for i := 0; i < len(prefix); i++ {
		switch c := prefix[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= 0x80:
			letters = true
		case c == ' ', c == '\t', c == ',', c == '.', c == ';', c == '!', c == '?', c == '~':
		default:
			return false
		}
	}
	return letters
}

// firstField is strings.Fields(s)[0] without the slice ("" when none).
func firstField(s string) string {
	start := 0
	for start < len(s) && asciiSpace(s[start]) {
		start++
	}
	if start < len(s) && s[start] >= 0x80 {
		return firstFieldUnicode(s)
	}
	for i := start; i < len(s); i++ {
		if asciiSpace(s[i]) {
			return s[start:i]
		}
		if s[i] >= 0x80 {
			return firstFieldUnicode(s)
		}
	}
	return s[start:]
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func firstFieldUnicode(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i]
	}
	return s
}

// splitHostPid reads "host:pid:tid"; anything else gives "", 0.
func splitHostPid(tok string) (string, int) {
	j := strings.LastIndexByte(tok, ':')
	if j <= 0 {
		return "", 0
	}
	i := strings.LastIndexByte(tok[:j], ':')
	if i <= 0 {
		return "", 0
	}
	pid, err := strconv.Atoi(tok[i+1 : j])
	if _, err2 := strconv.Atoi(tok[j+1:]); err != nil || err2 != nil || pid < 0 {
		return "", 0
	}
	return tok[:i], pid
}

// quotedCompletion finds a completion error of the IB transport or a net
// plugin quoted without the NCCL line prefix ("… NET/IBP:Got completion
// from peer 7.6.13.83<36315> with status=12 …" in a sentence) and returns
// it from "NET/IB" on.
func quotedCompletion(line string) (string, bool) {
	i := strings.Index(line, "NET/IB")
	if i < 0 || !strings.Contains(line[i:], "Got completion ") || !reCompl.MatchString(line[i:]) {
		return "", false
	}
	return strings.TrimSpace(line[i:]), true
}

// legacyLine matches an NCCL 2.0-2.3 line (see reLegacy): host, "WARN"
// or "", "INFO" or "", message; nil for any other line.
func legacyLine(line string) []string {
	if !strings.Contains(line, " WARN ") && !strings.Contains(line, " INFO ") {
		return nil
	}
	return reLegacy.FindStringSubmatch(line)
}

// anyRank is the rank a watchdog line names: r when the pattern caught
// it, else "Rank N]" or "[rankN]:" anywhere in the line; -1 when none.
func anyRank(line, r string) int {
	if r == "" {
		if m := reAnyRank.FindStringSubmatch(line); m != nil {
			r = m[1] + m[2]
		}
	}
	if v, err := strconv.Atoi(r); err == nil {
		return v
	}
	return -1
}

// watchdog matches reWatchdog as FindStringSubmatch does, by hand: the
// regexp's lazy ".*?" made it a sixth of a streamed log's CPU.
func watchdog(line string) []string {
	m, _ := findWatchdog(line)
	return m
}

// findWatchdog is watchdog, and whether line holds a report's head at
// all (a report cut short by a wrap has only that), in one scan.
func findWatchdog(line string) (m []string, head bool) {
	for off := 0; ; {
		i := strings.Index(line[off:], watchdogHead)
		if i < 0 {
			return nil, head
		}
		head = true
		start := off + i
		off = start + 1
		if m := watchdogAt(line, start, start+len(watchdogHead)); m != nil {
			return m, true
		}
	}
}

// watchdogAt matches the rest of reWatchdog after its head (line[start:at]).
func watchdogAt(line string, start, at int) []string {
	digits := func(i int) int {
		j := i
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		return j
	}
	seqEnd := digits(at)
	if seqEnd == at || !strings.HasPrefix(line[seqEnd:], ", OpType=") {
		return nil
	}
	opAt := seqEnd + len(", OpType=")
	opEnd := opAt
	for opEnd < len(line) && isWord(line[opEnd]) {
		opEnd++
	}
	if opEnd == opAt {
		return nil
	}
	// ".*?Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds": the first
	// "Timeout(ms)=" past the op type (within the line: "." stops at a
	// newline) that the rest follows; failing that, "\w+" gives back the
	// "Timeout" that ends it.
	end := len(line)
	if nl := strings.IndexByte(line[opEnd:], '\n'); nl >= 0 {
		end = opEnd + nl
	}
	rest := func(t int) (tEnd, r, rEnd int, ok bool) {
		tEnd = digits(t)
		if tEnd == t || !strings.HasPrefix(line[tEnd:], ") ran for ") {
			return 0, 0, 0, false
		}
		r = tEnd + len(") ran for ")
		rEnd = digits(r)
		return tEnd, r, rEnd, rEnd > r && strings.HasPrefix(line[rEnd:], " milliseconds")
	}
	const tm = "Timeout(ms)="
	for off := opEnd; ; {
		j := strings.Index(line[off:end], tm)
		if j < 0 {
			break
		}
		t := off + j + len(tm)
		off = off + j + 1
		if tEnd, r, rEnd, ok := rest(t); ok {
			return watchdogMatch(line, start, at, seqEnd, opAt, opEnd, t, tEnd, r, rEnd)
		}
	}
	if w := opEnd - len("Timeout"); w > opAt && strings.HasPrefix(line[w:], tm) {
		t := w + len(tm)
		if tEnd, r, rEnd, ok := rest(t); ok {
			return watchdogMatch(line, start, at, seqEnd, opAt, w, t, tEnd, r, rEnd)
		}
	}
	return nil
}

// watchdogMatch is reWatchdog's submatches from the bounds found, with
// the "[Rank n] " before the head when there is one.
func watchdogMatch(line string, start, at, seqEnd, opAt, opEnd, t, tEnd, r, rEnd int) []string {
	rank := ""
	if b := strings.TrimSuffix(line[:start], "] "); len(b) < start {
		k := len(b)
		for k > 0 && b[k-1] >= '0' && b[k-1] <= '9' {
			k--
		}
		if k < len(b) && strings.HasSuffix(b[:k], "[Rank ") {
			rank = b[k:]
			start = k - len("[Rank ")
		}
	}
	return []string{line[start : rEnd+len(" milliseconds")], rank, line[at:seqEnd], line[opAt:opEnd], line[t:tEnd], line[r:rEnd]}
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Parse reads an NCCL_DEBUG=INFO log (any mix of ranks, with other
// program output around it, CRLF or LF). It fails only when the input holds
// no NCCL line and no watchdog timeout.
func Parse(r io.Reader, source string) (*Log, error) {
	p := NewParser(source, false)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		p.Line(n, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	return p.Log()
}

// Parser reads a log one line at a time, for inputs too big to hold:
// Parse feeds it a reader's lines, a streaming reader its own.
type Parser struct {
	lg     *Log
	source string
	procs  map[int][]*Proc // the processes of each pid
	last   *Proc           // the process of the previous NCCL line (most lines repeat it)
	// fold bounds the events kept: see NewParser.
	fold  bool
	kept  map[foldKey]int // events kept per key: the index of the last
	count map[foldKey]int
	gdr   map[*Proc]map[GDRState]int
	warns map[string]Event // warnClass's memory
	// net remembers what parseNet's regexps made of a message: every
	// rank repeats the same NET/IB lines, often once per connection.
	net map[string]netParse
	// spliced is set while Line reads a record that splitRecords cut
	// from inside a line (see proc).
	spliced bool
	// wrap is a watchdog report whose line ended before its "ran for M
	// milliseconds" (see Line).
	wrap wrappedWatchdog
	// hb is a heartbeat monitor report whose line ended before its
	// "got stuck for N seconds" (see heartbeatLine).
	hb wrappedWatchdog
	// pyErr is an NCCL error a Python program raised, held for the
	// "Last error:" detail NCCL adds on the lines after it; lastErr says
	// that line came and the detail is next.
	pyErr   *Event
	lastErr bool
	// cuda is a CUDA error held until a frame of ProcessGroupNCCL shows
	// that NCCL's watchdog raised it, for cudaLeft more lines (see
	// cudaErrorLine).
	cuda     *Event
	cudaLeft int
	// rawLen is the length of the line being read; warn is a WARN line
	// of no known wording held for the next line, which may hold its
	// tail (see heldWarn); joining is set while the joined text is read.
	rawLen  int
	warn    heldWarn
	joining bool
	// msgSize is the last "Message Size:" a program printed, at line
	// msgSizeLine (see programLine).
	msgSize     int64
	msgSizeLine int
}

// heldWarn is a WARN line of no known wording, long enough that a mail
// client or a chat window may have wrapped it: "… misc/ibvwrap.cu:63
// NCCL WARN Failed" then "to open libibverbs.so[.1]" on a line of its
// own. The next line, when it reads as the tail of a sentence, is joined
// to it before the warning is classified.
type heldWarn struct {
	proc *Proc
	n    int
	msg  string
	// errno is set on a failed verbs call cut right after its errno
	// number ("… NCCL WARN Call to ibv_modify_qp failed with 61" then
	// "No data available, on dev roceP2p1s0f0:1, curr state INIT, …"):
	// its tail is strerror's text (see errnoTail).
	errno bool
}

// minWrappedWarn is the shortest line a wrap can have cut: mail clients
// wrap at 72-78 columns, at the last space before it, and chat windows
// wider.
const minWrappedWarn = 60

// wrappedWatchdog is a watchdog report cut by a wrap: the line it starts
// at, its text so far and the raw lines joined to it since.
type wrappedWatchdog struct {
	n          int
	head, text string
	lines      []string
}

// maxWatchdogWrap is how many lines after its head a wrapped watchdog
// report may take: a mail or markdown wrap at 72-80 columns cuts the
// report (about 190 characters with its prefix) in two or three.
const maxWatchdogWrap = 2

// watchdogHead is the text a watchdog report starts with.
const watchdogHead = "Watchdog caught collective operation timeout: WorkNCCL(SeqNum="

// watchdogColon is the head of a watchdog report up to its colon.
const watchdogColon = "Watchdog caught collective operation timeout:"

// WatchdogHeadWrapped says whether l is the first line of a watchdog
// report wrapped right after its colon ("[Rank 3] Watchdog caught
// collective operation timeout:", its "WorkNCCL(SeqNum=5, …" on the next
// line): PyTorch's ProcessGroupNCCL.cpp (ProcessGroupNCCL::WorkNCCL::
// checkTimeout) prints the report on one line; a paste wrapped at 80
// columns, without the log prefix that names ProcessGroupNCCL, leaves
// nothing else on the line to know it by. It tests only the end of l.
func WatchdogHeadWrapped(l string) bool {
	return strings.HasSuffix(strings.TrimRight(l, " \t\r\n"), watchdogColon)
}

// netParse is what parseNet read from one message.
type netParse struct {
	ib      []IBDevice // an NET/IB "Using" line's devices (ibOK)
	socks   []string   // an NET/Socket "Using" line's interfaces (sockOK)
	ibOK    bool
	sockOK  bool
	gdrOK   bool // a GPU Direct RDMA line of a transport other than Socket
	gdrSock bool // the socket transport's GDR line
	hca     string
	enabled bool
}

// maxNetMemo bounds the messages parseNet remembers (of up to 1 KiB
// each).
const maxNetMemo = 4096

// foldKey is what the rules tell events apart by: events with one key
// differ only in their line and text.
type foldKey struct {
	kind            EventKind
	host            string
	pid, rank       int
	peer, hca, call string
	status          WCStatus
	errText, op     string
	seq, timeout    int64
}

// keepPerKey is how many events of one key a folding parser keeps in
// full: the rules quote the first (and, for timeouts, look for a second
// line of the same rank); later ones are counted in the last kept
// event's Repeats.
const keepPerKey = 2

// keepGDRPerKey is how many GPU Direct RDMA lines of one HCA and state a
// folding parser keeps per process: the rules quote at most four.
const keepGDRPerKey = 4

// NewParser returns a parser of the log of source. With fold, events that
// the rules would not tell apart (same kind, process, peer, status,
// call, rank, collective) are kept only twice and counted after that, and
// GPU Direct RDMA lines of one HCA and state four times per process, so
// the log's size is bounded by its processes and kinds of fault, not by
// its lines; the rules judge a folded log as they judge the whole one.
func NewParser(source string, fold bool) *Parser {
	p := &Parser{lg: &Log{Source: source}, source: source, procs: map[int][]*Proc{}, fold: fold}
	if fold {
		p.kept, p.count, p.gdr = map[foldKey]int{}, map[foldKey]int{}, map[*Proc]map[GDRState]int{}
	}
	return p
}

// Log returns what was read; ErrNoData when no line was an NCCL line or
// a watchdog report.
func (p *Parser) Log() (*Log, error) {
	if w := p.warn; w.msg != "" {
		p.warn = heldWarn{}
		p.joining = true
		p.parseWarn(w.proc, w.n, w.msg)
		p.joining = false
	}
	p.flushWrap()
	p.flushHeartbeat()
	p.flushPyErr()
	p.flushRetries()
	p.cuda = nil // no frame of ProcessGroupNCCL came after it
	if p.lg.NCCLLines == 0 {
		return nil, &ParseError{Source: p.source, Err: fmt.Errorf("%w: no NCCL log line", ErrNoData)}
	}
	return p.lg, nil
}

func (p *Parser) proc(host string, pid, line int) *Proc {
	if l := p.last; l != nil && l.Host == host && l.Pid == pid {
		return l
	}
	// By pid, then host: an int is hashed faster than a host name, and
	// few hosts share a pid.
	for _, pr := range p.procs[pid] {
		if pr.Host == host {
			p.last = pr
			return pr
		}
	}
	// Ranks that write one file without line buffering splice their
	// records mid-line ("… cudaDev 0ljm:803564:803604 [1] NCCL INFO …"):
	// the host field then carries the end of another record before it.
	// A record cut from inside a line whose host ends with the host of a
	// process of the same pid is that process.
	for _, pr := range p.procs[pid] {
		if p.spliced && pr.Host != "" && strings.HasSuffix(host, pr.Host) {
			p.last = pr
			return pr
		}
	}
	pr := &Proc{Source: p.source, Host: host, Pid: pid, IBDisable: -1, FirstLine: line}
	p.procs[pid] = append(p.procs[pid], pr)
	p.lg.Procs = append(p.lg.Procs, pr)
	p.last = pr
	return pr
}

// event adds ev, or counts it in an earlier event of its key when folding.
func (p *Parser) event(ev Event) {
	lg := p.lg
	if !p.fold {
		lg.Events = append(lg.Events, ev)
		return
	}
	k := foldKey{kind: ev.Kind, host: ev.Host, pid: ev.Pid, rank: ev.Rank, peer: ev.Peer, hca: ev.HCA, call: ev.Call,
		status: ev.Status, errText: ev.Error, op: ev.OpType, seq: ev.SeqNum, timeout: ev.TimeoutMS}
	switch {
	case ev.Kind == EventTimeout && ev.Heartbeat:
		k = foldKey{kind: ev.Kind, rank: ev.Rank, seq: -2} // first and count per rank
	case ev.Kind == EventWarn, ev.Kind == EventTimeout && ev.OpType == "" && ev.SeqNum == 0:
		// The rules count these and quote the first (a timeout of the
		// c10d store apart from NCCL's).
		k = foldKey{kind: ev.Kind, call: ev.Call, seq: -1}
	case ev.Kind == EventResource:
		k = foldKey{kind: ev.Kind, call: ev.Call, hca: ev.HCA} // first and count per call (and device it names)
	case ev.Kind == EventAsync:
		k = foldKey{kind: ev.Kind, host: ev.Host, hca: ev.HCA, errText: ev.Async} // per host, device and event
	}
	if p.count[k] < keepPerKey {
		p.count[k]++
		p.kept[k] = len(lg.Events)
		lg.Events = append(lg.Events, ev)
		return
	}
	lg.Events[p.kept[k]].Repeats++
}

// gdrLine adds one GPU Direct RDMA state of a process.
func (p *Parser) gdrLine(pr *Proc, g GDRState) {
	if p.fold {
		k := GDRState{HCA: g.HCA, Enabled: g.Enabled}
		m := p.gdr[pr]
		if m == nil {
			m = map[GDRState]int{}
			p.gdr[pr] = m
		}
		if m[k] >= keepGDRPerKey {
			return
		}
		m[k]++
	}
	pr.GDR = append(pr.GDR, g)
}

// Line reads line n of the log (its line end may be left on). A line
// that holds several NCCL records run together (a paste that lost its
// line ends: "> > [0] NCCL INFO NET/IB : No device found. [0] NCCL INFO
// Using network Socket") is read record by record, all at line n.
//
// A watchdog report wrapped over several lines ("[Rank 1] Watchdog caught
// collective operation timeout: WorkNCCL(SeqNum=668, OpType=ALLREDUCE," /
// "NumelIn=52, NumelOut=52, Timeout(ms)=600000) ran for 600097
// milliseconds before timing out.") is read whole at its first line:
// the lines after its head are joined to it until it is complete, up to
// maxWatchdogWrap lines that hold no NCCL record. One that never
// completes is still a timeout, with the sequence number and collective
// its head names.
func (p *Parser) Line(n int, raw string) {
	// A CRLF file read by a reader that keeps the CR reads as its LF
	// twin: every record and event text is the same.
	if k := len(raw); k > 0 && (raw[k-1] == '\r' || raw[k-1] == '\n') {
		raw = strings.TrimRight(raw, "\r\n")
	}
	if p.warn.msg != "" {
		w := p.warn
		p.warn = heldWarn{}
		if w.errno && errnoTail(raw) || !w.errno && warnTail(raw) {
			p.joining = true
			p.parseWarn(w.proc, w.n, w.msg+" "+strings.TrimSpace(raw))
			p.joining = false
			return
		}
		p.joining = true
		p.parseWarn(w.proc, w.n, w.msg)
		p.joining = false
	}
	p.rawLen = len(raw)
	if p.lg.Instance == nil {
		if name, net, ok := FindInstance(raw); ok {
			p.lg.Instance = &Instance{Name: name, Network: net, Source: p.source, Line: n, Text: strings.TrimSpace(raw)}
		}
	}
	if p.wrap.text != "" {
		if p.continueWrap(n, raw) {
			return
		}
	}
	if p.hb.text != "" {
		if p.continueHeartbeat(n, raw) {
			return
		}
	}
	// Every record has its device field "[N]": a line with fewer than
	// two ']' holds one record at most (most lines: two IndexByte scans
	// cost less than looking for "NCCL " twice).
	if j := strings.IndexByte(raw, ']'); j < 0 || strings.IndexByte(raw[j+1:], ']') < 0 {
		p.line(n, raw)
		return
	}
	if i := strings.Index(raw, "NCCL "); i < 0 || !strings.Contains(raw[i+len("NCCL "):], "NCCL ") {
		p.line(n, raw)
		return
	}
	for i, rec := range splitRecords(raw) {
		p.spliced = i > 0
		p.line(n, rec)
	}
	p.spliced = false
}

// continueWrap joins raw to the wrapped watchdog report; false when raw
// is not part of it (then the report so far is kept as it is and raw is
// read as any line).
func (p *Parser) continueWrap(n int, raw string) bool {
	t := strings.TrimSpace(raw)
	// A line with an NCCL record of its own ends the report; the report's
	// own "WorkNCCL(" does not.
	if t == "" || strings.Contains(t, "NCCL") && !strings.HasPrefix(t, "WorkNCCL(") || len(p.wrap.lines) >= maxWatchdogWrap {
		p.flushWrap()
		return false
	}
	joined := p.wrap.text + " " + t
	if m := watchdog(joined); m != nil {
		p.timeout(p.wrap.n, joined, m)
		p.wrap = wrappedWatchdog{}
		return true
	}
	p.wrap.text = joined
	p.wrap.lines = append(p.wrap.lines, raw)
	return true
}

// flushWrap ends a wrapped watchdog report that did not complete: a
// timeout event from its head, then the lines joined to it read as any
// line.
func (p *Parser) flushWrap() {
	w := p.wrap
	if w.text == "" {
		return
	}
	p.wrap = wrappedWatchdog{}
	head := w.head
	ev := Event{Kind: EventTimeout, Source: p.source, Line: w.n, Text: head, Rank: anyRank(head, "")}
	if i := strings.Index(head, watchdogHead); i >= 0 {
		rest := head[i+len(watchdogHead):]
		seq, after := digits(rest)
		ev.SeqNum, _ = strconv.ParseInt(seq, 10, 64)
		if op, ok := strings.CutPrefix(after, ", OpType="); ok {
			j := 0
			for j < len(op) && isWord(op[j]) {
				j++
			}
			ev.OpType = op[:j]
		}
	}
	p.event(ev)
	p.lg.NCCLLines++
	for i, l := range w.lines {
		p.Line(w.n+1+i, l)
	}
}

// splitRecords cuts a line before every NCCL record that starts after its
// first: a "NCCL INFO" or "NCCL WARN" preceded by its device field "[N]"
// (and that by "host:pid:tid" when the log has one, a "file.cc:NN" source
// position between them for a WARN). A "NCCL INFO" inside a message
// without that prefix stays where it is. The whole line when none.
func splitRecords(line string) []string {
	var cuts []int
	off := 0
	for {
		i := strings.Index(line[off:], "NCCL ")
		if i < 0 {
			break
		}
		at := off + i
		off = at + len("NCCL ")
		after := line[off:]
		if !strings.HasPrefix(after, "INFO ") && !strings.HasPrefix(after, "WARN ") {
			continue
		}
		if start, ok := recordStart(line, at); ok && strings.TrimSpace(line[:start]) != "" && strings.Contains(line[:start], "NCCL ") {
			cuts = append(cuts, start)
		}
	}
	if len(cuts) == 0 {
		return []string{line}
	}
	out := make([]string, 0, len(cuts)+1)
	prev := 0
	for _, c := range cuts {
		out = append(out, line[prev:c])
		prev = c
	}
	return append(out, line[prev:])
}

// recordStart walks back from the "NCCL" at of line over a record's
// prefix: an optional "file.cc:NN", the "[N]" device field, an optional
// "host:pid:tid". ok is false when no "[N]" comes right before.
func recordStart(line string, at int) (int, bool) {
	tok := func(end int) (int, string) {
		for end > 0 && line[end-1] == ' ' {
			end--
		}
		start := strings.LastIndexByte(line[:end], ' ') + 1
		return start, line[start:end]
	}
	start, t := tok(at)
	if strings.Contains(t, ".c") && strings.Contains(t, ":") {
		start, t = tok(start)
	}
	if len(t) < 3 || t[0] != '[' || t[len(t)-1] != ']' {
		return 0, false
	}
	if _, err := strconv.Atoi(t[1 : len(t)-1]); err != nil {
		return 0, false
	}
	if s, h := tok(start); h != "" {
		if host, _ := splitHostPid(h); host != "" {
			start = s
		}
	}
	return start, true
}

// line reads one NCCL record (or line) found at line n.
// ofiTest reads a line of aws-ofi-nccl's test programs ("WARN: Function:
// F Line: N: NET/OFI …", "INFO: Function: main Line: 49: NET/OFI …
// NCCLNet device used on …"), which name no host or pid, as its
// process's INFO or WARN; false when l is none.
func (p *Parser) ofiTest(n int, l string) bool {
	lv, msg, ok := ofiTestLine(l)
	if !ok {
		return false
	}
	p.lg.NCCLLines++
	pr := p.proc("", 0, n)
	if lv == "WARN" {
		p.parseWarn(pr, n, msg)
	} else {
		p.parseInfo(pr, n, msg)
	}
	return true
}

func (p *Parser) line(n int, raw string) {
	lg, source := p.lg, p.source
	if p.pyErr != nil && p.pyErrDetail(raw) {
		return
	}
	if p.cuda != nil {
		p.pendingCUDAError(raw)
	}
	if msg, ok := BareInfo(raw); ok && !isQuotedCompletion(raw) {
		// (a completion error quoted so is a WARN: read below)
		lg.NCCLLines++
		p.parseInfo(p.proc("", 0, n), n, msg)
		return
	}
	if !strings.Contains(raw, "NCCL") {
		if WatchdogHeadWrapped(raw) {
			// "[Rank 3] Watchdog caught collective operation timeout:"
			// alone, its "WorkNCCL(" on the next line: joined as below.
			line := strings.TrimSpace(raw)
			p.wrap = wrappedWatchdog{n: n, head: line, text: line}
			return
		}
		if strings.Contains(raw, "CUDA error: ") {
			p.cudaErrorLine(n, raw)
		}
		if p.programLine(n, raw) { // "Bus Bandwidth: 0.01 GB/s"
			return
		}
		if strings.Contains(raw, "Traceback (most recent call last):") {
			if ev, ok := rankTraceback(raw); ok {
				ev.Source, ev.Line = source, n
				p.event(ev)
				return
			}
		}
		if ev, ok := pythonNCCLError(strings.TrimSpace(raw)); ok {
			held := ev // only a match is kept on the heap, not every line's
			held.Source, held.Line = source, n
			p.pyErr = &held
			lg.NCCLLines++
			return
		}
		if strings.Contains(raw, "Error: Socket Timeout") {
			if ev, ok := torchStoreTimeout(raw); ok {
				ev.Source, ev.Line = source, n
				p.event(ev)
				lg.NCCLLines++
				return
			}
		}
		// Neither an NCCL 2.4+ line nor a ProcessGroupNCCL watchdog;
		// perhaps an NCCL 2.0-2.3 one, or a net plugin's completion
		// error quoted without its prefix ("… NET/IBP:Got completion
		// from peer … with status=12 …" in a sentence).
		if msg, ok := quotedCompletion(raw); ok {
			lg.NCCLLines++
			p.parseWarn(p.proc("", 0, n), n, msg)
			return
		}
		if ev, ok := testFailure(raw); ok { // "Test CUDA failure"
			ev.Source, ev.Line = source, n
			p.event(ev)
			lg.NCCLLines++
			return
		}
		if ev, ok := exampleFailure(raw); ok { // "Failed: Cuda error"
			ev.Source, ev.Line = source, n
			p.event(ev)
			lg.NCCLLines++
			return
		}
		if p.ofiTest(n, raw) { // no "NCCL" in it: "WARN: Function: F Line: N: NET/OFI …"
			return
		}
		if IBGDAInitFailedLine(raw) { // NVSHMEM's "…:nvshmemi_transport_init:275: init failed for transport: IBGDA"
			p.event(Event{Kind: EventIBGDAInitFailed, Text: strings.TrimSpace(raw), Rank: -1, Source: source, Line: n})
			lg.NCCLLines++
			return
		}
		if ev, ok := ibgdaFallback(raw); ok { // NVSHMEM's "WARN: …" beside NCCL's
			ev.Source, ev.Line = source, n
			p.event(ev)
			return
		}
		if m := legacyLine(strings.TrimSpace(raw)); m != nil {
			lg.NCCLLines++
			host, pid := splitHostPid(m[1])
			pr := p.proc(host, pid, n)
			if m[2] == "WARN" {
				p.parseWarn(pr, n, m[4])
			} else {
				p.parseInfo(pr, n, m[4])
			}
		}
		return
	}
	line := strings.TrimSpace(raw)
	m, head := findWatchdog(line)
	if m != nil {
		p.timeout(n, line, m)
		return
	}
	// A report wrapped right after its colon (mila-iqia/milabench#269:
	// "… Watchdog caught collective operation timeout: " / "WorkNCCL(
	// SeqNum=2070, …"): the next line completes it.
	head = head || WatchdogHeadWrapped(line)
	if head && !strings.Contains(line, " milliseconds") {
		p.wrap = wrappedWatchdog{n: n, head: line, text: line}
		return
	}
	if strings.Contains(line, "ProcessGroupNCCL") && strings.Contains(line, "detected by watchdog at work: ") {
		if m := reDetected.FindStringSubmatch(line); m != nil {
			ev := Event{Kind: EventTimeout, Source: source, Line: n, Text: line, Rank: anyRank(line, "")}
			ev.SeqNum, _ = strconv.ParseInt(m[1], 10, 64)
			p.event(ev)
			lg.NCCLLines++
			return
		}
	}
	if strings.Contains(line, "ProcessGroupNCCL") && p.heartbeatLine(n, line) {
		return
	}
	// "version" first: its 'v' is rarer in a log than the 'N' of "NCCL"
	// (the version line may never come).
	if lg.Version == "" && strings.Contains(line, "version") && strings.Contains(line, "NCCL version") {
		if m := reVersion.FindStringSubmatch(line); m != nil {
			lg.Version = m[1]
		}
	}
	if ev, ok := testFailure(line); ok {
		ev.Source, ev.Line = source, n
		p.event(ev)
		lg.NCCLLines++
		return
	}
	// Pasted logs often indent lines or drop the host; find the
	// NCCL prefix wherever the line starts.
	host, pid, level, msg, ok := splitNCCLLine(line)
	if !ok {
		if p.ofiTest(n, line) {
			return
		}
		// Not an NCCL record: a program's report of a failed call.
		if ev, ok := exampleFailure(line); ok { // "Failed, NCCL error"
			ev.Source, ev.Line = source, n
			p.event(ev)
			lg.NCCLLines++
			return
		}
		if ev, ok := torchNCCLError(line); ok {
			ev.Source, ev.Line = source, n
			p.event(ev)
			lg.NCCLLines++
			return
		}
		if ev, ok := xlaNCCLError(line); ok { // "NCCL operation … failed: …"
			ev.Source, ev.Line = source, n
			p.event(ev)
			lg.NCCLLines++
			return
		}
		if strings.Contains(line, "Error: Socket Timeout") {
			if ev, ok := torchStoreTimeout(line); ok {
				ev.Source, ev.Line = source, n
				p.event(ev)
				lg.NCCLLines++
				return
			}
		}
		if strings.Contains(line, "CUDA error: ") {
			p.cudaErrorLine(n, line) // "[E ProcessGroupNCCL.cpp:1414] … exception: CUDA error: …"
		}
		if msg, ok := quotedCompletion(line); ok {
			lg.NCCLLines++
			p.parseWarn(p.proc("", 0, n), n, msg)
		}
		return
	}
	lg.NCCLLines++
	pr := p.proc(host, pid, n)
	switch {
	case level == "WARN" || level == "ABORT":
		p.parseWarn(pr, n, msg)
	case strings.Contains(msg, "Got completion ") && reCompl.MatchString(msg):
		// Net plugins (NET/IBP and others) log completion errors at
		// INFO level.
		p.parseWarn(pr, n, msg)
	default:
		p.parseInfo(pr, n, msg)
	}
}

// errorReturn reads NCCLCHECK's trace of a failed call, "init.cc:1534
// -> 2" (a " [Net]"-style suffix allowed): the ncclResult_t it returned.
// ncclSuccess (0) and ncclInProgress (7, a non-blocking call still
// running) are no failure.
func errorReturn(msg string) (int, bool) {
	i := strings.Index(msg, " -> ")
	if i < 0 || strings.IndexByte(msg[:i], ' ') >= 0 || !strings.Contains(msg[:i], ":") {
		return 0, false
	}
	num, _ := digits(msg[i+4:])
	code, err := strconv.Atoi(num)
	if err != nil || code <= 0 || code == 7 {
		return 0, false
	}
	return code, true
}

// wentOn tells a message that only a process whose setup goes on
// prints: the network it chose (init.cc "Using network IB"), its
// communicator built ("comm 0x… rank 0 nranks 8 … - Init COMPLETE"),
// its rings and trees connected ("Connected all rings"), a channel's
// connection ("Channel 00/0 : 0[0] -> 1[1] via NET/IB/0").
func wentOn(msg string) bool {
	return strings.HasPrefix(msg, "Using network ") || strings.Contains(msg, "Init COMPLETE") ||
		strings.HasPrefix(msg, "Connected all ") || strings.HasPrefix(msg, "Channel ") && strings.Contains(msg, " via ")
}

// timeout adds the watchdog report m (watchdog's submatches) of line n.
func (p *Parser) timeout(n int, line string, m []string) {
	ev := Event{Kind: EventTimeout, Source: p.source, Line: n, Text: line, Rank: anyRank(line, m[1]), OpType: m[3]}
	ev.SeqNum, _ = strconv.ParseInt(m[2], 10, 64)
	ev.TimeoutMS, _ = strconv.ParseInt(m[4], 10, 64)
	ev.RanForMS, _ = strconv.ParseInt(m[5], 10, 64)
	p.event(ev)
	p.lg.NCCLLines++
}

func (ps *Parser) parseInfo(p *Proc, n int, msg string) {
	if (p.ConnRetry != nil || strings.Contains(msg, ", retrying")) && ps.connRetry(p, n, msg) {
		return
	}
	// The trace is short ("transport/net.cc:515 -> 2"): a long message
	// is not one.
	if len(msg) < 160 && strings.Contains(msg, " -> ") {
		if code, ok := errorReturn(msg); ok {
			p.ErrTraces++
			if p.ErrReturn == 0 || p.InitFailed == 0 {
				if p.ErrReturn == 0 {
					p.ErrReturn, p.ErrCode, p.ErrReturnText = n, code, msg
				}
				if p.InitFailed == 0 && (strings.HasPrefix(msg, "init.c") || strings.HasPrefix(msg, "bootstrap.c")) {
					p.InitFailed, p.InitCode, p.InitFailedText = n, code, msg
				}
			}
			return
		}
	}
	if p.ErrReturn > 0 && p.WentOn == 0 && wentOn(msg) {
		p.WentOn, p.WentOnText = n, msg
	}
	switch {
	case strings.HasPrefix(msg, "Channel "), strings.HasPrefix(msg, "Ring "), strings.HasPrefix(msg, "Trees "):
		parseChannel(p, n, msg)
	case strings.Contains(msg, "comm 0x") || strings.HasPrefix(msg, "rank "):
		if m := commLine(msg); m != nil {
			r, _ := strconv.Atoi(m[1])
			p.NRanks, _ = strconv.Atoi(m[2])
			if m[3] != "" {
				p.NNodes, _ = strconv.Atoi(m[3])
				p.NNodesLine = n
			}
			if !slices.Contains(p.Ranks, r) {
				p.Ranks = append(p.Ranks, r)
			}
			switch {
			case p.NRanks > p.MaxNRanks:
				p.MaxNRanks, p.MaxRanks = p.NRanks, []int{r}
			case p.NRanks == p.MaxNRanks && !slices.Contains(p.MaxRanks, r):
				p.MaxRanks = append(p.MaxRanks, r)
			}
		}
	case strings.HasPrefix(msg, "NET/"):
		if p.NetPlugin == "" {
			if name := netPlugin(msg); name != "" {
				p.NetPlugin, p.NetPluginLine = name, n
			}
		}
		if p.OFIProvider == "" {
			if prov := ofiProvider(msg); prov != "" {
				p.OFIProvider, p.OFIProviderLine = prov, n
				p.OFINICs = ofiNICs(msg)
			}
		}
		if p.OFIPlatform == "" {
			if pl := ofiPlatform(msg); pl != "" {
				p.OFIPlatform, p.OFIPlatformLine = pl, n
			}
		}
		ps.parseNet(p, n, msg)
	case strings.HasPrefix(msg, "Net/IB") && strings.Contains(msg, "returned 0 devices"):
		// NCCL 2.3: "Net/IB: call to devices() returned 0 devices."
		p.IBNoDevice, p.IBNoDeviceText = n, msg
	case strings.HasPrefix(msg, "Bootstrap"):
		if bootstrapLoopback(msg) {
			p.BootstrapLo = n
		} else if strings.Contains(msg, "Using") {
			p.BootstrapLo = 0
		}
	case strings.HasPrefix(msg, "Using network"):
		if nw, ok := usingNetwork(msg); ok {
			p.Network, p.NetworkLine, p.NetworkText = nw, n, msg
		}
	case strings.HasPrefix(msg, "Using internal Network ") || strings.HasPrefix(msg, "Using external Network "):
		// NCCL 2.3 (src/init.cu initNet): "Using internal Network
		// Socket" or "… IB" (its own transports: IB when ncclIbSupport
		// found a device), "Using external Network NAME" (a net plugin).
		// NCCL 2.4 prints neither; 2.5 and later print "Using network".
		if nw := strings.TrimSpace(msg[len("Using internal Network "):]); nw != "" {
			p.Network, p.NetworkLine, p.NetworkText = nw, n, msg
			if msg[len("Using ")] == 'e' && p.NetPlugin == "" {
				p.NetPlugin, p.NetPluginLine = nw, n
			}
		}
	case strings.HasPrefix(msg, "NET : Using interface "):
		// NCCL 2.3 findInterfaces (src/include/socket.h): "NET : Using
		// interface %s:%s", the name and socketToString's "addr<port>".
		name, addr, ok := strings.Cut(strings.TrimSpace(msg[len("NET : Using interface "):]), ":")
		if ok && name != "" && !slices.ContainsFunc(p.NetIfs, func(f NetIf) bool { return f.Name == name }) {
			p.NetIfs = append(p.NetIfs, NetIf{Name: name, Addr: addr, Line: n})
		}
	case strings.HasPrefix(msg, "Failed to open libibverbs"):
		p.NoVerbs = n
	case strings.HasPrefix(msg, "Connected all rings"):
		if on, ok := ringGDR(msg); ok && p.RingGDRLine == 0 {
			p.RingGDR, p.RingGDRLine, p.RingGDRText = on, n, msg
		}
	case strings.HasPrefix(msg, "DMA-BUF is available"):
		if p.DMABuf == 0 {
			p.DMABuf, p.DMABufText = n, msg
		}
	case strings.HasPrefix(msg, "NCCL_IB_HCA set to "):
		// The IB transport's own line (transport/net_ib.cc): "NCCL_IB_HCA
		// set to mlx5_0:1,mlx5_1:1".
		if p.Env == nil {
			p.Env = map[string]string{}
		}
		p.Env["NCCL_IB_HCA"] = strings.TrimSuffix(strings.TrimSpace(msg[len("NCCL_IB_HCA set to "):]), ".")
	case strings.HasPrefix(msg, "NCCL_") && strings.Contains(msg, " set by environment to "):
		if !strings.Contains(msg, "NCCL_IB_DISABLE set by environment to ") {
		} else if m := reIBDisable.FindStringSubmatch(msg); m != nil {
			p.IBDisable, _ = strconv.Atoi(m[1])
			p.IBDisableLine = n
		}
		if m := envSet(msg); m != nil {
			if p.Env == nil {
				p.Env = map[string]string{}
			}
			p.Env[m[1]] = m[2]
		}
	}
}

// bootstrapLoopback says whether msg is bootstrapNetInit's interface line
// (src/bootstrap.cc: "Bootstrap : Using [0]lo:127.0.0.1<0>" up to NCCL
// 2.18, "Bootstrap: Using lo:127.0.0.1<0>" after) and every address it
// lists is a loopback one: 127.0.0.0/8 or ::1.
func bootstrapLoopback(msg string) bool {
	rest := strings.TrimPrefix(msg, "Bootstrap")
	rest = strings.TrimLeft(rest, " ")
	rest, ok := strings.CutPrefix(rest, ": Using")
	if !ok {
		return false
	}
	return loopbackList(rest)
}

// loopbackList says whether every address of an interface list as NCCL
// prints it (" [0]lo:127.0.0.1<0> [1]…" or " lo:127.0.0.1<0>") is a
// loopback one, and there is at least one.
func loopbackList(rest string) bool {
	n := 0
	for _, f := range strings.Fields(rest) {
		if f[0] == '[' {
			i := strings.IndexByte(f, ']')
			if i < 0 {
				return false
			}
			f = f[i+1:]
		}
		_, addr, ok := strings.Cut(f, ":")
		if !ok {
			return false
		}
		if i := strings.IndexByte(addr, '<'); i >= 0 {
			addr = addr[:i]
		}
		if !strings.HasPrefix(addr, "127.") && addr != "::1" && addr != "[::1]" {
			return false
		}
		n++
	}
	return n > 0
}

// netPlugin returns the net plugin a "NET/…" line shows, "" when it
// shows none: "NET/Plugin: Loaded net plugin AWS Libfabric (v5)" → "AWS
// Libfabric"; "NET/OFI Selected Provider is efa" → "OFI". NET/Plugin's
// other lines ("No plugin found", "Plugin load returned 2 …") and the
// built-in NET/IB and NET/Socket name none.
func netPlugin(msg string) string {
	rest := msg[len("NET/"):]
	end := strings.IndexAny(rest, " :")
	if end <= 0 {
		return ""
	}
	switch prefix := rest[:end]; prefix {
	case "IB", "Socket", "IB/GDRDMA":
		return ""
	case "Plugin":
		_, name, ok := strings.Cut(rest, "Loaded net plugin ")
		if !ok {
			// NCCL 2.4-2.11: "NET/Plugin : Loaded net plugin NAME"
			// too; other NET/Plugin lines say no plugin loaded.
			return ""
		}
		if i := strings.Index(name, " (v"); i > 0 {
			name = name[:i]
		}
		return strings.TrimSpace(name)
	default:
		return prefix
	}
}

// parseNet reads the "NET/…" lines: devices in use, no device, GPUDirect.
func (ps *Parser) parseNet(p *Proc, n int, msg string) {
	if rest, ok := strings.CutPrefix(msg, "NET/IB: ["); ok {
		// NCCL 2.0-2.2 (src/transport/net_ib.cu initDevices) list the
		// devices without "Using", a blank after each index: "NET/IB:
		// [0] mlx4_0:1/IB".
		var devs []IBDevice
		for _, d := range reIBDev.FindAllStringSubmatch(strings.ReplaceAll("["+rest, "] ", "]"), -1) {
			port, _ := strconv.Atoi(d[3])
			devs = append(devs, IBDevice{Name: d[2], Port: port, LinkLayer: d[4]})
		}
		if len(devs) > 0 {
			p.IBDevices, p.IBLine = devs, n
		}
		return
	}
	// The regexps run only on lines that can match them.
	using := strings.Contains(msg, ": Using ")
	if !using && !strings.Contains(msg, "No device found") && !strings.Contains(msg, "GPU Direct RDMA") {
		return
	}
	if rest, ok := strings.CutPrefix(msg, "NET/IB : Using interface "); ok {
		// NCCL 2.3 (src/transport/net_ib.cu initDevices): "NET/IB :
		// Using interface ib0 for sideband communication".
		if name, ok := strings.CutSuffix(strings.TrimSpace(rest), " for sideband communication"); ok && name != "" {
			p.Sideband, p.SidebandLine = name, n
		}
		return
	}
	if strings.HasPrefix(msg, "NET/IB : No device found") || strings.HasPrefix(msg, "NET/IB: No device found") {
		if using {
			if r := ps.netRead(msg, using); r.ibOK || r.sockOK {
				ps.netApply(p, n, msg, r)
				return
			}
		}
		p.IBNoDevice, p.IBNoDeviceText = n, msg
		return
	}
	ps.netApply(p, n, msg, ps.netRead(msg, using))
}

// netApply records on p what parseNet read from line n.
func (ps *Parser) netApply(p *Proc, n int, msg string, r netParse) {
	switch {
	case r.ibOK:
		p.IBDevices = append(p.IBDevices[:0], r.ib...)
		p.IBLine = n
	case r.sockOK:
		p.SocketIfs = append(p.SocketIfs[:0], r.socks...)
		p.SocketLine = n
		p.SocketLo = loopbackList(msg[strings.Index(msg, ": Using")+len(": Using"):])
	case r.gdrOK:
		ps.gdrLine(p, GDRState{HCA: r.hca, Enabled: r.enabled, Line: n, Text: msg})
	}
}

// netRead runs parseNet's regexps on msg, or recalls what they made of
// it.
func (ps *Parser) netRead(msg string, using bool) netParse {
	if r, ok := ps.net[msg]; ok {
		return r
	}
	var r netParse
	if using {
		if !strings.HasPrefix(msg, "NET/IB") {
		} else if m := reIBUsing.FindStringSubmatch(msg); m != nil {
			r.ibOK, r.ib = true, []IBDevice{}
			for _, d := range reIBDev.FindAllStringSubmatch(m[1], -1) {
				port, _ := strconv.Atoi(d[3])
				r.ib = append(r.ib, IBDevice{Name: d[2], Port: port, LinkLayer: d[4]})
			}
		}
		if r.ibOK || !strings.HasPrefix(msg, "NET/Socket") {
		} else if m := reSockUsing.FindStringSubmatch(msg); m != nil {
			r.sockOK, r.socks = true, []string{}
			for _, d := range reSockIf.FindAllStringSubmatch(m[1], -1) {
				r.socks = append(r.socks, d[1])
			}
		}
	}
	if !r.ibOK && !r.sockOK && strings.Contains(msg, "GPU Direct RDMA") && !strings.HasPrefix(msg, "NET/IB : No device found") && !strings.HasPrefix(msg, "NET/IB: No device found") {
		if m := reGDR.FindStringSubmatch(msg); m != nil {
			if m[1] == "Socket" {
				r.gdrSock = true // the socket transport always says "Disabled"
			} else {
				r.gdrOK = true
				r.hca = m[4]
				if r.hca == "" {
					r.hca = "HCA " + m[3]
				}
				r.enabled = strings.EqualFold(m[2], "enabled")
			}
		}
	}
	if ps.net == nil {
		ps.net = map[string]netParse{}
	}
	if len(ps.net) < maxNetMemo && len(msg) <= 1024 {
		ps.net[strings.Clone(msg)] = r
	}
	return r
}

// commLine matches `comm 0x[0-9a-fA-F]+ rank (\d+) n[Rr]anks (\d+)(?:
// nNodes (\d+))?` as FindStringSubmatch does, by hand: it runs on every
// communicator line of big logs.
func commLine(msg string) []string {
	if rest, ok := strings.CutPrefix(msg, "rank "); ok {
		// NCCL 2.3 also logs "rank 0 nranks 4" alone, the whole
		// message, before its "comm 0x… rank 0 nranks 4" line (which a
		// cut log lacks: horovod/horovod#969).
		rank, rest := digits(rest)
		if rest, ok = strings.CutPrefix(rest, " nranks "); ok && rank != "" {
			if nranks, rest := digits(rest); nranks != "" && strings.TrimSpace(rest) == "" {
				return []string{"", rank, nranks, ""}
			}
		}
		return nil
	}
	for off := 0; ; {
		i := strings.Index(msg[off:], "comm 0x")
		if i < 0 {
			return nil
		}
		start := off + i
		off = start + 1
		rest := msg[start+len("comm 0x"):]
		h := 0
		for h < len(rest) && isHex(rest[h]) {
			h++
		}
		if h == 0 {
			continue
		}
		rest, ok := strings.CutPrefix(rest[h:], " rank ")
		if !ok {
			continue
		}
		rank, rest := digits(rest)
		if rank == "" || !strings.HasPrefix(rest, " n") || len(rest) < 3 || rest[2] != 'R' && rest[2] != 'r' {
			continue
		}
		rest, ok = strings.CutPrefix(rest[3:], "anks ")
		if !ok {
			continue
		}
		nranks, rest := digits(rest)
		if nranks == "" {
			continue
		}
		nodes := ""
		if r, ok := strings.CutPrefix(rest, " nNodes "); ok {
			nodes, _ = digits(r)
		}
		return []string{"", rank, nranks, nodes}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// digits splits the leading ASCII digits off s.
func digits(s string) (string, string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// envSet matches `^(NCCL_[A-Z0-9_]+) set by environment to (.*?)\.?\s*$`
// by hand: the value without its trailing blanks and one final period.
func envSet(msg string) []string {
	if !strings.HasPrefix(msg, "NCCL_") {
		return nil
	}
	i := len("NCCL_")
	for i < len(msg) && (msg[i] >= 'A' && msg[i] <= 'Z' || msg[i] >= '0' && msg[i] <= '9' || msg[i] == '_') {
		i++
	}
	if i == len("NCCL_") {
		return nil
	}
	v, ok := strings.CutPrefix(msg[i:], " set by environment to ")
	if !ok {
		return nil
	}
	v = strings.TrimRight(v, " \t\n\f\r")
	v = strings.TrimSuffix(v, ".")
	return []string{msg, msg[:i], v}
}

// channelCount reads N of "Channel 00/N :" (reChannel, by hand: it runs
// on most lines of big logs).
func channelCount(msg string) (int, bool) {
	rest, ok := strings.CutPrefix(msg, "Channel ")
	if !ok {
		return 0, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(rest) || rest[i] != '/' {
		return 0, false
	}
	rest = rest[i+1:]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == 0 || !strings.HasPrefix(rest[j:], " :") {
		return 0, false
	}
	c, err := strconv.Atoi(rest[:j])
	return c, err == nil
}

// parseChannel reads "Channel 00/08 : …", "Trees [0] …" and the
// connection lines "… via NET/IB/0/GDRDMA".
func parseChannel(p *Proc, n int, msg string) {
	if c, ok := channelCount(msg); ok && c > p.Channels {
		p.Channels = c
	}
	if strings.HasPrefix(msg, "Trees ") {
		p.Trees = true
	}
	if !strings.Contains(msg, "via NET/") {
		return
	}
	if name, gdr, ok := via(msg); ok {
		if p.Via == nil {
			p.Via = map[string]int{}
		}
		p.Via["NET/"+name+gdr]++
		if name == "IB" {
			// "via NET/IB/1/GDRDMA": 1 indexes the "NET/IB : Using" list.
			if i := strings.Index(msg, "via NET/IB/"); i >= 0 {
				if d, _ := digits(msg[i+len("via NET/IB/"):]); d != "" {
					if k, err := strconv.Atoi(d); err == nil && k < 64 {
						p.ViaIBDevs |= 1 << k
					}
				}
			}
		}
		if name == "IB" && gdr == "" && p.ViaNoGDRLine == 0 {
			p.ViaNoGDRLine, p.ViaNoGDRText = n, msg
		}
	}
}

// ringGDR reads "Connected all rings, use ring PXN 0 GDR 0" (init.cc):
// the GDR flag, and whether the message has one.
func ringGDR(msg string) (on, ok bool) {
	i := strings.LastIndex(msg, " GDR ")
	if i < 0 {
		return false, false
	}
	d, rest := digits(msg[i+len(" GDR "):])
	if d == "" || strings.TrimSpace(rest) != "" {
		return false, false
	}
	return d != "0", true
}

// via matches reVia as FindStringSubmatch does, by hand: it runs on most
// connection lines of big logs. It returns the transport and
// "/GDRDMA" or "".
func via(msg string) (name, gdr string, ok bool) {
	const head = "via NET/"
	for off := 0; ; {
		i := strings.Index(msg[off:], head)
		if i < 0 {
			return "", "", false
		}
		at := off + i + len(head)
		off = at
		j := at
		for j < len(msg) && msg[j] != '/' && !reSpace(msg[j]) {
			j++
		}
		if j == at || j == len(msg) || msg[j] != '/' {
			continue
		}
		d, rest := digits(msg[j+1:])
		if d == "" {
			continue
		}
		if strings.HasPrefix(rest, "/GDRDMA") {
			gdr = "/GDRDMA"
		}
		return msg[at:j], gdr, true
	}
}

// reSpace is regexp's \s: tab, newline, form feed, carriage return,
// space.
func reSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// usingNetwork matches reNetwork (`^Using network (.+?)\s*$`) as
// FindStringSubmatch does, by hand: it runs on every "Using network"
// line of big logs. The name is at least one character, without the
// blanks that end the line.
func usingNetwork(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "Using network ")
	if !ok || rest == "" {
		return "", false
	}
	k := len(rest)
	for k > 1 && reSpace(rest[k-1]) {
		k--
	}
	if strings.IndexByte(rest[:k], '\n') >= 0 {
		return "", false
	}
	return rest[:k], true
}

func (ps *Parser) parseWarn(p *Proc, n int, msg string) {
	source := ps.source
	if msg == "" {
		return // a bare "NCCL WARN" says nothing
	}
	if strings.HasPrefix(msg, "Failed to open libibverbs") {
		p.NoVerbs = n // logged as WARN by misc/ibvwrap.cc in some releases
		return
	}
	ev := ps.warnClass(msg)
	if !ps.joining && !ps.spliced && ps.rawLen >= minWrappedWarn {
		if ev.Kind == EventWarn {
			ps.warn = heldWarn{proc: p, n: n, msg: msg}
			return
		}
		if ev.Kind == EventResource && allDigits(ev.Error) {
			// NCCL prints "failed with %d %s, %s" (misc/ibvwrap.cc,
			// wrap_ibv_modify_qp): a line that ends at the number was cut.
			ps.warn = heldWarn{proc: p, n: n, msg: msg, errno: true}
			return
		}
	}
	ev.Source, ev.Line, ev.Host, ev.Pid, ev.Text = source, n, p.Host, p.Pid, msg
	if r := p.ConnRetry; ev.Kind == EventConnect && r != nil && r.After == 0 {
		// The failure that ends a run of retries: one failed connect.
		if r.Reported && r.Error == ev.Error {
			return // the run was told when it spent its budget
		}
		r.Reported = true
	}
	ps.event(ev)
}

// warnTail says whether raw reads as the tail of a wrapped sentence: text
// with no log record, stamp, prompt, traceback or error report of its own
// (which the line's own reading must see).
func warnTail(raw string) bool {
	t := strings.TrimSpace(raw)
	if t == "" || len(t) > 80 || raw[0] == ' ' || raw[0] == '\t' {
		return false
	}
	switch t[0] {
	case '[', '$', '#', '>', '<', '{', '+', '-', '=', '|', '`':
		return false
	}
	if t[0] >= '0' && t[0] <= '9' && strings.ContainsAny(t[:min(len(t), 12)], ":-/") {
		return false // a stamp or a "host:pid:tid"
	}
	for _, s := range []string{"NCCL", "Error", "error:", "Exception", "Traceback", "File \"", "Rank ", "rank "} {
		if strings.Contains(t, s) {
			return false
		}
	}
	// A host:pid:tid prefix ("gpu1:5021:5386 ").
	if i := strings.IndexByte(t, ' '); i > 0 && strings.Count(t[:i], ":") >= 2 {
		return false
	}
	return true
}

// errnoTail says whether raw reads as the rest of a verbs call's failure
// cut after its errno number: strerror's text ("No data available"),
// alone or followed by ibvModifyQpLog's ", on dev D:P, curr state …"
// (misc/ibvwrap.cc), which makes the line longer than warnTail allows.
func errnoTail(raw string) bool {
	text := raw
	if i := strings.Index(raw, ", on dev "); i >= 0 {
		text = raw[:i]
	} else {
		text = strings.TrimRight(raw, " \t")
	}
	if text == "" || len(text) > 60 || text[0] < 'A' || text[0] > 'Z' {
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ' ' || c == '-' || c == '\'') {
			return false
		}
	}
	return true
}

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// openDeviceFailed starts the warning of NCCL's IB transport about a
// device it could not open.
const openDeviceFailed = "NET/IB : Unable to open device "

// isDeviceName reports whether s reads as one RDMA device name (mlx5_0,
// mlx5_bond_0, rocep1s0f0): no spaces, no punctuation beyond _ - .
func isDeviceName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// maxWarnClasses bounds the warning texts a Parser remembers the class of.
const maxWarnClasses = 4096

// warnClass reads what a warning says (its kind, and the peer, status,
// call … of completion and verbs errors): the fields of its Event that
// depend on its text only. A flood repeats one text: it is read once.
func (ps *Parser) warnClass(msg string) Event {
	if ev, ok := ps.warns[msg]; ok {
		return ev
	}
	ev := Event{Rank: -1}
	if d, ok := duplicateGPU(msg); ok {
		ev = d
	} else if o, ok := ofiWarn(msg); ok {
		ev = o
	} else if m := reCompl.FindStringSubmatch(msg); m != nil {
		ev.Kind = EventCompletion
		ev.Peer = m[1]
		st, _ := strconv.Atoi(m[2])
		ev.Status = WCStatus(st)
		if mm := reOpcode.FindStringSubmatch(msg); mm != nil {
			ev.Opcode, _ = strconv.Atoi(mm[1])
		}
		if mm := reVendor.FindStringSubmatch(msg); mm != nil {
			ev.VendorErr, _ = strconv.Atoi(mm[1])
		}
		if mm := reReq.FindStringSubmatch(msg); mm != nil {
			ev.Req = mm[1]
		}
		if mm := reHCA.FindStringSubmatch(msg); mm != nil {
			ev.HCA = mm[1]
		}
	} else if m := reAsync.FindStringSubmatch(msg); m != nil {
		ev.Kind, ev.HCA, ev.Async = EventAsync, m[1], strings.TrimSpace(m[3])
		ev.Port, _ = strconv.Atoi(m[2])
	} else if m := reGIDChanged.FindStringSubmatch(msg); m != nil {
		ev.Kind, ev.HCA, ev.Async = EventAsync, m[1], "GID table change"
		ev.Port, _ = strconv.Atoi(m[2])
	} else if m := reAsyncUnknown.FindStringSubmatch(msg); m != nil {
		ev.Kind, ev.HCA, ev.Async = EventAsync, m[1], "event type "+m[3]
		ev.Port, _ = strconv.Atoi(m[2])
	} else if dev, ok := strings.CutPrefix(msg, openDeviceFailed); ok && isDeviceName(strings.TrimSpace(dev)) {
		// ncclIbInit (src/transport/net_ib.cc) names the device whose
		// wrap_ibv_open_device failed, then skips it: "NET/IB : Unable to
		// open device mlx5_58". HCA is that device.
		ev.Kind, ev.Call, ev.HCA = EventResource, "ibv_open_device", strings.TrimSpace(dev)
	} else if m := reCall.FindStringSubmatch(msg); m != nil {
		ev.Kind, ev.Call, ev.Error = EventResource, m[1], m[2]
		if strings.Contains(msg, ", on dev ") {
			if q := reQPLog.FindStringSubmatch(msg); q != nil {
				ev.HCA, ev.CurrState, ev.NextState, ev.LocalGID = q[1], q[3], q[4], q[6]
				ev.Port, _ = strconv.Atoi(q[2])
				if q[6] != "" {
					ev.GIDIndex, _ = strconv.Atoi(q[5])
				}
			}
		}
	} else if m := reConnect.FindStringSubmatch(msg); m != nil {
		ev.Kind, ev.Peer, ev.Error = EventConnect, m[1], cmp.Or(m[2], m[3])
	} else if m := reSockCall.FindStringSubmatch(msg); m != nil {
		// No peer named (Peer ""): Call says which socket call failed.
		ev.Kind, ev.Call, ev.Peer, ev.Error = EventConnect, cmp.Or(m[1], "socket"), m[2], cmp.Or(m[3], m[4])
	} else if m := reClosed.FindStringSubmatch(msg); m != nil {
		ev.Kind, ev.Call, ev.Peer, ev.Error = EventConnect, "recv", m[1], "Connection closed by remote peer"
	} else if m := reBadFamily.FindStringSubmatch(msg); m != nil {
		ev.Kind, ev.Peer, ev.Error = EventConnect, cmp.Or(m[1], "a peer"), "address family "+m[2]+" is neither AF_INET nor AF_INET6"
	} else if peer, errText, ok := retryExceeded(msg); ok {
		ev.Kind, ev.Peer, ev.Error = EventConnect, peer, errText
	} else if e, ok := nvlsBindFailed(msg); ok {
		ev.Kind, ev.Call, ev.Error = EventFailed, NVLSCall, e
	} else if e, ok := tcpxSlow(msg); ok {
		ev = e
	} else if e, ok := truncated(msg); ok {
		ev = e
	} else {
		ev.Kind = EventWarn
		if reTimeout.MatchString(msg) {
			ev.Kind = EventTimeout
		}
	}
	if ps.warns == nil || len(ps.warns) >= maxWarnClasses {
		ps.warns = map[string]Event{}
	}
	// A copy: msg may be part of a bigger string that the key would
	// keep alive.
	ps.warns[strings.Clone(msg)] = ev
	return ev
}

// Merge joins the logs of one job (one file per rank or per node) so
// that rules see every process: a socket fallback on one node next to IB
// on the others, the same peer failing from several ranks. Processes and
// events keep their own Source; the merged Source lists the files.
func Merge(logs ...*Log) *Log {
	if len(logs) == 1 {
		return logs[0]
	}
	m := &Log{}
	var names []string
	for _, lg := range logs {
		names = append(names, lg.Source)
		if m.Version == "" {
			m.Version = lg.Version
		}
		m.Procs = append(m.Procs, lg.Procs...)
		m.Events = append(m.Events, lg.Events...)
		m.NCCLLines += lg.NCCLLines
		m.ProgramBW = append(m.ProgramBW, lg.ProgramBW...)
		if m.Instance == nil {
			m.Instance = lg.Instance
		}
	}
	m.Source = strings.Join(names, ", ")
	return m
}

// EffectiveNetwork is the inter-node transport a process used: the
// "Using network" line when present, else what its connections went over
// ("via NET/…"), else "IB" when it listed IB devices, else "Socket" when it
// found no IB device but listed sockets; "" when the log does not say.
func (p *Proc) EffectiveNetwork() (network string, line int) {
	if p.Network != "" {
		return p.Network, p.NetworkLine
	}
	ib := p.Via["NET/IB"] + p.Via["NET/IB/GDRDMA"]
	if ib > 0 {
		return "IB", 0
	}
	if p.Via["NET/Socket"] > 0 {
		return "Socket", 0
	}
	if len(p.IBDevices) > 0 {
		return "IB", p.IBLine
	}
	if (p.IBNoDevice > 0 || p.NoVerbs > 0 || p.IBDisable == 1) && len(p.SocketIfs) > 0 {
		return "Socket", p.SocketLine
	}
	if p.NoVerbs > 0 {
		// Without libibverbs neither the IB transport nor a verbs-based
		// net plugin can load: a log at NCCL_DEBUG=WARN says no more,
		// but NCCL runs over sockets.
		return "Socket", p.NoVerbs
	}
	return "", 0
}

// Name is "host:pid" (or "pid N" without a host) for reports.
func (p *Proc) Name() string {
	if p.Host == "" {
		if p.Pid == 0 {
			return "(no host prefix)"
		}
		return fmt.Sprintf("pid %d", p.Pid)
	}
	return fmt.Sprintf("%s:%d", p.Host, p.Pid)
}

// Detect says whether text looks like an NCCL debug log or a PyTorch
// NCCL watchdog report.
func Detect(text string) bool {
	if strings.Contains(text, "NCCL INFO") || strings.Contains(text, "NCCL WARN") ||
		strings.Contains(text, "Watchdog caught collective operation timeout") {
		return true
	}
	// A completion error of the IB transport or a net plugin, quoted
	// without the NCCL line prefix; an NCCL error a Python program raised.
	for line := range strings.Lines(text) {
		if _, ok := quotedCompletion(line); ok {
			return true
		}
		if _, ok := pythonNCCLError(strings.TrimSpace(line)); ok {
			return true
		}
	}
	// NCCL 2.0-2.3 WARN lines name the source file of the warning; its
	// INFO lines alone are too plain to tell from other programs' but
	// for NCCL's own wordings (LegacyInfo).
	// aws-ofi-nccl's test programs print "WARN: Function: F Line: N:
	// NET/OFI …".
	for line := range strings.Lines(text) {
		if m := legacyLine(strings.TrimSpace(line)); m != nil && m[2] == "WARN" {
			return true
		}
		if LegacyInfo(line) {
			return true
		}
		if lv, _, ok := ofiTestLine(line); ok && lv == "WARN" {
			return true
		}
	}
	return false
}

// The heartbeat monitor's reports (torch/csrc/distributed/c10d/
// ProcessGroupNCCL.cpp, HeartbeatMonitor), without their spaces: a
// terminal or a paste that hard-wraps at a fixed column cuts them
// anywhere, mid-word included ("ProcessGroupNCCL'" / "s watchdog got
// stuck for 480 seconds …"), and a mail wrap drops the space at the cut.
const (
	hbStuck   = "ProcessGroupNCCL'swatchdoggotstuckfor"
	hbSeconds = "seconds"
	hbOld     = "Heartbeatmonitortimedout!"
)

// maxHeartbeatWrap is how many lines after its head a wrapped heartbeat
// report may take before its "got stuck for N seconds" is complete.
const maxHeartbeatWrap = 3

// compactSpace is s without its spaces and tabs.
func compactSpace(s string) string {
	if !strings.ContainsAny(s, " \t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// heartbeatText reads compact (a report's text without spaces, from the
// start of its message): done when it holds a whole report (secs the
// seconds it names, 0 for the old wording), partial when it is a report
// cut short (a prefix of one).
func heartbeatText(compact string) (secs int64, done, partial bool) {
	if i := strings.Index(compact, hbOld); i >= 0 {
		return 0, true, false
	}
	if strings.HasPrefix(hbOld, compact) {
		return 0, false, true
	}
	i := strings.Index(compact, hbStuck)
	if i < 0 {
		return 0, false, strings.HasPrefix(hbStuck, compact)
	}
	d, rest := digits(compact[i+len(hbStuck):])
	switch {
	case d != "" && strings.HasPrefix(rest, hbSeconds):
		secs, _ = strconv.ParseInt(d, 10, 64)
		return secs, true, false
	case i == 0 && strings.HasPrefix(hbSeconds, rest):
		return 0, false, true // "… stuck for 48" / "0 seconds"
	}
	return 0, false, false
}

// heartbeatMessage is the message of a PyTorch log line: the text after
// its last "] " (the glog prefix and "[PG ID 0 … Rank 6]" end there),
// or the line from its report when that comes first.
func heartbeatMessage(line string) string {
	msg := line
	if i := strings.LastIndex(line, "] "); i >= 0 {
		msg = line[i+2:]
	}
	for _, w := range []string{"ProcessGroupNCCL's", "Heartbeat monitor"} {
		if i := strings.Index(line, w); i >= 0 && len(line)-i > len(msg) {
			msg = line[i:]
		}
	}
	return msg
}

// heartbeatLine reads a heartbeat monitor report at line n (one that
// names ProcessGroupNCCL): a timeout of the rank it names when whole,
// held for the lines after it when a wrap cut it. false when line is no
// such report.
func (p *Parser) heartbeatLine(n int, line string) bool {
	secs, done, partial := heartbeatText(compactSpace(heartbeatMessage(line)))
	switch {
	case done:
		p.heartbeat(n, line, secs)
	case partial:
		p.hb = wrappedWatchdog{n: n, head: line, text: line}
	default:
		return false
	}
	return true
}

// heartbeat adds the heartbeat report of line n.
func (p *Parser) heartbeat(n int, text string, secs int64) {
	p.event(Event{Kind: EventTimeout, Source: p.source, Line: n, Text: text, Rank: anyRank(text, ""), Heartbeat: true, StuckS: secs})
	p.lg.NCCLLines++
}

// continueHeartbeat joins raw to the wrapped heartbeat report; false when
// raw is not part of it (then the head is dropped: it held only the
// start of a report that did not follow, and raw is read as any line).
func (p *Parser) continueHeartbeat(n int, raw string) bool {
	w := &p.hb
	t := strings.TrimRight(raw, " \t\r\n")
	if strings.TrimSpace(t) == "" || len(w.lines) >= maxHeartbeatWrap {
		p.flushHeartbeat()
		return false
	}
	// A wrap at a fixed column cuts mid-word and keeps the spaces; a
	// word wrap drops the space at the cut.
	last := w.head
	if len(w.lines) > 0 {
		last = w.lines[len(w.lines)-1]
	}
	last = strings.TrimRight(last, "\r\n")
	var joined string
	switch {
	case strings.HasSuffix(last, " ") || strings.HasPrefix(t, " "):
		joined = strings.TrimRight(w.text, " \t\r") + " " + strings.TrimLeft(t, " \t")
	case len(last) >= 72:
		joined = w.text + t
	default:
		joined = w.text + " " + t
	}
	secs, done, partial := heartbeatText(compactSpace(heartbeatMessage(joined)))
	switch {
	case done:
		at := w.n
		p.hb = wrappedWatchdog{}
		p.heartbeat(at, joined, secs)
	case partial:
		w.text = joined
		w.lines = append(w.lines, raw)
	default:
		p.flushHeartbeat()
		return false
	}
	return true
}

// flushHeartbeat ends a wrapped heartbeat report that did not complete:
// the lines joined to it are read as any line.
func (p *Parser) flushHeartbeat() {
	w := p.hb
	if w.text == "" {
		return
	}
	p.hb = wrappedWatchdog{}
	for i, l := range w.lines {
		p.Line(w.n+1+i, l)
	}
}

// BareInfo returns the message of an NCCL INFO line quoted without its
// "host:pid:tid NCCL INFO " prefix, as people trim them in reports: a
// network transport's line, "NET/IB : Using [0]rocep1s0f0:1/RoCE [RO];
// OOB enp1s0f0np0:192.168.100.12<0>" or "NET/NCCL RDMA Plugin v10 : GPU
// Direct RDMA Disabled for HCA 0 'rocep1s0f0'" (the transport's name, up
// to 40 characters and one word unless a plugin's "… Plugin vN", then
// " : "; src/transport/net_ib.cc and the net plugins print them so), or a channel's connection, "Channel 00/0 :
// 1[0] -> 0[0] [receive] via NET/IB/0" (src/transport.cc).
func BareInfo(raw string) (string, bool) {
	t := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(t, "NET/"):
		i := strings.Index(t, " : ")
		if i < len("NET/x") || i > 44 || i+3 >= len(t) {
			return "", false
		}
		name := t[len("NET/"):i]
		if strings.IndexByte(name, ' ') >= 0 && !strings.Contains(name, " Plugin ") {
			return "", false // a sentence, not a transport ("NET/IB is what we use : …")
		}
		for _, r := range name {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ' ' || r == '.' || r == '_' || r == '-' || r == '/') {
				return "", false
			}
		}
		return t, true
	case strings.HasPrefix(t, "Channel ") && strings.Contains(t, " via "):
		if reBareChannel.MatchString(t) {
			return t, true
		}
	}
	return "", false
}

// reBareChannel is a channel's connection line without its prefix.
var reBareChannel = regexp.MustCompile(`^Channel \d+/\d+ : \d+\[\d+\] -> \d+\[\d+\] .*via `)

func isQuotedCompletion(raw string) bool {
	_, ok := quotedCompletion(raw)
	return ok
}

// TruncCall is the Call of a receive that got more bytes than posted
// (see truncated).
const TruncCall = "recv (message truncated)"

// reTruncated is NCCL's warning that a peer sent more than the receive
// posted: the socket transport's "NET/Socket : peer 10.0.5.194<41988>
// message truncated : receiving 4 bytes instead of 2. If you believe …"
// (src/transport/net_socket.cc, ncclNetSocketTest; 2.4 printed no peer)
// and the bootstrap's "Message truncated : received %d bytes instead of
// %d" (src/bootstrap.cc).
var reTruncated = regexp.MustCompile(`^(?:(NET/\w+) : )?(?:peer (\S+) )?[Mm]essage truncated : receiv(?:ing|ed) (\d+) bytes instead of (\d+)`)

// truncated reads a truncated-message warning (see reTruncated): NCCL
// returns an error (ncclInvalidUsage from the socket transport of recent
// releases, ncclInternalError from 2.4's and from the bootstrap) and the
// communicator fails. An EventFailed with Call TruncCall, Peer the peer's
// address without its port ("" when not printed) and Error "N bytes
// instead of M" with the transport.
func truncated(msg string) (Event, bool) {
	if !strings.Contains(msg, "essage truncated : ") {
		return Event{}, false
	}
	m := reTruncated.FindStringSubmatch(msg)
	if m == nil {
		return Event{}, false
	}
	peer := m[2]
	if i := strings.IndexByte(peer, '<'); i > 0 {
		peer = peer[:i]
	}
	where := m[1]
	if where == "" {
		where = "bootstrap"
	}
	return Event{Kind: EventFailed, Call: TruncCall, Peer: peer, Error: where + ": " + m[3] + " bytes instead of " + m[4], Rank: -1}, true
}

// NVLSCall is the Call of a failed NVLS multicast bind (see nvlsBindFailed).
const NVLSCall = "cuMulticastBindMem"

// nvlsBindFailed reads NCCL's warning that binding NVLink SHARP multicast
// memory failed (src/transport/nvls.cc, nvlsAllocateMem / nvlsBindMem):
// "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 :
// CUDA error 401 'the operation cannot be performed in the present
// state'." (later releases add " at MC group … offset …" and a hint to
// set NCCL_NVLS_ENABLE=0). NCCL then returns ncclUnhandledCudaError: the
// communicator or the buffer registration fails. The error is the CUDA
// error as printed ("CUDA error 401 '…'").
func nvlsBindFailed(msg string) (string, bool) {
	if !strings.HasPrefix(msg, "Failed to bind NVLink SHARP (NVLS) Multicast memory") {
		return "", false
	}
	i := strings.Index(msg, "CUDA error ")
	if i < 0 {
		return "", false
	}
	e := msg[i:]
	if k := strings.IndexByte(e, '\n'); k >= 0 {
		e = e[:k]
	}
	if k := strings.Index(e, "'."); k >= 0 {
		e = e[:k+1]
	}
	return strings.TrimSpace(e), true
}
