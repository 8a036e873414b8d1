package node

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// Fault is one injected fault, written KIND[:TARGET][=VALUE], e.g.
// "down:mlx5_3/1", "width:mlx5_2/1=2", "no-rdma-cm".
type Fault struct {
	Kind   string `json:"kind"`
	Target string `json:"target,omitempty"`
	Value  string `json:"value,omitempty"`
}

// String renders the fault in the syntax ParseFault reads.
func (f Fault) String() string {
	s := f.Kind
	if f.Target != "" {
		s += ":" + f.Target
	}
	if f.Value != "" {
		s += "=" + f.Value
	}
	return s
}

// ErrBadFault is wrapped by every ParseFault error.
var ErrBadFault = errors.New("bad fault")

// FaultKind documents one kind of fault.
type FaultKind struct {
	Name        string `json:"name"`
	Syntax      string `json:"syntax"`
	Example     string `json:"example"`
	Description string `json:"description"`
	// target and value say what the syntax requires; check validates the
	// node-independent parts; apply changes the node.
	target, value bool
	check         func(f Fault) error
	apply         func(n *Node, f Fault) error
}

// faultKinds is the fault table: the base faults below, then those of the
// doctor's kernel-log checks (triageFaultKinds).
var faultKinds []FaultKind

func init() {
	// Built in init to let apply functions refer to the table (Faults).
	faultKinds = append(baseFaultKinds(), triageFaultKinds()...)
}

