package host

import (
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/rules"
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	hostmodel "github.com/ibdoctor/ibdoctor/internal/model/host"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// Input is everything the triage rules judge. Nil or empty parts mean
// "not available"; the rules that need them report nothing.
type Input struct {
	Snap *snapshot.Snapshot
	// Kernel is the parsed kernel log; Boot the boot time (to date
	// "[ seconds]" stamps, and Snap.Taken − Boot is the uptime the
	// since-boot counters ran for), zero when unknown; Since the start of
	// the window for kernel-log events, zero for all.
	Kernel *kmsg.Log
	Boot   time.Time
	Since  time.Time
	// Window is the length of the window, for summaries ("in the last
	// 24h"); zero means the whole log.
	Window time.Duration
	// Ethtool are driver statistics per netdev.
	Ethtool []*ethtool.Stats
	// SMI is `nvidia-smi topo -m` when available.
	SMI *nvsmi.Matrix
	// Env is the NCCL job's environment, nil when not given.
	Env *ncclenv.Env
	// Interfaces are every entry of sys/class/net (the snapshot keeps
	// only those of PCI devices); nil when unreadable. InterfacesPartial
	// says the list is known to be incomplete (a bundle keeps only the
	// PCI-backed interfaces; no "lo"): a name that matches nothing there
	// may still exist, so only positive evidence is judged.
	Interfaces        []hostmodel.Interface
	InterfacesPartial bool
	// Memlock is RLIMIT_MEMLOCK of the job, nil when unknown.
	Memlock *hostmodel.Limit
	// Modules are the loaded kernel modules (proc/modules), nil when
	// unreadable.
	Modules []string
	// Uverbs maps uverbsN to its RDMA device
	// (sys/class/infiniband_verbs/uverbsN/ibdev), nil when unreadable.
	Uverbs map[string]string
	// Dev are the /dev/infiniband entries checked; nil when not checked.
	Dev []hostmodel.DevEntry
	// Cmdline is the kernel command line (proc/cmdline), nil when
	// unknown; IOMMUs the IOMMU units in sys/class/iommu, nil when not
	// listed (then the command line alone is judged).
	Cmdline *string
	IOMMUs  []string
	// Thresholds tune the rules; zero values take the defaults.
	Thresholds Thresholds

	// standalone is set by the Analyze functions: there is no node, so
	// events are reported against the PCI address in the text.
	standalone bool
	// gidsCut is the port of a pasted GID table cut inside its rows
	// (CheckPastedGIDs): checkGIDv2 does not judge it.
	gidsCut *snapshot.Port
	// gidsOpen says a pasted GID table has no closing n_gids_found line
	// (cut, or filtered by grep): an index it does not list may still
	// be populated.
	gidsOpen bool
	// logOnly is set by CheckKernelLog: AER is judged from the log alone.
	logOnly bool

	// evs caches the classified kernel-log events of the window (set by
	// the first rule that asks; the inputs never change during Run).
	evs     []kmsg.Event
	evsDone bool
}

// Thresholds are the configurable limits of the triage rules.
type Thresholds struct {
	// AERCorrectable is the number of correctable errors (counter total or
	// log events in the window) from which pcie.aer_errors warns.
	AERCorrectable uint64
	// FlapWarning and FlapCritical count link-down events in the window.
	FlapWarning, FlapCritical int
	// MemlockCritical is the soft limit below which host.memlock_limited
	// is critical.
	MemlockCritical uint64
	// PauseRatio is pause frames per packet on a priority for
	// roce.pause_heavy, PauseMin the least number of pause frames that
	// counts at all.
	PauseRatio float64
	PauseMin   uint64
	// PauseTimeShare is the share of the time since boot a priority spent
	// paused (rx/tx_prio*_pause_duration) from which roce.pause_heavy
	// fires regardless of the frame ratio.
	PauseTimeShare float64
	// DiscardRatio is receive drops for lack of host buffers per
	// received packet for host.nic_rx_drops (at least DiscardMin drops).
	DiscardRatio float64
	DiscardMin   uint64
}

// DefaultThresholds are the documented defaults (`ibdoctor rules`).
var DefaultThresholds = Thresholds{
	AERCorrectable:  limits.HostAERCorrectable,
	FlapWarning:     limits.HostKmsgFlapWarning,
	FlapCritical:    limits.HostKmsgFlapCritical,
	MemlockCritical: limits.HostMemlockCritical,
	PauseRatio:      limits.HostPauseRatio,
	PauseTimeShare:  limits.HostPauseTimeShare,
	PauseMin:        limits.HostPauseMin,
	DiscardRatio:    limits.HostRxDropRatio,
	DiscardMin:      limits.HostRxDropMin,
}

func (in *Input) th() Thresholds {
	t := in.Thresholds
	d := DefaultThresholds
	if t.AERCorrectable == 0 {
		t.AERCorrectable = d.AERCorrectable
	}
	if t.FlapWarning == 0 {
		t.FlapWarning = d.FlapWarning
	}
	if t.FlapCritical == 0 {
		t.FlapCritical = d.FlapCritical
	}
	if t.MemlockCritical == 0 {
		t.MemlockCritical = d.MemlockCritical
	}
	if t.PauseRatio == 0 {
		t.PauseRatio = d.PauseRatio
	}
	if t.PauseTimeShare == 0 {
		t.PauseTimeShare = d.PauseTimeShare
	}
	if t.PauseMin == 0 {
		t.PauseMin = d.PauseMin
	}
	if t.DiscardRatio == 0 {
		t.DiscardRatio = d.DiscardRatio
	}
	if t.DiscardMin == 0 {
		t.DiscardMin = d.DiscardMin
	}
	return t
}

// Rule is one entry of this rule set (the one Rule shape of every set).
type Rule = rules.Rule[*Input]

// Rules is the triage rule set in runbook order (after the port rules).
var Rules = []Rule{
	{Name: "PCIe AER errors", IDs: []string{"pcie.aer_errors"}, Check: checkAER},
	{Name: "IOMMU mode", IDs: []string{"host.iommu_translated"}, Check: checkIOMMU},
	{Name: "PCIe ACS", IDs: []string{"pcie.acs_redirect"}, Check: checkACS},
	{Name: "GPU–NIC topology", IDs: []string{"topo.gpu_nic_far"}, Check: checkTopology},
	{Name: "nvidia-smi topology", IDs: []string{"topo.nvidia_smi_disagrees"}, Check: checkSMI},
	{Name: "NVIDIA Xid", IDs: []string{"gpu.xid", "gpu.fallen_off_bus"}, Check: checkXid},
	{Name: "NVIDIA GPU reset required", IDs: []string{"gpu.reset_required"}, Check: checkGPUResetRequired},
	{Name: "NVIDIA GPU initialisation", IDs: []string{"gpu.init_failed"}, Check: checkGPUInitFailed},
	{Name: "NVIDIA GSP firmware timeouts", IDs: []string{"gpu.gsp_timeout"}, Check: checkGSPTimeout},
	{Name: "GPU page faults", IDs: []string{"gpu.page_fault"}, Check: checkGPUFault},
	{Name: "GPU peer-memory hooks", IDs: []string{"nccl.peermem_missing"}, Check: checkPeerMemSymbol},
	{Name: "link flaps in the kernel log", IDs: []string{"kmsg.link_flap"}, Check: checkFlaps},
	{Name: "bonding in the kernel log", IDs: []string{"kmsg.bond_degraded"}, Check: checkBonds},
	{Name: "port module events", IDs: []string{"kmsg.module_event"}, Check: checkModules},
	{Name: "mlx5 health", IDs: []string{"kmsg.mlx5_health", "kmsg.mlx5_cmd_failed"}, Check: checkHealth},
	{Name: "completion queue errors in the kernel log", IDs: []string{"kmsg.cq_error"}, Check: checkCQ},
	{Name: "transmit timeouts in the kernel log", IDs: []string{"kmsg.tx_timeout"}, Check: checkTxTimeout},
	{Name: "kernel RDMA transport peers", IDs: []string{"kmsg.rdma_peer_unreachable"}, Check: checkRDMAPeer},
	{Name: "PCIe slot power", IDs: []string{"pcie.slot_power"}, Check: checkSlotPower},
	{Name: "devices gone from the PCIe bus", IDs: []string{"pcie.device_lost"}, Check: checkDeviceGone},
	{Name: "kernel modules that failed to load", IDs: []string{"kmsg.module_load_failed"}, Check: checkModuleLoad},
	{Name: "process crashes in the kernel log", IDs: []string{"kmsg.segfault"}, Check: checkCrashes},
	{Name: "EDAC memory errors", IDs: []string{"host.memory_error"}, Check: checkMemory},
	{Name: "kernel crashes", IDs: []string{"kmsg.kernel_oops"}, Check: checkOopsAndPanics},
	{Name: "machine checks", IDs: []string{"host.machine_check"}, Check: checkMCE},
	{Name: "OOM kills", IDs: []string{"host.oom_kill"}, Check: checkOOM},
	{Name: "unclassified driver errors", IDs: []string{"kmsg.driver_error"}, Check: checkDriverErrors},
	{Name: "RoCE GIDs", IDs: []string{"roce.gid_missing_v2"}, Check: checkGIDv2},
	{Name: "RoCE MTU", IDs: []string{"roce.mtu_mismatch"}, Check: checkMTU},
	{Name: "PFC pause storms", IDs: []string{"roce.pfc_storm"}, Check: checkPFCStorm},
	{Name: "PFC pause load", IDs: []string{"roce.pause_heavy"}, Check: checkPauseHeavy},
	{Name: "ECN effectiveness", IDs: []string{"roce.ecn_not_effective"}, Check: checkECN},
	{Name: "Ethernet PHY errors", IDs: []string{"roce.phy_errors"}, Check: checkPHY},
	{Name: "NIC receive drops", IDs: []string{"host.nic_rx_drops"}, Check: checkRxDrops},
	{Name: "locked-memory limit", IDs: []string{"host.memlock_limited"}, Check: checkMemlock},
	{Name: "GPUDirect RDMA module", IDs: []string{"nccl.peermem_missing"}, Check: checkPeermem},
	{Name: "NCCL_IB_DISABLE", IDs: []string{"nccl.ib_disabled"}, Check: checkIBDisabled},
	{Name: "NCCL_IB_HCA", IDs: []string{"nccl.ib_hca_unknown", "nccl.ib_hca_prefix_ambiguous", "nccl.ib_hca_port_down"}, Check: checkIBHCA},
	{Name: "NCCL_SOCKET_IFNAME", IDs: []string{"nccl.socket_ifname_missing"}, Check: checkSocketIfname},
	{Name: "NCCL_IB_GID_INDEX", IDs: []string{"nccl.gid_index_wrong"}, Check: checkGIDIndex},
	{Name: "uverbs devices", IDs: []string{"container.uverbs_missing"}, Check: checkUverbs},
	{Name: "rdma_cm device", IDs: []string{"container.rdma_cm_missing"}, Check: checkRdmaCM},
}

// Run runs every triage rule and returns the findings sorted by severity
// and runbook step.
func Check(in *Input) []finding.Finding {
	if in.Snap == nil {
		return nil
	}
	out := rules.Run(Rules, in)
	catalog.Sort(out)
	return out
}

// KernelLogRules are the rules over kernel-log events.
var KernelLogRules = []string{"PCIe AER errors", "NVIDIA Xid", "link flaps in the kernel log", "port module events", "mlx5 health", "completion queue errors in the kernel log", "transmit timeouts in the kernel log", "kernel RDMA transport peers", "PCIe slot power", "process crashes in the kernel log", "EDAC memory errors", "kernel crashes"}

// CheckKernelLog runs only the rules over kernel-log events (AER reports,
// Xid and fallen-off-bus, link flaps, module events, mlx5 health) with the
// doctor's judgement, for a caller that keeps its own window of records
// (the agent). The AER counters of the snapshot are not judged: they are
// totals since boot, not events in the window.
func CheckKernelLog(in *Input) []finding.Finding {
	if in.Snap == nil {
		return nil
	}
	in.logOnly = true
	defer func() { in.logOnly = false }()
	var out []finding.Finding
	for _, r := range Rules {
		if slices.Contains(KernelLogRules, r.Name) {
			out = append(out, r.Check(in)...)
		}
	}
	catalog.Sort(out)
	return out
}

// events returns the classified kernel-log events inside the window.
func (in *Input) events() []kmsg.Event {
	if in.Kernel == nil {
		return nil
	}
	if !in.evsDone {
		in.evs, in.evsDone = kmsg.Events(in.Kernel.Since(in.Since, in.Boot)), true
	}
	return in.evs
}

// logEvidence cites one kernel log record.
func (in *Input) logEvidence(r kmsg.Record) finding.Evidence {
	t := r.Text
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	if len(t) > 200 {
		t = t[:200] + "…"
	}
	return finding.Evidence{Source: fmt.Sprintf("%s:%d", in.Kernel.Source, r.Line), Value: t}
}

// window describes the kernel-log window for summaries.
func (in *Input) window() string {
	if in.Since.IsZero() || in.Window <= 0 {
		return "in the kernel log"
	}
	return "in the last " + ShortDuration(in.Window)
}

// ShortDuration renders a window for people: "24h", "7d", "90m".
func ShortDuration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.Round(time.Second).String()
}

