package host

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	hostmodel "github.com/ibdoctor/ibdoctor/internal/model/host"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

func hasRDMA(s *snapshot.Snapshot) bool {
	for i := range s.Devices {
		if s.Devices[i].PCI != "" {
			return true
		}
	}
	return false
}

func mib(v uint64) string {
	if v >= 1<<20 && v%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", v>>20)
	}
	if v >= 1<<10 && v%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", v>>10)
	}
	return fmt.Sprintf("%d bytes", v)
}

// LimitText writes a locked-memory limit: "64 KiB", "unlimited", with
// the hard limit when the source shows it.
func LimitText(l *hostmodel.Limit) string {
	soft := "unlimited"
	if !l.SoftUnlimited {
		soft = mib(l.Soft)
	}
	switch {
	case l.HardUnknown:
		return soft
	case l.HardUnlimited:
		return soft + " (hard unlimited)"
	}
	return fmt.Sprintf("%s (hard %s)", soft, mib(l.Hard))
}

// CheckPastedMemlock judges a pasted locked-memory limit (`ulimit -a`,
// /proc/<pid>/limits) as checkMemlock does on a node with RDMA devices:
// the paste was taken where RDMA is used. ev is its line, the evidence.
func CheckPastedMemlock(l *hostmodel.Limit, ev finding.Evidence) []finding.Finding {
	fs := checkMemlock(&Input{Snap: &snapshot.Snapshot{}, Memlock: l, standalone: true})
	for i := range fs {
		fs[i].Evidence = []finding.Evidence{ev}
	}
	return fs
}

// checkMemlock reports a finite RLIMIT_MEMLOCK on a node with RDMA
// devices: warning, critical below MemlockCritical.
func checkMemlock(in *Input) []finding.Finding {
	l := in.Memlock
	if l == nil || l.SoftUnlimited || !in.standalone && !hasRDMA(in.Snap) {
		return nil
	}
	hard := "unlimited"
	if !l.HardUnlimited {
		hard = mib(l.Hard)
	}
	sum := fmt.Sprintf("max locked memory is %s (hard %s): RDMA registration of NCCL buffers may fail", mib(l.Soft), hard)
	val := fmt.Sprintf("Max locked memory: soft %s, hard %s", mib(l.Soft), hard)
	if l.HardUnknown {
		// ulimit -a prints the soft limit; a process may raise it up to
		// the hard one (ulimit -H -l shows it) without privileges.
		sum = fmt.Sprintf("max locked memory is %s (the soft limit: ulimit -H -l shows the hard one): RDMA memory registration pins pages under it, so creating completion queues and registering buffers fails (ibv_create_cq, ibv_reg_mr: Cannot allocate memory)", mib(l.Soft))
		val = fmt.Sprintf("max locked memory: %s", mib(l.Soft))
	}
	f := catalog.New("host.memlock_limited", finding.Subject{Host: in.Snap.Host}, sum,
		finding.Evidence{Source: l.Source, Value: val})
	if l.Soft < in.th().MemlockCritical {
		f.Severity = finding.Critical
	}
	return []finding.Finding{f}
}

// checkPeermem reports a node with GPUs and RDMA NICs but neither
// nvidia_peermem nor the legacy nv_peer_mem module loaded.
func checkPeermem(in *Input) []finding.Finding {
	s := in.Snap
	if in.Modules == nil || len(s.GPUs()) == 0 || !hasRDMA(s) {
		return nil
	}
	if slices.Contains(in.Modules, "nvidia_peermem") || slices.Contains(in.Modules, "nv_peer_mem") {
		return nil
	}
	ev := finding.Evidence{Source: "proc/modules", Value: "no nvidia_peermem or nv_peer_mem"}
	if slices.Contains(in.Modules, "nvidia") {
		ev.Value += " (nvidia is loaded)"
	}
	return []finding.Finding{catalog.New("nccl.peermem_missing", finding.Subject{Host: s.Host},
		fmt.Sprintf("%s and %s but nvidia_peermem is not loaded: no GPUDirect RDMA (unless NCCL uses DMA-BUF)",
			plural(len(s.GPUs()), "GPU", "GPUs"), plural(countRDMA(s), "RDMA device", "RDMA devices")), ev)}
}

func countRDMA(s *snapshot.Snapshot) int {
	n := 0
	for i := range s.Devices {
		if s.Devices[i].PCI != "" {
			n++
		}
	}
	return n
}

func envSubject(in *Input) finding.Subject {
	return finding.Subject{Host: in.Snap.Host, File: in.Env.Source}
}