// baseFaultKinds are the faults of the node model's fields: ports, links,
// PCIe, counters, devices, modules, /dev entries, RoCE, the job, Xids.
func baseFaultKinds() []FaultKind {
	return []FaultKind{
		{Name: "down", Syntax: "down:DEV/PORT", Example: "down:mlx5_3/1", target: true,
			Description: "port down: IB 1: DOWN / 1: Sleep; RoCE carrier lost (1: DOWN / 3: Disabled, rate reads 40 Gb/sec (4X QDR)); netdev down",
			check:       checkPortRef, apply: linkFault(ib.StateDown, ib.PhysSleep)},
		{Name: "polling", Syntax: "polling:DEV/PORT", Example: "polling:mlx5_3/1", target: true,
			Description: "port polling, no peer or cable: 1: DOWN / 2: Polling (RoCE: as down)",
			check:       checkPortRef, apply: linkFault(ib.StateDown, ib.PhysPolling)},
		{Name: "disabled", Syntax: "disabled:DEV/PORT", Example: "disabled:mlx5_3/1", target: true,
			Description: "port administratively disabled: 1: DOWN / 3: Disabled",
			check:       checkPortRef, apply: linkFault(ib.StateDown, ib.PhysDisabled)},
		{Name: "init", Syntax: "init:DEV/PORT", Example: "init:mlx5_3/1", target: true,
			Description: "link up but no subnet manager: 2: INIT / 5: LinkUp, lid 0xffff, sm_lid 0x0 (IB only)",
			check:       checkPortRef, apply: linkFault(ib.StateInit, ib.PhysLinkUp)},
		{Name: "armed", Syntax: "armed:DEV/PORT", Example: "armed:mlx5_3/1", target: true,
			Description: "port configured but not activated by the SM: 3: ARMED / 5: LinkUp (IB only)",
			check:       checkPortRef, apply: linkFault(ib.StateArmed, ib.PhysLinkUp)},
		{Name: "width", Syntax: "width:DEV/PORT=LANES", Example: "width:mlx5_2/1=2", target: true, value: true,
			Description: "link trained at fewer lanes (1, 2, 4, 8, 12), e.g. 4X→2X: rate 200 Gb/sec (2X NDR)",
			check:       checkAll(checkPortRef, checkWidth), apply: applyWidth},
		{Name: "speed", Syntax: "speed:DEV/PORT=SPEED", Example: "speed:mlx5_2/1=HDR", target: true, value: true,
			Description: "link trained at a lower lane speed (SDR … XDR), e.g. NDR→HDR",
			check:       checkAll(checkPortRef, checkSpeed), apply: applySpeed},
		{Name: "pcie-width", Syntax: "pcie-width:FUNC=LANES", Example: "pcie-width:mlx5_4=8", target: true, value: true,
			Description: "PCIe link downtrained to fewer lanes (x16→x8) on an HCA, a GPU (gpu3) or a PCI address; both link ends change",
			check:       checkPCIWidth, apply: applyPCIWidth},
		{Name: "pcie-speed", Syntax: "pcie-speed:FUNC=GEN", Example: "pcie-speed:mlx5_4=3", target: true, value: true,
			Description: "PCIe link trained at a lower generation (1–6, e.g. Gen5→Gen3)",
			check:       checkPCIGen, apply: applyPCISpeed},
		{Name: "counter", Syntax: "counter:DEV/PORT/NAME=N", Example: "counter:mlx5_1/1/symbol_error=1234", target: true, value: true,
			Description: "set a counters/ file (up to its bit width)",
			check:       checkAll(checkCounterRef, checkUint), apply: applyCounter},
		{Name: "saturate", Syntax: "saturate:DEV/PORT/NAME", Example: "saturate:mlx5_1/1/symbol_error", target: true,
			Description: "set a counters/ file to its IBTA maximum (symbol_error 65535, link_downed 255)",
			check:       checkCounterRef, apply: applySaturate},
		{Name: "hw-counter", Syntax: "hw-counter:DEV/PORT/NAME=N", Example: "hw-counter:mlx5_0/1/out_of_buffer=5000", target: true, value: true,
			Description: "set a per-port hw_counters file (Q counters are 32 bits)",
			check:       checkAll(checkCounterRef, checkUint), apply: applyHWCounter},
		{Name: "missing", Syntax: "missing:DEV|GPU", Example: "missing:mlx5_7", target: true,
			Description: "device gone from the bus: no PCI function, no infiniband, net or uverbs entries (also gpuN)",
			check:       checkName, apply: applyMissing},
		{Name: "unbound", Syntax: "unbound:DEV", Example: "unbound:mlx5_7", target: true,
			Description: "PCI function present but no driver bound: no driver link, no infiniband, net or uverbs entries",
			check:       checkName, apply: applyUnbound},
		{Name: "fw", Syntax: "fw:DEV=VERSION", Example: "fw:mlx5_5=28.36.1010", target: true, value: true,
			Description: "firmware version differs (fw_ver)",
			check:       checkAll(checkName, checkFW), apply: applyFW},
		{Name: "unreadable", Syntax: "unreadable:DEV/PORT/FILE | DEV/FILE | FUNC/FILE | NETDEV/FILE | sys/…", Example: "unreadable:mlx5_0/1/counters/port_rcv_data", target: true,
			Description: "a file whose read fails (rendered as a directory: EISDIR, also for root)",
			check:       checkPath, apply: applyUnreadable},
		{Name: "no-counters", Syntax: "no-counters:DEV", Example: "no-counters:mlx5_6", target: true,
			Description: "no ports/<n>/counters/ directory, as drivers without process_mad show",
			check:       checkName, apply: applyNoCounters},
		{Name: "pma-classic", Syntax: "pma-classic:DEV", Example: "pma-classic:mlx5_1", target: true,
			Description: "PMA without PortCountersExtended: 32-bit data and packet counters that stick at 4294967295, no unicast/multicast counters",
			check:       checkName, apply: applyClassicPMA},
		{Name: "flap", Syntax: "flap:DEV/PORT=N", Example: "flap:mlx5_8/1=3", target: true, value: true,
			Description: "the link went down and up N times: link_downed += N, carrier_changes += 2N, kernel log Link down/up (Ethernet), link_down_events_phy",
			check:       checkAll(checkPortRef, checkUint), apply: applyFlap},
		{Name: "aer", Syntax: "aer:FUNC/correctable|nonfatal|fatal/NAME=N", Example: "aer:mlx5_2/correctable/RxErr=12", target: true, value: true,
			Description: "AER counter of a PCI function (and its TOTAL_ERR_*), with the AER kernel log lines at the upstream port",
			check:       checkAll(checkAER, checkUint), apply: applyAER},
		{Name: "no-module", Syntax: "no-module:NAME", Example: "no-module:nvidia_peermem", target: true,
			Description: "kernel module not loaded (absent from /proc/modules)",
			check:       checkName, apply: applyNoModule},
		{Name: "no-uverbs", Syntax: "no-uverbs:DEV", Example: "no-uverbs:mlx5_0", target: true,
			Description: "dev/infiniband/uverbsN of the device absent (container without the device mapped)",
			check:       checkName, apply: applyNoUverbs},
		{Name: "no-rdma-cm", Syntax: "no-rdma-cm", Example: "no-rdma-cm",
			Description: "dev/infiniband/rdma_cm absent",
			apply:       func(n *Node, _ Fault) error { n.RdmaCM = false; return nil }},
		{Name: "ethtool", Syntax: "ethtool:NETDEV/NAME=N", Example: "ethtool:ens1f0np0/rx_prio3_pause=250000", target: true, value: true,
			Description: "set an ethtool -S statistic of an Ethernet netdev (added when new)",
			check:       checkAll(checkTwoPart, checkUint), apply: applyEthtool},
		{Name: "mtu", Syntax: "mtu:NETDEV=BYTES", Example: "mtu:ens1f1np1=1500", target: true, value: true,
			Description: "netdev MTU",
			check:       checkAll(checkName, checkUint), apply: applyMTU},
		{Name: "iommu", Syntax: "iommu=translated|pt|off", Example: "iommu=translated", value: true,
			Description: "IOMMU mode on the kernel command line: translated (intel_iommu=on without iommu=pt), pt (passthrough, the default), off (intel_iommu=off: no IOMMU unit in sys/class/iommu)",
			check:       checkIOMMUMode, apply: applyIOMMU},
		{Name: "acs", Syntax: "acs=on|off|header-only", Example: "acs=on", value: true,
			Description: "PCIe ACS Control of every root port and switch downstream port: on sets SrcValid, ReqRedir, CmpltRedir and UpstreamFwd as the kernel does when an IOMMU driver is active (peer-to-peer traffic redirected to the root complex), off clears it (the default); header-only renders the bridges' config files as a non-root reader sees them (64 bytes)",
			check:       checkACSMode, apply: applyACS},
		{Name: "driver", Syntax: "driver=VERSION", Example: "driver=24.07-0.6.1", value: true,
			Description: "mlx5_core module version (sys/module/mlx5_core/version) and a srcversion of its own, as after a partial driver upgrade",
			check:       checkDriverVersion, apply: applyDriverVersion},
		{Name: "pkeys", Syntax: "pkeys:DEV/PORT=KEY[,KEY…]|none", Example: "pkeys:mlx5_3/1=0x7fff", target: true, value: true,
			Description: "the port's P_Key table as the SM programmed it (0xffff full, 0x7fff limited member of the default partition); none leaves every entry 0x0000",
			check:       checkAll(checkPortRef, checkPKeys), apply: applyPKeys},
		{Name: "no-gid-v2", Syntax: "no-gid-v2:DEV/PORT", Example: "no-gid-v2:mlx5_8/1", target: true,
			Description: "RoCE v2 GID entries absent (only IB/RoCE v1 left)",
			check:       checkPortRef, apply: applyNoGIDv2},
		{Name: "old-kernel", Syntax: "old-kernel", Example: "old-kernel",
			Description: "formats of a 4.19 kernel: PCIe speeds \"16 GT/s\" (\"Unknown speed\" for Gen5), AER long names, SDR rates without a name and NDR read as \"10 Gb/sec (4X)\", old AER log wording",
			apply:       applyOldKernel},
		{Name: "memlock", Syntax: "memlock=BYTES|unlimited", Example: "memlock=65536", value: true,
			Description: "RLIMIT_MEMLOCK of the job (proc/<pid>/limits, soft and hard), e.g. a container's 64 KiB default",
			check:       checkMemlockLimit, apply: applyMemlockLimit},
		{Name: "env", Syntax: "env:KEY=VALUE", Example: "env:NCCL_IB_HCA=mlx5_1", target: true, value: true,
			Description: "set a variable in the job's environment (proc/<pid>/environ)",
			check:       checkEnvKey, apply: applyEnv},
		{Name: "no-env", Syntax: "no-env:KEY", Example: "no-env:CUDA_VISIBLE_DEVICES", target: true,
			Description: "remove a variable from the job's environment",
			check:       checkEnvKey, apply: applyNoEnv},
		{Name: "xid", Syntax: "xid:GPU=CODE", Example: "xid:gpu3=79", target: true, value: true,
			Description: "NVIDIA Xid in the kernel log for the GPU (79 also: fallen off the bus)",
			check:       checkAll(checkName, checkUint), apply: applyXid},
	}
}

