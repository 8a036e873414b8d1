package nccllog

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// exampleFailure reads the report of the NCCLCHECK and CUDACHECK macros of
// the NCCL user guide's examples (docs.nvidia.com/deeplearning/nccl,
// "Examples"), which many programs copy: printf("Failed, NCCL error
// %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r)) and
// printf("Failed: Cuda error %s:%d '%s'\n", …, cudaGetErrorString(e)),
// then exit(EXIT_FAILURE). "Failed, NCCL error one_device_per_thread.cu:17
// 'invalid usage (run with NCCL_DEBUG=WARN for details)'".
func exampleFailure(line string) (Event, bool) {
	for off := 0; ; {
		i := strings.Index(line[off:], "Failed")
		if i < 0 {
			return Event{}, false
		}
		at := off + i + len("Failed")
		off = at
		rest, call := line[at:], ""
		switch {
		case strings.HasPrefix(rest, ", NCCL error "):
			call, rest = "NCCL", rest[len(", NCCL error "):]
		case strings.HasPrefix(rest, ": Cuda error "):
			call, rest = "CUDA", rest[len(": Cuda error "):]
		default:
			continue
		}
		pos, msg, ok := strings.Cut(rest, " '")
		msg = strings.TrimSpace(msg)
		if !ok || !strings.Contains(pos, ":") || strings.ContainsAny(pos, " \t") || len(msg) < 2 || !strings.HasSuffix(msg, "'") {
			continue
		}
		return Event{Kind: EventFailed, Rank: -1, Call: call, Error: strings.TrimSuffix(msg, "'"), Text: strings.TrimSpace(line)}, true
	}
}

// torchNCCLErrIn is what PyTorch's C10D_NCCL_CHECK macros
// (torch/csrc/distributed/c10d/NCCLUtils.hpp) start the message of the
// exception they throw with: "NCCL error in: FILE:LINE, " then
// ncclGetErrorWithVersion ("unhandled system error, NCCL version 2.7.8").
const torchNCCLErrIn = "NCCL error in: "

// torchNCCLError reads PyTorch's exception for a failed NCCL call:
// "RuntimeError: NCCL error in: …/ProcessGroupNCCL.cpp:825, unhandled
// system error, NCCL version 2.7.8" (torch.distributed.DistBackendError
// in PyTorch 2.x). Error is the error string without the version.
func torchNCCLError(line string) (Event, bool) {
	i := strings.Index(line, torchNCCLErrIn)
	if i < 0 {
		return Event{}, false
	}
	pos, msg, ok := strings.Cut(line[i+len(torchNCCLErrIn):], ", ")
	if !ok || !strings.Contains(pos, ":") {
		return Event{}, false
	}
	if k := strings.Index(msg, ", NCCL version"); k >= 0 {
		msg = msg[:k]
	}
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return Event{}, false
	}
	t := strings.TrimSpace(line)
	return Event{Kind: EventFailed, Rank: anyRank(t, ""), Call: "NCCL", Error: msg, Text: t, Tag: launcherTag(t)}, true
}

