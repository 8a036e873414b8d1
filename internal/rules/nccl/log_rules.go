package nccl

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// LogOptions are the expectations an NCCL log is judged against.
type LogOptions struct {
	// ExpectIB says the job should use IB/RoCE (--expect-ib).
	ExpectIB bool
	// RDMAPresent says the node has RDMA devices (read from --root by the
	// caller): a socket fallback there is critical.
	RDMAPresent bool
	// OneHost is the host every rank of the job runs on, when another
	// output of the paste lists them all (the nccl-tests device list): a
	// socket transport there carries nothing. "" when unknown.
	OneHost string
}

// ProcSummary is one process as reports show it.
type ProcSummary struct {
	Source    string   `json:"source"`
	Name      string   `json:"name"`
	Ranks     []int    `json:"ranks,omitempty"`
	Network   string   `json:"network,omitempty"`
	IBDevices []string `json:"ib_devices,omitempty"`
	SocketIfs []string `json:"socket_ifs,omitempty"`
	GDR       string   `json:"gdr,omitempty"` // "enabled", "disabled", "mixed", ""
	Channels  int      `json:"channels,omitempty"`
	Trees     bool     `json:"trees,omitempty"`
	// Env are the NCCL_* overrides the process logged, "K=V" sorted.
	Env []string `json:"env,omitempty"`
}

// LogAnalysis is the result of CheckLog.
type LogAnalysis struct {
	Source   string            `json:"source"`
	Version  string            `json:"version,omitempty"`
	Procs    []ProcSummary     `json:"procs"`
	Findings []finding.Finding `json:"findings"`
	Notes    []string          `json:"notes,omitempty"`
}

// logCheck holds what the steps of CheckLog share: the analysis being
// built and the processes sorted by the network they used.
type logCheck struct {
	a           *LogAnalysis
	opts        LogOptions
	subj        finding.Subject
	lg          *nccllog.Log
	all         []*nccllog.Proc
	socketProcs []*nccllog.Proc
	ibProcs     []*nccllog.Proc
	disabled    []*nccllog.Proc // NCCL_IB_DISABLE=1
	// noIB are processes whose IB transport found no device and that
	// never say which network they then used, nor show a net plugin.
	noIB        []*nccllog.Proc
	gdrOff      []finding.Evidence
	gdrOffProcs []string
}

// evidenceAt names a line of a source file as evidence does: "file:line".
func evidenceAt(src string, line int) string { return fmt.Sprintf("%s:%d", src, line) }

// CheckLog applies the NCCL log rules. It is pure.
func CheckLog(lg *nccllog.Log, opts LogOptions) *LogAnalysis {
	c := &logCheck{a: &LogAnalysis{Source: lg.Source, Version: lg.Version}, lg: lg, opts: opts, subj: finding.Subject{File: lg.Source}}
	for _, p := range lg.Procs {
		c.addProc(p)
	}
	c.checkIBDisabled()
	c.checkSocketFallback()
	c.checkOFISocketProvider()
	c.checkSocketLoopback()
	c.checkOFIFewNICs()
	c.checkGDR()
	c.checkMixedLinkLayers()
	a := c.a
	a.Findings = append(a.Findings, completionFindings(lg, c.subj, evidenceAt)...)
	a.Findings = append(a.Findings, ofiCompletionFindings(lg, c.subj, evidenceAt)...)
	a.Findings = append(a.Findings, asyncFindings(lg, c.subj, evidenceAt)...)
	a.Findings = append(a.Findings, gidIndexFindings(lg, c.subj, evidenceAt)...)
	a.Findings = append(a.Findings, resourceFindings(lg, c.subj, evidenceAt)...)
	c.openDeviceSkipped(a.Findings)
	c.ofiInitSkipped(a.Findings)
	// A peer that closed or reset its connection is a consequence when a
	// verbs, completion or async error above already explains the job's end.
	explained := slices.ContainsFunc(a.Findings, func(f finding.Finding) bool { return f.Severity == finding.Critical })
	a.Findings = append(a.Findings, connectFindings(lg, c.subj, evidenceAt, explained)...)
	a.Findings = append(a.Findings, timeoutFindings(lg, c.subj, evidenceAt)...)
	a.Findings = append(a.Findings, duplicateGPUFindings(lg, c.subj, evidenceAt)...)
	a.Findings = append(a.Findings, programBWFindings(lg, c.subj, evidenceAt)...)
	a.Findings = append(a.Findings, ibgdaFindings(lg, c.subj, evidenceAt)...)
	if !slices.ContainsFunc(a.Findings, func(f finding.Finding) bool { return f.Severity == finding.Critical }) {
		// A failed call with nothing above that explains it.
		a.Findings = append(a.Findings, failedFindings(lg, c.subj, evidenceAt)...)
	}
	if !slices.ContainsFunc(a.Findings, func(f finding.Finding) bool { return f.Severity == finding.Critical }) {
		// Communicator setup failed, and nothing above says why.
		a.Findings = append(a.Findings, initFailedFindings(lg, c.subj, evidenceAt)...)
	}
	if !slices.ContainsFunc(a.Findings, func(f finding.Finding) bool { return f.Severity == finding.Critical }) {
		// A rank's traceback, with nothing critical above to explain it.
		a.Findings = append(a.Findings, tracebackFindings(lg, c.subj, evidenceAt)...)
	}
	warned := warnFindings(lg, c.subj, evidenceAt, a.Findings)
	a.Findings = append(a.Findings, warned...)
	a.Notes = append(a.Notes, logNotes(lg, len(warned) > 0)...)
	if n := caughtReturnNote(lg); n != "" {
		a.Notes = append(a.Notes, n)
	}
	// A finding is about the file its first evidence comes from (merged
	// logs span several).
	for i := range a.Findings {
		if ev := a.Findings[i].Evidence; len(ev) > 0 {
			a.Findings[i].Subject.File = fileOf(ev[0].Source)
		}
	}
	catalog.Sort(a.Findings)
	return a
}

// addProc summarises one process and files it by the network it used,
// GPU Direct RDMA it lacked and NCCL_IB_DISABLE.
func (c *logCheck) addProc(p *nccllog.Proc) {
	net, _ := p.EffectiveNetwork()
	s := ProcSummary{Source: p.Source, Name: p.Name(), Ranks: p.Ranks, Network: net, SocketIfs: p.SocketIfs, Channels: p.Channels, Trees: p.Trees}
	for k, v := range p.Env {
		s.Env = append(s.Env, k+"="+v)
	}
	slices.Sort(s.Env)
	for _, d := range p.IBDevices {
		s.IBDevices = append(s.IBDevices, fmt.Sprintf("%s:%d/%s", d.Name, d.Port, d.LinkLayer))
	}
	on, off := 0, 0
	for _, g := range p.GDR {
		if g.Enabled {
			on++
		} else {
			off++
			if len(c.gdrOff) < 4 {
				c.gdrOff = append(c.gdrOff, finding.Evidence{Source: evidenceAt(p.Source, g.Line), Value: g.Text})
			}
		}
	}
	switch {
	case on > 0 && off > 0:
		s.GDR = "mixed"
	case on > 0:
		s.GDR = "enabled"
	case off > 0:
		s.GDR = "disabled"
	}
	if off > 0 && net != "Socket" {
		c.gdrOffProcs = append(c.gdrOffProcs, p.Name())
	}
	c.a.Procs = append(c.a.Procs, s)
	c.all = append(c.all, p)
	switch {
	case net == "Socket":
		c.socketProcs = append(c.socketProcs, p)
	case net != "":
		c.ibProcs = append(c.ibProcs, p)
	case p.IBNoDevice > 0 && p.NetPlugin == "" && len(p.Via) == 0:
		c.noIB = append(c.noIB, p)
	}
	if p.IBDisable == 1 && p.IBNoDevice == 0 {
		// NCCL's IB transport returns on NCCL_IB_DISABLE before it
		// looks for devices (net_ib.cc ncclIbInit): "NET/IB : No device
		// found." in the same process comes from a search that ran (a
		// net plugin's, or before the variable was read) and found no
		// device, so the variable is not what left the job on sockets.
		c.disabled = append(c.disabled, p)
	}
}

// checkMixedLinkLayers reports a process whose IB transport lists
// InfiniBand and Ethernet (RoCE) ports together ("NET/IB : Using
// [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE …", ncclIbInit in
// src/transport/net_ib.cc prints each port's link layer): NCCL spreads
// its channels over all of them. The minority link layer (Ethernet on a
// tie) is the one to leave out with NCCL_IB_HCA.
func (c *logCheck) checkMixedLinkLayers() {
	var first *nccllog.Proc
	var procs []string
	conns := slices.ContainsFunc(c.all, func(p *nccllog.Proc) bool { return p.ViaIBDevs != 0 })
	for _, p := range c.all {
		ib, roce := 0, 0
		for _, d := range p.IBDevices {
			switch strings.ToLower(d.LinkLayer) {
			case "ib":
				ib++
			case "roce":
				roce++
			}
		}
		if ib == 0 || roce == 0 {
			continue
		}
		if conns && !usesMinority(p) {
			// Its connections show which devices carry traffic: NCCL
			// gives each GPU its nearest NIC, and none went over the
			// ports of the other link layer.
			continue
		}
		if first == nil {
			first = p
		}
		procs = append(procs, p.Name())
	}
	if first == nil {
		return
	}
	var ib, eth []string
	for _, d := range first.IBDevices {
		port := fmt.Sprintf("%s:%d", d.Name, d.Port)
		if strings.EqualFold(d.LinkLayer, "RoCE") {
			eth = append(eth, port)
		} else {
			ib = append(ib, port)
		}
	}
	keep, drop, dropWhat := ib, eth, "Ethernet (RoCE)"
	if len(eth) > len(ib) {
		keep, drop, dropWhat = eth, ib, "InfiniBand"
	}
	var dropDev []string
	for _, d := range drop {
		dropDev = append(dropDev, strings.Split(d, ":")[0])
	}
	sum := fmt.Sprintf("NCCL's IB transport uses InfiniBand port(s) %s and Ethernet (RoCE) port(s) %s together on %d process(es) (%s): NCCL spreads its channels over every listed device, so rings over the %s port(s) %s run at their speed, or cannot connect where a peer's device of the same index has the other link layer. Leave them out: NCCL_IB_HCA==%s (or NCCL_IB_HCA=^=%s)",
		strings.Join(firstN(ib, 8), ", "), strings.Join(firstN(eth, 8), ", "), len(procs), strings.Join(firstN(procs, 4), ", "),
		dropWhat, strings.Join(drop, ", "), strings.Join(keep, ","), strings.Join(dropDev, ","))
	text := "NET/IB : Using"
	for i, d := range first.IBDevices {
		text += fmt.Sprintf(" [%d]%s:%d/%s", i, d.Name, d.Port, d.LinkLayer)
	}
	f := catalog.New("nccl.mixed_link_layers", c.subj, sum, finding.Evidence{Source: evidenceAt(first.Source, first.IBLine), Value: text})
	f.Subject.Host = first.Host
	c.a.Findings = append(c.a.Findings, f)
}

// usesMinority reports whether a process's connections ("via NET/IB/N")
// went over a port of its list's minority link layer (Ethernet on a
// tie), the ports checkMixedLinkLayers would leave out.
func usesMinority(p *nccllog.Proc) bool {
	ib, roce := 0, 0
	for _, d := range p.IBDevices {
		if strings.EqualFold(d.LinkLayer, "RoCE") {
			roce++
		} else {
			ib++
		}
	}
	for i, d := range p.IBDevices {
		if i < 64 && p.ViaIBDevs&(1<<i) != 0 && strings.EqualFold(d.LinkLayer, "RoCE") == (roce <= ib) {
			return true
		}
	}
	return false
}