// Faults lists every fault kind with its syntax and meaning.
func Faults() []FaultKind { return append([]FaultKind(nil), faultKinds...) }

func kindOf(name string) *FaultKind {
	for i := range faultKinds {
		if faultKinds[i].Name == name {
			return &faultKinds[i]
		}
	}
	return nil
}

// ParseFault parses KIND[:TARGET][=VALUE]. It checks everything that does
// not depend on the node (known kind, target and value present and well
// formed); Apply checks the rest.
func ParseFault(s string) (Fault, error) {
	in := strings.TrimSpace(s)
	var f Fault
	head, val, hasVal := strings.Cut(in, "=")
	kind, target, hasTarget := strings.Cut(head, ":")
	f.Kind, f.Target, f.Value = kind, target, val
	k := kindOf(kind)
	if k == nil {
		var names []string
		for _, k := range faultKinds {
			names = append(names, k.Name)
		}
		return Fault{}, fmt.Errorf("%w %q: unknown kind %q (have %s)", ErrBadFault, s, kind, strings.Join(names, ", "))
	}
	switch {
	case k.target && (!hasTarget || target == ""):
		return Fault{}, fmt.Errorf("%w %q: missing target, want %s (e.g. %s)", ErrBadFault, s, k.Syntax, k.Example)
	case !k.target && hasTarget:
		return Fault{}, fmt.Errorf("%w %q: %s takes no target, want %s", ErrBadFault, s, kind, k.Syntax)
	case k.value && (!hasVal || val == ""):
		return Fault{}, fmt.Errorf("%w %q: missing value, want %s (e.g. %s)", ErrBadFault, s, k.Syntax, k.Example)
	case !k.value && hasVal:
		return Fault{}, fmt.Errorf("%w %q: %s takes no value, want %s", ErrBadFault, s, kind, k.Syntax)
	}
	if strings.ContainsAny(in, " \t\n\x00") {
		return Fault{}, fmt.Errorf("%w %q: blanks are not allowed", ErrBadFault, s)
	}
	if k.check != nil {
		if err := k.check(f); err != nil {
			return Fault{}, fmt.Errorf("%w %q: %v", ErrBadFault, s, err)
		}
	}
	return f, nil
}

// MustParseFaults parses faults for tests and examples; it panics on a bad
// one, so use it only with literals.
func MustParseFaults(specs ...string) []Fault {
	out := make([]Fault, len(specs))
	for i, s := range specs {
		f, err := ParseFault(s)
		if err != nil {
			panic(err)
		}
		out[i] = f
	}
	return out
}

