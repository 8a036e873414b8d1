package perf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
)

// FormatCSV is the extra output format of `perf pairwise`.
const FormatCSV cmdutil.Format = "csv"

// PairwiseOptions are the inputs of `ibdoctor perf pairwise`.
type PairwiseOptions struct {
	F         *cmdutil.Factory
	Format    cmdutil.Format
	HostsFile string
	// FromAgents is the URL of a Prometheus server that scrapes the
	// agents (job AgentsJob): the agent list comes from its targets.
	FromAgents   string
	AgentsJob    string
	TopologyFile string
	Pattern      string
	Token        string
	Test         pairwise.Test
	Duration     time.Duration
	Device       string
	IBPort       int
	GIDIndex     int
	SlowFraction float64
	Repeat       int
	// Expect is the reference: Gb/s for bandwidth, µs for latency (0:
	// measured).
	Expect float64
	Out    string
	// Interrupt is the context that ends on SIGINT; tests set their own.
	Interrupt func() (context.Context, context.CancelFunc)
}

// NewCmdPairwise builds `perf pairwise`; runF replaces the run function in
// tests.
func NewCmdPairwise(f *cmdutil.Factory, runF func(*PairwiseOptions) error) *cobra.Command {
	opts := &PairwiseOptions{F: f}
	cmd := &cobra.Command{
		Use:   "pairwise --hosts FILE|--from-agents URL",
		Short: "Bandwidth or latency between node pairs through the agents, and the culprit when some are slow",
		Long: `Runs a test between pairs of nodes through their ibdoctor agents, in
parallel rounds: a round robin (every pair once, N-1 rounds of N/2 pairs)
or, with --topology, a subset: pairs inside each leaf, leaf-to-leaf pairs
across the spines, or one pair per rail. The agent of one node starts the
server side, the agent of the other runs the client side against it.

Backends: tcp (built in: bulk TCP streams, or ping-pong latency) and
perftest (ib_write_bw / ib_write_lat on --device).

Then it names the culprit: a node slow with every partner (perf.node_slow),
one slow pair (perf.pair_slow), and with a topology a leaf's uplinks
(perf.link_slow) or a switch (perf.switch_slow). A pair is slow below
--slow-fraction of the reference: the median over nodes of each node's best
pair, or --expect. --repeat N runs each pair N times and keeps the median
run, so one disturbed run does not make a pair look slow. Before the first
round every agent is asked for its info: a wrong token or a backend the
agent does not run stops with exit 3.

Hosts file: one agent per line, address:port and an optional node name;
'#' comments. Topology file: one host per line, "host leaf" or
"host leaf=L rail=R spine=S". Ctrl-C stops after the pairs in flight and
still writes what was measured (to --out as well).`,
		Example: `  # every pair, built-in TCP test, 5 s each
  $ export IBDOCTOR_TOKEN=$(cat /etc/ibdoctor/token)
  $ ibdoctor perf pairwise --hosts agents.txt

  # RDMA bandwidth with perftest on mlx5_0, leaf-to-leaf pairs only
  $ ibdoctor perf pairwise --hosts agents.txt --backend perftest --device mlx5_0 \
      --topology fabric.txt --pattern cross-leaf

  # three runs per pair, flag pairs below 90% of 190 Gb/s (HDR)
  $ ibdoctor perf pairwise --hosts agents.txt --backend perftest --device mlx5_0 \
      --repeat 3 --expect 190 --slow-fraction 0.9

  # latency matrix as CSV, keep the raw results
  $ ibdoctor perf pairwise --hosts agents.txt --test lat --format csv --out lat.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(f, cmd.Flags().Changed("gid-index")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return pairwiseRun(opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format, FormatCSV)
	fl := cmd.Flags()
	fl.StringVar(&opts.HostsFile, "hosts", "", "file of agents: one address:port [name] per line")
	fl.StringVar(&opts.FromAgents, "from-agents", "", "take the agents from the Prometheus server that scrapes them (e.g. http://prometheus:9090): its targets of --agents-job that are up")
	fl.StringVar(&opts.AgentsJob, "agents-job", pairwise.DefaultAgentsJob, "Prometheus job name of the agents, for --from-agents")
	fl.StringVar(&opts.TopologyFile, "topology", "", "file of host placements, one \"host leaf\" or \"host leaf=L rail=R spine=S\" per line")
	fl.StringVar(&opts.Pattern, "pattern", "full", "pairs to test: full, same-leaf, cross-leaf or rail (the last three need --topology)")
	fl.StringVar(&opts.Token, "token", "", "shared agent token (default $IBDOCTOR_TOKEN)")
	fl.StringVar(&opts.Test.Backend, "backend", pairwise.BackendTCP, "test backend: tcp or perftest")
	fl.StringVar(&opts.Test.Kind, "test", pairwise.KindBW, "bw (bandwidth) or lat (latency)")
	fl.DurationVar(&opts.Duration, "duration", 5*time.Second, "how long each pair's test runs")
	fl.IntVar(&opts.Test.Size, "size", 0, "message size in bytes (default: tcp 128 KiB writes / 64 B pings; perftest 65536 / 2)")
	fl.IntVar(&opts.Test.Streams, "streams", 1, "parallel TCP streams (perftest: QPs, -q)")
	fl.IntVar(&opts.Test.Iterations, "iterations", 0, "perftest latency iterations (-n, default 1000)")
	fl.StringVar(&opts.Device, "device", "", "perftest: RDMA device (-d), e.g. mlx5_0")
	fl.IntVar(&opts.IBPort, "ib-port", 1, "perftest: device port (-i)")
	fl.IntVar(&opts.GIDIndex, "gid-index", 0, "perftest: GID index (-x), e.g. 3 for RoCE v2")
	fl.IntVar(&opts.Repeat, "repeat", 1, "run each pair's test this many times and keep the median run")
	fl.Float64Var(&opts.SlowFraction, "slow-fraction", pairwiserules.DefaultSlowFraction, "a pair is slow below this fraction of the reference")
	fl.Float64Var(&opts.Expect, "expect", 0, "reference instead of the measured one: Gb/s for bw, µs for lat")
	fl.StringVar(&opts.Out, "out", "", "also write the matrix and findings as JSON to this file (written on Ctrl-C too)")
	return cmd
}

func pairwiseRun(o *PairwiseOptions) error {
	hosts, source, err := pairwiseHosts(o)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	var topo *pairwise.Topology
	if o.TopologyFile != "" {
		if topo, err = readFile(o.TopologyFile, pairwise.ParseTopology); err != nil {
			return cmdutil.CannotRun(err)
		}
	}
	sched := pairwiseSchedule(o.Pattern, hosts, topo)
	if sched.Pairs() == 0 {
		return cmdutil.CannotRun(fmt.Errorf("pattern %s: no pair to test (does %s name the hosts of %s, with leaves or rails?)", o.Pattern, o.TopologyFile, source))
	}
	interrupt := o.Interrupt
	if interrupt == nil {
		interrupt = func() (context.Context, context.CancelFunc) {
			return signal.NotifyContext(context.Background(), os.Interrupt)
		}
	}
	ctx, stop := interrupt()
	defer stop()
	// After the first Ctrl-C, restore the default handling, so that a
	// second one kills the process at once.
	go func() { <-ctx.Done(); stop() }()
	r := &pairwise.Runner{Token: o.Token, Test: o.Test, Hosts: hosts, Repeat: o.Repeat, Now: o.F.Now}
	fatal := 0
	for _, p := range r.Preflight(ctx) {
		what := "warning"
		if p.Fatal {
			what = "error"
			fatal++
		}
		fmt.Fprintf(o.F.ErrOut, "%s line %d: agent %s (%s): %s: %v\n", o.HostsFile, p.Host.Line, p.Host.Name, p.Host.Addr, what, p.Err)
	}
	if fatal > 0 {
		return cmdutil.CannotRun(fmt.Errorf("%d of %d agents cannot run the %s test (see above)", fatal, len(hosts), o.Test.Backend))
	}
	var bar *progressBar
	if o.F.IsTTY {
		bar = &progressBar{w: o.F.ErrOut}
		r.Progress = bar.update
	}
	m, err := r.Run(ctx, sched)
	bar.finish()
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	return pairwiseReport(o, m, topo)
}

// pairwiseHosts reads the agents to test from --hosts or, with
// --from-agents, from the Prometheus server that scrapes them; source
// names where they came from.
func pairwiseHosts(o *PairwiseOptions) (hosts []pairwise.Host, source string, err error) {
	source = o.HostsFile
	if o.FromAgents != "" {
		var skipped []string
		source = o.FromAgents
		hosts, skipped, err = pairwise.DiscoverAgents(context.Background(), http.DefaultClient, o.FromAgents, o.AgentsJob)
		for _, s := range skipped {
			fmt.Fprintf(o.F.ErrOut, "ibdoctor: agent left out: %s\n", s)
		}
	} else {
		hosts, err = readFile(o.HostsFile, pairwise.ParseHosts)
	}
	if err == nil && len(hosts) < 2 {
		err = fmt.Errorf("%s: %d agents; a pairwise test needs at least two", source, len(hosts))
	}
	return hosts, source, err
}

// pairwiseSchedule builds the rounds of --pattern over the hosts.
func pairwiseSchedule(pattern string, hosts []pairwise.Host, topo *pairwise.Topology) pairwise.Schedule {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name
	}
	switch pattern {
	case "same-leaf":
		return pairwise.SameLeaf(names, topo)
	case "cross-leaf":
		return pairwise.CrossLeaf(names, topo)
	case "rail":
		return pairwise.PerRail(names, topo)
	default: // "full"; --pattern is validated before the run
		return pairwise.RoundRobin(len(hosts))
	}
}

// pairwiseReport judges the measured matrix and writes it in --format,
// and to --out when given.
func pairwiseReport(o *PairwiseOptions, m *pairwise.Matrix, topo *pairwise.Topology) error {
	iopts := pairwiserules.Options{SlowFraction: o.SlowFraction}
	topts := pairwise.TextOptions{Color: o.F.Color, SlowFraction: o.SlowFraction}
	if o.Expect > 0 {
		iopts.Reference, topts.Reference = o.Expect, o.Expect
		if o.Test.Kind == pairwise.KindBW {
			iopts.Reference, topts.Reference = o.Expect*1e9, o.Expect*1e9
		}
	}
	rep := pairwise.Report{Matrix: m, Findings: pairwiserules.Check(m.Input(topo), iopts)}
	if o.Out != "" {
		if err := writeOut(o.Out, rep); err != nil {
			fmt.Fprintf(o.F.ErrOut, "ibdoctor: %v\n", err)
		}
	}
	if m.Interrupted {
		fmt.Fprintf(o.F.ErrOut, "interrupted: %d of %d pairs measured\n", len(m.Pairs), m.Planned)
	}
	var err error
	switch o.Format {
	case cmdutil.FormatJSON:
		err = pairwise.WriteJSON(o.F.Out, rep)
	case FormatCSV:
		err = pairwise.WriteCSV(o.F.Out, m)
	default:
		err = pairwise.WriteText(o.F.Out, rep, topts)
	}
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	return cmdutil.Exit(finding.ExitCode(rep.Findings))
}

// validate checks the flags and completes the test parameters before
// anything runs; gidSet says --gid-index was given.
func (o *PairwiseOptions) validate(f *cmdutil.Factory, gidSet bool) error {
	if (o.HostsFile == "") == (o.FromAgents == "") {
		return cmdutil.FlagErrorf("give the agents with --hosts FILE (one address:port per line) or --from-agents PROMETHEUS_URL, not both")
	}
	if o.Token == "" {
		o.Token = f.Getenv("IBDOCTOR_TOKEN")
	}
	if o.Token == "" {
		return cmdutil.FlagErrorf("no token: pass --token or set IBDOCTOR_TOKEN (agents refuse tests without one)")
	}
	switch o.Pattern {
	case "full":
	case "same-leaf", "cross-leaf", "rail":
		if o.TopologyFile == "" {
			return cmdutil.FlagErrorf("--pattern %s needs --topology FILE", o.Pattern)
		}
	default:
		return cmdutil.FlagErrorf("--pattern %q: want full, same-leaf, cross-leaf or rail", o.Pattern)
	}
	if o.Repeat < 1 || o.Repeat > 100 {
		return cmdutil.FlagErrorf("--repeat %d: want 1 to 100", o.Repeat)
	}
	if o.SlowFraction <= 0 || o.SlowFraction >= 1 {
		return cmdutil.FlagErrorf("--slow-fraction %v: want a number between 0 and 1", o.SlowFraction)
	}
	o.Test.DurationMS = o.Duration.Milliseconds()
	if o.Test.Backend == pairwise.BackendPerftest {
		if o.Device == "" {
			return cmdutil.FlagErrorf("--backend perftest needs --device (e.g. mlx5_0)")
		}
		p := &pairwise.PerftestParams{Device: o.Device, IBPort: o.IBPort}
		if gidSet {
			p.GIDIndex = &o.GIDIndex
		}
		o.Test.Perftest = p
	}
	o.Test = o.Test.WithDefaults()
	if err := o.Test.Validate(0); err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	return nil
}

// readFile opens path and parses it with parse, which names path in its
// errors.
func readFile[T any](path string, parse func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	return parse(f, path)
}

// writeOut writes the report atomically (temporary file, then rename), so
// an interrupt during the write leaves the old file or the new one.
func writeOut(path string, rep pairwise.Report) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pairwise-*.json")
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := errors.Join(pairwise.WriteJSON(tmp, rep), tmp.Close()); err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// progressBar draws "[=====     ] 3/6 pairs" on a terminal's stderr.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	drawn bool
}

func (b *progressBar) update(done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	const width = 30
	n := width * done / max(total, 1)
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d pairs", strings.Repeat("=", n), strings.Repeat(" ", width-n), done, total)
	b.drawn = true
}

func (b *progressBar) finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
