package host

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// rocePorts returns the Ethernet link-layer ports.
func rocePorts(s *snapshot.Snapshot) []*snapshot.Port {
	var out []*snapshot.Port
	for i := range s.Devices {
		for j := range s.Devices[i].Ports {
			if p := &s.Devices[i].Ports[j]; p.LinkLayer == ib.LinkLayerEthernet {
				out = append(out, p)
			}
		}
	}
	return out
}

func portSubject(s *snapshot.Snapshot, p *snapshot.Port) finding.Subject {
	subj := finding.Subject{Host: s.Host, Device: p.Device, Port: p.Number, NetDev: p.NetDev, LinkLayer: string(p.LinkLayer)}
	if d := s.Device(p.Device); d != nil {
		subj.PCI = string(d.PCI)
	}
	return subj
}

func gidPath(p *snapshot.Port) string {
	return fmt.Sprintf("sys/class/infiniband/%s/ports/%d/gid_attrs/types", p.Device, p.Number)
}

// checkGIDv2 reports RoCE ports whose GID table has typed entries but no
// RoCE v2 one. Kernels without gid_attrs (no types at all) are not judged.
func checkGIDv2(in *Input) []finding.Finding {
	var out []finding.Finding
	for _, p := range rocePorts(in.Snap) {
		if p == in.gidsCut {
			continue
		}
		typed, v2 := 0, false
		var types []string
		for _, g := range p.GIDs {
			if g.Type != "" {
				typed++
				types = append(types, fmt.Sprintf("%d=%s", g.Index, g.Type))
			}
			v2 = v2 || g.Type == ib.GIDTypeRoCEv2
		}
		if typed == 0 {
			continue
		}
		if v2 {
			if f, ok := linkLocalV2Only(in, p); ok {
				out = append(out, f)
			}
			continue
		}
		out = append(out, catalog.New("roce.gid_missing_v2", portSubject(in.Snap, p),
			fmt.Sprintf("%s port %d (%s) has %s but no RoCE v2 GID", p.Device, p.Number, p.NetDev, plural(typed, "GID", "GIDs")),
			finding.Evidence{Source: gidPath(p), Value: strings.Join(types, " ")}))
	}
	return out
}

// linkLocalV2Only reports, in a pasted GID table, a RoCE port whose only
// RoCE v2 GIDs are link-local (fe80::, derived from the MAC): its netdev
// has no IP address, so nothing routes to the port over RoCE v2 and
// RDMA-CM cannot resolve it by address; on a flat layer-2 network
// link-local v2 still works, hence a warning. A live node's table is
// judged through NCCL_IB_GID_INDEX (nccl.gid_index_wrong) instead.
func linkLocalV2Only(in *Input, p *snapshot.Port) (finding.Finding, bool) {
	if !in.standalone {
		return finding.Finding{}, false
	}
	var v2 []string
	for _, g := range p.GIDs {
		if g.Type != ib.GIDTypeRoCEv2 {
			continue
		}
		if !g.GID.IsLinkLocal() {
			return finding.Finding{}, false
		}
		v2 = append(v2, fmt.Sprintf("%d=%s", g.Index, g.GID))
	}
	nd := p.NetDev
	if nd == "" {
		nd = "its netdev"
	}
	f := catalog.New("roce.gid_missing_v2", portSubject(in.Snap, p),
		fmt.Sprintf("%s port %d (%s) has RoCE v2 GIDs only for link-local fe80:: addresses: %s has no IP address, so no routable RoCE v2 GID exists (routed RoCE and RDMA-CM by address fail; a flat layer-2 network still works)", p.Device, p.Number, nd, nd),
		finding.Evidence{Source: gidPath(p), Value: "RoCE v2: " + strings.Join(v2, " ")})
	f.Severity = finding.Warning
	switch like, other := portWithRoutableV2(in.Snap, p); {
	case like != "":
		f.Summary += fmt.Sprintf("; %s, a port of the same kind, has a routable one: this port's address is missing", like)
	case other != "":
		// Only ports of another kind have an address (the data NICs
		// beside a management or unused one): the table cannot say
		// this one should carry RDMA; NotRDMAPorts notes it.
		return finding.Finding{}, false
	}
	return f, true
}