// xlaNCCLError reads XLA's (JAX's, TensorFlow's) reports of a failed
// NCCL call (xla/service/gpu/nccl_utils.cc and its successors):
// ToStatus's "FILE:LINE: NCCL operation EXPR failed: TEXT" (newer
// releases add ". Last NCCL warning(error) log entry (may be unrelated)
// '…'." and drop FILE:LINE), logged or raised as "INTERNAL: …", and the
// async-error check's "Aborting communicator: 0x7f3e427e55b0 due to
// async NCCL error: TEXT" (CheckComm / CheckNcclAsyncError: LOG(ERROR)
// of ncclGetErrorString, or of the status above in later releases),
// after which the communicator is aborted. Error is TEXT, the
// ncclGetErrorString of the result.
func xlaNCCLError(line string) (Event, bool) {
	var msg string
	if i := strings.Index(line, "NCCL operation "); i >= 0 {
		expr, after, ok := strings.Cut(line[i+len("NCCL operation "):], " failed: ")
		// EXPR is the C expression the macro was given: a name
		// ("async_err") or a call whose blanks are all inside its
		// parentheses ("ncclCommInitRank(&comm, nranks, id, rank)").
		// Code, not a word of prose: it holds '(' or '_' or starts "nccl".
		if sp := strings.IndexByte(expr, ' '); !ok || !strings.ContainsAny(expr, "(_") && !strings.HasPrefix(expr, "nccl") || sp >= 0 && !strings.Contains(expr[:sp], "(") {
			return Event{}, false
		}
		msg = after
	} else if i := strings.Index(line, " due to async NCCL error: "); i >= 0 && strings.Contains(line[:i], "Aborting communicator") {
		msg = line[i+len(" due to async NCCL error: "):]
	} else {
		return Event{}, false
	}
	if k := strings.Index(msg, ". Last NCCL warning"); k >= 0 {
		msg = msg[:k]
	}
	msg = strings.TrimRight(strings.TrimSpace(msg), ".")
	if msg == "" {
		return Event{}, false
	}
	t := strings.TrimSpace(line)
	return Event{Kind: EventFailed, Rank: -1, Call: "NCCL", Error: msg, Text: t}, true
}

// StoreCall is the Call of a timeout event of PyTorch's c10d store.
const StoreCall = "c10d store"

// TCPXSlowCall is the Call of a timeout event that is the GPUDirect-TCPX
// net plugin's slowness report, not a failure (see tcpxSlow).
const TCPXSlowCall = "tcpx slowness"

// reTCPXSlow is the GPUDirect-TCPX net plugin's slowness report
// (google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc, tcpxCommProgress:
// WARN("%p:%p, nic %d, %s, %s %s ctrl timeout cnt %lu, nanos %lu"), the
// flow printed as "LOCAL<port><-PEER<port>" and its direction "rx" or
// "tx"): a request has polled cnt times for its control message from the
// peer, nanos since the first poll (past GPUDIRECTTCPX_TIMEOUT_THRESHOLD_NS,
// src/timeout.cc), and goes on waiting.
var reTCPXSlow = regexp.MustCompile(`, nic (\d+), ([^,\s]+), (.*?) ?(rx|tx) ctrl timeout cnt (\d+), nanos (\d+)\s*$`)

// tcpxSlow reads the GPUDirect-TCPX plugin's slowness report (see
// reTCPXSlow): an EventTimeout with Call TCPXSlowCall, HCA the NIC's
// interface, Peer the flow and StuckS the seconds waited.
func tcpxSlow(msg string) (Event, bool) {
	if !strings.Contains(msg, " ctrl timeout cnt ") {
		return Event{}, false
	}
	m := reTCPXSlow.FindStringSubmatch(msg)
	if m == nil {
		return Event{}, false
	}
	ns, _ := strconv.ParseInt(m[6], 10, 64)
	return Event{Kind: EventTimeout, Call: TCPXSlowCall, HCA: m[2], Peer: m[3], StuckS: ns / 1e9, Rank: -1}, true
}

// torchStoreTimeout reads the exception of a socket of PyTorch's c10d
// store (TCPStore, which torch.distributed and torch elastic's
// rendezvous and exit barrier use to coordinate ranks) whose recv or
// send timed out: the SYSCHECK macro of
// torch/csrc/distributed/c10d/Utils.hpp turns EAGAIN/EWOULDBLOCK into
// TORCH_CHECK(false, "Socket Timeout"), "RuntimeError: Socket Timeout"
// in Python (DistStoreError or DistNetworkError in later releases),
// possibly with a Markdown backtick around it.
func torchStoreTimeout(line string) (Event, bool) {
	i := strings.Index(line, "Error: Socket Timeout")
	if i < 0 {
		return Event{}, false
	}
	switch before := line[:i]; {
	case strings.HasSuffix(before, "Runtime"), strings.HasSuffix(before, "DistStore"), strings.HasSuffix(before, "DistNetwork"):
	default:
		return Event{}, false
	}
	if rest := strings.Trim(line[i+len("Error: Socket Timeout"):], " \t`.\r"); rest != "" {
		return Event{}, false
	}
	t := strings.Trim(strings.TrimSpace(line), "`")
	return Event{Kind: EventTimeout, Rank: anyRank(t, ""), Call: StoreCall, Error: "Socket Timeout", Text: t, Tag: launcherTag(t)}, true
}