// target is an HCA or GPU a PCI address maps to.
type target struct {
	Device string // RDMA device, "" for a GPU
	GPU    string // "GPU3", "" for an HCA
	PCI    pcie.Address
}

// label names the target: the RDMA device, the GPU, else the address.
func (t target) label() string {
	switch {
	case t.Device != "":
		return t.Device
	case t.GPU != "":
		return t.GPU
	}
	return string(t.PCI)
}

// longLabel is label with the address: "mlx5_0 (0000:3b:00.0)".
func (t target) longLabel() string {
	if l := t.label(); l != string(t.PCI) && t.PCI != "" {
		return l + " (" + string(t.PCI) + ")"
	}
	return string(t.PCI)
}

func (t target) subject(host string) finding.Subject {
	return finding.Subject{Host: host, Device: t.Device, GPU: strings.TrimPrefix(t.GPU, "GPU"), PCI: string(t.PCI)}
}

// gpuName returns "GPU<n>" by PCI bus order, as nvidia-smi numbers them.
// Subjects carry only the index ("3"), which report.SubjectString shows
// as "GPU 3".
func gpuName(s *snapshot.Snapshot, a pcie.Address) (string, bool) {
	for i, g := range s.GPUs() {
		if g.Address == a {
			return fmt.Sprintf("GPU%d", i), true
		}
	}
	return "", false
}