// NotRDMAPorts notes the RoCE ports of a pasted GID table left out of
// the RDMA network: only link-local v2 GIDs (their netdev has no address)
// while ports of another kind have routable ones. Nothing says they
// should carry RDMA, so they are noted, not reported.
func NotRDMAPorts(s *snapshot.Snapshot) []string {
	var out []string
	for _, p := range rocePorts(s) {
		ll, v2 := true, false
		for _, g := range p.GIDs {
			if g.Type == ib.GIDTypeRoCEv2 {
				v2 = true
				ll = ll && g.GID.IsLinkLocal()
			}
		}
		if !v2 || !ll {
			continue
		}
		if like, other := portWithRoutableV2(s, p); like == "" && other != "" {
			nd := cmp.Or(p.NetDev, "its netdev")
			out = append(out, fmt.Sprintf("%s port %d (%s) has only link-local RoCE v2 GIDs (%s has no address) while %s, of another kind, has a routable one: taken as a port not used for RDMA (management or unused); if it should carry RDMA, give %s an address", p.Device, p.Number, nd, nd, other, nd))
		}
	}
	return out
}

// portWithRoutableV2 names a port of s other than p with a RoCE v2 GID
// that is not link-local (IPv4-mapped, or a global or unique-local IPv6
// address: fd93:…): like is one whose netdev is named as p's is but for
// its numbers (enp105s0 and enp121s0: the same kind of NIC), other one of
// another kind; "" when there is none.
func portWithRoutableV2(s *snapshot.Snapshot, p *snapshot.Port) (like, other string) {
	shape := func(q *snapshot.Port) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, cmp.Or(q.NetDev, q.Device))
	}
	for _, q := range rocePorts(s) {
		if q == p {
			continue
		}
		if _, ok := routableV2(q); !ok {
			continue
		}
		name := fmt.Sprintf("%s port %d", q.Device, q.Number)
		if shape(q) == shape(p) {
			if like == "" {
				like = name
			}
		} else if other == "" {
			other = name
		}
	}
	return like, other
}

// NoGIDs is the finding for a pasted show_gids that found no GID at all
// ("n_gids_found=0"): no RDMA port visible where it ran has a GID, so no
// RDMA connection can be set up from there. ev is its line.
func NoGIDs(ev finding.Evidence) finding.Finding {
	return catalog.New("roce.gid_missing_v2", finding.Subject{},
		"show_gids found no GID at all (n_gids_found=0): no RDMA port visible here has a GID, so no RDMA connection can be set up from here. A RoCE GID exists for each address of an RDMA device's netdev: in a container, the pod's interface (a veth) is not an RDMA device's netdev, so give the pod one (an SR-IOV VF or a macvlan on the RDMA NIC) and check the RDMA namespace mode (rdma system show); on a host, check that the RDMA devices' netdevs are up with an address",
		ev)
}

// roceOverhead is the header room the kernel subtracts from the netdev MTU
// to get the RoCE path MTU (include/rdma/ib_addr.h iboe_get_mtu: GRH 40 +
// UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4).
const roceOverhead = 96

// activeMTU is the RDMA MTU a netdev MTU allows (iboe_get_mtu), 0 when
// below 256.
func activeMTU(netdev int) int {
	m := netdev - roceOverhead
	for _, v := range []int{4096, 2048, 1024, 512, 256} {
		if m >= v {
			return v
		}
	}
	return 0
}

// checkMTU reports RoCE netdevs whose MTUs differ, or whose MTU caps the
// RDMA MTU below 4096.
func checkMTU(in *Input) []finding.Finding {
	s := in.Snap
	type pm struct {
		p   *snapshot.Port
		mtu int
	}
	var ps []pm
	for _, p := range rocePorts(s) {
		if nd := s.NetDev(p.NetDev); nd != nil && nd.MTU != nil {
			ps = append(ps, pm{p, *nd.MTU})
		}
	}
	if len(ps) == 0 {
		return nil
	}
	counts := map[int]int{}
	for _, x := range ps {
		counts[x.mtu]++
	}
	// The majority MTU is the node's intent; ties go to the larger.
	major := 0
	for m, c := range counts {
		if c > counts[major] || (c == counts[major] && m > major) {
			major = m
		}
	}
	var out []finding.Finding
	for _, x := range ps {
		var why string
		switch {
		case x.mtu != major:
			why = fmt.Sprintf("differs from the other RoCE ports (%d)", major)
		case activeMTU(x.mtu) < 4096:
			why = fmt.Sprintf("caps the RDMA MTU at %d (needs ≥ %d for 4096)", activeMTU(x.mtu), 4096+roceOverhead)
		default:
			continue
		}
		out = append(out, catalog.New("roce.mtu_mismatch", portSubject(s, x.p),
			fmt.Sprintf("%s MTU %d (%s port %d) %s", x.p.NetDev, x.mtu, x.p.Device, x.p.Number, why),
			finding.Evidence{Source: "sys/class/net/" + x.p.NetDev + "/mtu", Value: fmt.Sprint(x.mtu)},
			finding.Evidence{Source: "RDMA active MTU (iboe_get_mtu)", Value: fmt.Sprint(activeMTU(x.mtu))}))
	}
	return out
}