// CUDAError finds a CUDA error raised as an exception on a line and
// returns its message: c10::CUDAError's "what():  CUDA error: unknown
// error" (c10/cuda/CUDAException.h, C10_CUDA_CHECK), Python's
// "RuntimeError: CUDA error: …", and PyTorch's "Process group watchdog
// thread terminated with exception: CUDA error: …"
// (ProcessGroupNCCL.cpp). A "CUDA error:" in other words (prose) is
// not one.
func CUDAError(line string) (string, bool) {
	i := strings.Index(line, "CUDA error: ")
	if i < 0 {
		return "", false
	}
	before := strings.TrimRight(line[:i], " \t")
	if !strings.HasSuffix(before, "what():") && !strings.HasSuffix(before, "Error:") && !strings.HasSuffix(before, "exception:") {
		return "", false
	}
	msg := strings.TrimSpace(line[i+len("CUDA error: "):])
	return msg, msg != ""
}

// maxCUDAErrorFrames is how many lines after a CUDA error its stack may
// take before a frame of ProcessGroupNCCL shows where it was raised: the
// "Exception raised from …" line and a few frames of c10 and ATen.
const maxCUDAErrorFrames = 12

// cudaErrorLine holds or records a CUDA error of line n (see CUDAError):
// at once when the line itself says that ProcessGroupNCCL raised it (its
// watchdog's "terminated with exception"), else until a frame of
// ProcessGroupNCCL follows within maxCUDAErrorFrames lines
// (pendingCUDAError). A CUDA error that no ProcessGroupNCCL frame follows
// is not NCCL's and is dropped.
func (p *Parser) cudaErrorLine(n int, line string) {
	msg, ok := CUDAError(line)
	if !ok {
		return
	}
	t := strings.TrimSpace(line)
	ev := Event{Kind: EventFailed, Source: p.source, Line: n, Rank: anyRank(t, ""), Call: "CUDA", Error: msg, Text: t, Tag: launcherTag(t)}
	if strings.Contains(t, "ProcessGroupNCCL") || strings.Contains(t, "watchdog thread terminated with exception") {
		p.cuda = nil
		p.confirmCUDAError(ev)
		return
	}
	p.cuda, p.cudaLeft = &ev, maxCUDAErrorFrames
}

// pendingCUDAError reads a line after a held CUDA error: a line naming
// ProcessGroupNCCL (a frame "c10d::ProcessGroupNCCL::WorkNCCL::
// finishedGPUExecutionInternal()", "Exception raised from … at
// …/ProcessGroupNCCL.cpp:N") records it; a code fence or too many lines
// drop it. The line is still read as any line.
func (p *Parser) pendingCUDAError(raw string) {
	if strings.Contains(raw, "ProcessGroupNCCL") {
		ev := *p.cuda
		p.cuda = nil
		p.confirmCUDAError(ev)
		return
	}
	if p.cudaLeft--; p.cudaLeft <= 0 || strings.HasPrefix(strings.TrimSpace(raw), "```") {
		p.cuda = nil
	}
}

func (p *Parser) confirmCUDAError(ev Event) {
	ev.Watchdog = true
	p.event(ev)
	p.lg.NCCLLines++
}