// checkIBDisabled reports processes that ran with NCCL_IB_DISABLE=1.
func (c *logCheck) checkIBDisabled() {
	disabled := c.disabled
	if len(disabled) == 0 {
		return
	}
	var evs []finding.Evidence
	for _, p := range disabled[:min(3, len(disabled))] {
		evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.IBDisableLine), Value: "NCCL_IB_DISABLE set by environment to 1"})
	}
	f := catalog.New("nccl.ib_disabled", c.subj,
		fmt.Sprintf("%d process(es) (%s) ran with NCCL_IB_DISABLE=1: inter-node traffic goes over sockets", len(disabled), procNames(disabled)), evs...)
	if !c.opts.ExpectIB && !c.opts.RDMAPresent {
		// The log alone cannot say that RDMA ports exist.
		f.Severity = finding.Warning
		f.Summary += " (critical where RDMA ports exist: give --expect-ib or --root)"
	}
	c.a.Findings = append(c.a.Findings, f)
}

// socketEvidence returns the lines showing that up to three processes
// chose sockets, and why IB was unavailable to them.
func socketEvidence(socketProcs []*nccllog.Proc) []finding.Evidence {
	var evs []finding.Evidence
	for _, p := range socketProcs[:min(3, len(socketProcs))] {
		_, line := p.EffectiveNetwork()
		v := cmp.Or(p.NetworkText, "Using network Socket")
		if line == 0 {
			line, v = p.FirstLine, "connections via NET/Socket"
		} else if line == p.SocketLine {
			v = fmt.Sprintf("NET/Socket : Using %s", strings.Join(p.SocketIfs, ", "))
		}
		if line != p.NoVerbs || p.NoVerbs == 0 {
			// (A log that only says libibverbs failed is cited below.)
			evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, line), Value: v})
		}
		if p.IBNoDevice > 0 {
			evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.IBNoDevice), Value: cmp.Or(p.IBNoDeviceText, "NET/IB : No device found.")})
		}
		if p.NoVerbs > 0 {
			evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.NoVerbs), Value: "Failed to open libibverbs.so[.1]"})
		}
	}
	return evs
}

// ipoibInterface returns the first IPoIB interface the processes name
// for their sockets (the NET/Socket list, NCCL 2.3's "NET : Using
// interface") or for the IB transport's sideband (NCCL 2.3's "NET/IB :
// Using interface ib0 for sideband communication"), with its line as
// evidence. An IPoIB interface exists only on an InfiniBand HCA (the
// ib_ipoib driver, drivers/infiniband/ulp/ipoib), so a job that talks
// TCP over it had RDMA hardware at hand.
func ipoibInterface(procs []*nccllog.Proc) (string, finding.Evidence, bool) {
	for _, p := range procs {
		for _, name := range p.SocketIfs {
			if isIPoIBName(name) {
				return name, finding.Evidence{Source: evidenceAt(p.Source, p.SocketLine), Value: "NET/Socket : Using " + strings.Join(p.SocketIfs, ", ")}, true
			}
		}
		for _, f := range p.NetIfs {
			if isIPoIBName(f.Name) {
				return f.Name, finding.Evidence{Source: evidenceAt(p.Source, f.Line), Value: "NET : Using interface " + f.Name + ":" + f.Addr}, true
			}
		}
		if isIPoIBName(p.Sideband) {
			return p.Sideband, finding.Evidence{Source: evidenceAt(p.Source, p.SidebandLine), Value: "NET/IB : Using interface " + p.Sideband + " for sideband communication"}, true
		}
	}
	return "", finding.Evidence{}, false
}

// sameHosts returns procs, then the other processes of all that run on
// one of their hosts (a host's interfaces are every process's there:
// NCCL 2.3 prints them only where a thread first looks them up).
func sameHosts(procs, all []*nccllog.Proc) []*nccllog.Proc {
	out := slices.Clone(procs)
	for _, p := range all {
		// Containers of several nodes may all call themselves
		// localhost: that name places no two processes together.
		if p.Host != "" && p.Host != "localhost" && !slices.Contains(procs, p) && slices.ContainsFunc(procs, func(q *nccllog.Proc) bool { return q.Host == p.Host }) {
			out = append(out, p)
		}
	}
	return out
}

// isIPoIBName says whether an interface name is one the kernel or udev
// gives IPoIB interfaces: ib0 (and its P_Key children ib0.8001) from
// ipoib_add_port's "ib%d", and systemd's predictable names for them,
// ibp<bus>s<slot>, ibs<slot>, ibP<domain>p<bus>s<slot>
// (systemd udev-builtin-net_id.c: the "ib" prefix for ARPHRD_INFINIBAND).
func isIPoIBName(name string) bool {
	rest, ok := strings.CutPrefix(name, "ib")
	if !ok || rest == "" {
		return false
	}
	if rest[0] == 'p' || rest[0] == 's' || rest[0] == 'P' {
		rest = rest[1:]
	}
	return rest != "" && rest[0] >= '0' && rest[0] <= '9'
}

// socketWhy returns the reason the log gives for the socket fallback, as
// a "; ..." suffix, or "" when it gives none.
func (c *logCheck) socketWhy() string {
	switch {
	case len(c.disabled) > 0:
		return "; IB was disabled by NCCL_IB_DISABLE"
	case slices.ContainsFunc(c.socketProcs, func(p *nccllog.Proc) bool { return p.NoVerbs > 0 }):
		return "; libibverbs could not be loaded: rdma-core (libibverbs) is missing from the image or the library path"
	case slices.ContainsFunc(c.socketProcs, func(p *nccllog.Proc) bool { return p.IBNoDevice > 0 }):
		why := "; NCCL found no IB device (container without /dev/infiniband, missing libibverbs, or NCCL_IB_HCA matching nothing)"
		if slices.ContainsFunc(c.socketProcs, func(p *nccllog.Proc) bool { return p.IBNoDevice > 0 && p.IBDisable == 1 }) {
			why += "; NCCL_IB_DISABLE=1 is set too, but no device was found, so unsetting it alone changes nothing"
		}
		return why
	case slices.ContainsFunc(c.socketProcs, func(p *nccllog.Proc) bool { return p.SidebandLine > 0 }):
		// NCCL 2.3's IB transport names its sideband interface, then
		// lists each ACTIVE IB/RoCE port NCCL_IB_HCA allows ("NET/IB:
		// [0] mlx5_0:1/IB"); with none it leaves the job to sockets.
		return "; NCCL's IB transport loaded libibverbs but found no ACTIVE IB/RoCE port it may use (ports down, or NCCL_IB_HCA matching nothing: check ibstat)"
	}
	return ""
}

// envWantsIB returns the line of a process's log where its environment
// asks for NCCL's IB transport (NCCL_IB_DISABLE set to 0, or NCCL_IB_HCA
// set): whoever set it means the job to run over IB/RoCE. "" when none.
func envWantsIB(procs []*nccllog.Proc) string {
	for _, p := range procs {
		if p.IBDisable == 0 && p.IBDisableLine > 0 {
			return "NCCL_IB_DISABLE set by environment to 0"
		}
		if v, ok := p.Env["NCCL_IB_HCA"]; ok {
			return "NCCL_IB_HCA set by environment to " + v
		}
	}
	return ""
}

// checkNoIBDevice reports processes whose IB transport found no device
// ("NET/IB : No device found.") in a log that stops before saying which
// network NCCL took and shows no net plugin. NCCL tries its transports in
// order (a net plugin, then IB, then Socket, src/net.cc) and uses the
// first with a device: without a plugin that is Socket.
func (c *logCheck) checkNoIBDevice() {
	procs := c.noIB
	if len(procs) == 0 || len(c.socketProcs) > 0 {
		return
	}
	var evs []finding.Evidence
	for _, p := range procs[:min(3, len(procs))] {
		evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.IBNoDevice), Value: cmp.Or(p.IBNoDeviceText, "NET/IB : No device found.")})
	}
	f := catalog.New("nccl.socket_fallback", c.subj,
		fmt.Sprintf("NCCL found no IB device on %d process(es) (%s) and the log shows no net plugin: without a plugin NCCL carries inter-node traffic over TCP sockets (the log does not show the network it then used)", len(procs), procNames(procs)), evs...)
	want := envWantsIB(procs)
	switch {
	case c.oneNode(procs) != "" && want != "":
		c.oneNodeWantsIB(procs, want, c.oneNode(procs))
		return
	case c.oneNode(procs) != "":
		c.a.Notes = append(c.a.Notes, fmt.Sprintf("%s:%d: NCCL found no IB device on %d process(es) (%s), but the job runs on one node (%s): ranks talk over NVLink, PCIe or shared memory and no traffic crosses the network; a multi-node run would use TCP sockets", procs[0].Source, procs[0].IBNoDevice, len(procs), procNames(procs), c.oneNode(procs)))
		return
	case c.opts.ExpectIB || c.opts.RDMAPresent:
		f.Summary += "; IB/RoCE was expected"
	case want != "":
		f.Summary += "; the environment asks for IB (" + want + ")"
		for _, p := range procs {
			if p.IBDisableLine > 0 && p.IBDisable == 0 {
				f.Evidence = append(f.Evidence, finding.Evidence{Source: evidenceAt(p.Source, p.IBDisableLine), Value: want})
				break
			}
		}
	case c.instanceOK():
		name, net, ev := c.instance()
		f.Evidence = append(f.Evidence, ev)
		f.Summary += fmt.Sprintf("; the log names the cloud GPU instance %s, which has %s", name, net)
		cloudRemedies(&f, net)
	default:
		f.Severity = finding.Warning
		f.Summary += "; fine only for a cluster without RDMA (give --expect-ib or --root to judge)"
	}
	c.a.Findings = append(c.a.Findings, f)
}

// instanceOK says whether the log names a cloud GPU instance type with
// an accelerated network (see instance).
func (c *logCheck) instanceOK() bool {
	name, _, _ := c.instance()
	return name != ""
}

// instance returns the cloud GPU instance type with an accelerated
// network (EFA, GPUDirect-TCPX/TCPXO, RoCE, InfiniBand) the log names:
// a full type on any line ("p5.48xlarge", "a3-highgpu-8g",
// "Standard_ND96isr_H100_v5"), else an EFA family that a process's host
// name carries as a whole token ("ini-worker-ray-worker-p5"). Such an
// instance is the evidence of an RDMA-class network that makes a
// multi-node job on NCCL's socket transport a fault, not a choice.
func (c *logCheck) instance() (name, network string, ev finding.Evidence) {
	if in := c.lg.Instance; in != nil {
		return in.Name, in.Network, finding.Evidence{Source: evidenceAt(in.Source, in.Line), Value: in.Text}
	}
	for _, p := range c.all {
		if n, net := nccllog.HostInstance(p.Host); n != "" {
			return n, net, finding.Evidence{Source: evidenceAt(p.Source, p.FirstLine), Value: "host " + p.Host + " (instance family " + n + ")"}
		}
	}
	return "", "", finding.Evidence{}
}

