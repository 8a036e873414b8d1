package hub

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
)

// TestHubAtScale is the fleet benchmark (bench/hub-2000-agents.sh runs
// it): IBDOCTOR_HUB_SCALE agents (real agents on the simulated h100-ndr
// node, each on its own loopback HTTP server) run in a child process so
// that the hub's process measures the hub alone; the hub polls them every
// IBDOCTOR_HUB_INTERVAL (15s) for IBDOCTOR_HUB_CYCLES cycles after one
// warm-up cycle, with IBDOCTOR_HUB_RETENTION (3h: a history row per node
// and poll, the most writing case). It reports the CPU share (process CPU
// time / wall time), RSS and Go heap, poll cycle times and Fleet() build
// times (medians).
func TestHubAtScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("IBDOCTOR_HUB_SCALE"))
	if n <= 0 {
		t.Skip("set IBDOCTOR_HUB_SCALE=2000 (bench/hub-2000-agents.sh)")
	}
	interval := envDuration("IBDOCTOR_HUB_INTERVAL", 15*time.Second)
	cycles, _ := strconv.Atoi(os.Getenv("IBDOCTOR_HUB_CYCLES"))
	if cycles <= 0 {
		cycles = 8
	}
	retention := envDuration("IBDOCTOR_HUB_RETENTION", 3*time.Hour)
	raiseFDLimit()
	dir := t.TempDir()
	agentsFile := filepath.Join(dir, "agents.txt")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAgentFarm$", "-test.timeout=0")
	cmd.Env = append(os.Environ(), "IBDOCTOR_HUB_FARM="+strconv.Itoa(n), "IBDOCTOR_HUB_FARM_OUT="+agentsFile)
	farm := "real agents"
	if os.Getenv("IBDOCTOR_HUB_REPLAY") != "" {
		farm = "replayed agents"
	}
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
	}
	t.Logf("%d %s serving in %s (child process)", n, farm, time.Since(start).Round(time.Second))
	fh, err := os.Open(agentsFile)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := ParseAgents(fh, agentsFile)
	fh.Close()
	if err != nil || len(targets) != n {
		t.Fatalf("%d targets: %v", len(targets), err)
	}
	st, err := hubstore.Open(filepath.Join(dir, "hub.db"), hubstore.Options{Retention: retention})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := New(context.Background(), Options{Targets: targets, Store: st, Interval: interval})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	poll := func() time.Duration {
		s := time.Now()
		if err := h.PollOnce(ctx); err != nil {
			t.Fatal(err)
		}
		return time.Since(s)
	}
	t.Logf("warm-up cycle (connections opened): %s", poll().Round(time.Millisecond))
	var cycleTimes, fleetTimes []time.Duration
	var peakHeap uint64
	db0, err := st.Bytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cpu0, wall0 := cpuTime(), time.Now()
	next := wall0
	for range cycles {
		cycleTimes = append(cycleTimes, poll())
		fl, err := h.Data().Fleet(ctx)
		if err != nil || len(fl.Nodes) != n {
			t.Fatalf("fleet: %d nodes, %v", len(fl.Nodes), err)
		}
		for range 5 {
			s := time.Now()
			h.Data().Fleet(ctx)
			fleetTimes = append(fleetTimes, time.Since(s))
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peakHeap = max(peakHeap, ms.HeapInuse)
		next = next.Add(interval)
		time.Sleep(time.Until(next))
	}
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	fl, _ := h.Data().Fleet(ctx)
	unreachable := fl.Counts["unreachable"]
	db1, err := st.Bytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	rss, hwm := procStatus("VmRSS"), procStatus("VmHWM")
	fi, _ := os.Stat(filepath.Join(dir, "hub.db"))
	wal, _ := os.Stat(filepath.Join(dir, "hub.db-wal"))
	var dbSize int64
	if fi != nil {
		dbSize = fi.Size()
	}
	if wal != nil {
		dbSize += wal.Size()
	}
	t.Logf("hub polling %d agents every %s, %d cycles over %s (history step %s):", n, interval, cycles, wall.Round(time.Second), h.Step())
	t.Logf("  CPU share: %.3f cores (%.1f s CPU / %.1f s wall)", cpu.Seconds()/wall.Seconds(), cpu.Seconds(), wall.Seconds())
	// When a cycle outlasts the interval (the agents answer slowly), the
	// cycles run back to back and the share above is over a longer
	// period: the CPU one cycle costs, over the interval, is the share
	// the hub needs at that interval.
	perCycle := cpu / time.Duration(cycles)
	t.Logf("  CPU per cycle: %.2f s (%.2f ms per agent polled): %.3f cores at a %s interval", perCycle.Seconds(), perCycle.Seconds()*1000/float64(n), perCycle.Seconds()/interval.Seconds(), interval)
	t.Logf("  poll cycle: median %s, max %s", median(cycleTimes).Round(time.Millisecond), slices.Max(cycleTimes).Round(time.Millisecond))
	t.Logf("  Fleet(): median %s, max %s (%d calls)", median(fleetTimes).Round(10*time.Microsecond), slices.Max(fleetTimes).Round(10*time.Microsecond), len(fleetTimes))
	t.Logf("  memory: RSS %s MiB (peak %s MiB), Go heap in use peak %d MiB", rss, hwm, peakHeap>>20)
	t.Logf("  history database: %d MiB in files; unreachable agents: %d", dbSize>>20, unreachable)
	// A cycle writes one history step per node when the step is the
	// interval; at the default retention a node writes one step per
	// DefaultRetention/720 (28 min), 51 a day.
	perCycleDB := (db1 - db0) / int64(cycles)
	perStep := float64(perCycleDB) / float64(n)
	defaultSteps := float64(24*time.Hour) / float64(hubstore.DefaultRetention/720)
	t.Logf("  history growth: %d KiB per cycle, %.0f bytes per node and step; at the default retention %.0f KiB per node-day, %.0f MiB for %d nodes over %s",
		perCycleDB>>10, perStep, perStep*defaultSteps/1024, perStep*720*float64(n)/(1<<20), n, hubstore.DefaultRetention)
	t.Logf("  load average at the end: %s", strings.TrimSpace(string(load)))
	fmt.Printf("RESULT agents=%d farm=%q interval=%s cycles=%d cpu_share=%.3f cpu_per_cycle_s=%.2f cpu_share_at_interval=%.3f cycle_median_ms=%d fleet_median_ms=%.2f rss_mib=%s rss_peak_mib=%s heap_peak_mib=%d db_mib=%d db_growth_kib_per_cycle=%d db_bytes_per_node_step=%.0f unreachable=%d load=%q\n",
		n, farm, interval, cycles, cpu.Seconds()/wall.Seconds(), perCycle.Seconds(), perCycle.Seconds()/interval.Seconds(), median(cycleTimes).Milliseconds(), float64(median(fleetTimes).Microseconds())/1000,
		rss, hwm, peakHeap>>20, dbSize>>20, perCycleDB>>10, perStep, unreachable, strings.TrimSpace(string(load)))
	if unreachable > 0 {
		t.Errorf("%d agents unreachable during the benchmark", unreachable)
	}
}