// launcherTag is the tag torchrun (torch.distributed.elastic, --tee or
// --log-dir) puts before each line of a worker: "[default3]:" is role
// "default", local rank 3; "default3" then, "" when the line has none.
// The "[rank3]:" tag of PyTorch 2.x is read as the rank instead.
func launcherTag(line string) string {
	if !strings.HasPrefix(line, "[") {
		return ""
	}
	end := strings.Index(line, "]:")
	if end < 2 {
		return ""
	}
	tag := line[1:end]
	if strings.HasPrefix(tag, "rank") {
		return ""
	}
	d := len(tag)
	for d > 0 && tag[d-1] >= '0' && tag[d-1] <= '9' {
		d--
	}
	if d == len(tag) || d == 0 {
		return ""
	}
	for i := 0; i < d; i++ {
		if !isWord(tag[i]) {
			return ""
		}
	}
	return tag
}

// duplicateGPU reads init.cc's "Duplicate GPU detected : rank 0 and rank
// 1 both on CUDA device 1000" (WARN in initTransportsRank; the device is
// the GPU's busId as an int64, printed %lx since NCCL 2.4, %x before).
func duplicateGPU(msg string) (Event, bool) {
	var rank, other int
	var bus int64
	if _, err := fmt.Sscanf(msg, "Duplicate GPU detected : rank %d and rank %d both on CUDA device %x", &rank, &other, &bus); err != nil {
		return Event{}, false
	}
	return Event{Kind: EventDuplicateGPU, Rank: rank, Peer: fmt.Sprint(other), BusID: busIDString(bus), Error: "invalid usage"}, true
}

// busIDString turns NCCL's int64 busId back into the PCI address it came
// from (misc/utils.cc int64ToBusId: "%04lx:%02lx:%02lx.%01lx" of domain,
// bus, device, function).
func busIDString(id int64) string {
	return fmt.Sprintf("%04x:%02x:%02x.%x", id>>20, (id&0xff000)>>12, (id&0xff0)>>4, id&0xf)
}

// ErrorLine says whether line reports a failed NCCL or CUDA call as the
// reader reads it (exampleFailure, torchNCCLError, CUDAError), or a
// timed-out socket of PyTorch's c10d store (torchStoreTimeout): a line
// that belongs to an NCCL log when it stands among other output. Lines
// without "rror" are answered with one scan.
func ErrorLine(line string) bool {
	if !strings.Contains(line, "rror") {
		return false
	}
	if strings.Contains(line, "Error: Socket Timeout") {
		_, ok := torchStoreTimeout(line)
		return ok
	}
	if !strings.Contains(line, "error") {
		return false
	}
	if _, ok := exampleFailure(line); ok {
		return true
	}
	if _, ok := torchNCCLError(line); ok {
		return true
	}
	if _, ok := xlaNCCLError(line); ok {
		return true
	}
	_, ok := CUDAError(line)
	return ok
}

// legacyInfoWords start the INFO messages of NCCL 2.0-2.3 that no other
// program prints (src/init.cu, src/transport/net_ib.cu, net_socket.cu,
// of those releases): "NET/IB: [0] mlx4_0:1/IB", "Using internal Network
// IB", "Using NCCL Low-latency algorithm for sizes below 16384". Plainer
// ones ("NET : Using interface eth0:…", "CUDA Dev 0, …") are read in an
// NCCL log but do not tell one apart.
var legacyInfoWords = []string{"NET/IB: [", "NET/IB : ", "NET/Socket : ", "NET/Plugin : ", "Using internal Network ", "Using external Network ", "Using NCCL Low-latency"}

// LegacyInfo says whether line is an INFO line of NCCL 2.0-2.3 (no
// "NCCL" before the level: "nmyjs-202-75:24500:24664 [1] INFO NET/IB: [0]
// mlx4_0:1/IB") whose message is one of NCCL's own wordings
// (legacyInfoWords): plain INFO lines are any program's. The regexp runs
// only on lines whose text after " INFO " starts with such a word.
func LegacyInfo(line string) bool {
	i := strings.Index(line, " INFO ")
	if i < 0 {
		return false
	}
	msg := line[i+len(" INFO "):]
	if !slices.ContainsFunc(legacyInfoWords, func(w string) bool { return strings.HasPrefix(msg, w) }) {
		return false
	}
	m := legacyLine(strings.TrimSpace(line))
	return m != nil && m[3] == "INFO"
}

