package node

import (
	"fmt"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// Event is something that happens to the node at a point of simulated
// time.
type Event struct {
	At   time.Duration
	What string
	Do   func(n *Node) error
}

// Scenario is a deterministic script of changes over time: background
// traffic on every active port, continuous changes (Tick) and events.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// LoadPermille is the share of line rate each active port sends and
	// receives, in thousandths (0: no traffic).
	LoadPermille uint64 `json:"load_permille"`
	// Events are fired in order once the elapsed time reaches At.
	Events []Event `json:"-"`
	// Tick, when set, makes continuous changes over [from, to).
	Tick func(n *Node, from, to time.Duration) `json:"-"`
}

// Live drives a node through a scenario. The same sequence of Step
// durations always gives the same node.
type Live struct {
	Node     *Node
	Scenario *Scenario
	// Elapsed is the simulated time since the start.
	Elapsed time.Duration
	next    int
}

// NewLive starts a scenario on a node at elapsed time zero.
func NewLive(n *Node, s *Scenario) *Live { return &Live{Node: n, Scenario: s} }

// Step advances simulated time by dt: it adds the traffic of dt to every
// active port, runs the scenario's continuous changes and fires the events
// that became due. It returns one line per event; an event that cannot
// apply to this node (its port is missing) is reported as skipped, not as
// an error.
func (l *Live) Step(dt time.Duration) []string {
	if dt < 0 {
		dt = 0
	}
	from, to := l.Elapsed, l.Elapsed+dt
	n, s := l.Node, l.Scenario
	n.Advance(dt)
	if s.LoadPermille > 0 {
		ms := uint64(dt / time.Millisecond)
		for _, d := range n.Devices {
			if !d.present() {
				continue
			}
			for _, p := range d.Ports {
				if !p.up() {
					continue
				}
				tx := p.Rate().BytesPerSecond() / 1000 * s.LoadPermille / 1000 * ms
				p.AddTraffic(tx, tx-tx/64, 4096)
				p.AddCounter("port_xmit_wait", ms*3)
			}
		}
	}
	if s.Tick != nil {
		s.Tick(n, from, to)
	}
	var out []string
	for l.next < len(s.Events) && s.Events[l.next].At <= to {
		e := s.Events[l.next]
		l.next++
		msg := fmt.Sprintf("t=%s %s", e.At, e.What)
		if err := e.Do(n); err != nil {
			msg += " (skipped: " + err.Error() + ")"
		}
		out = append(out, msg)
	}
	l.Elapsed = to
	return out
}

// Done reports whether every event has fired.
func (l *Live) Done() bool { return l.next >= len(l.Scenario.Events) }

// Scenario building blocks, each on one port reference.

func onPort(ref string, f func(n *Node, d *Device, p *Port) error) func(*Node) error {
	return func(n *Node) error {
		d, p, err := n.PortRef(ref)
		if err != nil {
			return err
		}
		if !d.present() {
			return fmt.Errorf("%s is not present", d.Name)
		}
		return f(n, d, p)
	}
}

// LinkDown takes a port's link down as a failed error recovery does:
// link_downed counts it, the state goes to DOWN/Polling (RoCE:
// DOWN/Disabled with the carrier lost) and Ethernet ports log "Link down".
func LinkDown(n *Node, p *Port) {
	if !p.up() {
		return
	}
	p.AddCounter("link_error_recovery", 1)
	p.AddCounter("link_downed", 1)
	ph := ib.PhysPolling
	if p.LinkLayer == ib.LinkLayerEthernet {
		ph = ib.PhysDisabled
	}
	p.SetLink(ib.StateDown, ph)
	if nd := p.NetDev; nd != nil && nd.Type == 1 {
		n.Log(6, "mlx5_core %s %s: Link down", nd.PCI.Addr, nd.Name)
		nd.AddStat("link_down_events_phy", 1)
	}
}

// LinkUp brings a port back to ACTIVE/LinkUp.
func LinkUp(n *Node, p *Port) {
	if p.up() {
		return
	}
	p.SetLink(ib.StateActive, ib.PhysLinkUp)
	if nd := p.NetDev; nd != nil && nd.Type == 1 {
		n.Log(6, "mlx5_core %s %s: Link up", nd.PCI.Addr, nd.Name)
	}
}

// qWrapStart is where the wrap scenario puts the 32-bit Q counter: 5000
// below 2^32, so at 1000/s it wraps after 5 s.
const qWrapStart = 1<<32 - 5000