func envEv(in *Input, name string) finding.Evidence {
	v, _ := in.Env.Get(name)
	return finding.Evidence{Source: in.Env.Source, Value: name + "=" + v}
}

// activeRDMAPorts lists the ACTIVE IB/RoCE ports.
func activeRDMAPorts(s *snapshot.Snapshot) []*snapshot.Port {
	var out []*snapshot.Port
	for i := range s.Devices {
		for j := range s.Devices[i].Ports {
			p := &s.Devices[i].Ports[j]
			if p.IsActive() && (p.LinkLayer == ib.LinkLayerInfiniBand || p.LinkLayer == ib.LinkLayerEthernet) {
				out = append(out, p)
			}
		}
	}
	return out
}

// checkIBDisabled reports NCCL_IB_DISABLE≠0 on a node with active ports.
func checkIBDisabled(in *Input) []finding.Finding {
	if in.Env == nil {
		return nil
	}
	c := ncclenv.Read(in.Env)
	if c.IBDisable == nil || *c.IBDisable == 0 {
		return nil
	}
	act := activeRDMAPorts(in.Snap)
	if len(act) == 0 {
		return nil
	}
	return []finding.Finding{catalog.New("nccl.ib_disabled", envSubject(in),
		fmt.Sprintf("NCCL_IB_DISABLE=%d turns off %s: NCCL will use TCP sockets", *c.IBDisable, plural(len(act), "active RDMA port", "active RDMA ports")),
		envEv(in, "NCCL_IB_DISABLE"))}
}

// checkIBHCA judges NCCL_IB_HCA against the node's devices and ports.
func checkIBHCA(in *Input) []finding.Finding {
	if in.Env == nil {
		return nil
	}
	c := ncclenv.Read(in.Env)
	l := c.IBHCA
	if l == nil {
		return nil
	}
	s := in.Snap
	subj := envSubject(in)
	ev := envEv(in, "NCCL_IB_HCA")
	var out []finding.Finding
	for _, e := range l.Entries {
		var devs []string
		matchedPort := false
		for i := range s.Devices {
			d := &s.Devices[i]
			if !l.MatchEntry(e, d.Name, -1) {
				continue
			}
			devs = append(devs, d.Name)
			for _, p := range d.Ports {
				if l.MatchEntry(e, d.Name, p.Number) {
					matchedPort = true
				}
			}
		}
		written := e.Prefix
		if e.Port >= 0 {
			written = fmt.Sprintf("%s:%d", e.Prefix, e.Port)
		}
		switch {
		case len(devs) == 0 || !matchedPort:
			what := "no RDMA device"
			if len(devs) > 0 {
				what = fmt.Sprintf("no port of %s", strings.Join(devs, ","))
			}
			f := catalog.New("nccl.ib_hca_unknown", subj, fmt.Sprintf("NCCL_IB_HCA entry %q matches %s on this node", written, what), ev)
			if l.Exclude {
				f.Severity = finding.Warning
				f.Summary += " (an exclusion, so harmless, but likely a typo)"
			}
			out = append(out, f)
		case !l.Exact && len(devs) > 1 && slices.Contains(devs, e.Prefix):
			verb := "selects"
			if l.Exclude {
				verb = "excludes"
			}
			out = append(out, catalog.New("nccl.ib_hca_prefix_ambiguous", subj,
				fmt.Sprintf("NCCL_IB_HCA entry %q also %s %s (NCCL matches prefixes; write =%s for exact matching)", written, verb, strings.Join(slices.DeleteFunc(slices.Clone(devs), func(d string) bool { return d == e.Prefix }), ","), strings.TrimPrefix(l.Raw, "^")), ev))
		}
		// A port explicitly named (whole device name) that is not active.
		if l.Exclude {
			continue
		}
		if d := s.Device(e.Prefix); d != nil {
			for _, p := range d.Ports {
				if (e.Port == -1 || e.Port == p.Number) && !p.IsActive() {
					state := "unknown"
					if p.State != nil {
						state = p.State.String()
					}
					out = append(out, catalog.New("nccl.ib_hca_port_down",
						finding.Subject{Host: s.Host, Device: d.Name, Port: p.Number, File: in.Env.Source},
						fmt.Sprintf("NCCL_IB_HCA selects %s port %d, which is %s: NCCL skips it", d.Name, p.Number, state), ev,
						finding.Evidence{Source: fmt.Sprintf("sys/class/infiniband/%s/ports/%d/state", d.Name, p.Number), Value: state}))
				}
			}
		}
	}
	return out
}