// cloudRemedies puts the cloud network's own causes and checks first.
func cloudRemedies(f *finding.Finding, network string) {
	switch {
	case strings.HasPrefix(network, "EFA"):
		f.Causes = append([]string{
			"the aws-ofi-nccl plugin (libnccl-net.so) is not installed or not on LD_LIBRARY_PATH, so NCCL falls back to its socket transport",
			"the pod or container does not get the EFA devices (aws-efa-k8s-device-plugin, vpc.amazonaws.com/efa resource) or the instance was launched without EFA interfaces",
		}, f.Causes...)
		f.Remedy = append([]string{
			"fi_info -p efa -t FI_EP_RDM on each node (inside the container): it must list the EFA devices",
			"install aws-ofi-nccl and put its lib directory on LD_LIBRARY_PATH; rerun with NCCL_DEBUG=INFO: the log must say 'Using network AWS Libfabric' (or NET/OFI)",
		}, f.Remedy...)
	case strings.HasPrefix(network, "GPUDirect-TCPX"):
		f.Causes = append([]string{
			"the GPUDirect-TCPX/TCPXO net plugin is not installed or not on LD_LIBRARY_PATH (the nccl-plugin-gpudirecttcpx installer, the tcpx daemon sidecar on GKE), so NCCL uses its socket transport on the primary gVNIC",
			"the VM or GKE node pool was created without the additional GPU NICs",
		}, f.Causes...)
		f.Remedy = append([]string{
			"ip -br link on the node: an a3-highgpu-8g with GPUDirect-TCPX has the extra gVNICs besides eth0",
			"install Google's GPUDirect-TCPX/TCPXO NCCL plugin and set NCCL_NET as its guide says; the log must name that plugin's network, not Socket",
		}, f.Remedy...)
	}
}

// oneNodeWantsIB reports a one-node job whose environment asks for IB
// ("NCCL_IB_DISABLE set by environment to 0", NCCL_IB_HCA) while NCCL
// found no IB device ("NET/IB : No device found."): the job itself
// sends nothing over the network, but whoever set the variable means
// the host to use IB/RoCE and the host (or its container) shows NCCL
// none, so a run across nodes would use TCP sockets. A warning naming
// both lines (realworld-fresh44's lightning2771 README row: four Horovod
// ranks on one host, NCCL 2.4.8).
func (c *logCheck) oneNodeWantsIB(procs []*nccllog.Proc, want, why string) {
	var evs []finding.Evidence
	for _, p := range procs {
		if p.IBNoDevice > 0 {
			evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.IBNoDevice), Value: cmp.Or(p.IBNoDeviceText, "NET/IB : No device found.")})
			break
		}
	}
	for _, p := range procs {
		if p.IBDisableLine > 0 && p.IBDisable == 0 {
			evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.IBDisableLine), Value: want})
			break
		}
	}
	f := catalog.New("nccl.socket_fallback", c.subj,
		fmt.Sprintf("the environment asks for IB (%s) but NCCL found no IB device on %d process(es) (%s); this job runs on one node (%s), so nothing crosses the network now, but the host or its container shows NCCL no usable RDMA device and a run across nodes would use TCP sockets", want, len(procs), procNames(procs), why), evs...)
	f.Severity = finding.Warning
	f.Causes = []string{
		"the host has no RDMA device, or its driver (mlx5_ib, …) is not loaded",
		"the container lacks /dev/infiniband/uverbs* and rdma_cm, so NCCL finds no IB device",
		"libibverbs / rdma-core (with the provider library) missing in the image",
		"NCCL_IB_HCA names devices that do not exist or whose ports are down",
	}
	f.Remedy = append([]string{
		"ibv_devices and ibv_devinfo on the host (and inside the container): an RDMA device with a port in PORT_ACTIVE must be listed",
	}, f.Remedy...)
	c.a.Findings = append(c.a.Findings, f)
}

// oneNode says how the log (or the options) show that the job of procs
// runs on one node: "nNodes 1" when every process logged it, "all ranks
// on HOST" when another output listed them there and the log names no
// other host, every process bootstrapping on a loopback address
// ("Bootstrap : Using [0]lo:127.0.0.1<0>"), every process listing only
// loopback addresses for its socket transport, or when the
// log itself shows
// every rank of its largest
// communicator on processes of HOST (NCCL before 2.12 logs no nNodes:
// "comm 0x… rank 5 nranks 6"); "" when nothing shows it.
func (c *logCheck) oneNode(procs []*nccllog.Proc) string {
	if !slices.ContainsFunc(procs, func(p *nccllog.Proc) bool { return p.NNodes != 1 }) {
		return "nNodes 1"
	}
	if h := c.opts.OneHost; h != "" && !slices.ContainsFunc(c.all, func(p *nccllog.Proc) bool { return p.Host != "" && p.Host != h }) {
		return "all ranks on " + h
	}
	// A rank that bootstraps on a loopback address can be reached only
	// from its own host: when every process does, the job is one host's.
	if len(c.all) > 0 && !slices.ContainsFunc(c.all, func(p *nccllog.Proc) bool { return p.BootstrapLo == 0 }) {
		return "every process bootstraps on the loopback interface, which no other host can reach"
	}
	// NCCL's socket transport hands its peers the address it listens on
	// (src/transport/net_socket.cc, ncclNetSocketListen): on a loopback
	// address only ranks of its own host can connect, so a job whose
	// every process lists only loopback addresses for it
	// ("NET/Socket : Using [0]lo:127.0.0.1<0>", NCCL_SOCKET_IFNAME=lo)
	// cannot span hosts. Without that line, NCCL_SOCKET_IFNAME=lo says
	// the same.
	if len(c.all) > 0 && !slices.ContainsFunc(c.all, func(p *nccllog.Proc) bool { return !socketOnLoopback(p) }) {
		return "every process's socket transport is on the loopback interface, which no other host can reach"
	}
	switch h, n, shown := allRanksOnOneHost(c.all); {
	case h != "" && shown == n:
		return fmt.Sprintf("all %d ranks on %s", n, h)
	case h != "":
		return fmt.Sprintf("%d of %d ranks shown, the first and the last among them, all on %s: block and round-robin placement put the rest there too", shown, n, h)
	}
	return ""
}

// socketOnLoopback says whether p's socket transport listens on loopback
// addresses only: its "NET/Socket : Using" line lists no other, or, when
// the log lacks that line, NCCL_SOCKET_IFNAME selects only lo ("lo",
// "=lo": a prefix list, or exact names after "=").
func socketOnLoopback(p *nccllog.Proc) bool {
	if p.SocketLine > 0 {
		return p.SocketLo
	}
	v := p.Env["NCCL_SOCKET_IFNAME"]
	return v == "lo" || v == "=lo"
}

// allRanksOnOneHost returns the host and the size N of the largest
// communicator the log shows, and how many of its ranks the log shows,
// when every process names that one host and together they hold each of
// its ranks 0..N-1, or (a log cut short: horovod/horovod#969 shows ranks
// 0, 2 and 3 of 4) rank 0, rank N-1 and more than half of the others:
// MPI and torchrun place ranks on nodes in blocks (by slot: the block
// holding 0 and N-1 is all of them) or round-robin (by node: one of h >= 2
// nodes holds at most ceil(N/h) ranks). "" otherwise (a process without
// a host or named localhost, another host, or too few ranks: the rest may
// run on a node whose log is not pasted).
func allRanksOnOneHost(procs []*nccllog.Proc) (string, int, int) {
	host, n := "", 0
	for _, p := range procs {
		// Containers of several nodes may all call themselves
		// localhost: that name places no rank.
		if p.Host == "" || p.Host == "localhost" || strings.HasPrefix(p.Host, "localhost.") || host != "" && p.Host != host {
			return "", 0, 0
		}
		host, n = p.Host, max(n, p.MaxNRanks)
	}
	if n == 0 {
		return "", 0, 0
	}
	seen := make([]bool, n)
	for _, p := range procs {
		if p.MaxNRanks != n {
			continue
		}
		for _, r := range p.MaxRanks {
			if r >= 0 && r < n {
				seen[r] = true
			}
		}
	}
	shown := 0
	for _, ok := range seen {
		if ok {
			shown++
		}
	}
	if shown < n && (!seen[0] || !seen[n-1] || shown <= (n+1)/2) {
		return "", 0, 0
	}
	return host, n, shown
}

// checkOFISocketProvider reports processes whose aws-ofi-nccl net plugin
// selected a libfabric provider that runs over the host's IP stack
// ("NET/OFI Selected Provider is tcp;ofi_rxm", nccllog.SocketProvider)
// instead of a fabric NIC (efa, cxi, verbs): NCCL's network is the
// plugin, so its inter-node traffic goes over TCP, the OFI analogue of
// NET/Socket (nccl.socket_fallback). Critical when the job spans
// hosts, a note on one node; skipped when NET/Socket already fired.
func (c *logCheck) checkOFISocketProvider() {
	if len(c.socketProcs) > 0 {
		return
	}
	var procs []*nccllog.Proc
	for _, p := range c.all {
		if p.OFIProviderLine > 0 && nccllog.SocketProvider(p.OFIProvider) {
			procs = append(procs, p)
		}
	}
	if len(procs) == 0 {
		return
	}
	p := procs[0]
	if one := c.oneNode(procs); one != "" {
		c.a.Notes = append(c.a.Notes, fmt.Sprintf("%s:%d: aws-ofi-nccl selected libfabric provider %s (TCP, not a fabric NIC) on %d process(es) (%s), but the job runs on one node (%s): no traffic crosses the network; a multi-node run would go over TCP", p.Source, p.OFIProviderLine, p.OFIProvider, len(procs), procNames(procs), one))
		return
	}
	var evs []finding.Evidence
	for _, q := range procs[:min(3, len(procs))] {
		evs = append(evs, finding.Evidence{Source: evidenceAt(q.Source, q.OFIProviderLine), Value: q.Name() + ": NET/OFI Selected Provider is " + q.OFIProvider})
	}
	f := catalog.New("nccl.socket_fallback", c.subj,
		fmt.Sprintf("aws-ofi-nccl selected libfabric provider %s on %d process(es) (%s), not efa: NCCL's inter-node traffic goes through libfabric over TCP sockets, at a fraction of the fabric's bandwidth (fi_info -p efa shows whether libfabric sees an EFA device; FI_PROVIDER=efa makes the plugin fail rather than fall back)", p.OFIProvider, len(procs), procNames(procs)), evs...)
	f.Severity = finding.Critical
	f.Causes = []string{
		"the process sees no EFA device: the efa kernel module not loaded, an instance or network interface without EFA, or a container started without the EFA devices (/dev/infiniband/uverbs*)",
		"a libfabric without the efa provider (a distribution's or the container's) found before the EFA installer's in /opt/amazon/efa",
		"FI_PROVIDER set to tcp, or left unset while the efa provider failed to initialise",
	}
	f.Remedy = []string{
		"fi_info -p efa -t FI_EP_RDM on each node: it must list the EFA device (lsmod | grep efa; ls /dev/infiniband)",
		"export FI_PROVIDER=efa and put /opt/amazon/efa/lib64 first in LD_LIBRARY_PATH: the plugin then uses EFA or fails, and never falls back to TCP",
		"pass the EFA devices into the container (docker run --device=/dev/infiniband/uverbs0, the aws-efa-k8s-device-plugin on Kubernetes)",
	}
	c.a.Findings = append(c.a.Findings, f)
}