// targetsOf maps a PCI address to the HCAs and GPUs it is or sits above
// (an AER source can be the link partner: a switch or root port).
func targetsOf(s *snapshot.Snapshot, a pcie.Address) []target {
	var out []target
	self := func(x pcie.Address) []target {
		var ts []target
		for i := range s.Devices {
			if s.Devices[i].PCI == x {
				ts = append(ts, target{Device: s.Devices[i].Name, PCI: x})
			}
		}
		if g, ok := gpuName(s, x); ok {
			ts = append(ts, target{GPU: g, PCI: x})
		}
		return ts
	}
	if ts := self(a); len(ts) > 0 {
		return ts
	}
	if len(s.PCI) == 0 && len(s.Devices) == 0 {
		return nil
	}
	for _, c := range candidates(s) {
		for _, up := range s.Upstream(c) {
			if up.Address == a {
				out = append(out, self(c)...)
				break
			}
		}
	}
	return out
}

// candidates are the PCI addresses of HCAs and GPUs, in address order.
func candidates(s *snapshot.Snapshot) []pcie.Address {
	seen := map[pcie.Address]bool{}
	var out []pcie.Address
	for i := range s.PCI {
		p := &s.PCI[i]
		if p.IsGPU() {
			seen[p.Address] = true
			out = append(out, p.Address)
		}
	}
	for i := range s.Devices {
		if a := s.Devices[i].PCI; a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// pciTarget names a single address for events about one function: the
// RDMA device on it, a GPU, else the address itself.
func pciTarget(s *snapshot.Snapshot, a pcie.Address) target {
	if ts := targetsOf(s, a); len(ts) > 0 && (ts[0].PCI == a) {
		return ts[0]
	}
	return target{PCI: a}
}

// portOfNetDev returns the RDMA port whose netdev is name, or nil.
func portOfNetDev(s *snapshot.Snapshot, name string) *snapshot.Port {
	for i := range s.Devices {
		for j := range s.Devices[i].Ports {
			if s.Devices[i].Ports[j].NetDev == name {
				return &s.Devices[i].Ports[j]
			}
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