// isVirtualIf tells loopback and container bridges, which NCCL's
// automatic choice skips and other nodes cannot reach.
func isVirtualIf(name string) bool {
	return name == "lo" || strings.HasPrefix(name, "docker") || strings.HasPrefix(name, "veth") || strings.HasPrefix(name, "virbr") || strings.HasPrefix(name, "cni") || strings.HasPrefix(name, "flannel")
}

// checkSocketIfname judges NCCL_SOCKET_IFNAME against sys/class/net.
func checkSocketIfname(in *Input) []finding.Finding {
	if in.Env == nil || in.Interfaces == nil {
		return nil
	}
	c := ncclenv.Read(in.Env)
	l := c.SocketIfname
	if l == nil {
		return nil
	}
	ifs := in.Interfaces
	if in.InterfacesPartial && !slices.ContainsFunc(ifs, func(i hostmodel.Interface) bool { return i.Name == "lo" }) {
		// Every Linux host has lo, listed or not.
		ifs = append(slices.Clone(ifs), hostmodel.Interface{Name: "lo", OperState: "unknown", Flags: 0x9})
	}
	var up, down, virt []string
	for _, i := range ifs {
		if !l.Selects(i.Name, -1) {
			continue
		}
		switch {
		case !i.Up():
			down = append(down, i.Name)
		case isVirtualIf(i.Name):
			virt = append(virt, i.Name)
		default:
			up = append(up, i.Name)
		}
	}
	if len(up) > 0 || (in.InterfacesPartial && len(down)+len(virt) == 0) {
		return nil
	}
	var why string
	switch {
	case len(virt) > 0:
		why = "only " + strings.Join(virt, ",") + " (loopback/container bridges other nodes cannot reach)"
	case len(down) > 0:
		why = "only " + strings.Join(down, ",") + ", which " + map[bool]string{true: "is", false: "are"}[len(down) == 1] + " down"
	default:
		why = "no interface"
	}
	var all []string
	for _, i := range in.Interfaces {
		all = append(all, i.Name)
	}
	return []finding.Finding{catalog.New("nccl.socket_ifname_missing", envSubject(in),
		fmt.Sprintf("NCCL_SOCKET_IFNAME=%s matches %s", l.Raw, why), envEv(in, "NCCL_SOCKET_IFNAME"),
		finding.Evidence{Source: "sys/class/net", Value: strings.Join(all, " ")})}
}

// checkGIDIndex judges NCCL_IB_GID_INDEX on the RoCE ports NCCL would use.
func checkGIDIndex(in *Input) []finding.Finding {
	if in.Env == nil {
		return nil
	}
	c := ncclenv.Read(in.Env)
	if c.GIDIndex == nil || *c.GIDIndex < 0 {
		return nil
	}
	idx := int(*c.GIDIndex)
	var out []finding.Finding
	for _, p := range rocePorts(in.Snap) {
		// A pasted GID table does not show the port's state: its
		// ports are judged unless another output said they are down.
		live := p.IsActive() || in.standalone && p.State == nil
		if !live || (c.IBHCA != nil && !c.IBHCA.Selects(p.Device, p.Number)) {
			continue
		}
		var g *snapshot.GIDEntry
		for i := range p.GIDs {
			if p.GIDs[i].Index == idx {
				g = &p.GIDs[i]
			}
		}
		if g == nil && in.gidsOpen {
			continue // the index may be among the rows left out
		}
		var why, val string
		sev := finding.Critical
		switch {
		case g == nil:
			why, val = "is empty", "zero GID"
		case g.Type == ib.GIDTypeIBRoCEv1:
			why, val = "is a RoCE v1 GID (not routable, no ECN)", g.GID.String()+" "+string(g.Type)
		case g.Type == ib.GIDTypeRoCEv2 && g.GID.IsLinkLocal():
			// A v2 GID built from the fe80:: address carries link-local
			// IPv6 source and destination addresses, which no router
			// forwards: it reaches peers on the same L2 segment only.
			// Whether the fabric is routed is not visible from the node,
			// so this is a warning.
			why, val = fmt.Sprintf("is the link-local RoCE v2 GID %s, which no router forwards: on a routed (L3) RoCE fabric NCCL reaches no peer beyond this port's L2 segment", g.GID), g.GID.String()+" "+string(g.Type)
			sev = finding.Warning
		default:
			continue
		}
		sum := fmt.Sprintf("NCCL_IB_GID_INDEX=%d on %s port %d %s", idx, p.Device, p.Number, why)
		if r, ok := routableV2(p); ok {
			sum += fmt.Sprintf("; use the routable RoCE v2 GID %s at index %d", r.GID, r.Index)
		} else {
			sum += fmt.Sprintf("; the port has no routable RoCE v2 GID (no IP address on %s?)", cmp.Or(p.NetDev, "its netdev"))
		}
		s := portSubject(in.Snap, p)
		s.File = in.Env.Source
		f := catalog.New("nccl.gid_index_wrong", s, sum, envEv(in, "NCCL_IB_GID_INDEX"),
			finding.Evidence{Source: fmt.Sprintf("sys/class/infiniband/%s/ports/%d/gids/%d", p.Device, p.Number, idx), Value: val})
		f.Severity = sev
		out = append(out, f)
	}
	return out
}