// statsSubject names the port of an ethtool stats set.
func statsSubject(in *Input, st *ethtool.Stats) finding.Subject {
	if p := portOfNetDev(in.Snap, st.NetDev); p != nil {
		return portSubject(in.Snap, p)
	}
	// ethtool statistics judged here are those of Ethernet (RoCE) netdevs.
	// A paste that does not name its interface carries "<netdev>": the
	// subject then has none, so the remedies say how to find it.
	nd := st.NetDev
	if strings.HasPrefix(nd, "<") {
		nd = ""
	}
	return finding.Subject{Host: in.Snap.Host, NetDev: nd, LinkLayer: string(ib.LinkLayerEthernet)}
}

func statEv(st *ethtool.Stats, names ...string) []finding.Evidence {
	var ev []finding.Evidence
	for _, n := range names {
		if v, ok := st.Get(n); ok && v > 0 {
			ev = append(ev, finding.Evidence{Source: st.Source, Value: fmt.Sprintf("%s: %d", n, v)})
		}
	}
	return ev
}

// checkPFCStorm reports the NIC's pause-storm detector events.
func checkPFCStorm(in *Input) []finding.Finding {
	var out []finding.Finding
	for _, st := range in.Ethtool {
		w, _ := st.Get("tx_pause_storm_warning_events")
		e, _ := st.Get("tx_pause_storm_error_events")
		if w+e == 0 {
			continue
		}
		f := catalog.New("roce.pfc_storm", statsSubject(in, st),
			fmt.Sprintf("%s: PFC pause storm detected (%d warning, %d error events since driver load)", st.NetDev, w, e),
			statEv(st, "tx_pause_storm_warning_events", "tx_pause_storm_error_events")...)
		if e == 0 {
			f.Severity = finding.Warning
		}
		out = append(out, f)
	}
	return out
}

// pauseClasses are the names of per-priority and global pause counters.
func pauseClasses() []string {
	out := []string{"global"}
	for p := 0; p < 8; p++ {
		out = append(out, fmt.Sprintf("prio%d", p))
	}
	return out
}

// pauseLoad returns the pause frames and packets of a class; ok false when
// the class has no pause counters.
func pauseLoad(st *ethtool.Stats, class string) (pauses, packets uint64, ok bool) {
	pauses, n := st.Sum("rx_"+class+"_pause", "tx_"+class+"_pause")
	if n == 0 && class == "global" {
		// mlx5's PHY counters of 802.3x pause frames; Intel ice's
		// port-level ".nic" link XOFF counters.
		pauses, n = st.Sum("rx_pause_ctrl_phy", "tx_pause_ctrl_phy")
		if n == 0 {
			pauses, n = st.Sum("link_xoff_rx.nic", "link_xoff_tx.nic")
		}
	}
	if n == 0 && strings.HasPrefix(class, "prio") {
		// Intel ice: "rx_priority_3_xoff.nic", "tx_priority_3_xoff.nic".
		p := strings.TrimPrefix(class, "prio")
		pauses, n = st.Sum("rx_priority_"+p+"_xoff.nic", "tx_priority_"+p+"_xoff.nic")
	}
	if n == 0 {
		return 0, 0, false
	}
	if class == "global" {
		packets, _ = st.Sum("rx_packets_phy", "tx_packets_phy")
	} else {
		packets, _ = st.Sum("rx_"+class+"_packets", "tx_"+class+"_packets")
	}
	return pauses, packets, true
}

// checkPauseHeavy reports priorities with many pause frames per packet, or
// that spent a large share of the uptime paused.
func checkPauseHeavy(in *Input) []finding.Finding {
	th := in.th()
	var uptime time.Duration
	if !in.Boot.IsZero() && in.Snap.Taken.After(in.Boot) {
		uptime = in.Snap.Taken.Sub(in.Boot)
	}
	var out []finding.Finding
	for _, st := range in.Ethtool {
		for _, c := range pauseClasses() {
			pauses, packets, ok := pauseLoad(st, c)
			if !ok {
				continue
			}
			// Without the packets of the class (Intel ice prints none per
			// priority) the frames cannot be weighed: totals alone are
			// not a load.
			ratio := 0.0
			if packets > 0 {
				ratio = float64(pauses) / float64(packets)
			}
			share := 0.0
			if uptime > 0 {
				rx, _ := st.Get("rx_" + c + "_pause_duration")
				tx, _ := st.Get("tx_" + c + "_pause_duration")
				share = float64(max(rx, tx)) * float64(time.Microsecond) / float64(uptime)
			}
			byRatio := pauses >= th.PauseMin && ratio >= th.PauseRatio
			byTime := share >= th.PauseTimeShare
			if !byRatio && !byTime {
				continue
			}
			sum := fmt.Sprintf("%s %s: %d pause frames for %d packets (%.1f%%)", st.NetDev, c, pauses, packets, 100*ratio)
			if share > 0 {
				sum += fmt.Sprintf(", paused %.0f%% of the %s since boot", 100*min(share, 1), ShortDuration(uptime.Round(time.Minute)))
			} else {
				sum += " since driver load"
			}
			out = append(out, catalog.New("roce.pause_heavy", statsSubject(in, st), sum,
				statEv(st, pauseEvidence(st, c)...)...))
		}
	}
	return out
}