// Apply injects a fault into the node.
func (n *Node) Apply(f Fault) error {
	k := kindOf(f.Kind)
	if k == nil {
		return fmt.Errorf("unknown fault kind %q", f.Kind)
	}
	if k.check != nil {
		if err := k.check(f); err != nil {
			return err
		}
	}
	return k.apply(n, f)
}

// --- node-independent checks ---

func checkAll(cs ...func(Fault) error) func(Fault) error {
	return func(f Fault) error {
		for _, c := range cs {
			if err := c(f); err != nil {
				return err
			}
		}
		return nil
	}
}

func validName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-.:", c)) {
			return false
		}
	}
	return true
}

func checkName(f Fault) error {
	if !validName(f.Target) {
		return fmt.Errorf("target %q is not a device, GPU, netdev or module name", f.Target)
	}
	return nil
}

func checkPortRef(f Fault) error {
	d, p, ok := strings.Cut(f.Target, "/")
	if !ok || !validName(d) || strings.Contains(p, "/") {
		return fmt.Errorf("target %q: want DEVICE/PORT, e.g. mlx5_3/1", f.Target)
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 255 || strconv.Itoa(n) != p {
		return fmt.Errorf("target %q: port %q is not a port number 1–255", f.Target, p)
	}
	return nil
}

func checkCounterRef(f Fault) error {
	i := strings.LastIndexByte(f.Target, '/')
	if i < 0 {
		return fmt.Errorf("target %q: want DEVICE/PORT/COUNTER", f.Target)
	}
	if err := checkPortRef(Fault{Target: f.Target[:i]}); err != nil {
		return fmt.Errorf("target %q: want DEVICE/PORT/COUNTER, e.g. mlx5_1/1/symbol_error", f.Target)
	}
	if !validName(f.Target[i+1:]) {
		return fmt.Errorf("target %q: bad counter name", f.Target)
	}
	return nil
}

func checkTwoPart(f Fault) error {
	a, b, ok := strings.Cut(f.Target, "/")
	if !ok || !validName(a) || !validName(b) {
		return fmt.Errorf("target %q: want NETDEV/NAME", f.Target)
	}
	return nil
}

func checkUint(f Fault) error {
	if _, err := strconv.ParseUint(f.Value, 10, 64); err != nil {
		return fmt.Errorf("value %q is not an unsigned decimal number", f.Value)
	}
	return nil
}

func checkWidth(f Fault) error {
	w, err := strconv.Atoi(strings.TrimSuffix(strings.ToUpper(f.Value), "X"))
	if err == nil {
		for _, v := range ib.Widths {
			if v == w {
				return nil
			}
		}
	}
	return fmt.Errorf("width %q: want 1, 2, 4, 8 or 12", f.Value)
}

func checkSpeed(f Fault) error {
	if _, err := ib.ParseSpeed(f.Value); err != nil {
		return fmt.Errorf("speed %q: want SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR", f.Value)
	}
	return nil
}

func checkPCIWidth(f Fault) error {
	if err := checkName(f); err != nil {
		return err
	}
	if _, err := pcie.ParseWidth(f.Value); err != nil || f.Value == "0" {
		return fmt.Errorf("PCIe width %q: want 1, 2, 4, 8, 12, 16 or 32", f.Value)
	}
	return nil
}

func parseGen(v string) (pcie.Speed, error) {
	g, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(v), "gen"))
	gens := []pcie.Speed{pcie.Gen1, pcie.Gen2, pcie.Gen3, pcie.Gen4, pcie.Gen5, pcie.Gen6}
	if err != nil || g < 1 || g > len(gens) {
		return 0, fmt.Errorf("PCIe generation %q: want 1–6", v)
	}
	return gens[g-1], nil
}

func checkPCIGen(f Fault) error {
	if err := checkName(f); err != nil {
		return err
	}
	_, err := parseGen(f.Value)
	return err
}

func checkFW(f Fault) error {
	parts := strings.Split(f.Value, ".")
	if len(parts) != 3 {
		return fmt.Errorf("firmware %q: want MAJOR.MINOR.SUBMINOR, e.g. 28.39.2048", f.Value)
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return fmt.Errorf("firmware %q: want MAJOR.MINOR.SUBMINOR, e.g. 28.39.2048", f.Value)
		}
	}
	return nil
}

func checkPath(f Fault) error {
	for _, seg := range strings.Split(f.Target, "/") {
		if !validName(seg) {
			return fmt.Errorf("path %q: empty, '.' or '..' segment or odd character", f.Target)
		}
	}
	return nil
}

var aerClasses = map[string]bool{"correctable": true, "nonfatal": true, "fatal": true}

func checkAER(f Fault) error {
	parts := strings.Split(f.Target, "/")
	if len(parts) != 3 || !validName(parts[0]) || !aerClasses[parts[1]] {
		return fmt.Errorf("target %q: want FUNC/correctable|nonfatal|fatal/NAME, e.g. mlx5_2/correctable/RxErr", f.Target)
	}
	if aerBit(parts[1], parts[2]) < 0 {
		return fmt.Errorf("target %q: unknown AER error %q for %s", f.Target, parts[2], parts[1])
	}
	return nil
}