// checkSocketFallback reports processes that use sockets, graded by
// whether the job spans nodes and whether RDMA was expected.
func (c *logCheck) checkSocketFallback() {
	socketProcs, ibProcs := c.socketProcs, c.ibProcs
	if len(socketProcs) == 0 {
		c.checkNoIBDevice()
		return
	}
	f := catalog.New("nccl.socket_fallback", c.subj, "", socketEvidence(socketProcs)...)
	why := c.socketWhy()
	ipoibName, ipoibEv, ipoibFound := ipoibInterface(sameHosts(socketProcs, c.all))
	switch {
	case len(ibProcs) == 0 && c.oneNode(socketProcs) != "" && envWantsIB(socketProcs) != "" && slices.ContainsFunc(socketProcs, func(p *nccllog.Proc) bool { return p.IBNoDevice > 0 }):
		c.oneNodeWantsIB(socketProcs, envWantsIB(socketProcs), c.oneNode(socketProcs))
		return
	case len(ibProcs) == 0 && c.oneNode(socketProcs) != "":
		// One node: ranks talk over NVLink, PCIe or shared memory; the
		// network transport carries nothing, so there is no fault to
		// report, only what a multi-node run would meet.
		p := socketProcs[0]
		_, line := p.EffectiveNetwork()
		c.a.Notes = append(c.a.Notes, fmt.Sprintf("%s:%d: NCCL picked sockets on %d process(es) (%s), but the job runs on one node (%s): no traffic crosses the network, so this costs nothing here; a multi-node run would use TCP sockets%s", p.Source, cmp.Or(line, p.FirstLine), len(socketProcs), procNames(socketProcs), c.oneNode(socketProcs), why))
		return
	case len(ibProcs) > 0:
		for _, p := range ibProcs[:min(2, len(ibProcs))] {
			if net, line := p.EffectiveNetwork(); line > 0 {
				f.Evidence = append(f.Evidence, finding.Evidence{Source: evidenceAt(p.Source, line), Value: p.Name() + ": network " + net})
			}
		}
		f.Summary = fmt.Sprintf("%d process(es) (%s) use sockets while %d use IB/RoCE: the job runs at the speed of its socket ranks%s", len(socketProcs), procNames(socketProcs), len(ibProcs), why)
	case c.opts.ExpectIB || c.opts.RDMAPresent:
		f.Summary = fmt.Sprintf("NCCL uses sockets on %d process(es) (%s) although IB/RoCE was expected%s", len(socketProcs), procNames(socketProcs), why)
	case envWantsIB(socketProcs) != "":
		f.Summary = fmt.Sprintf("NCCL uses sockets on %d process(es) (%s) although the environment asks for IB (%s)%s", len(socketProcs), procNames(socketProcs), envWantsIB(socketProcs), why)
	case ipoibFound:
		f.Evidence = append(f.Evidence, ipoibEv)
		f.Summary = fmt.Sprintf("NCCL uses sockets on %d process(es) (%s) over the IPoIB interface %s: the host has an InfiniBand HCA and fabric (an IPoIB interface runs on one), yet NCCL carries its traffic as TCP over IPoIB instead of over verbs (RDMA), at a fraction of the link's bandwidth%s", len(socketProcs), procNames(socketProcs), ipoibName, why)
	case c.instanceOK():
		name, net, ev := c.instance()
		f.Evidence = append(f.Evidence, ev)
		f.Summary = fmt.Sprintf("NCCL uses sockets on %d process(es) (%s) on a cloud GPU instance whose accelerated network it should use: the log names %s, which has %s; over TCP sockets on the host's ordinary interface the job's inter-node traffic runs at a fraction of that network's bandwidth%s", len(socketProcs), procNames(socketProcs), name, net, why)
		cloudRemedies(&f, net)
	case shmFailure(c.lg) != nil:
		// The job died creating a shared-memory segment, which NCCL's
		// SHM transport uses between ranks of one host: that is the
		// fault (nccl.call_failed), and a guess that the cluster may
		// have RDMA is no finding beside it.
		p := socketProcs[0]
		_, line := p.EffectiveNetwork()
		c.a.Notes = append(c.a.Notes, fmt.Sprintf("%s:%d: NCCL picked sockets on %d process(es) (%s); not judged: the job failed creating shared memory under /dev/shm first (a multi-node run on a cluster with RDMA would want IB/RoCE)%s", p.Source, cmp.Or(line, p.FirstLine), len(socketProcs), procNames(socketProcs), why))
		return
	default:
		f.Severity = finding.Warning
		f.Summary = fmt.Sprintf("NCCL uses sockets on %d process(es) (%s); fine only for a cluster without RDMA (give --expect-ib or --root to judge)%s", len(socketProcs), procNames(socketProcs), why)
	}
	c.a.Findings = append(c.a.Findings, f)
}

// checkGDR reports network processes with GPU Direct RDMA disabled. On
// one node it is a note: NCCL uses its network transport only between
// nodes (ranks of one node talk over NVLink, PCIe P2P or shared memory),
// so GPU Direct RDMA, which lets the NIC read and write GPU memory, has
// nothing to carry.
func (c *logCheck) checkGDR() {
	if len(c.gdrOffProcs) > 0 {
		if one := c.oneNode(c.all); one != "" {
			c.a.Notes = append(c.a.Notes, fmt.Sprintf("%s: NCCL reports GPU Direct RDMA disabled on %d process(es) (%s), but the job runs on one node (%s): no traffic crosses the network, so this costs nothing here; a multi-node run would stage NIC traffic through host memory (modprobe nvidia-peermem)",
				c.gdrOff[0].Source, len(c.gdrOffProcs), strings.Join(firstN(c.gdrOffProcs, 4), ", "), one))
			return
		}
		c.a.Findings = append(c.a.Findings, catalog.New("nccl.gdr_disabled", c.subj,
			fmt.Sprintf("GPU Direct RDMA is disabled for some HCAs on %d process(es) (%s): traffic is staged through host memory", len(c.gdrOffProcs), strings.Join(firstN(c.gdrOffProcs, 4), ", ")), c.gdrOff...))
		return
	}
	c.checkGDRUnused()
}

// checkGDRUnused reports processes whose log prints no "GPU Direct RDMA
// Enabled/Disabled" line (NCCL logs it under NET only) but shows that no
// connection uses it: every connection over the IB transport lacks
// "/GDRDMA" ("… [receive] via NET/IB/1"; net.cc adds it where the
// connection reads or writes GPU memory directly), with "Connected all
// rings, use ring PXN 0 GDR 0" (NCCL 2.19+) quoted when logged. NCCL
// then copies every transfer between GPU and host memory for the NIC.
func (c *logCheck) checkGDRUnused() {
	var procs []*nccllog.Proc
	for _, p := range c.ibProcs {
		if len(p.GDR) > 0 || p.Via["NET/IB/GDRDMA"] > 0 || p.RingGDRLine > 0 && p.RingGDR {
			continue
		}
		// A connection over the network without /GDRDMA: "GDR 0"
		// alone may be a communicator whose traffic stays on NVLink.
		if p.ViaNoGDRLine > 0 {
			procs = append(procs, p)
		}
	}
	if len(procs) == 0 {
		return
	}
	var names []string
	for _, p := range procs {
		names = append(names, p.Name())
	}
	p := procs[0]
	var evs []finding.Evidence
	var said []string
	if p.RingGDRLine > 0 {
		evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.RingGDRLine), Value: p.RingGDRText})
		said = append(said, "the communicator says GDR 0")
	}
	if p.ViaNoGDRLine > 0 {
		evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.ViaNoGDRLine), Value: p.ViaNoGDRText})
		said = append(said, "no connection over NET/IB carries /GDRDMA")
	}
	if one := c.oneNode(c.all); one != "" {
		c.a.Notes = append(c.a.Notes, fmt.Sprintf("%s: NCCL uses no GPU Direct RDMA on %d process(es) (%s: %s), but the job runs on one node (%s): no traffic crosses the network, so this costs nothing here",
			evs[0].Source, len(procs), strings.Join(firstN(names, 4), ", "), strings.Join(said, ", "), one))
		return
	}
	why := "nvidia-peermem not loaded and no DMA-BUF, or the GPU and the NIC too far apart in PCIe (beyond NCCL_NET_GDR_LEVEL)"
	if p.DMABuf > 0 {
		evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.DMABuf), Value: p.DMABufText})
		why = "DMA-BUF is available on the GPU, so the likely reason is the GPU and the NIC too far apart in PCIe (through the CPU, beyond NCCL_NET_GDR_LEVEL) or a NIC driver without DMA-BUF support, not a missing nvidia-peermem"
	}
	c.a.Findings = append(c.a.Findings, catalog.New("nccl.gdr_disabled", c.subj,
		fmt.Sprintf("NCCL does not use GPU Direct RDMA between nodes on %d process(es) (%s): %s, so every transfer is staged through host memory (lower bandwidth, CPU load); %s",
			len(procs), strings.Join(firstN(names, 4), ", "), strings.Join(said, " and "), why), evs...))
}

