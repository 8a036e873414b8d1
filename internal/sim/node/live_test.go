package node

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

func scenario(t *testing.T, name string) *Scenario {
	t.Helper()
	s, err := ScenarioByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func counter(t *testing.T, n *Node, ref, name string) uint64 {
	t.Helper()
	_, p, err := n.PortRef(ref)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := p.Counters[name]; ok {
		return v
	}
	return p.HWCounters[name]
}

func TestLiveDeterministic(t *testing.T) {
	run := func() []Entry {
		n := mustBuild(t, Options{})
		l := NewLive(n, scenario(t, "mixed"))
		for i := 0; i < 90; i++ {
			l.Step(time.Second)
		}
		return n.Entries()
	}
	a, b := run(), run()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d entries", len(a), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path || !a[i].equal(b[i]) {
			t.Fatalf("%s differs between two runs", a[i].Path)
		}
	}
}

func TestLiveTraffic(t *testing.T) {
	n := mustBuild(t, Options{Faults: MustParseFaults("down:mlx5_3/1")})
	before := map[string]uint64{}
	for _, ref := range []string{"mlx5_0/1", "mlx5_3/1", "mlx5_8/1"} {
		before[ref] = counter(t, n, ref, "port_xmit_data")
	}
	l := NewLive(n, scenario(t, "traffic"))
	l.Step(time.Second)
	l.Step(500 * time.Millisecond)
	// 400 Gb/s = 5e10 B/s; 70% for 1.5 s = 5.25e10 bytes = 1.3125e10 words.
	cases := []struct {
		ref  string
		want uint64
	}{
		{"mlx5_0/1", 13_125_000_000},
		{"mlx5_3/1", 0},             // down: no traffic
		{"mlx5_8/1", 3_281_250_000}, // 100 Gb/s RoCE
	}
	for _, c := range cases {
		if got := counter(t, n, c.ref, "port_xmit_data") - before[c.ref]; got != c.want {
			t.Errorf("%s port_xmit_data +%d, want +%d", c.ref, got, c.want)
		}
	}
	if l.Elapsed != 1500*time.Millisecond || n.Uptime != bootUptime+1500*time.Millisecond {
		t.Errorf("elapsed %s uptime %s", l.Elapsed, n.Uptime)
	}
	nd := n.NetDev("ens1f0np0")
	if v, _ := nd.Stat("tx_vport_rdma_unicast_bytes"); v != 13_125_000_000 {
		t.Errorf("tx_vport_rdma_unicast_bytes = %d", v)
	}
}

func TestLiveScenarios(t *testing.T) {
	type check func(t *testing.T, n *Node, l *Live)
	at := func(sec int, c check) struct {
		sec int
		c   check
	} {
		return struct {
			sec int
			c   check
		}{sec, c}
	}
	cases := []struct {
		scenario string
		checks   []struct {
			sec int
			c   check
		}
	}{
		{"errors", []struct {
			sec int
			c   check
		}{
			at(19, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_1/1", "symbol_error"); v != 0 {
					t.Errorf("symbol_error %d before the burst", v)
				}
			}),
			at(20, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_1/1", "symbol_error"); v != 500 {
					t.Errorf("symbol_error %d after the burst", v)
				}
				if v := counter(t, n, "mlx5_1/1", "port_rcv_errors"); v != 20 {
					t.Errorf("port_rcv_errors %d", v)
				}
			}),
		}},
		{"flap", []struct {
			sec int
			c   check
		}{
			at(30, func(t *testing.T, n *Node, _ *Live) {
				_, p, _ := n.PortRef("mlx5_3/1")
				if p.State != ib.StateDown || p.Phys != ib.PhysPolling || counter(t, n, "mlx5_3/1", "link_downed") != 1 {
					t.Errorf("after the first flap: %s/%s link_downed %d", p.State, p.Phys, counter(t, n, "mlx5_3/1", "link_downed"))
				}
				if nd := p.NetDev; nd.Carrier || nd.OperState != "down" {
					t.Errorf("netdev %s carrier %v", nd.OperState, nd.Carrier)
				}
			}),
			at(35, func(t *testing.T, n *Node, _ *Live) {
				_, p, _ := n.PortRef("mlx5_3/1")
				if p.State != ib.StateActive || p.LID != p.AssignedLID || p.NetDev.CarrierChanges != 4 {
					t.Errorf("after coming back: %s lid %#x carrier_changes %d", p.State, p.LID, p.NetDev.CarrierChanges)
				}
			}),
			at(80, func(t *testing.T, n *Node, l *Live) {
				if v := counter(t, n, "mlx5_3/1", "link_downed"); v != 2 || !l.Done() {
					t.Errorf("link_downed %d after two flaps, done %v", v, l.Done())
				}
			}),
		}},
		{"degrade", []struct {
			sec int
			c   check
		}{
			at(10, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_2/1", "symbol_error"); v != 0 {
					t.Errorf("symbol_error %d before 10s", v)
				}
			}),
			// 10/s over [10,20), 20/s over [20,30), 40/s over [30,39).
			at(39, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_2/1", "symbol_error"); v != 100+200+360 {
					t.Errorf("symbol_error %d at 39s", v)
				}
			}),
			at(42, func(t *testing.T, n *Node, _ *Live) {
				_, p, _ := n.PortRef("mlx5_2/1")
				if p.Rate().Sysfs() != "200 Gb/sec (2X NDR)" || !p.up() {
					t.Errorf("after retraining: %s %s", p.Rate().Sysfs(), p.State)
				}
			}),
		}},
		{"reset", []struct {
			sec int
			c   check
		}{
			at(50, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_4/1", "port_xmit_data"); v != 0 {
					t.Errorf("port_xmit_data %d after the reset", v)
				}
			}),
			at(51, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_4/1", "port_xmit_data"); v != 8_750_000_000 {
					t.Errorf("port_xmit_data %d one second after the reset", v)
				}
			}),
		}},
		{"wrap", []struct {
			sec int
			c   check
		}{
			at(1, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_5/1", "out_of_buffer"); v != qWrapStart {
					t.Errorf("out_of_buffer %d at 1s", v)
				}
			}),
			at(5, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_5/1", "out_of_buffer"); v != 1<<32-1000 {
					t.Errorf("out_of_buffer %d at 5s", v)
				}
			}),
			at(6, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_5/1", "out_of_buffer"); v != 0 {
					t.Errorf("out_of_buffer %d at 6s, want the 32-bit wrap to 0", v)
				}
			}),
			at(10, func(t *testing.T, n *Node, _ *Live) {
				if v := counter(t, n, "mlx5_5/1", "out_of_buffer"); v != 4000 {
					t.Errorf("out_of_buffer %d at 10s", v)
				}
			}),
		}},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			n := mustBuild(t, Options{})
			l := NewLive(n, scenario(t, c.scenario))
			sec := 0
			for _, ch := range c.checks {
				for ; sec < ch.sec; sec++ {
					l.Step(time.Second)
				}
				ch.c(t, n, l)
			}
		})
	}
}