func aerBit(class, name string) int {
	names := aerUncorNames
	if class == "correctable" {
		names = aerCorNames
	}
	for i, nm := range names {
		if nm != "" && nm == name {
			return i
		}
	}
	return -1
}

func checkMemlockLimit(f Fault) error {
	if f.Value == "unlimited" {
		return nil
	}
	if err := checkUint(f); err != nil {
		return fmt.Errorf("memlock %q: want bytes or unlimited", f.Value)
	}
	return nil
}

func checkEnvKey(f Fault) error {
	for i, c := range f.Target {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return fmt.Errorf("environment variable name %q: letters, digits and '_' only", f.Target)
		}
	}
	return nil
}

// --- appliers ---

func (n *Node) job() (*Process, error) {
	if n.Job == nil {
		return nil, errors.New("the node runs no job")
	}
	return n.Job, nil
}

func applyMemlockLimit(n *Node, f Fault) error {
	j, err := n.job()
	if err != nil {
		return err
	}
	v := uint64(Unlimited)
	if f.Value != "unlimited" {
		v, _ = strconv.ParseUint(f.Value, 10, 64)
	}
	j.MemlockSoft, j.MemlockHard = v, v
	return nil
}

func applyEnv(n *Node, f Fault) error {
	j, err := n.job()
	if err != nil {
		return err
	}
	j.Setenv(f.Target, f.Value)
	return nil
}

func applyNoEnv(n *Node, f Fault) error {
	j, err := n.job()
	if err != nil {
		return err
	}
	if !j.Unsetenv(f.Target) {
		return fmt.Errorf("%s is not set in the job's environment", f.Target)
	}
	return nil
}

func linkFault(s ib.PortState, ph ib.PhysState) func(*Node, Fault) error {
	return func(n *Node, f Fault) error {
		_, p, err := n.PortRef(f.Target)
		if err != nil {
			return err
		}
		phys := ph // per call: the closure is shared by every node
		if p.LinkLayer == ib.LinkLayerEthernet {
			if s != ib.StateDown {
				return fmt.Errorf("%s is a RoCE port: its state follows the netdev (only down, polling, disabled apply)", f.Target)
			}
			// mlx5_query_port_roce synthesises DOWN/Disabled when the
			// netdev has no carrier.
			phys = ib.PhysDisabled
		}
		wasUp := p.up()
		p.SetLink(s, phys)
		if nd := p.NetDev; nd != nil && wasUp && nd.Type == 1 {
			n.Log(6, "mlx5_core %s %s: Link down", nd.PCI.Addr, nd.Name)
			nd.AddStat("link_down_events_phy", 1)
		}
		return nil
	}
}

func applyWidth(n *Node, f Fault) error {
	_, p, err := n.PortRef(f.Target)
	if err != nil {
		return err
	}
	w, _ := strconv.Atoi(strings.TrimSuffix(strings.ToUpper(f.Value), "X"))
	return p.SetWidth(w)
}

func applySpeed(n *Node, f Fault) error {
	_, p, err := n.PortRef(f.Target)
	if err != nil {
		return err
	}
	s, _ := ib.ParseSpeed(f.Value)
	p.SetSpeed(s)
	return nil
}

func (n *Node) pciTarget(t string) (*PCIFunc, error) {
	if d := n.Device(t); d != nil {
		return d.PCI, nil
	}
	if f := n.Func(t); f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("no PCI function %q (an RDMA device, gpuN or a PCI address)", t)
}

func applyPCIWidth(n *Node, f Fault) error {
	fn, err := n.pciTarget(f.Target)
	if err != nil {
		return err
	}
	w, _ := pcie.ParseWidth(f.Value)
	if w > fn.MaxWidth {
		return fmt.Errorf("%s: width x%d exceeds the maximum x%d", f.Target, w, fn.MaxWidth)
	}
	fn.CurWidth = w
	if fn.Parent != nil {
		fn.Parent.CurWidth = w
	}
	return nil
}

func applyPCISpeed(n *Node, f Fault) error {
	fn, err := n.pciTarget(f.Target)
	if err != nil {
		return err
	}
	s, _ := parseGen(f.Value)
	if s > fn.MaxSpeed {
		return fmt.Errorf("%s: %s exceeds the maximum %s", f.Target, s, fn.MaxSpeed)
	}
	fn.CurSpeed = s
	if fn.Parent != nil {
		fn.Parent.CurSpeed = s
	}
	return nil
}

func splitCounter(n *Node, t string) (*Port, string, error) {
	i := strings.LastIndexByte(t, '/')
	_, p, err := n.PortRef(t[:i])
	return p, t[i+1:], err
}

func applyCounter(n *Node, f Fault) error {
	p, name, err := splitCounter(n, f.Target)
	if err != nil {
		return err
	}
	v, _ := strconv.ParseUint(f.Value, 10, 64)
	return p.SetCounter(name, v)
}

func applySaturate(n *Node, f Fault) error {
	p, name, err := splitCounter(n, f.Target)
	if err != nil {
		return err
	}
	s := p.Spec(name)
	if !s.Saturating {
		return fmt.Errorf("counter %s does not saturate (it is %d bits and wraps)", name, s.Bits)
	}
	return p.SetCounter(name, s.Max())
}