// warnFindings reports the NCCL WARN lines no other rule reads, when
// nothing else in the log is a warning or worse. NCCL prints WARN only
// where an operation failed or was refused (src/include/debug.h: WARN
// is ncclDebugLog at NCCL_LOG_WARN, which the code calls on its error
// paths), so a log whose only trouble is a WARN of an unknown wording
// is worth a look, not HEALTHY. Beside a finding that explains the
// job's trouble, the lines stay a note (logNotes).
func warnFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string, found []finding.Finding) []finding.Finding {
	if slices.ContainsFunc(found, func(f finding.Finding) bool { return f.Severity.Rank() >= finding.Warning.Rank() }) {
		return nil
	}
	var warns []nccllog.Event
	var hosts, texts []string
	for _, e := range lg.Events {
		if e.Kind != nccllog.EventWarn {
			continue
		}
		warns = append(warns, e)
		if e.Host != "" && !slices.Contains(hosts, e.Host) {
			hosts = append(hosts, e.Host)
		}
		if !slices.Contains(texts, e.Text) {
			texts = append(texts, e.Text)
		}
	}
	if len(warns) == 0 {
		return nil
	}
	first := warns[0]
	sum := fmt.Sprintf("NCCL printed %d WARN line(s) (%d distinct) that ibdoctor does not classify", weight(warns), len(texts))
	if len(hosts) > 0 {
		sum += " on " + strings.Join(firstN(hosts, 4), ", ")
	}
	sum += fmt.Sprintf("; NCCL warns only where an operation failed or was refused. The first, line %d: %s", first.Line, first.Text)
	evs := []finding.Evidence{{Source: at(first.Source, first.Line), Value: first.Text}}
	for _, e := range warns[1:] {
		if len(evs) >= 3 {
			break
		}
		if !slices.ContainsFunc(evs, func(ev finding.Evidence) bool { return ev.Value == e.Text }) {
			evs = append(evs, finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
		}
	}
	f := catalog.New("nccl.warned", subj, sum, evs...)
	if len(hosts) == 1 {
		f.Subject.Host = hosts[0]
	}
	return []finding.Finding{f}
}

// logNotes returns the notes on a log: the other WARN lines (unless a
// finding reports them: reported), and each file whose processes never
// say which network they use.
func logNotes(lg *nccllog.Log, reported bool) []string {
	var notes []string
	var warns []nccllog.Event
	for _, e := range lg.Events {
		if e.Kind == nccllog.EventWarn {
			warns = append(warns, e)
		}
	}
	if len(warns) > 0 && !reported {
		notes = append(notes, fmt.Sprintf("%s: %d other NCCL WARN line(s); the first, line %d: %s", warns[0].Source, weight(warns), warns[0].Line, warns[0].Text))
	}
	said := map[string]bool{}
	var files []string
	for _, p := range lg.Procs {
		if !slices.Contains(files, p.Source) {
			files = append(files, p.Source)
		}
		if n, _ := p.EffectiveNetwork(); n != "" {
			said[p.Source] = true
		}
	}
	for _, f := range files {
		if !said[f] {
			notes = append(notes, f+": the log does not say which network NCCL chose (use NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS including INIT,NET)")
		}
	}
	return notes
}

// fileOf strips ":line" from an evidence source.
func fileOf(src string) string {
	if i := strings.LastIndexByte(src, ':'); i > 0 {
		if _, err := strconv.Atoi(src[i+1:]); err == nil {
			return src[:i]
		}
	}
	return src
}

func completionFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	var errs []nccllog.Event
	for _, e := range lg.Events {
		if e.Kind == nccllog.EventCompletion && e.Net == "" { // OFI: ofiCompletionFindings
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	// The cause is the first error that is not a flush.
	cause := errs[0]
	for _, e := range errs {
		if !e.Status.Info().Fallout {
			cause = e
			break
		}
	}
	counts := map[nccllog.WCStatus]int{}
	for _, e := range errs {
		counts[e.Status] += e.Weight()
	}
	info := cause.Status.Info()
	where := cause.Host
	if where == "" {
		where = "a rank"
	}
	peer := ""
	if cause.Peer != "" {
		peer = " with peer " + cause.Peer
	}
	var summary string
	if info.Fallout {
		summary = fmt.Sprintf("only flush errors (status 5): the QPs were already in error; the cause is in another rank's log (%d errors)", weight(errs))
	} else {
		summary = fmt.Sprintf("first IB completion error on %s%s: status %d %s (%s): %s", where, peer, int(cause.Status), info.Name, info.Text, info.Meaning)
		if rest := weight(errs) - 1; rest > 0 {
			summary += fmt.Sprintf("; %d later error(s) are consequences", rest)
		}
	}
	evs := []finding.Evidence{{Source: at(cause.Source, cause.Line), Value: cause.Text}}
	var codes []nccllog.WCStatus
	for s := range counts {
		codes = append(codes, s)
	}
	sort.Slice(codes, func(i, j int) bool { return codes[i] < codes[j] })
	var parts []string
	for _, s := range codes {
		parts = append(parts, fmt.Sprintf("status %d ×%d", int(s), counts[s]))
	}
	var srcs []string
	for _, e := range errs {
		if !slices.Contains(srcs, e.Source) {
			srcs = append(srcs, e.Source)
		}
	}
	files := strings.Join(firstN(srcs, 3), ", ")
	evs = append(evs, finding.Evidence{Source: files, Value: "completion errors: " + strings.Join(parts, ", ")})
	// Errors that all name one peer point at that peer or the path to it.
	peers := map[string]int{}
	var peerOrder []string
	for _, e := range errs {
		if e.Peer == "" {
			continue
		}
		if peers[e.Peer] == 0 {
			peerOrder = append(peerOrder, e.Peer)
		}
		peers[e.Peer] += e.Weight()
	}
	if len(peerOrder) > 0 {
		var ps []string
		for _, p := range peerOrder {
			ps = append(ps, fmt.Sprintf("%s ×%d", p, peers[p]))
		}
		evs = append(evs, finding.Evidence{Source: files, Value: "peers: " + strings.Join(firstN(ps, 6), ", ")})
	}
	f := catalog.New("nccl.ibv_error", subj, summary, evs...)
	f.Subject.Host = cause.Host
	f.Subject.Device = cause.HCA
	// Keep the catalogue's per-status causes and remedies ("status 4: …")
	// that apply to this status.
	f.Causes = forStatus(f.Causes, cause.Status)
	f.Remedy = forStatus(f.Remedy, cause.Status)
	if len(f.Causes) == 0 && info.Meaning != "" {
		f.Causes = []string{fmt.Sprintf("status %d: %s", int(cause.Status), info.Meaning)}
	}
	return []finding.Finding{f}
}

// forStatus drops lines written for another status ("status 4: …").
func forStatus(lines []string, st nccllog.WCStatus) []string {
	var out []string
	for _, l := range lines {
		var n int
		if _, err := fmt.Sscanf(l, "status %d:", &n); err == nil && nccllog.WCStatus(n) != st {
			continue
		}
		out = append(out, l)
	}
	return out
}

func resourceFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	hasAsync := slices.ContainsFunc(lg.Events, func(e nccllog.Event) bool {
		sev, _ := asyncSeverity(e.Async)
		return e.Kind == nccllog.EventAsync && sev != finding.Info
	})
	byCall := map[string][]nccllog.Event{}
	var order []string
	for _, e := range lg.Events {
		if e.Kind != nccllog.EventResource || e.Call == "ibv_get_async_event" && hasAsync {
			continue // the async thread ending after an async event: told there
		}
		if emptyGIDIndex(e) {
			continue // an empty GID slot: nccl.gid_index_wrong says it
		}
		if _, ok := byCall[e.Call]; !ok {
			order = append(order, e.Call)
		}
		byCall[e.Call] = append(byCall[e.Call], e)
	}
	var fs []finding.Finding
	for _, call := range order {
		evs := byCall[call]
		first := evs[0]
		hint := resourceHint(call, first.Error)
		if first.Net == "OFI" {
			hint = ofiHint(call, first.Error)
		}
		// "Call to ibv_open_device failed" and the IB transport's "Unable
		// to open device D" after it are one failure: count the calls.
		n := weight(slices.DeleteFunc(slices.Clone(evs), func(e nccllog.Event) bool { return e.HCA != "" && call == "ibv_open_device" }))
		if n == 0 {
			n = weight(evs)
		}
		summary := fmt.Sprintf("%s failed %d time(s)", call, n)
		if first.Error != "" {
			summary += fmt.Sprintf(" (%s)", first.Error)
		}
		if first.Host != "" {
			summary += " on " + first.Host
		}
		summary += ": " + hint
		id := "nccl.resource_error"
		if first.Net == "OFI" && call == "fi_getinfo" {
			// libfabric offers aws-ofi-nccl no provider: the finding
			// libfabric's own log gets for it.
			id = "libfabric.provider_unavailable"
		}
		f := catalog.New(id, subj, summary, finding.Evidence{Source: at(first.Source, first.Line), Value: first.Text})
		f.Subject.Host = first.Host
		if first.Net == "OFI" {
			ofiResource(&f)
			if id != "nccl.resource_error" {
				f.Causes = f.Causes[:2] // no provider: no device resources were asked for
			}
		}
		fs = append(fs, f)
	}
	return fs
}

// openDeviceSkipped turns the nccl.resource_error of ibv_open_device
// into a warning when NCCL's IB transport went on without the devices
// it could not open: ncclIbInit (src/transport/net_ib.cc) warns "NET/IB :
// Unable to open device D" and skips D, then lists the devices it uses
// ("NET/IB : Using [0]mlx5_1:1/RoCE …"). When every named device is
// absent from the lists of its host's processes, each of those processes
// lists some and none fell back to sockets, the job runs over RDMA; the
// skipped devices are often SR-IOV VFs or devices of other containers
// that the host's verbs list still shows. It stays critical when no
// device is named, when a process on that host lists no device or uses
// sockets, or when a named device is among those used.
func (c *logCheck) openDeviceSkipped(fs []finding.Finding) {
	i := slices.IndexFunc(fs, func(f finding.Finding) bool {
		return f.ID == "nccl.resource_error" && strings.HasPrefix(f.Summary, "ibv_open_device ")
	})
	if i < 0 || len(c.socketProcs) > 0 || len(c.noIB) > 0 {
		return
	}
	var skipped, hosts []string
	var named *nccllog.Event
	for i, e := range c.lg.Events {
		if e.Kind != nccllog.EventResource || e.Call != "ibv_open_device" {
			continue
		}
		if !slices.Contains(hosts, e.Host) {
			hosts = append(hosts, e.Host)
		}
		if e.HCA != "" && !slices.Contains(skipped, e.HCA) {
			skipped = append(skipped, e.HCA)
			if named == nil {
				named = &c.lg.Events[i]
			}
		}
	}
	if len(skipped) == 0 {
		return
	}
	var used []string
	var usedBy *nccllog.Proc
	for _, h := range hosts {
		n := 0
		for _, p := range c.all {
			if p.Host != h {
				continue
			}
			if net, _ := p.EffectiveNetwork(); len(p.IBDevices) == 0 || net != "IB" {
				return // this process did not show RDMA in use
			}
			n++
			if usedBy == nil {
				usedBy = p
			}
			for _, d := range p.IBDevices {
				if slices.Contains(skipped, d.Name) {
					return
				}
				if s := fmt.Sprintf("%s:%d/%s", d.Name, d.Port, d.LinkLayer); !slices.Contains(used, s) {
					used = append(used, s)
				}
			}
		}
		if n == 0 {
			return // no process of that host says what it used
		}
	}
	f := &fs[i]
	f.Severity = finding.Warning
	f.Evidence = append(f.Evidence, finding.Evidence{Source: evidenceAt(named.Source, named.Line), Value: named.Text},
		finding.Evidence{Source: evidenceAt(usedBy.Source, usedBy.IBLine), Value: "NET/IB : Using " + strings.Join(firstN(used, 8), " ")})
	f.Summary = fmt.Sprintf("NCCL could not open %s (ibv_open_device failed) and skipped it (them), but its IB transport uses %s and the job runs over RDMA: the skipped devices are usually SR-IOV VFs or devices of another container that the verbs device list still shows",
		strings.Join(firstN(skipped, 8), ", "), strings.Join(firstN(used, 8), " "))
	f.Causes = []string{
		"the host's verbs device list (/sys/class/infiniband) shows devices whose /dev/infiniband/uverbsN the container was not given (Kubernetes RDMA device plugins hand each pod a few)",
		"SR-IOV VFs bound to another driver or assigned to VMs",
	}
	f.Remedy = []string{
		"nothing to do when the devices NCCL uses are the ones meant for this job; NCCL opens every device it lists before NCCL_IB_HCA filters them, so the warning stays",
		"if a skipped device should carry traffic: ls -l /dev/infiniband in the container and pass its uverbsN (docker run --device=/dev/infiniband/uverbsN, or the device plugin's resource)",
	}
}

// connectFindings reports TCP connections to peers that failed
// (bootstrap or NET/Socket): one finding per error text, naming the
// peers and how many times.
func connectFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string, explained bool) []finding.Finding {
	byErr := map[string][]nccllog.Event{}
	var order []string
	for _, e := range lg.Events {
		if e.Kind != nccllog.EventConnect || explained && peerClosed(e.Error) {
			continue
		}
		if _, ok := byErr[e.Error]; !ok {
			order = append(order, e.Error)
		}
		byErr[e.Error] = append(byErr[e.Error], e)
	}
	var fs []finding.Finding
	for _, errText := range order {
		evs := byErr[errText]
		var peers []string
		for _, e := range evs {
			if !slices.Contains(peers, e.Peer) {
				peers = append(peers, e.Peer)
			}
		}
		first := evs[0]
		peers = slices.DeleteFunc(peers, func(p string) bool { return p == "" })
		var summary string
		if first.Call != "" {
			// A socket call other than connect (old NCCL's "Call to recv
			// failed : …", "Net : Socket creation failed : …"), with the
			// peer when the line names one.
			summary = fmt.Sprintf("NCCL's socket call %s() failed (%s) %d time(s)", first.Call, errText, weight(evs))
			if len(peers) > 0 {
				summary += " with peer " + strings.Join(firstN(peers, 4), ", ")
			}
		} else if len(peers) == 0 {
			// NCCL 2.24-2.26 retry lines name no address.
			summary = fmt.Sprintf("NCCL could not connect to its peer (%s) %d time(s)", errText, weight(evs))
		} else {
			summary = fmt.Sprintf("NCCL could not connect to %s (%s) %d time(s)", strings.Join(firstN(peers, 4), ", "), errText, weight(evs))
		}
		if hosts := connectHosts(evs); len(hosts) > 0 {
			summary += " from " + strings.Join(firstN(hosts, 4), ", ")
		}
		summary += retryText(first)
		summary += ": the ranks cannot exchange their addresses (bootstrap) or open their socket connections, so the job does not start; " + connectHint(errText)
		f := catalog.New("nccl.connect_failed", subj, summary, finding.Evidence{Source: at(first.Source, first.Line), Value: first.Text})
		f.Subject.Host = first.Host
		if strings.Contains(strings.ToLower(errText), "neither af_inet") {
			// No network fault: the address itself is not one.
			f.Causes = []string{"nccl-tests (MPI=1) built against one MPI and started by another's mpirun: every process believes it is rank 0 of its own job",
				"ranks running different NCCL versions, whose bootstrap messages do not match"}
			f.Remedy = []string{"rebuild nccl-tests with MPI=1 MPI_HOME pointing at the MPI whose mpirun starts it, or start it with that MPI's mpirun",
				"check that every node loads the same libnccl (NCCL_DEBUG=INFO prints its version on each rank)"}
		}
		if peerClosed(errText) {
			// The connection was open: the other end closed it.
			f.Causes = []string{"the peer rank died or aborted first (its own log shows the first error)",
				"a firewall, NAT or load balancer between the nodes reset the TCP connection",
				"ranks running different NCCL versions, whose bootstrap messages do not match"}
			f.Remedy = []string{"read the log of the peer ranks (the other hosts of the job) for their first NCCL WARN or error, with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET",
				"check that every node loads the same libnccl (NCCL_DEBUG=INFO prints its version on each rank)",
				"allow TCP between the nodes on the job's network in their firewalls (firewalld, iptables, the cloud security group)"}
		}
		if strings.Contains(strings.ToLower(errText), "address family not supported") {
			// socket(AF_INET6) on a kernel without IPv6: EAFNOSUPPORT.
			f.Causes = []string{"NCCL picked an IPv6 address of its interface (NCCL_SOCKET_IFNAME, or the first interface it found) on a host whose kernel or container has IPv6 disabled (ipv6.disable=1, net.ipv6.conf.all.disable_ipv6=1)",
				"the peer's address came from a rank running another NCCL version, whose connection handle this one misreads"}
			f.Remedy = []string{"NCCL_SOCKET_FAMILY=AF_INET so that NCCL uses the interface's IPv4 address",
				"NCCL_SOCKET_IFNAME=<interface with an IPv4 address both nodes reach> (ip -4 addr show)",
				"or enable IPv6 on the host: net.ipv6.conf.all.disable_ipv6 = 0 in /etc/sysctl.conf, and no ipv6.disable=1 on the kernel command line"}
		}
		fs = append(fs, f)
	}
	return fs
}