// ecnSignals sums the DCQCN evidence of a netdev's RDMA port: CE-marked
// RoCE packets received, CNPs sent and CNPs handled (hw_counters). n counts
// the counters that exist; without them ECN cannot be judged. Ethtool's
// ring-level ECN marks (rx*_ecn_mark, rx_prio*_marked) count only as
// evidence that marking happens, since they also see non-RDMA traffic.
func ecnSignals(in *Input, st *ethtool.Stats) (sum uint64, n int, ev []finding.Evidence) {
	p := portOfNetDev(in.Snap, st.NetDev)
	if p == nil {
		return 0, 0, nil
	}
	for _, name := range []string{"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled"} {
		if c, ok := p.HWCounter(name); ok {
			sum += c.Value
			n++
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("sys/class/infiniband/%s/ports/%d/hw_counters/%s", p.Device, p.Number, name), Value: fmt.Sprint(c.Value)})
		}
	}
	if n > 0 {
		for _, s := range st.Stats {
			if strings.HasSuffix(s.Name, "_marked") || strings.HasSuffix(s.Name, "_ecn_mark") {
				sum += s.Value
			}
		}
	}
	return sum, n, ev
}

// checkECN reports ports that pause heavily while no ECN mark or CNP was
// ever seen: congestion is handled by PFC alone.
func checkECN(in *Input) []finding.Finding {
	th := in.th()
	var out []finding.Finding
	for _, st := range in.Ethtool {
		var total, most uint64
		var classes []string
		prio := "" // the priority that pauses most, for the remedy's sysfs path
		for _, c := range pauseClasses() {
			if p, _, ok := pauseLoad(st, c); ok && p >= th.PauseMin {
				total += p
				classes = append(classes, c)
				if n, isPrio := strings.CutPrefix(c, "prio"); isPrio && p > most {
					most, prio = p, n
				}
			}
		}
		if total == 0 {
			continue
		}
		sum, n, ev := ecnSignals(in, st)
		if n == 0 || sum > 0 {
			continue
		}
		ev = append(ev, finding.Evidence{Source: st.Source, Value: fmt.Sprintf("pause frames on %s: %d", strings.Join(classes, ","), total)})
		f := catalog.New("roce.ecn_not_effective", statsSubject(in, st),
			fmt.Sprintf("%s pauses (%d PFC frames) but no ECN mark or CNP was counted: congestion control is not working", st.NetDev, total), ev...)
		if prio != "" {
			catalog.Fill(&f, "prio", prio)
		}
		out = append(out, f)
	}
	return out
}

// checkPHY reports FCS/symbol errors and post-FEC symbol errors (critical:
// traffic loss). Receive discards for lack of host buffers
// (rx_discards_phy, rx_out_of_buffer) are no PHY errors: the cable and
// transceiver are fine, the host or the flow control is not; they are
// host.nic_rx_drops (checkRxDrops).
func checkPHY(in *Input) []finding.Finding {
	var out []finding.Finding
	for _, st := range in.Ethtool {
		crc, _ := st.Get("rx_crc_errors_phy")
		sym, _ := st.Get("rx_symbol_err_phy")
		pcs, _ := st.Get("rx_pcs_symbol_err_phy")
		if crc+sym+pcs == 0 {
			continue
		}
		var parts []string
		if crc+sym > 0 {
			parts = append(parts, fmt.Sprintf("%d FCS and %d symbol errors", crc, sym))
		}
		if pcs > 0 {
			parts = append(parts, fmt.Sprintf("%d uncorrected (post-FEC) symbol errors", pcs))
		}
		f := catalog.New("roce.phy_errors", statsSubject(in, st),
			fmt.Sprintf("%s: %s since driver load", st.NetDev, strings.Join(parts, ", ")),
			statEv(st, "rx_crc_errors_phy", "rx_symbol_err_phy", "rx_pcs_symbol_err_phy", "link_down_events_phy")...)
		if pcs > 0 {
			f.Severity = finding.Critical
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b finding.Finding) int { return finding.CompareSubject(a.Subject, b.Subject) })
	return out
}