func applyHWCounter(n *Node, f Fault) error {
	p, name, err := splitCounter(n, f.Target)
	if err != nil {
		return err
	}
	v, _ := strconv.ParseUint(f.Value, 10, 64)
	return p.SetHWCounter(name, v)
}

func (n *Node) mustDevice(name string) (*Device, error) {
	d := n.Device(name)
	if d == nil {
		return nil, fmt.Errorf("no RDMA device %q (have %s)", name, n.deviceNames())
	}
	return d, nil
}

func applyMissing(n *Node, f Fault) error {
	if d := n.Device(f.Target); d != nil {
		d.PCI.Removed = true
		return nil
	}
	if fn := n.Func(f.Target); fn != nil && pcie.IsGPU(fn.Class) {
		fn.Removed = true
		return nil
	}
	return fmt.Errorf("no RDMA device or GPU %q (have %s, gpu0 … gpu%d)", f.Target, n.deviceNames(), len(n.GPUs())-1)
}

func applyUnbound(n *Node, f Fault) error {
	d, err := n.mustDevice(f.Target)
	if err != nil {
		return err
	}
	d.Unbound = true
	return nil
}

func applyFW(n *Node, f Fault) error {
	d, err := n.mustDevice(f.Target)
	if err != nil {
		return err
	}
	// mlx5 get_dev_fw_str: "%d.%d.%04d".
	var maj, mnr, sub int
	fmt.Sscanf(f.Value, "%d.%d.%d", &maj, &mnr, &sub)
	d.FW = fmt.Sprintf("%d.%d.%04d", maj, mnr, sub)
	return nil
}

func applyNoCounters(n *Node, f Fault) error {
	d, err := n.mustDevice(f.Target)
	if err != nil {
		return err
	}
	d.NoCounters = true
	return nil
}

func applyNoUverbs(n *Node, f Fault) error {
	d, err := n.mustDevice(f.Target)
	if err != nil {
		return err
	}
	d.UverbsMissing = true
	return nil
}

// resolvePath turns an unreadable target into a root-relative path.
func (n *Node) resolvePath(t string) string {
	first, rest, _ := strings.Cut(t, "/")
	switch first {
	case "sys", "proc", "dev", "cmd", "env":
		return t
	}
	if d := n.Device(first); d != nil {
		if port, tail, ok := strings.Cut(rest, "/"); ok {
			if _, err := strconv.Atoi(port); err == nil {
				return d.Dir() + "/ports/" + port + "/" + tail
			}
		}
		return d.Dir() + "/" + rest
	}
	if nd := n.NetDev(first); nd != nil {
		return nd.PCI.Path() + "/net/" + nd.Name + "/" + rest
	}
	if fn := n.Func(first); fn != nil {
		return fn.Path() + "/" + rest
	}
	return ""
}

func applyUnreadable(n *Node, f Fault) error {
	p := n.resolvePath(f.Target)
	if p == "" {
		return fmt.Errorf("%q: first part is not an RDMA device, netdev, PCI function or sys/, proc/, dev/, cmd/", f.Target)
	}
	for _, e := range n.Entries() {
		if strings.HasPrefix(e.Path, p+"/") {
			return fmt.Errorf("%q (%s) is a directory, not a regular file", f.Target, p)
		}
		if e.Path == p {
			if e.Kind != KindFile {
				return fmt.Errorf("%q (%s) is not a regular file", f.Target, p)
			}
			n.Unreadable[p] = true
			return nil
		}
	}
	return fmt.Errorf("%q: no such file %s", f.Target, p)
}

func applyClassicPMA(n *Node, f Fault) error {
	d, err := n.mustDevice(f.Target)
	if err != nil {
		return err
	}
	for _, p := range d.Ports {
		p.ClassicPMA = true
		for k, v := range p.Counters {
			p.Counters[k] = min(v, p.Spec(k).Max())
		}
	}
	return nil
}

func applyFlap(n *Node, f Fault) error {
	_, p, err := n.PortRef(f.Target)
	if err != nil {
		return err
	}
	times, _ := strconv.ParseUint(f.Value, 10, 64)
	if times == 0 || times > 10000 {
		return fmt.Errorf("flap count %d: want 1–10000", times)
	}
	p.AddCounter("link_downed", times)
	nd := p.NetDev
	if nd == nil {
		return nil
	}
	nd.CarrierChanges += 2 * times
	if nd.Type == 1 {
		nd.AddStat("link_down_events_phy", times)
		// Link down/up pairs a few seconds apart, ending now.
		start := n.Uptime - time.Duration(times)*7*time.Second
		for i := uint64(0); i < times && i < 50; i++ {
			at := start + time.Duration(i)*7*time.Second
			n.Kmsg = append(n.Kmsg,
				LogLine{At: at, Level: 6, Text: fmt.Sprintf("mlx5_core %s %s: Link down", nd.PCI.Addr, nd.Name)},
				LogLine{At: at + 2*time.Second + 310*time.Millisecond, Level: 6, Text: fmt.Sprintf("mlx5_core %s %s: Link up", nd.PCI.Addr, nd.Name)})
		}
	}
	return nil
}