// LegacyWarn says whether line is a WARN line of NCCL 2.0-2.3, which
// printed no "NCCL" before the level but the source file of the warning
// ("machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed").
func LegacyWarn(line string) bool {
	m := legacyLine(strings.TrimSpace(line))
	return m != nil && m[2] == "WARN"
}

// ibgdaWarnings are the texts NVSHMEM's IBGDA transport prints with its
// NVSHMEMI_WARN_PRINT ("WARN: " then the text, on stdout,
// src/include/non_abi/nvshmemx_error.h) when the GPU cannot map a NIC's
// UAR (the doorbell page) or its memory (NVIDIA/nvshmem
// src/modules/transport/ibgda/ibgda.cpp: ibgda_nic_mem_gpu_map,
// ibgda_check_gpu_mapping_nic_uar; the NIC handler then becomes the CPU,
// through GDRCopy or host memory), and the older releases' "GPU cannot
// map UAR of device %s. Skipping...".
var ibgdaWarnings = []string{
	"cudaHostRegister with IoMemory failed with error=",
	"ibgda_nic_mem_gpu_map failed.",
	"ibgda_alloc_and_map_qp_uar with GPU as handler failed.",
	"GPU cannot map UAR of device ",
}

// ibgdaFallback reads one of NVSHMEM's IBGDA fallback warnings (see
// ibgdaWarnings): an EventIBGDAFallback, HCA the device the line names.
func ibgdaFallback(raw string) (Event, bool) {
	t := strings.TrimSpace(raw)
	msg, ok := strings.CutPrefix(t, "WARN: ")
	if !ok {
		return Event{}, false
	}
	for _, w := range ibgdaWarnings {
		if !strings.HasPrefix(msg, w) {
			continue
		}
		ev := Event{Kind: EventIBGDAFallback, Text: msg, Rank: -1}
		if dev, ok := strings.CutPrefix(msg, "GPU cannot map UAR of device "); ok {
			dev, _, _ = strings.Cut(dev, ". ")
			ev.HCA = strings.TrimSuffix(dev, ".")
		}
		return ev, true
	}
	return Event{}, false
}

// IBGDAInitFailedLine says whether line is NVSHMEM's error that its IBGDA
// transport failed to initialise: NVSHMEMI_ERROR_PRINT's "file:function:line: "
// then "init failed for transport: IBGDA" (NVIDIA/nvshmem
// src/host/transport/transport.cpp nvshmemi_transport_init).
func IBGDAInitFailedLine(line string) bool {
	i := strings.Index(line, "nvshmemi_transport_init:")
	if i < 0 {
		return false
	}
	_, msg, ok := strings.Cut(line[i+len("nvshmemi_transport_init:"):], ": ")
	return ok && strings.HasPrefix(strings.TrimSpace(msg), "init failed for transport: IBGDA")
}

// reRankTraceback is a Python traceback's head under torchrun's per-rank
// tag: "[rank0]: Traceback (most recent call last):".
// A paste's normalisation may have taken the tag off already.
var reRankTraceback = regexp.MustCompile(`^\s*(?:\[rank(\d{1,6})\]:\s*)?Traceback \(most recent call last\):\s*$`)

// rankTraceback reads the head of a rank's Python traceback (see
// reRankTraceback): an EventTraceback with that rank (-1 untagged).
func rankTraceback(raw string) (Event, bool) {
	m := reRankTraceback.FindStringSubmatch(raw)
	if m == nil {
		return Event{}, false
	}
	r := -1
	if m[1] != "" {
		r, _ = strconv.Atoi(m[1])
	}
	return Event{Kind: EventTraceback, Rank: r, Text: strings.TrimSpace(raw)}, true
}