// rxDropCounters count frames the NIC received but dropped for lack of
// a free receive descriptor or buffer: the host did not drain the ring
// fast enough. Driver by driver (ethtool -S names):
var rxDropCounters = []string{
	"rx_discards_phy",    // mlx5: dropped by the adapter, no receive buffer
	"rx_out_of_buffer",   // mlx5: no receive WQE posted on the ring
	"rx_missed_errors",   // ixgbe, igb, e1000e: missed packets (MPC)
	"rx_no_buffer_count", // igb, e1000e: no receive descriptor (RNBC)
	"port.rx_dropped",    // i40e: port-level drops
	"rx_dropped.nic",     // ice: port-level drops
	"rx_drops_no_frags",  // be2net, per queue ("rxq0: …"): no receive buffer posted
	"rx_drops_no_pbuf",   // be2net: no adapter buffer
	"rx_drops_no_erx_descr",
	"rx_nodesc_drop_cnt", // sfc: dropped for lack of a receive descriptor
	"rx_nodesc_drops",    // sfc ef10: the same
	"rx_fifo_errors",     // the netdev statistic most drivers fill from the above
}

// rxPacketCounters are the received packets the drops are weighed
// against, the port-level count first.
var rxPacketCounters = []string{"rx_packets_phy", "rx_pkts_nic", "rx_packets", "rx_pkts"}

// checkRxDrops reports NICs that dropped a share of received frames for
// lack of host buffers (ring full), on any driver: not a cable fault,
// a host that cannot keep up (small rings, interrupt or CPU affinity,
// flow control off). The largest drop counter is weighed, not their sum:
// drivers count one drop in several of them.
func checkRxDrops(in *Input) []finding.Finding {
	th := in.th()
	var out []finding.Finding
	for _, st := range in.Ethtool {
		var drops uint64
		var names []string
		// Per-queue counters ("rxq0: rx_drops_no_frags") are summed over
		// the queues, and weighed against the queues' packets.
		for _, n := range rxDropCounters {
			if v, k := st.QueueSum(n); k > 0 && v > 0 {
				names = append(names, n)
				drops = max(drops, v)
			}
		}
		var packets uint64
		pname := ""
		for _, n := range rxPacketCounters {
			if v, k := st.QueueSum(n); k > 0 && v > 0 {
				packets, pname = v, n
				break
			}
		}
		// Without the received packets the drops cannot be weighed.
		if drops < th.DiscardMin || packets == 0 || float64(drops)/float64(packets) < th.DiscardRatio {
			continue
		}
		f := catalog.New("host.nic_rx_drops", statsSubject(in, st),
			fmt.Sprintf("%s dropped %d received frames for lack of host buffers, %s of %d received (%s), since driver load", st.NetDev, drops, pctText(float64(drops)/float64(packets)), packets, pname),
			queueEv(st, append(names, pname)...)...)
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b finding.Finding) int { return finding.CompareSubject(a.Subject, b.Subject) })
	return out
}

// queueEv is statEv for statistics that may be per queue: the sum, and
// over how many queues.
func queueEv(st *ethtool.Stats, names ...string) []finding.Evidence {
	var ev []finding.Evidence
	for _, n := range names {
		v, k := st.QueueSum(n)
		switch {
		case v == 0:
		case k == 1:
			ev = append(ev, finding.Evidence{Source: st.Source, Value: fmt.Sprintf("%s: %d", n, v)})
		default:
			ev = append(ev, finding.Evidence{Source: st.Source, Value: fmt.Sprintf("%s: %d (summed over %d queues)", n, v, k)})
		}
	}
	return ev
}

// pctText writes a share as a percentage with two significant digits
// for small shares: 0.0049 → "0.49%", 0.00012 → "0.012%".
func pctText(f float64) string {
	return strconv.FormatFloat(100*f, 'g', 2, 64) + "%"
}

// pauseEvidence names the counters a class's pause load was read from.
func pauseEvidence(st *ethtool.Stats, c string) []string {
	names := []string{"rx_" + c + "_pause", "tx_" + c + "_pause", "rx_" + c + "_pause_duration", "tx_" + c + "_pause_duration"}
	if _, n := st.Sum(names[0], names[1]); n == 0 && c == "global" {
		names = append(names, "rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_packets_phy", "tx_packets_phy")
	}
	return names
}