func applyAER(n *Node, f Fault) error {
	parts := strings.Split(f.Target, "/")
	fn, err := n.pciTarget(parts[0])
	if err != nil {
		return err
	}
	v, _ := strconv.ParseUint(f.Value, 10, 64)
	bit := aerBit(parts[1], parts[2])
	var c *AERCounts
	sev := "Correctable"
	switch parts[1] {
	case "correctable":
		c = &fn.AERCor
	case "nonfatal":
		c, sev = &fn.AERNonFatal, "Uncorrectable (Non-Fatal)"
	default:
		c, sev = &fn.AERFatal, "Uncorrectable (Fatal)"
	}
	delta := v - min(v, c.Bits[bit])
	c.Bits[bit] = v
	c.Total += delta
	if delta == 0 {
		return nil
	}
	// The root port counts the messages and logs them (aer.c).
	rp := fn
	for rp.Parent != nil {
		rp = rp.Parent
	}
	switch parts[1] {
	case "correctable":
		rp.RootCor += delta
	case "nonfatal":
		rp.RootNonFatal += delta
	default:
		rp.RootFatal += delta
	}
	drv := fn.Driver
	if drv == "" {
		drv = "pci"
	}
	level := 4
	if parts[1] != "correctable" {
		level = 3
	}
	multiple := ""
	if delta > 1 {
		multiple = "Multiple "
	}
	// aer_print_source / aer_print_port_info (kernel ≥5.x; older kernels
	// said "error received: <bdf>" with the old severity names).
	if n.Legacy {
		sev = strings.NewReplacer("Correctable", "Corrected", "Uncorrectable", "Uncorrected").Replace(sev)
		n.Log(level, "pcieport %s: AER: %s%s error received: %s", rp.Addr, multiple, sev, fn.Addr)
	} else {
		n.Log(level, "pcieport %s: AER: %s%s error message received from %s", rp.Addr, multiple, sev, fn.Addr)
	}
	// AER_GET_LAYER_ERROR: RxErr is physical; BadTLP, BadDLLP, Rollover,
	// Timeout and uncorrectable DLP/SDES are data link; the rest transaction.
	typ := "Transaction Layer"
	switch {
	case parts[1] == "correctable" && bit == 0:
		typ = "Physical Layer"
	case parts[1] == "correctable" && (bit >= 6 && bit <= 8 || bit == 12),
		parts[1] != "correctable" && (bit == 4 || bit == 5):
		typ = "Data Link Layer"
	}
	n.Log(level, "%s %s: AER: PCIe Bus Error: severity=%s, type=%s, (Receiver ID)", drv, fn.Addr, sev, typ)
	n.Log(level, "%s %s: AER:   device [%04x:%04x] error status/mask=%08x/00000000", drv, fn.Addr, fn.Vendor, fn.Device, uint32(1)<<uint(bit))
	corNames, uncorNames := n.aerNames()
	name := corNames[bit]
	if parts[1] != "correctable" {
		name = uncorNames[bit]
	}
	n.Log(level, "%s %s: AER:    [%2d] %-22s (First)", drv, fn.Addr, bit, name)
	return nil
}

func applyNoModule(n *Node, f Fault) error {
	if !n.RemoveModule(f.Target) {
		var names []string
		for _, m := range n.Modules {
			names = append(names, m.Name)
		}
		return fmt.Errorf("module %q is not loaded (have %s)", f.Target, strings.Join(names, ", "))
	}
	return nil
}

func (n *Node) mustNetDev(name string) (*NetDev, error) {
	nd := n.NetDev(name)
	if nd == nil {
		var names []string
		for _, d := range n.NetDevs {
			names = append(names, d.Name)
		}
		return nil, fmt.Errorf("no netdev %q (have %s)", name, strings.Join(names, ", "))
	}
	return nd, nil
}

func applyEthtool(n *Node, f Fault) error {
	name, stat, _ := strings.Cut(f.Target, "/")
	nd, err := n.mustNetDev(name)
	if err != nil {
		return err
	}
	if nd.Ethtool == nil {
		return fmt.Errorf("%s is not an Ethernet netdev with ethtool statistics", name)
	}
	v, _ := strconv.ParseUint(f.Value, 10, 64)
	nd.SetStat(stat, v)
	return nil
}

func applyMTU(n *Node, f Fault) error {
	nd, err := n.mustNetDev(f.Target)
	if err != nil {
		return err
	}
	v, _ := strconv.Atoi(f.Value)
	if v < 68 || v > 65535 {
		return fmt.Errorf("MTU %s: want 68–65535", f.Value)
	}
	nd.MTU = v
	return nil
}

func checkDriverVersion(f Fault) error {
	if !validName(f.Value) {
		return fmt.Errorf("driver version %q: letters, digits and _-.: only", f.Value)
	}
	return nil
}

func applyDriverVersion(n *Node, f Fault) error {
	n.Mlx5Version = f.Value
	h := fnv.New64a()
	h.Write([]byte(f.Value))
	n.Mlx5SrcVersion = fmt.Sprintf("%016X%07X", h.Sum64(), h.Sum64()>>36)
	return nil
}

func checkACSMode(f Fault) error {
	switch f.Value {
	case "on", "off", "header-only":
		return nil
	}
	return fmt.Errorf("ACS %q: want on, off or header-only", f.Value)
}