// Scenarios lists the live scenarios, the default ("mixed") first. Each
// call returns fresh values.
func Scenarios() []Scenario {
	traffic := uint64(700)
	burst := Event{At: 20 * time.Second, What: "error burst on mlx5_1/1: symbol_error +500, port_rcv_errors +20",
		Do: onPort("mlx5_1/1", func(_ *Node, _ *Device, p *Port) error {
			p.AddCounter("symbol_error", 500)
			p.AddCounter("port_rcv_errors", 20)
			p.AddCounter("link_error_recovery", 1)
			return nil
		})}
	flap := []Event{
		{At: 30 * time.Second, What: "mlx5_3/1 link down (link_downed +1)", Do: onPort("mlx5_3/1", func(n *Node, _ *Device, p *Port) error { LinkDown(n, p); return nil })},
		{At: 35 * time.Second, What: "mlx5_3/1 link up", Do: onPort("mlx5_3/1", func(n *Node, _ *Device, p *Port) error { LinkUp(n, p); return nil })},
		{At: 70 * time.Second, What: "mlx5_3/1 link down (link_downed +1)", Do: onPort("mlx5_3/1", func(n *Node, _ *Device, p *Port) error { LinkDown(n, p); return nil })},
		{At: 72 * time.Second, What: "mlx5_3/1 link up", Do: onPort("mlx5_3/1", func(n *Node, _ *Device, p *Port) error { LinkUp(n, p); return nil })},
	}
	degrade := []Event{
		{At: 40 * time.Second, What: "mlx5_2/1 retrains after rising symbol errors: link down", Do: onPort("mlx5_2/1", func(n *Node, _ *Device, p *Port) error { LinkDown(n, p); return nil })},
		{At: 42 * time.Second, What: "mlx5_2/1 back up at half width (4X→2X)", Do: onPort("mlx5_2/1", func(n *Node, _ *Device, p *Port) error {
			if err := p.SetWidth(max(1, p.WidthMax/2)); err != nil {
				return err
			}
			LinkUp(n, p)
			return nil
		})},
	}
	// Symbol errors on mlx5_2/1 grow from 10 s: 10/s, doubling every 10 s.
	degradeTick := func(n *Node, from, to time.Duration) {
		_, p, err := n.PortRef("mlx5_2/1")
		if err != nil || to <= 10*time.Second {
			return
		}
		from = max(from, 10*time.Second)
		for t := from.Truncate(time.Second); t < to; t += time.Second {
			if t < from {
				continue
			}
			k := min(uint64((t-10*time.Second)/(10*time.Second)), 10)
			p.AddCounter("symbol_error", 10<<k)
		}
	}
	reset := Event{At: 50 * time.Second, What: "mlx5_4/1 counters reset (driver reload / perfquery -R)",
		Do: onPort("mlx5_4/1", func(_ *Node, _ *Device, p *Port) error { p.ResetCounters(); return nil })}
	wrapStart := Event{At: 0, What: "mlx5_5/1 hw_counters/out_of_buffer set 5000 below 2^32",
		Do: onPort("mlx5_5/1", func(_ *Node, _ *Device, p *Port) error { return p.SetHWCounter("out_of_buffer", qWrapStart) })}
	// out_of_buffer on mlx5_5/1 grows 1000/s, so the 32-bit Q counter wraps.
	wrapTick := func(n *Node, from, to time.Duration) {
		if _, p, err := n.PortRef("mlx5_5/1"); err == nil {
			p.AddHWCounter("out_of_buffer", uint64((to-from)/time.Millisecond))
		}
	}
	both := func(fs ...func(*Node, time.Duration, time.Duration)) func(*Node, time.Duration, time.Duration) {
		return func(n *Node, from, to time.Duration) {
			for _, f := range fs {
				f(n, from, to)
			}
		}
	}
	mixed := []Event{wrapStart, burst, flap[0], flap[1], degrade[0], degrade[1], reset, flap[2], flap[3]}
	return []Scenario{
		{Name: "mixed", Description: "traffic at 70% of line rate plus every event below on different ports: " +
			"Q-counter wrap (mlx5_5), error burst at 20s (mlx5_1), flaps at 30s and 70s (mlx5_3), " +
			"rising symbol errors then 4X→2X at 40s (mlx5_2), counter reset at 50s (mlx5_4)",
			LoadPermille: traffic, Events: mixed, Tick: both(degradeTick, wrapTick)},
		{Name: "traffic", Description: "traffic at 70% of line rate on every active port, nothing else", LoadPermille: traffic},
		{Name: "errors", Description: "traffic; at 20s an error burst on mlx5_1/1 (symbol_error +500, port_rcv_errors +20)",
			LoadPermille: traffic, Events: []Event{burst}},
		{Name: "flap", Description: "traffic; mlx5_3/1 goes down at 30s and 70s and comes back after 5s and 2s",
			LoadPermille: traffic, Events: flap},
		{Name: "degrade", Description: "traffic; symbol errors on mlx5_2/1 rise from 10s (doubling every 10s), at 40s the link retrains at half width",
			LoadPermille: traffic, Events: degrade, Tick: degradeTick},
		{Name: "reset", Description: "traffic; mlx5_4/1 counters drop to zero at 50s", LoadPermille: traffic, Events: []Event{reset}},
		{Name: "wrap", Description: "traffic; mlx5_5/1 hw_counters/out_of_buffer starts 5000 below 2^32 and grows 1000/s, wrapping after 5s",
			LoadPermille: traffic, Events: []Event{wrapStart}, Tick: wrapTick},
		{Name: "congestion", Description: "traffic; from 10s the first RoCE port is paused 30% of the time on priority 3 " +
			"(rx_prio3_pause +2000/s), sees ECN marks and CNPs (+8000/s); from 30s rp_cnp_ignored +200/s; " +
			"pause storm warning at 60s and error at 65s",
			LoadPermille: traffic, Tick: congestionTick, Events: []Event{
				{At: 60 * time.Second, What: "pause storm warning on the first RoCE port", Do: onFirstRoCE(func(_ *Node, p *Port) {
					p.NetDev.AddStat("tx_pause_storm_warning_events", 1)
				})},
				{At: 65 * time.Second, What: "pause storm error on the first RoCE port (pause transmission disabled)", Do: onFirstRoCE(func(_ *Node, p *Port) {
					p.NetDev.AddStat("tx_pause_storm_error_events", 1)
				})},
			}},
		{Name: "transport", Description: "traffic; from 10s mlx5_6/1 retransmits (local_ack_timeout_err +50/s, packet_seq_err +20/s, " +
			"implied_nak_seq_err +5/s, rnr_nak_retry_err +10/s) and mlx5_7/1 out_of_buffer +1000/s",
			LoadPermille: traffic, Tick: transportTick},
	}
}