// retryText tells how NCCL retried the connect of e before it failed
// ("" for a connect that failed outright).
func retryText(e nccllog.Event) string {
	switch {
	case e.Retries == 0:
		return ""
	case e.RetryLimit > 0 && e.Retries >= e.RetryLimit:
		return fmt.Sprintf(", retrying %d/%d times, its whole retry budget (NCCL_SOCKET_RETRY_CNT): the next failure ends the connect", e.Retries, e.RetryLimit)
	case e.RetryLimit > 0:
		return fmt.Sprintf(", still retrying (%d/%d) where the log ends, with no sign that it connected", e.Retries, e.RetryLimit)
	}
	return fmt.Sprintf(", retrying (%d retry lines) with no sign that it connected", e.Retries)
}

// peerClosed reports the errno texts of a connection the other end
// closed: the peer died or gave up, often on a fault reported elsewhere.
func peerClosed(errText string) bool {
	e := strings.ToLower(errText)
	return strings.Contains(e, "reset by peer") || strings.Contains(e, "closed by remote peer") || strings.Contains(e, "broken pipe")
}

// connectHosts lists the hosts that printed evs, in order.
func connectHosts(evs []nccllog.Event) []string {
	var hosts []string
	for _, e := range evs {
		if e.Host != "" && !slices.Contains(hosts, e.Host) {
			hosts = append(hosts, e.Host)
		}
	}
	return hosts
}

// connectHint reads the errno text of a failed connect.
func connectHint(errText string) string {
	e := strings.ToLower(errText)
	switch {
	case strings.Contains(e, "no route to host"), strings.Contains(e, "network is unreachable"):
		return "no IP route to the peer, or a firewall rejects the connection: check the routes and firewall between the nodes, and that NCCL_SOCKET_IFNAME picks an interface the peer can reach"
	case strings.Contains(e, "refused"):
		return "nothing listens at the peer's address: the peer rank exited or has not started, or a firewall rejects the port"
	case strings.Contains(e, "neither af_inet"):
		// NVIDIA/nccl-tests#294: every rank of an nccl-tests run.
		return "the peer address NCCL was handed is no IP address, so the ranks did not share one NCCL unique ID: an nccl-tests binary built against another MPI than the mpirun that started it (each process then starts its own job), or ranks running different NCCL versions"
	case peerClosed(e):
		return "the peer closed the connection: its rank died or aborted first (read its log for the first error), or a firewall or NAT reset the connection"
	case strings.Contains(e, "address family not supported"):
		return "the kernel refused a socket of the address family NCCL picked: an IPv6 address on a host or container with IPv6 disabled; set NCCL_SOCKET_FAMILY=AF_INET or an NCCL_SOCKET_IFNAME with an IPv4 address"
	case strings.Contains(e, "timed out"):
		return "the connection attempt got no answer: a firewall drops the packets, or the address is on a network the peer does not reach (NCCL_SOCKET_IFNAME)"
	}
	return "check that the nodes reach each other over the interface NCCL_SOCKET_IFNAME picks"
}

// resourceHint reads the errno text of a failed verbs call.
func resourceHint(call, errText string) string {
	e := strings.ToLower(errText)
	switch {
	case strings.Contains(e, "cannot allocate memory") && strings.HasPrefix(call, "ibv_reg"):
		return "memory registration hit the locked-memory limit: raise ulimit -l (memlock) to unlimited for the job and its container"
	case strings.Contains(e, "network is unreachable") || strings.Contains(e, "connection timed out") || strings.Contains(e, "no route"):
		return "the QP could not reach its peer: wrong GID index or no route (RoCE: NCCL_IB_GID_INDEX, VLAN/subnet), or the port is down"
	case strings.Contains(e, "no such device") || strings.Contains(e, "permission denied") || strings.Contains(e, "operation not permitted") || call == "ibv_open_device":
		return "the RDMA device is not accessible: the container lacks /dev/infiniband devices or the IPC_LOCK capability"
	case strings.Contains(e, "cannot allocate memory"):
		return "the HCA ran out of resources (too many QPs/CQs for this many processes) or memlock is too low"
	case strings.Contains(e, "bad address") && strings.HasPrefix(call, "ibv_reg"):
		return "the buffer could not be registered: GPU memory without GPUDirect support (nvidia-peermem / dma-buf)"
	case strings.Contains(e, "invalid argument") && call == "ibv_modify_qp":
		// NVIDIA/nccl#622: Intel E810 (irdma) RoCE.
		return "the HCA's driver refused the QP's attributes: a GID index that is empty or not RoCE v2 (NCCL_IB_GID_INDEX against show_gids), a path MTU or traffic class the port does not take, or a non-Mellanox RDMA driver that lacks what NCCL asks"
	}
	return "NCCL could not set up its verbs resources"
}

// failedFindings reports a program that stopped on a failed NCCL or
// CUDA call (nccl-tests' "HOST: Test NCCL failure common.cu:345
// 'unhandled system error'"): nccl.call_failed, naming the error, its
// meaning and the hosts that printed it.
func failedFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	var fails []nccllog.Event
	var hosts []string
	for _, e := range lg.Events {
		if e.Kind != nccllog.EventFailed {
			continue
		}
		fails = append(fails, e)
		if e.Host != "" && !slices.Contains(hosts, e.Host) {
			hosts = append(hosts, e.Host)
		}
	}
	if len(fails) == 0 {
		return nil
	}
	first := fails[0]
	if i := slices.IndexFunc(fails, func(e nccllog.Event) bool { return e.Watchdog }); i >= 0 {
		return []finding.Finding{watchdogCUDAFinding(fails[i], fails, subj, at)}
	}
	if first.Call == nccllog.NVLSCall {
		// NCCL's own warning names the call: no trace to add.
		sum := fmt.Sprintf("NCCL could not bind NVLink SHARP (NVLS) multicast memory: cuMulticastBindMem returned %s, and NCCL returned ncclUnhandledCudaError, so the communicator (or the buffer registration) fails and the job with it. NCCL's own text blames a system or configuration error in the Fabric Manager or the NVSwitches: on that node check nvidia-smi -q (Fabric State, Status) and the nvidia-fabricmanager service; NCCL_NVLS_ENABLE=0 makes NCCL avoid NVLS until it is fixed", first.Error)
		if len(hosts) > 0 {
			sum += fmt.Sprintf(" (on %s)", strings.Join(firstN(hosts, 4), ", "))
		}
		return []finding.Finding{catalog.New("nccl.call_failed", subj, sum, finding.Evidence{Source: at(first.Source, first.Line), Value: first.Text})}
	}
	if i := slices.IndexFunc(fails, func(e nccllog.Event) bool { return e.Call == nccllog.TruncCall }); i >= 0 {
		return []finding.Finding{truncatedFinding(lg, fails[i], subj, at)}
	}
	article := "an"
	if first.Call == "CUDA" {
		article = "a"
	}
	// nccl-tests 2.13 and later print "'%s / %s'", ncclGetErrorString
	// and ncclGetLastError, whose second part may be empty.
	errText := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(first.Error), " /"))
	sum := fmt.Sprintf("the program stopped: %s %s call failed with '%s'", article, first.Call, errText)
	if len(hosts) > 0 {
		sum += fmt.Sprintf(" on %s", strings.Join(firstN(hosts, 4), ", "))
	}
	wi := slices.IndexFunc(lg.Events, func(e nccllog.Event) bool { return e.Kind == nccllog.EventWarn })
	if m := ncclErrorMeaning(first.Call, first.Error); m != "" {
		if wi >= 0 {
			m, _, _ = strings.Cut(m, ":")
		}
		sum += ": " + m
	}
	evs := []finding.Evidence{{Source: at(first.Source, first.Line), Value: first.Text}}
	// The first error return trace of a process that logged one: the
	// function that failed first.
	var tr *nccllog.Proc
	for _, p := range lg.Procs {
		if p.ErrReturn > 0 && !caughtReturn(lg, p) && (tr == nil || p.ErrReturn < tr.ErrReturn) {
			tr = p
		}
	}
	switch {
	case wi >= 0:
		w := lg.Events[wi]
		sum += fmt.Sprintf("; NCCL warned first (line %d): %s", w.Line, w.Text)
		if c := warnedCause(w.Text); c != "" {
			sum += ": " + c
		}
		evs = append(evs, finding.Evidence{Source: at(w.Source, w.Line), Value: w.Text})
	case tr != nil:
		sum += fmt.Sprintf("; the log shows no NCCL warning that names the failed call, but its error return trace starts at %q (line %d), the function that failed first", tr.ErrReturnText, tr.ErrReturn)
		evs = append(evs, finding.Evidence{Source: at(tr.Source, tr.ErrReturn), Value: tr.ErrReturnText})
	default:
		sum += "; the log shows no NCCL warning that names the failed call: rerun with NCCL_DEBUG=WARN (or INFO) to see it"
	}
	for _, e := range fails[1:] {
		if len(evs) >= 4 {
			break
		}
		if e.Host != first.Host {
			evs = append(evs, finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
		}
	}
	return []finding.Finding{catalog.New("nccl.call_failed", subj, sum, evs...)}
}

