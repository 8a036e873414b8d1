package trend

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFlaps(t *testing.T) {
	prev := Sample{T: t0, Ports: []Port{
		port("mlx5_0", 1, 400, ctr("link_downed", 3)),
		{Device: "mlx5_1", Port: 1, State: "ACTIVE", RateGbps: 200, NetDev: "eth1", Readings: []Reading{carrier(4)}},
		port("mlx5_2", 1, 400, ctr("link_downed", 9)),
		port("mlx5_3", 1, 400, ctr("link_downed", 0)),
	}}
	cur := Sample{T: t0.Add(step), Ports: []Port{
		port("mlx5_0", 1, 400, ctr("link_downed", 5)),                                                                // +2 downs
		{Device: "mlx5_1", Port: 1, State: "ACTIVE", RateGbps: 200, NetDev: "eth1", Readings: []Reading{carrier(6)}}, // one down+up
		port("mlx5_2", 1, 400, ctr("link_downed", 0)),                                                                // driver reload: reset, no flap
		port("mlx5_3", 1, 0, ctr("link_downed", 1)),                                                                  // went down now: one flap, not two
	}}
	prev.Sort()
	cur.Sort()
	got := Flaps(&prev, &cur)
	want := []Flap{
		{Device: "mlx5_0", Port: 1, T: cur.T, Count: 2, Evidence: "link_downed +2"},
		{Device: "mlx5_1", Port: 1, T: cur.T, Count: 1, Evidence: "carrier_changes +2"},
		{Device: "mlx5_3", Port: 1, T: cur.T, Count: 1, Evidence: "link_downed +1, state ACTIVE → DOWN"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Flaps (-want +got):\n%s", diff)
	}
}

func TestLinkFlapping(t *testing.T) {
	h := series(5, func(i int) []Port { return []Port{port("mlx5_0", 1, 400), port("mlx5_1", 1, 400)} })
	now := h[len(h)-1].T
	flaps := []Flap{
		{Device: "mlx5_0", Port: 1, T: now.Add(-2 * time.Hour), Count: 5, Evidence: "old"}, // outside the hour
		{Device: "mlx5_0", Port: 1, T: now.Add(-30 * time.Minute), Count: 1, Evidence: "link_downed +1"},
		{Device: "mlx5_1", Port: 1, T: now.Add(-50 * time.Minute), Count: 2, Evidence: "link_downed +2"},
		{Device: "mlx5_1", Port: 1, T: now, Count: 1, Evidence: "carrier_changes +2"},
		{Device: "mlx5_9", Port: 2, T: now.Add(-3 * time.Hour), Count: 9, Evidence: "old"},
	}
	got := LinkFlapping(Input{History: h, Flaps: flaps}, Defaults())
	if diff := cmp.Diff([]string{"port.link_flapping/warning", "port.link_flapping/critical"}, ids(got)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if got[1].Subject.Device != "mlx5_1" || !strings.Contains(got[1].Summary, "3 time(s)") || len(got[1].Evidence) != 2 {
		t.Errorf("critical finding: %+v", got[1])
	}
	if got := LinkFlapping(Input{History: h}, Defaults()); len(got) != 0 {
		t.Errorf("no flaps: %v", ids(got))
	}
}

// rocePort is a RoCE port with PFC on priority 3.
func rocePort(pause, pkts, durUS, marked, handled, sent, stormWarn, stormErr uint64) Port {
	return Port{Device: "mlx5_8", Port: 1, LinkLayer: "Ethernet", NetDev: "eth8", State: "ACTIVE", RateGbps: 400, Readings: []Reading{
		eth("rx_prio3_pause", pause), eth("tx_prio3_pause", 0),
		eth("rx_prio3_packets", pkts), eth("tx_prio3_packets", pkts),
		eth("rx_prio3_pause_duration", durUS),
		eth("tx_pause_storm_warning_events", stormWarn), eth("tx_pause_storm_error_events", stormErr),
		hw("np_ecn_marked_roce_packets", marked), hw("rp_cnp_handled", handled), hw("np_cnp_sent", sent),
	}}
}

func TestRoCE(t *testing.T) {
	tests := []struct {
		name string
		gen  func(u uint64) Port
		want []string
	}{
		{"healthy: ECN works, few pauses", func(u uint64) Port { return rocePort(u, u*1e6, u*10, u*100, u*50, u*100, 0, 0) }, nil},
		{"heavy pausing with ECN working", func(u uint64) Port { return rocePort(u*5000, u*100000, u*10, u*100, u*50, u*100, 0, 0) }, []string{"roce.pause_heavy/warning"}},
		{"paused 20% of the time", func(u uint64) Port { return rocePort(u*50, u*1e7, u*3_000_000, u*100, u*50, u*100, 0, 0) }, []string{"roce.pause_heavy/warning"}},
		{"pausing without ECN", func(u uint64) Port { return rocePort(u*5000, u*100000, u*10, 7, 3, 2, 0, 0) }, []string{"roce.pause_heavy/warning", "roce.ecn_not_effective/warning"}},
		{"marked but no CNPs sent", func(u uint64) Port { return rocePort(0, u*1e6, 0, u*100, 0, 4, 0, 0) }, []string{"roce.ecn_not_effective/warning"}},
		{"storm warning", func(u uint64) Port { return rocePort(u, u*1e6, u*10, u*100, u*50, u*100, u/20, 0) }, []string{"roce.pfc_storm/warning"}},
		{"storm error", func(u uint64) Port { return rocePort(u, u*1e6, u*10, u*100, u*50, u*100, 2, u/30) }, []string{"roce.pfc_storm/critical"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{History: series(n, func(i int) []Port { return []Port{tt.gen(uint64(i))} })}
			got := RoCE(in, Defaults())
			if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
				for _, f := range got {
					t.Logf("%s: %s", f.ID, f.Summary)
				}
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A flap is a down transition: the way back up, even when it falls in the
// next sampling interval, is part of the same flap.
func TestFlapsCountDownTransitions(t *testing.T) {
	// obs is one sample of a port: its state, carrier_changes and
	// link_downed (-1: not read).
	type obs struct {
		state   string
		carrier int
		downed  int
	}
	roce := func(o obs) Port {
		p := Port{Device: "mlx5_1", Port: 1, LinkLayer: "Ethernet", NetDev: "eth1", State: o.state}
		if o.state == "ACTIVE" {
			p.RateGbps = 200
		}
		if o.carrier >= 0 {
			p.Readings = append(p.Readings, carrier(uint64(o.carrier)))
		}
		if o.downed >= 0 {
			p.Readings = append(p.Readings, ctr("link_downed", uint64(o.downed)))
		}
		return p
	}
	const up, down = "ACTIVE", "DOWN"
	tests := []struct {
		name string
		seq  []obs
		want int
	}{
		{"down at 30 s, up at 35 s, sampled at 15 s steps", []obs{{up, 4, -1}, {up, 4, -1}, {down, 5, -1}, {up, 6, -1}}, 1},
		{"down and up within one interval", []obs{{up, 4, -1}, {up, 6, -1}}, 1},
		{"two flaps, each back up in the next interval", []obs{{up, 0, -1}, {down, 1, -1}, {up, 2, -1}, {down, 3, -1}, {up, 4, -1}}, 2},
		{"two flaps: down, up+down, up", []obs{{up, 0, -1}, {down, 1, -1}, {down, 3, -1}, {up, 4, -1}}, 2},
		{"starts down, comes up: no flap", []obs{{down, 7, -1}, {up, 8, -1}}, 0},
		{"state unknown, one change up", []obs{{"", 7, -1}, {"", 8, -1}}, 0},
		{"state unknown at the start, down at the end", []obs{{"", 8, -1}, {down, 9, -1}}, 1},
		{"state unknown at the start, up at the end after three changes", []obs{{"", 8, -1}, {up, 11, -1}}, 1},
		{"IB: link_downed with state, back up later", []obs{{up, -1, 0}, {down, -1, 1}, {up, -1, 1}}, 1},
		{"IB and carrier agree: two flaps across intervals", []obs{{up, 0, 0}, {down, 1, 1}, {up, 2, 1}, {down, 3, 2}, {up, 4, 2}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hist := series(len(tt.seq), func(i int) []Port { return []Port{roce(tt.seq[i])} })
			var flaps []Flap
			for i := 1; i < len(hist); i++ {
				flaps = append(flaps, Flaps(&hist[i-1], &hist[i])...)
			}
			got := 0
			for _, f := range flaps {
				got += f.Count
			}
			if got != tt.want {
				t.Errorf("%d flaps, want %d: %+v", got, tt.want, flaps)
			}
			th := Defaults()
			th.FlapWarning = 1
			fs := LinkFlapping(Input{History: hist, Flaps: flaps}, th)
			switch {
			case tt.want == 0 && len(fs) != 0:
				t.Errorf("findings without a flap: %v", ids(fs))
			case tt.want > 0 && (len(fs) != 1 || !strings.Contains(fs[0].Summary, fmt.Sprintf("went down %d time(s)", tt.want))):
				t.Errorf("findings: %+v", fs)
			}
		})
	}
}