// TestHelperAgentFarm is the child of TestHubAtScale: it serves
// IBDOCTOR_HUB_FARM real agents until its stdin closes, or with
// IBDOCTOR_HUB_REPLAY set as many replayed agents (serveReplayFarm): the
// captured answers of real agents with moving counter rates, at a small
// fraction of the real agents' CPU, so that the hub has the machine.
func TestHelperAgentFarm(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("IBDOCTOR_HUB_FARM"))
	if n <= 0 {
		t.Skip("child process of TestHubAtScale")
	}
	raiseFDLimit()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if os.Getenv("IBDOCTOR_HUB_REPLAY") != "" {
		if err := os.WriteFile(os.Getenv("IBDOCTOR_HUB_FARM_OUT"), []byte(serveReplayFarm(ctx, t, n)), 0o600); err != nil {
			t.Fatal(err)
		}
		fmt.Println("ready")
		bufio.NewReader(os.Stdin).ReadString('\n')
		return
	}
	var lines strings.Builder
	for i := range n {
		host := fmt.Sprintf("gpu%04d", i)
		var a *agent.Agent
		switch i % 50 {
		case 7:
			a = newAgent(t, host, "polling:mlx5_5/1")
		case 23:
			a = newAgent(t, host, "width:mlx5_2/1=2")
		default:
			a = newAgent(t, host)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go agent.Serve(ctx, ln, a.Handler(agent.HandlerOptions{}))
		fmt.Fprintf(&lines, "%s %s\n", ln.Addr(), host)
	}
	if err := os.WriteFile(os.Getenv("IBDOCTOR_HUB_FARM_OUT"), []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes it
}

func envDuration(k string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(k)); err == nil && d > 0 {
		return d
	}
	return def
}

func raiseFDLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus reads a "kB" field of /proc/self/status in MiB.
func procStatus(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return strconv.Itoa(kb >> 10)
		}
	}
	return "?"
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// BenchmarkFleet2000 builds the fleet page's data for 2,000 nodes of the
// h100-ndr profile (10 ports each), 4% of them with findings.
func BenchmarkFleet2000(b *testing.B) {
	st, err := hubstore.Open(filepath.Join(b.TempDir(), "hub.db"), hubstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var targets []Target
	for i := range 2000 {
		addr := fmt.Sprintf("10.0.%d.%d:9315", i/250, i%250+1)
		targets = append(targets, Target{Name: fmt.Sprintf("gpu%04d", i), Base: "http://" + addr, Addr: addr})
	}
	c := &clock{t: t0}
	h, err := New(context.Background(), Options{Targets: targets, Store: st, Now: c.Now})
	if err != nil {
		b.Fatal(err)
	}
	docs := map[bool]result{}
	for _, broken := range []bool{false, true} {
		var a *agent.Agent
		if broken {
			a = newAgent(b, "x", "polling:mlx5_5/1")
		} else {
			a = newAgent(b, "x")
		}
		rec := httptestGet(b, a)
		docs[broken] = rec
	}
	var rs []result
	for i, name := range h.order {
		r := docs[i%25 == 7]
		r.n, r.t = h.nodes[name], t0
		rs = append(rs, r)
	}
	if err := h.record(context.Background(), rs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := h.Data().Fleet(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// httptestGet polls a over HTTP once and returns the result.
func httptestGet(tb testing.TB, a *agent.Agent) result {
	tb.Helper()
	srv := httptest.NewServer(a.Handler(agent.HandlerOptions{}))
	defer srv.Close()
	h := &Hub{opts: Options{Timeout: 10 * time.Second, Client: srv.Client(), Now: time.Now}}
	r := h.poll(context.Background(), &node{t: Target{Base: srv.URL}})
	if r.err != nil {
		tb.Fatal(r.err)
	}
	return r
}