// truncatedFinding reports NCCL's refusal of a message longer than the
// receive posted for it ("NET/Socket : peer A message truncated :
// receiving 4 bytes instead of 2", src/transport/net_socket.cc; the
// bootstrap says the same): NCCL returns an error, the communicator is
// in error, and each later call
// on it fails ("Attempt to use communicator before the previous
// operation returned ncclSuccess", src/init.cc). NCCL's own text names
// the usual cause: the ranks disagree on the collective, its size or
// the NCCL_PROTO / NCCL_ALGO settings.
func truncatedFinding(lg *nccllog.Log, e nccllog.Event, subj finding.Subject, at func(string, int) string) finding.Finding {
	where := ""
	if e.Host != "" {
		where = " on " + e.Host
	}
	from := ""
	if e.Peer != "" {
		from = " from peer " + e.Peer
	}
	sum := fmt.Sprintf("NCCL received a message longer than the receive posted for it%s%s (%s) and returned an error: the communicator failed and every later call on it fails, so the job stops", where, from, e.Error)
	evs := []finding.Evidence{{Source: at(e.Source, e.Line), Value: e.Text}}
	for _, w := range lg.Events {
		if w.Kind == nccllog.EventWarn && strings.HasPrefix(w.Text, "Attempt to use communicator before the previous operation returned ncclSuccess") {
			sum += fmt.Sprintf("; line %d shows the next call refused", w.Line)
			evs = append(evs, finding.Evidence{Source: at(w.Source, w.Line), Value: w.Text})
			break
		}
	}
	f := catalog.New("nccl.call_failed", subj, sum, evs...)
	f.Subject.Host = e.Host
	f.Causes = []string{
		"the ranks called different collectives, or the same one with different counts or datatypes (pipeline-parallel send/recv pairs that do not match are the usual case): an application bug",
		"the ranks run with different NCCL_PROTO, NCCL_ALGO or other NCCL_* settings, or different NCCL versions",
		"rarely, a socket stream corrupted on the way (a middlebox or NIC offload fault): then NCCL's own text blames the socket network",
	}
	f.Remedy = []string{
		"compare the NCCL_* environment and NCCL version of every rank (NCCL_DEBUG=INFO prints both at init)",
		"rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL to log each rank's collectives, counts and datatypes and find the rank whose sequence differs",
		"TORCH_DISTRIBUTED_DEBUG=DETAIL makes PyTorch check that the ranks' collectives match",
	}
	return f
}

// ncclResultText is ncclGetErrorString's text of an ncclResult_t
// (src/misc/utils.cc, src/nccl.h.in).
var ncclResultText = map[int]string{
	1: "unhandled cuda error",
	2: "unhandled system error",
	3: "internal error",
	4: "invalid argument",
	5: "invalid usage",
	6: "remote process exited or there was a network error",
}