// since is the count a steady rate of perSec, running from start, adds
// over [from, to). It is the difference of the running totals at both
// ends, so the total never depends on how time is cut into steps.
func since(from, to, start time.Duration, perSec uint64) uint64 {
	total := func(t time.Duration) uint64 {
		if t <= start {
			return 0
		}
		return uint64((t-start)/time.Millisecond) * perSec / 1000
	}
	return total(to) - total(from)
}

// firstRoCE is the first Ethernet (RoCE) port present, or nil.
func firstRoCE(n *Node) *Port {
	for _, d := range n.Devices {
		if !d.present() {
			continue
		}
		for _, p := range d.Ports {
			if p.LinkLayer == ib.LinkLayerEthernet && p.NetDev != nil && p.NetDev.Ethtool != nil {
				return p
			}
		}
	}
	return nil
}

// congestionTick: from 10 s the first RoCE port is paused by its peer 30%
// of the time (PFC priority 3) and sees ECN marks and CNPs; from 30 s the
// reaction point ignores CNPs (congestion control not effective).
func congestionTick(n *Node, from, to time.Duration) {
	p := firstRoCE(n)
	if p == nil {
		return
	}
	nd := p.NetDev
	nd.AddStat("rx_prio3_pause", since(from, to, 10*time.Second, 2000))
	nd.AddStat("rx_prio3_pause_duration", since(from, to, 10*time.Second, 300_000))
	nd.AddStat("rx_prio3_pause_transition", since(from, to, 10*time.Second, 1000))
	nd.AddStat("tx_prio3_pause", since(from, to, 10*time.Second, 500))
	nd.AddStat("tx_prio3_pause_duration", since(from, to, 10*time.Second, 50_000))
	nd.AddStat("rx_prio3_marked", since(from, to, 10*time.Second, 8000))
	p.AddHWCounter("np_ecn_marked_roce_packets", since(from, to, 10*time.Second, 8000))
	p.AddHWCounter("np_cnp_sent", since(from, to, 10*time.Second, 8000))
	p.AddHWCounter("rp_cnp_handled", since(from, to, 10*time.Second, 6000))
	p.AddHWCounter("rp_cnp_ignored", since(from, to, 30*time.Second, 200))
}

// transportTick: from 10 s mlx5_6/1 retransmits (ACK timeouts, sequence
// errors, RNR NAKs) and mlx5_7/1 drops for lack of receive WQEs.
func transportTick(n *Node, from, to time.Duration) {
	if _, p, err := n.PortRef("mlx5_6/1"); err == nil {
		p.AddHWCounter("local_ack_timeout_err", since(from, to, 10*time.Second, 50))
		p.AddHWCounter("packet_seq_err", since(from, to, 10*time.Second, 20))
		p.AddHWCounter("implied_nak_seq_err", since(from, to, 10*time.Second, 5))
		p.AddHWCounter("rnr_nak_retry_err", since(from, to, 10*time.Second, 10))
	}
	if _, p, err := n.PortRef("mlx5_7/1"); err == nil {
		p.AddHWCounter("out_of_buffer", since(from, to, 10*time.Second, 1000))
	}
}

func onFirstRoCE(f func(n *Node, p *Port)) func(*Node) error {
	return func(n *Node) error {
		p := firstRoCE(n)
		if p == nil {
			return fmt.Errorf("no RoCE port")
		}
		f(n, p)
		return nil
	}
}

// ScenarioByName returns the named scenario ("" is the default).
func ScenarioByName(name string) (*Scenario, error) {
	all := Scenarios()
	if name == "" {
		return &all[0], nil
	}
	var names []string
	for i := range all {
		if all[i].Name == name {
			return &all[i], nil
		}
		names = append(names, all[i].Name)
	}
	return nil, fmt.Errorf("unknown scenario %q (have %s)", name, strings.Join(names, ", "))
}