func TestLiveCongestionAndTransport(t *testing.T) {
	cases := []struct {
		profile, scenario string
		secs              int
		check             func(t *testing.T, n *Node)
	}{
		{"h100-ndr", "congestion", 70, func(t *testing.T, n *Node) {
			nd := n.NetDev("ens1f0np0")
			want := map[string]uint64{"rx_prio3_pause": 120_000, "rx_prio3_pause_duration": 18_000_000,
				"tx_pause_storm_warning_events": 1, "tx_pause_storm_error_events": 1}
			for k, v := range want {
				if got, _ := nd.Stat(k); got != v {
					t.Errorf("%s = %d, want %d", k, got, v)
				}
			}
			if v := counter(t, n, "mlx5_8/1", "rp_cnp_ignored"); v != 8000 {
				t.Errorf("rp_cnp_ignored %d after 40s at 200/s", v)
			}
			if v := counter(t, n, "mlx5_8/1", "np_ecn_marked_roce_packets"); v != 480_000 {
				t.Errorf("np_ecn_marked_roce_packets %d", v)
			}
			if v, _ := n.NetDev("ens1f1np1").Stat("rx_prio3_pause"); v != 0 {
				t.Errorf("second RoCE port paused too: %d", v)
			}
		}},
		{"roce-400g", "congestion", 20, func(t *testing.T, n *Node) {
			if v, _ := n.Devices[0].Ports[0].NetDev.Stat("rx_prio3_pause"); v != 20_000 {
				t.Errorf("roce-400g mlx5_0 rx_prio3_pause %d", v)
			}
		}},
		{"h100-ndr", "transport", 20, func(t *testing.T, n *Node) {
			want := map[string]uint64{"local_ack_timeout_err": 500, "packet_seq_err": 200, "implied_nak_seq_err": 50, "rnr_nak_retry_err": 100}
			for k, v := range want {
				if got := counter(t, n, "mlx5_6/1", k); got != v {
					t.Errorf("%s = %d, want %d", k, got, v)
				}
			}
			if v := counter(t, n, "mlx5_7/1", "out_of_buffer"); v != 10_000 {
				t.Errorf("out_of_buffer %d", v)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.profile+"/"+c.scenario, func(t *testing.T) {
			n := mustBuild(t, Options{Profile: c.profile})
			l := NewLive(n, scenario(t, c.scenario))
			for i := 0; i < c.secs*2; i++ {
				l.Step(500 * time.Millisecond)
			}
			c.check(t, n)
		})
	}
	// Without a RoCE port the congestion events are skipped, not fatal.
	l := NewLive(mustBuild(t, Options{Profile: "a100-hdr"}), scenario(t, "congestion"))
	if msgs := l.Step(70 * time.Second); len(msgs) != 2 || !strings.Contains(msgs[0], "skipped: no RoCE port") {
		t.Errorf("a100 congestion: %q", msgs)
	}
}

// TestClassicPMASaturates: a 32-bit PortCounters data counter sticks at
// its maximum under traffic; after a reset it counts again.
func TestClassicPMASaturates(t *testing.T) {
	n := mustBuild(t, Options{Faults: MustParseFaults("pma-classic:mlx5_1")})
	_, p, _ := n.PortRef("mlx5_1/1")
	if err := p.SetCounter("port_xmit_data", 1<<32); err == nil {
		t.Error("a 33-bit value accepted on a 32-bit counter")
	}
	p.ResetCounters()
	l := NewLive(n, scenario(t, "traffic"))
	l.Step(time.Second)
	if v := p.Counters["port_xmit_data"]; v != 1<<32-1 {
		t.Errorf("port_xmit_data %d after 8.75e9 words, want stuck at 2^32-1", v)
	}
	if !p.Spec("port_xmit_data").IsSaturated(p.Counters["port_xmit_data"]) {
		t.Error("spec does not call it saturated")
	}
}

func TestLiveSkipsAbsentPorts(t *testing.T) {
	n := mustBuild(t, Options{Profile: "a100-hdr", Faults: MustParseFaults("missing:mlx5_1")})
	l := NewLive(n, scenario(t, "errors"))
	msgs := l.Step(25 * time.Second)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "skipped: mlx5_1 is not present") || !strings.HasPrefix(msgs[0], "t=20s ") {
		t.Errorf("messages %q", msgs)
	}
	if _, err := ScenarioByName("storm"); err == nil || !strings.Contains(err.Error(), "mixed") {
		t.Errorf("unknown scenario: %v", err)
	}
}

// TestUpdate writes one root and updates it: only what changed is
// rewritten, atomically; kinds change; vanished devices leave no trace.
func TestUpdate(t *testing.T) {
	root := t.TempDir()
	n := mustBuild(t, Options{})
	if err := n.Write(root); err != nil {
		t.Fatal(err)
	}
	t.Run("atomic", func(t *testing.T) { updateAtomic(t, n, root) })
	if k, err := n.Update(root); err != nil || k != 0 {
		t.Fatalf("update without changes touched %d: %v", k, err)
	}
	_, p, _ := n.PortRef("mlx5_1/1")
	p.AddCounter("symbol_error", 7)
	if k, err := n.Update(root); err != nil || k != 1 {
		t.Fatalf("one counter changed, touched %d: %v", k, err)
	}
	read := func(rel string) (string, error) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		return string(b), err
	}
	if s, err := read("sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error"); s != "7\n" || err != nil {
		t.Errorf("symbol_error %q %v", s, err)
	}
	// A file becomes unreadable and back.
	if err := n.Apply(MustParseFaults("unreadable:mlx5_1/1/counters/symbol_error")[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Update(root); err != nil {
		t.Fatal(err)
	}
	if _, err := read("sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error"); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("unreadable: %v", err)
	}
	n.Unreadable = map[string]bool{}
	if _, err := n.Update(root); err != nil {
		t.Fatal(err)
	}
	if s, err := read("sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error"); s != "7\n" || err != nil {
		t.Errorf("readable again: %q %v", s, err)
	}
	// A device disappears: its directories go, nothing dangles.
	pciDir := n.Device("mlx5_7").PCI.Path()
	if err := n.Apply(MustParseFaults("missing:mlx5_7")[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Update(root); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{pciDir, "sys/class/infiniband/mlx5_7", "dev/infiniband/uverbs7", "sys/class/net/ibp186s0"} {
		if _, err := os.Lstat(filepath.Join(root, rel)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", rel, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, filepath.Dir(pciDir))); err != nil {
		t.Errorf("the switch port above the removed device went too: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, tmpDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staging directory left behind: %v", err)
	}
}

// updateAtomic reads a counter while it is rewritten: every read sees a
// whole value that was written, never a partial or empty file.
func updateAtomic(t *testing.T, n *Node, root string) {
	_, p, _ := n.PortRef("mlx5_0/1")
	file := filepath.Join(root, "sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait")
	start := p.Counters["port_xmit_wait"]
	const rounds = 20
	var wg sync.WaitGroup
	done := make(chan struct{})
	var bad []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			b, err := os.ReadFile(file)
			if err != nil {
				bad = append(bad, err.Error())
				continue
			}
			v, err := strconv.ParseUint(strings.TrimSuffix(string(b), "\n"), 10, 64)
			if err != nil || !strings.HasSuffix(string(b), "\n") || v < start || v > start+rounds*1_000_000 {
				bad = append(bad, string(b))
			}
		}
	}()
	for i := 0; i < rounds; i++ {
		p.AddCounter("port_xmit_wait", 1_000_000)
		if _, err := n.Update(root); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d torn or failed reads, e.g. %q", len(bad), bad[0])
	}
}