// initFailedFindings reports processes whose communicator setup failed:
// NCCL's error return chain climbs out of init.cc or bootstrap.cc
// ("bootstrap.cc:285 -> 2", "init.cc:1534 -> 2"), so ncclCommInitRank
// returned an error and the communicator was never built. It names the
// error, the hosts and the NCCL WARN before it (whose text the other
// rules did not read).
func initFailedFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	var failed []*nccllog.Proc
	var hosts []string
	// Communicator setup first; else any error return (a transport's,
	// the proxy's): a call inside NCCL failed and its error climbed out.
	init := slices.ContainsFunc(lg.Procs, func(p *nccllog.Proc) bool { return p.InitFailed > 0 })
	for _, p := range lg.Procs {
		if init && p.InitFailed == 0 || p.ErrReturn == 0 || caughtReturn(lg, p) {
			continue
		}
		failed = append(failed, p)
		// Containers of several nodes may all call themselves
		// localhost: that name places no two processes together.
		if p.Host != "" && p.Host != "localhost" && !slices.Contains(hosts, p.Host) {
			hosts = append(hosts, p.Host)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	first := failed[0]
	line, code, text := first.InitFailed, first.InitCode, first.InitFailedText
	if !init {
		line, code, text = first.ErrReturn, first.ErrCode, first.ErrReturnText
	}
	errText := cmp.Or(ncclResultText[code], fmt.Sprintf("ncclResult_t %d", code))
	sum := fmt.Sprintf("NCCL could not build its communicator: the error return chain reaches %q ('%s') in %d process(es)", text, errText, len(failed))
	if !init {
		sum = fmt.Sprintf("a call inside NCCL failed: its error return trace shows %q ('%s') in %d process(es)", text, errText, len(failed))
	}
	if len(hosts) > 0 {
		sum += " on " + strings.Join(firstN(hosts, 4), ", ")
	}
	shm := shmFailure(lg)
	// The failing process's own warning, else the first of any.
	wi := slices.IndexFunc(lg.Events, func(e nccllog.Event) bool {
		return e.Kind == nccllog.EventWarn && e.Host == first.Host && e.Pid == first.Pid
	})
	if wi < 0 {
		wi = slices.IndexFunc(lg.Events, func(e nccllog.Event) bool { return e.Kind == nccllog.EventWarn })
	}
	if m := ncclErrorMeaning("NCCL", errText); m != "" && shm == nil {
		if wi >= 0 {
			// The warning names the failed call: the list of usual
			// suspects would only mislead.
			m, _, _ = strings.Cut(m, ":")
		}
		sum += ": " + m
	}
	evs := []finding.Evidence{{Source: at(first.Source, line), Value: text}}
	if shm != nil {
		sum += fmt.Sprintf(", because NCCL could not create a shared-memory segment under /dev/shm (line %d: %s): /dev/shm is too small for NCCL's buffers between the ranks of one host (docker gives a container 64 MiB unless told otherwise), so the communicator cannot be built", shm.Line, shm.Text)
		f := catalog.New("nccl.call_failed", subj, sum, append(evs, finding.Evidence{Source: at(shm.Source, shm.Line), Value: shm.Text})...)
		f.Subject.Host = first.Host
		f.Causes = []string{
			"a container's /dev/shm at docker's default 64 MiB (docker run without --shm-size or --ipc=host)",
			"a Kubernetes pod without a memory-backed /dev/shm volume",
			"/dev/shm filled by segments of earlier jobs that were killed",
		}
		f.Remedy = []string{
			"df /dev/shm in the container: its size and use",
			"docker run --shm-size=1g (or --ipc=host)",
			"Kubernetes: mount an emptyDir with medium: Memory at /dev/shm",
			"ls -la /dev/shm | grep nccl-shm: remove segments left by dead jobs",
		}
		return []finding.Finding{f}
	}
	if wi >= 0 {
		w := lg.Events[wi]
		sum += fmt.Sprintf("; NCCL warned first (line %d): %s", w.Line, w.Text)
		if c := warnedCause(w.Text); c != "" {
			sum += ": " + c
		}
		evs = append(evs, finding.Evidence{Source: at(w.Source, w.Line), Value: w.Text})
	} else {
		sum += fmt.Sprintf("; the log shows no NCCL warning that names the failed call: the trace starts at %q (line %d), the function that failed first; rerun with NCCL_DEBUG=WARN (or INFO) to see NCCL's warning", first.ErrReturnText, first.ErrReturn)
	}
	f := catalog.New("nccl.call_failed", subj, sum, evs...)
	f.Subject.Host = first.Host
	return []finding.Finding{f}
}

// warnedCause explains an NCCL warning whose cause is plain from its
// text; "" for others.
func warnedCause(w string) string {
	switch {
	case strings.Contains(w, "nvmlInit") && strings.Contains(w, "Driver/library version mismatch"):
		// NVML_ERROR_LIB_RM_VERSION_MISMATCH (nvml.h).
		return "the loaded NVIDIA kernel module and the user-space driver libraries are different versions (a driver upgraded without a reboot, or a container whose libraries do not match the host's module); nvidia-smi fails the same way: reboot the node or reload the nvidia modules"
	case strings.Contains(w, "posix_fallocate") || strings.Contains(w, "shared memory segment"):
		// src/include/shm.h (2.8), src/misc/shmutils.cc later.
		return "NCCL could not create its shared-memory segment under /dev/shm: it is full or too small (docker gives a container 64 MiB unless run with --shm-size or --ipc=host)"
	}
	return ""
}

// caughtReturn tells an error return trace that the caller caught: one
// trace line, no communicator-setup file in it, no NCCL warning from the
// process after it, and a later line of the same process that shows its
// setup going on ("Using network IB"). NCCL and RCCL probe features
// this way: RCCL's ncclIbDmaBufSupport logs "net_ib.cc:652 -> 2" when
// DMA-BUF is off and ncclIbGetProperties goes on without it
// (src/transport/net_ib.cc); a failed call climbs out through one trace
// line per NCCLCHECK level instead.
func caughtReturn(lg *nccllog.Log, p *nccllog.Proc) bool {
	if p.ErrReturn == 0 || p.InitFailed > 0 || p.ErrTraces != 1 || p.WentOn == 0 {
		return false
	}
	return !slices.ContainsFunc(lg.Events, func(e nccllog.Event) bool {
		return e.Kind == nccllog.EventWarn && e.Host == p.Host && e.Pid == p.Pid && e.Source == p.Source && e.Line > p.ErrReturn
	})
}

// caughtReturnNote says which processes logged an error return their
// caller caught, so that the trace line is not read as a failure.
func caughtReturnNote(lg *nccllog.Log) string {
	var caught []*nccllog.Proc
	for _, p := range lg.Procs {
		if caughtReturn(lg, p) {
			caught = append(caught, p)
		}
	}
	if len(caught) == 0 {
		return ""
	}
	p := caught[0]
	return fmt.Sprintf("%s:%d: %q in %d process(es) (%s) is a single error return trace that the process went past (line %d: %s): a feature probe whose failure NCCL caught (RCCL's DMA-BUF check in net_ib.cc logs one when NCCL_DMABUF_ENABLE is unset), not a failed call",
		p.Source, p.ErrReturn, p.ErrReturnText, len(caught), procNames(caught), p.WentOn, p.WentOnText)
}

// shmFailure is the first NCCL warning that creating a shared-memory
// segment failed: "Call to posix_fallocate failed : No space left on
// device" and "Error while creating shared memory segment
// nccl-shm-recv-… (size 9637888)" (src/include/shm.h, shmOpen in NCCL
// 2.8; src/misc/shmutils.cc later: NCCL's SHM transport backs its buffers
// between ranks of one host with files under /dev/shm); nil when none.
func shmFailure(lg *nccllog.Log) *nccllog.Event {
	for i := range lg.Events {
		e := &lg.Events[i]
		if e.Kind != nccllog.EventWarn {
			continue
		}
		if strings.Contains(e.Text, "posix_fallocate") || strings.Contains(e.Text, "shared memory segment") {
			return e
		}
	}
	return nil
}

// ncclErrorMeaning says what ncclGetErrorString's text (or a CUDA
// error's) usually comes from.
func ncclErrorMeaning(call, e string) string {
	if call == "CUDA" {
		return "a CUDA call failed on a GPU (an Xid error, out of memory, or a broken driver install)"
	}
	e = strings.ToLower(e)
	switch {
	case strings.HasPrefix(e, "unhandled system error"):
		return "ncclSystemError, a failed system or library call: a socket connection to a peer (a firewall, the wrong NCCL_SOCKET_IFNAME), shared memory under /dev/shm (too small in a container), or a verbs call"
	case strings.HasPrefix(e, "unhandled cuda error"):
		return "ncclUnhandledCudaError, a CUDA call inside NCCL failed (an Xid error on a GPU, out of memory, or a broken driver install)"
	case strings.HasPrefix(e, "internal error"):
		return "ncclInternalError, a failure inside NCCL or its net plugin"
	case strings.HasPrefix(e, "invalid argument"), strings.HasPrefix(e, "invalid usage"):
		return "the program or an NCCL_* setting asked NCCL for something invalid"
	case strings.HasPrefix(e, "remote process exited"):
		return "ncclRemoteError: a peer process died, or the network between the nodes broke"
	}
	return ""
}

func timeoutFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	var wd, other, detected, hb, store, slow []nccllog.Event
	for _, e := range lg.Events {
		if e.Kind != nccllog.EventTimeout {
			continue
		}
		switch {
		case e.Call == nccllog.TCPXSlowCall:
			slow = append(slow, e)
		case e.Heartbeat:
			hb = append(hb, e)
		case e.Call == nccllog.StoreCall:
			store = append(store, e)
		case e.OpType != "":
			wd = append(wd, e)
		case e.SeqNum > 0:
			detected = append(detected, e) // "detected by watchdog at work: N"
		default:
			other = append(other, e)
		}
	}
	// A rank that printed only "detected by watchdog at work: N" still
	// tells where it stopped; one that printed both is counted once.
	for _, e := range detected {
		if !slices.ContainsFunc(wd, func(w nccllog.Event) bool { return w.Rank == e.Rank }) {
			e.OpType = "a collective"
			for _, w := range wd {
				if w.SeqNum == e.SeqNum && w.OpType != "" {
					e.OpType, e.TimeoutMS = w.OpType, w.TimeoutMS // the same work item
					break
				}
			}
			wd = append(wd, e)
		}
	}
	var fs []finding.Finding
	if len(wd) > 0 {
		type key struct {
			seq int64
			op  string
		}
		groups := map[key][]int{}
		var keys []key
		for _, e := range wd {
			k := key{e.SeqNum, e.OpType}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			if !slices.Contains(groups[k], e.Rank) {
				groups[k] = append(groups[k], e.Rank)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].seq < keys[j].seq })
		for _, rs := range groups {
			slices.Sort(rs)
		}
		first := wd[0]
		var summary string
		if len(keys) == 1 {
			summary = fmt.Sprintf("%d rank(s) timed out in %s SeqNum=%d after %d ms", len(groups[keys[0]]), keys[0].op, keys[0].seq, first.TimeoutMS)
		} else {
			var parts []string
			for _, k := range keys {
				rs := groups[k]
				slices.Sort(rs)
				parts = append(parts, fmt.Sprintf("%s SeqNum=%d on rank(s) %s", k.op, k.seq, joinInts(rs, 8)))
			}
			behind := groups[keys[0]]
			summary = fmt.Sprintf("ranks timed out in different collectives: %s; rank(s) %s lag the others (SeqNum %d, the rest reached %d): look at them first", strings.Join(parts, "; "), joinInts(behind, 8), keys[0].seq, keys[len(keys)-1].seq)
		}
		evs := []finding.Evidence{{Source: at(first.Source, first.Line), Value: first.Text}}
		if len(keys) > 1 {
			// The line of a lagging rank too.
			for _, e := range wd {
				if e.SeqNum == keys[0].seq && e.OpType == keys[0].op && e.Line != first.Line {
					evs = append(evs, finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
					break
				}
			}
		}
		f := catalog.New("nccl.timeout", subj, summary, evs...)
		if len(keys) == 1 {
			f.Subject.Rank = joinInts(groups[keys[0]], 8)
		}
		fs = append(fs, f)
	}
	if len(hb) > 0 {
		fs = append(fs, heartbeatFinding(hb, subj, at))
	}
	if len(store) > 0 {
		// A socket of PyTorch's c10d store (TCPStore) timed out: the
		// barrier or rendezvous waited on a rank that never came, and
		// the exception ends the job.
		e := store[0]
		f := catalog.New("nccl.timeout", subj,
			fmt.Sprintf("PyTorch's c10d store timed out on a socket (%s, %d time(s)): the TCP store that torch.distributed and torch elastic's rendezvous and exit barrier coordinate ranks through (MASTER_ADDR:MASTER_PORT) waited for a rank that never answered, and the job failed; that rank hung or died, or its host cannot reach the store's (firewall, NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME on an interface the other nodes cannot reach)", e.Text, weight(store)),
			finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
		fs = append(fs, f)
	}
	if len(slow) > 0 && len(fs) == 0 && len(other) == 0 {
		fs = append(fs, tcpxSlowFinding(slow, subj, at))
	}
	if len(other) > 0 {
		e := other[0]
		f := catalog.New("nccl.timeout", subj,
			fmt.Sprintf("NCCL reported a timeout on %s (%d warning(s))", orDefault(e.Host, "a rank"), weight(other)),
			finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
		f.Subject.Host = e.Host
		fs = append(fs, f)
	}
	return fs
}

// tcpxSlowFinding is the GPUDirect-TCPX net plugin's slowness reports
// ("… nic 0, enp12s0, A<p><-B<q> rx rx ctrl timeout cnt 7331502, nanos
// 10000000585", tcpxCommProgress in google/nccl-plugin-gpudirecttcpx
// src/net_tcpx.cc): a receive has waited past the plugin's report
// threshold for the peer's control message and goes on waiting. The
// plugin neither fails nor aborts the request, so the job is slow, not
// dead: a warning naming the NICs and the longest wait. (A collective
// that never completes ends in PyTorch's watchdog or NCCL's own error,
// which the log then shows.)
func tcpxSlowFinding(slow []nccllog.Event, subj finding.Subject, at func(string, int) string) finding.Finding {
	var nics []string
	var secs int64
	for _, e := range slow {
		if !slices.Contains(nics, e.HCA) {
			nics = append(nics, e.HCA)
		}
		secs = max(secs, e.StuckS)
	}
	e := slow[0]
	f := catalog.New("nccl.timeout", subj,
		fmt.Sprintf("the GPUDirect-TCPX net plugin reported %d slow receive(s) on %s: a request waited %d s or more for its peer's control message and went on waiting (the plugin's slowness report, not an NCCL error: the job is slow, not aborted); the peer rank is late to send (still starting, or stalled), or the flows between the NICs are lossy or congested", weight(slow), strings.Join(firstN(nics, 4), ", "), secs),
		finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
	f.Severity = finding.Warning
	f.Subject.Host = e.Host
	if len(slow) > 1 && slow[len(slow)-1].Line != e.Line {
		l := slow[len(slow)-1]
		f.Evidence = append(f.Evidence, finding.Evidence{Source: at(l.Source, l.Line), Value: l.Text})
	}
	f.Causes = []string{
		"the peer rank has not reached the collective yet: slow start-up on that node (data loading, compilation, a node still pulling its image) or a rank stalled",
		"packet loss, retransmits or congestion on the GPU NICs' flows (the VPC networks of the GPU NICs, MTU, the receive-datapath manager)",
	}
	f.Remedy = []string{
		"compare the ranks' logs for the one that starts the collective last; the slowness report names the flow (local<port><-peer<port>) and the NIC",
		"ethtool -S on the GPU NICs of both hosts for drops, and the TCP retransmit counters in /proc/net/snmp",
		"rerun the NCCL tests (all_gather_perf) on the same nodes to tell a network fault from a slow rank",
	}
	return f
}

// heartbeatFinding is PyTorch's heartbeat monitor reports: the
// ProcessGroupNCCL watchdog thread of each rank named made no progress
// for the seconds given, because an NCCL or CUDA call it waits on never
// returned (a collective hung on a peer or on the network, or a GPU
// fault); PyTorch then dumps debug info and terminates the process.
func heartbeatFinding(hb []nccllog.Event, subj finding.Subject, at func(string, int) string) finding.Finding {
	var ranks []int
	var secs int64
	for _, e := range hb {
		if !slices.Contains(ranks, e.Rank) {
			ranks = append(ranks, e.Rank)
		}
		secs = max(secs, e.StuckS)
	}
	slices.Sort(ranks)
	stuck := "stopped making progress"
	if secs > 0 {
		stuck = fmt.Sprintf("got stuck for %d s", secs)
	}
	e := hb[0]
	f := catalog.New("nccl.timeout", subj,
		fmt.Sprintf("rank(s) %s: PyTorch's heartbeat monitor found the ProcessGroupNCCL watchdog %s: an NCCL or CUDA call never returned (a collective hung on a peer, the network or a GPU), and PyTorch terminates the process", joinInts(ranks, 8), stuck),
		finding.Evidence{Source: at(e.Source, e.Line), Value: e.Text})
	f.Subject.Rank = joinInts(ranks, 8)
	f.Subject.Host = e.Host
	return f
}

// weight counts events with the repeats a folding parser counted in them.
func weight(evs []nccllog.Event) int {
	n := 0
	for _, e := range evs {
		n += e.Weight()
	}
	return n
}

func procNames(ps []*nccllog.Proc) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name())
	}
	return strings.Join(firstN(names, 4), ", ")
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}

func joinInts(v []int, n int) string {
	var s []string
	for _, x := range v {
		if x < 0 {
			s = append(s, "?")
			continue
		}
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(firstN(s, n), ",")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// checkSocketLoopback reports processes whose socket transport lists the
// loopback interface beside a real one ("NET/Socket : Using
// [0]lo:127.0.0.1<0> [1]eth0:192.168.4.230<0>", kubeflow/pytorch-operator#202).
// NCCL leaves lo out of its own pick whenever another interface is up
// (src/misc/socket.cc ncclFindInterfaces: "^docker,lo" before "docker",
// then "lo"), so lo is there because NCCL_SOCKET_IFNAME matches it. Each
// listed interface is a network device of the socket transport, and a
// connection over lo hands the peer 127.0.0.1, which a rank on another
// host cannot reach: a warning (a one-host job is not hurt).
func (c *logCheck) checkSocketLoopback() {
	var procs []*nccllog.Proc
	for _, p := range c.all {
		if p.SocketLine > 0 && !p.SocketLo && slices.Contains(p.SocketIfs, "lo") {
			procs = append(procs, p)
		}
	}
	if len(procs) == 0 || c.oneNode(c.all) != "" {
		return
	}
	var evs []finding.Evidence
	for _, p := range procs[:min(3, len(procs))] {
		evs = append(evs, finding.Evidence{Source: evidenceAt(p.Source, p.SocketLine), Value: "NET/Socket : Using " + strings.Join(p.SocketIfs, ", ")})
	}
	c.a.Findings = append(c.a.Findings, catalog.New("nccl.socket_loopback", c.subj,
		fmt.Sprintf("NCCL's socket transport on %d process(es) (%s) lists the loopback interface beside %s: a connection over lo gives the peer 127.0.0.1, which no other host can reach, so inter-node connections over it fail or hang; NCCL leaves lo out by itself when another interface is up, so NCCL_SOCKET_IFNAME matches it",
			len(procs), procNames(procs), strings.Join(slices.DeleteFunc(slices.Clone(procs[0].SocketIfs), func(s string) bool { return s == "lo" }), ", ")), evs...))
}