// applyACS sets the ACS Control register of every bridge that has the
// capability, or makes config space readable only in its header.
func applyACS(n *Node, f Fault) error {
	if f.Value == "header-only" {
		n.ConfigHeaderOnly = true
		return nil
	}
	var ctl uint16
	if f.Value == "on" {
		ctl = pcie.ACSSrcValid | pcie.ACSReqRedir | pcie.ACSCmpltRedir | pcie.ACSUpstreamFwd
	}
	for _, p := range n.PCI {
		if p.ACSCap != 0 {
			p.ACSCtl = ctl & p.ACSCap
		}
	}
	return nil
}

func checkIOMMUMode(f Fault) error {
	switch f.Value {
	case "translated", "pt", "off":
		return nil
	}
	return fmt.Errorf("IOMMU mode %q: want translated, pt or off", f.Value)
}

// applyIOMMU rewrites the IOMMU parameters of the command line.
func applyIOMMU(n *Node, f Fault) error {
	var kept []string
	for _, p := range n.Cmdline {
		if !strings.HasPrefix(p, "iommu") && !strings.HasPrefix(p, "intel_iommu") && !strings.HasPrefix(p, "amd_iommu") {
			kept = append(kept, p)
		}
	}
	switch f.Value {
	case "translated":
		kept = append(kept, "intel_iommu=on")
		n.IOMMUs = []string{"dmar0", "dmar1"}
	case "pt":
		kept = append(kept, "intel_iommu=on", "iommu=pt")
		n.IOMMUs = []string{"dmar0", "dmar1"}
	case "off":
		kept = append(kept, "intel_iommu=off")
		n.IOMMUs = nil
	}
	n.Cmdline = kept
	return nil
}

func parsePKeys(v string) ([]uint16, error) {
	if v == "none" {
		return nil, nil
	}
	var out []uint16
	for _, k := range strings.Split(v, ",") {
		h, ok := strings.CutPrefix(k, "0x")
		x, err := strconv.ParseUint(h, 16, 16)
		if !ok || err != nil || x == 0 {
			return nil, fmt.Errorf("P_Key %q: want 0x0001–0xffff, e.g. 0x7fff", k)
		}
		out = append(out, uint16(x))
	}
	return out, nil
}

func checkPKeys(f Fault) error {
	_, err := parsePKeys(f.Value)
	return err
}

// applyPKeys writes the keys into the first slots and zeroes the rest,
// keeping the table's size (128 on mlx5 IB ports).
func applyPKeys(n *Node, f Fault) error {
	_, p, err := n.PortRef(f.Target)
	if err != nil {
		return err
	}
	keys, err := parsePKeys(f.Value)
	if err != nil {
		return err
	}
	size := max(len(p.PKeys), len(keys), 1)
	p.PKeys = make([]uint16, size)
	copy(p.PKeys, keys)
	return nil
}

func applyNoGIDv2(n *Node, f Fault) error {
	_, p, err := n.PortRef(f.Target)
	if err != nil {
		return err
	}
	if p.LinkLayer != ib.LinkLayerEthernet {
		return fmt.Errorf("%s is not a RoCE port", f.Target)
	}
	for i := range p.GIDs {
		if p.GIDs[i].Type == ib.GIDTypeRoCEv2 {
			p.GIDs[i] = GIDEntry{}
		}
	}
	return nil
}

// xidText is the description the driver prints after "pid=…, name=…, "
// for a few common Xids (NVIDIA Xid catalog, docs.nvidia.com/deploy/xid-errors).
var xidText = map[uint64]string{
	13:  "Graphics Exception: ESR 0x504648=0x40000004 0x504650=0x0 0x504644=0xd3eff2 0x50464c=0x17f",
	31:  "Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2a_40000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
	48:  "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
	63:  "Row Remapper: New row marked for remapping, reset gpu to activate.",
	64:  "Row Remapper: Row remapping failed.",
	74:  "NVLink: fatal error detected on link 4(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)",
	79:  "GPU has fallen off the bus.",
	92:  "High single-bit ECC error rate detected.",
	94:  "Contained: SM (0x1). RST: No, D-RST: No",
	95:  "Uncontained: FBHUB. RST: Yes, D-RST: No",
	119: "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801702 0x4).",
}

func applyXid(n *Node, f Fault) error {
	fn := n.Func(f.Target)
	if fn == nil || !pcie.IsGPU(fn.Class) {
		return fmt.Errorf("no GPU %q (gpu0 … gpu7 on the GPU profiles)", f.Target)
	}
	code, _ := strconv.ParseUint(f.Value, 10, 64)
	text, ok := xidText[code]
	if !ok {
		text = "Unspecified error."
	}
	// kernel_rc.c: "NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=%s, name=%s, %s";
	// the PCI id has no function number.
	pci := strings.TrimSuffix(string(fn.Addr), string(fn.Addr)[len(fn.Addr)-2:])
	n.Log(3, "NVRM: Xid (PCI:%s): %d, pid='<unknown>', name=<unknown>, %s", pci, code, text)
	if code == 79 {
		n.Log(3, "NVRM: GPU %s: GPU has fallen off the bus.", fn.Addr)
	}
	return nil
}