// routableV2 is the GID NCCL_IB_GID_INDEX should name on p: a RoCE v2 GID
// that is not link-local, the IPv4-mapped one first (NCCL's default
// address family, NCCL_IB_ADDR_FAMILY=AF_INET), lowest index first.
func routableV2(p *snapshot.Port) (snapshot.GIDEntry, bool) {
	var best snapshot.GIDEntry
	found := false
	for _, e := range p.GIDs {
		if e.Type != ib.GIDTypeRoCEv2 || e.GID.IsZero() || e.GID.IsLinkLocal() {
			continue
		}
		_, v4 := e.GID.IPv4()
		_, bestV4 := best.GID.IPv4()
		if !found || (v4 && !bestV4) || (v4 == bestV4 && e.Index < best.Index) {
			best, found = e, true
		}
	}
	return best, found
}

// checkUverbs reports RDMA devices without an openable uverbs device.
func checkUverbs(in *Input) []finding.Finding {
	if in.Dev == nil {
		return nil
	}
	s := in.Snap
	byDev := map[string]string{}
	for u, d := range in.Uverbs {
		byDev[d] = u
	}
	entries := map[string]hostmodel.DevEntry{}
	for _, e := range in.Dev {
		entries[e.Path] = e
	}
	var out []finding.Finding
	for i := range s.Devices {
		d := &s.Devices[i]
		if d.PCI == "" {
			continue
		}
		u, ok := byDev[d.Name]
		if !ok {
			out = append(out, catalog.New("container.uverbs_missing", finding.Subject{Host: s.Host, Device: d.Name},
				fmt.Sprintf("%s has no uverbs device (ib_uverbs not loaded?): user-space verbs cannot open it", d.Name),
				finding.Evidence{Source: "sys/class/infiniband_verbs", Value: "no uverbsN with ibdev " + d.Name}))
			continue
		}
		path := "dev/infiniband/" + u
		e, ok := entries[path]
		if ok && e.Exists && e.Openable {
			continue
		}
		why := "is missing"
		if ok && e.Exists {
			why = "cannot be opened: " + e.Err
		}
		out = append(out, catalog.New("container.uverbs_missing", finding.Subject{Host: s.Host, Device: d.Name},
			fmt.Sprintf("/%s (%s) %s: NCCL falls back to TCP sockets", path, d.Name, why),
			finding.Evidence{Source: path, Value: why},
			finding.Evidence{Source: "sys/class/infiniband_verbs/" + u + "/ibdev", Value: d.Name}))
	}
	return out
}

// checkRdmaCM reports a missing or unopenable dev/infiniband/rdma_cm on a
// node with RDMA devices.
func checkRdmaCM(in *Input) []finding.Finding {
	if in.Dev == nil || !hasRDMA(in.Snap) {
		return nil
	}
	for _, e := range in.Dev {
		if e.Path != "dev/infiniband/rdma_cm" {
			continue
		}
		if e.Exists && e.Openable {
			return nil
		}
		why := "is missing"
		if e.Exists {
			why = "cannot be opened: " + e.Err
		}
		return []finding.Finding{catalog.New("container.rdma_cm_missing", finding.Subject{Host: in.Snap.Host},
			"/dev/infiniband/rdma_cm "+why+": librdmacm users (MPI/UCX, perftest -R) cannot connect",
			finding.Evidence{Source: e.Path, Value: why})}
	}
	return []finding.Finding{catalog.New("container.rdma_cm_missing", finding.Subject{Host: in.Snap.Host},
		"/dev/infiniband/rdma_cm is missing: librdmacm users (MPI/UCX, perftest -R) cannot connect",
		finding.Evidence{Source: "dev/infiniband/rdma_cm", Value: "absent"})}
}
