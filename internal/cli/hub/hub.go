// Package hub implements `ibdoctor hub`: the fleet's health, findings
// timeline, fabric and pairwise runs in one place, polled from the agents
// (or read from Prometheus) and kept in an embedded history.
package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/hub"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
	"github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// Options are the inputs of `ibdoctor hub`.
type Options struct {
	F             *cmdutil.Factory
	Format        cmdutil.Format
	Agents        string
	Prometheus    string
	PrometheusJob string
	Listen        string
	DB            string
	FabricFrom    string
	FabricLive    bool
	FabricEvery   time.Duration
	IBSim         string
	PerfFrom      string
	Token         string
	Interval      time.Duration
	Timeout       time.Duration
	Retention     string
	MaxInFlight   int
	retention     time.Duration
	// Ready, when set, receives the address the server listens on.
	Ready func(addr string)
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Watch the whole fleet: poll every agent, keep the history, serve the API",
		Long: `Poll every agent's /api/v1/health and /api/v1/ports (at most --max-in-flight
at once, each request within --timeout, an agent that fails retried after a
doubling wait of at most 8 intervals), or read the agents' series from the
Prometheus that scrapes them. An agent that fails two polls in a row is the
finding hub.agent_unreachable until it answers again.

The history (node health and port data/error rates, the findings timeline
with when each finding opened and closed and its evidence, fabric checks,
pairwise runs) is kept in an SQLite file (--db) for --retention: about 720
points per node over that window, each the worst health and the mean rates
of its step.

Served on --listen (read-only; writes need --token): the web pages (fleet,
node, fabric, perf, timeline) at /, and the JSON API:

  GET  /api/v1/nodes             every node with its health and ports
  GET  /api/v1/nodes/{host}      one node: ports, findings, rate series
  GET  /api/v1/findings          the findings timeline (?since=24h&id=&severity=&host=&open=true)
  GET  /api/v1/fabric            the last fabric check, drawn by tiers
  GET  /api/v1/perf/runs         the pairwise runs
  POST /api/v1/perf/runs         store a 'perf pairwise --format json' document (token)
  GET  /api/v1/perf/runs/{id}    one run's matrix and culprits
  GET  /healthz`,
		Example: `  $ ibdoctor hub --agents agents.txt --db /var/lib/ibdoctor/hub.db
  $ ibdoctor hub --prometheus http://prometheus:9090 --fabric-live --token "$TOKEN"
  $ curl -s localhost:9316/api/v1/findings?severity=critical&since=24h`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return Run(context.Background(), o)
		},
	}
	cmdutil.AddFormatFlag(cmd, &o.Format)
	fl := cmd.Flags()
	fl.StringVar(&o.Agents, "agents", "", "file of agents: one host:port or http(s)://host:port URL per line, optionally followed by the node's name; # comments")
	fl.StringVar(&o.Prometheus, "prometheus", "", "read the agents through this Prometheus server (http://prometheus:9090) instead of polling them: its targets of --prometheus-job are the nodes")
	fl.StringVar(&o.PrometheusJob, "prometheus-job", "ibdoctor", "the scrape job of the agents in Prometheus")
	fl.StringVar(&o.Listen, "listen", "127.0.0.1:9316", "address of the API server")
	fl.StringVar(&o.DB, "db", "ibdoctor-hub.db", "history database (SQLite; created when missing, migrated forward)")
	fl.StringVar(&o.FabricFrom, "fabric-from", "", "judge this 'fabric collect' directory or .tar.gz for the fabric page")
	fl.BoolVar(&o.FabricLive, "fabric-live", false, "query the fabric from this node every --fabric-every, as 'fabric collect' does (needs infiniband-diags and access to the HCA)")
	fl.DurationVar(&o.FabricEvery, "fabric-every", 10*time.Minute, "time between live fabric collections")
	fl.StringVar(&o.IBSim, "ibsim", "", "with --fabric-live, query a simulated fabric: the ibsim socket name (IBSIM_SOCKNAME; preloads libumad2sim.so)")
	fl.StringVar(&o.PerfFrom, "perf-from", "", "directory of 'perf pairwise --format json' documents (*.json), read at start and every interval")
	fl.StringVar(&o.Token, "token", "", "shared secret that allows writes (POST /api/v1/perf/runs); default $IBDOCTOR_TOKEN; without it the hub is read-only")
	fl.DurationVar(&o.Interval, "interval", 15*time.Second, "time between polls of each agent")
	fl.DurationVar(&o.Timeout, "timeout", 5*time.Second, "time limit of one request to an agent")
	fl.StringVar(&o.Retention, "retention", "14d", "how long the history is kept (e.g. 14d, 36h)")
	fl.IntVar(&o.MaxInFlight, "max-in-flight", 64, "agents polled at once")
	return cmd
}

// parseRetention reads a Go duration or a whole number of days ("14d").
func parseRetention(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 || n > 3650 {
			return 0, fmt.Errorf("--retention %q: want a whole number of days from 1 to 3650, or a duration like 36h", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--retention %q: want a duration like 36h or days like 14d", s)
	}
	return d, nil
}

func (o *Options) validate() error {
	if o.Agents != "" && o.Prometheus != "" {
		return cmdutil.FlagErrorf("--agents and --prometheus exclude each other: poll the agents, or read them through Prometheus")
	}
	if o.Prometheus != "" {
		u, err := url.Parse(o.Prometheus)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cmdutil.FlagErrorf("--prometheus %q: want the Prometheus server's URL, e.g. http://prometheus:9090", o.Prometheus)
		}
	}
	if o.FabricFrom != "" && o.FabricLive {
		return cmdutil.FlagErrorf("--fabric-from and --fabric-live exclude each other: a saved collection, or the live fabric")
	}
	if o.Agents == "" && o.Prometheus == "" && o.FabricFrom == "" && !o.FabricLive && o.PerfFrom == "" {
		return cmdutil.FlagErrorf("nothing to watch: give --agents FILE or --prometheus URL (and/or --fabric-from, --fabric-live, --perf-from)")
	}
	if o.Interval < time.Second {
		return cmdutil.FlagErrorf("--interval %s is below 1s", o.Interval)
	}
	if o.Timeout <= 0 {
		return cmdutil.FlagErrorf("--timeout %s must be positive", o.Timeout)
	}
	if o.MaxInFlight < 1 {
		return cmdutil.FlagErrorf("--max-in-flight %d: want 1 or more", o.MaxInFlight)
	}
	if o.IBSim != "" && !o.FabricLive {
		return cmdutil.FlagErrorf("--ibsim needs --fabric-live: it names the simulated fabric the live collection queries")
	}
	if o.IBSim != "" {
		if _, err := fabric.IBSimEnv(o.IBSim); err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
	}
	if o.FabricLive && o.FabricEvery < time.Minute {
		return cmdutil.FlagErrorf("--fabric-every %s is below 1m", o.FabricEvery)
	}
	d, err := parseRetention(o.Retention)
	if err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	if d < o.Interval {
		return cmdutil.FlagErrorf("--retention %s is shorter than --interval %s", o.Retention, o.Interval)
	}
	o.retention = d
	if o.DB == "" {
		return cmdutil.FlagErrorf("--db: want a file path")
	}
	if o.Token == "" && o.F.Getenv != nil {
		o.Token = o.F.Getenv("IBDOCTOR_TOKEN")
	}
	return nil
}

func readAgents(path string) ([]hub.Target, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--agents: %w", err)
	}
	defer fh.Close()
	ts, err := hub.ParseAgents(fh, path)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s: no agent listed", path)
	}
	return ts, nil
}

// Run starts the hub and blocks until ctx ends or SIGTERM/SIGINT.
func Run(ctx context.Context, o *Options) error {
	log := &cmdutil.Logger{F: o.F, Command: "hub", JSON: o.Format == cmdutil.FormatJSON}
	ho := hub.Options{Interval: o.Interval, Timeout: o.Timeout, MaxInFlight: o.MaxInFlight, Now: o.F.Now, Logf: log.Logf}
	if o.Agents != "" {
		ts, err := readAgents(o.Agents)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		ho.Targets = ts
	}
	if o.Prometheus != "" {
		ho.Prometheus = &hub.Prometheus{URL: o.Prometheus, Job: o.PrometheusJob}
	}
	st, err := hubstore.Open(o.DB, hubstore.Options{Retention: o.retention})
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	defer st.Close()
	if st.Note != "" {
		log.Logf("history: %s", st.Note)
	}
	ho.Store = st
	h, err := hub.New(ctx, ho)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	if err := h.RestoreFabric(ctx); err != nil {
		log.Logf("%v", err)
	}
	if o.FabricFrom != "" {
		if err := h.LoadFabric(ctx, o.FabricFrom); err != nil {
			return cmdutil.CannotRun(fmt.Errorf("--fabric-from: %w", err))
		}
	}
	perf := hub.NewPerfDir(h, o.PerfFrom)
	if o.PerfFrom != "" {
		if _, err := os.Stat(o.PerfFrom); err != nil {
			return cmdutil.CannotRun(fmt.Errorf("--perf-from: %w", err))
		}
		if n, err := perf.Scan(ctx); err != nil {
			log.Logf("%v", err)
		} else if n > 0 {
			log.Logf("read %d pairwise runs from %s", n, o.PerfFrom)
		}
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	what := fmt.Sprintf("%d agents", len(ho.Targets))
	if o.Prometheus != "" {
		what = "the agents Prometheus at " + o.Prometheus + " scrapes"
	}
	log.Logf("polling %s every %s; history in %s (%s); listening on %s", what, o.Interval, st.Path(), o.Retention, ln.Addr())
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	var wg sync.WaitGroup
	if len(ho.Targets) > 0 || ho.Prometheus != nil {
		wg.Go(func() { _ = h.Run(ctx) })
	}
	if o.FabricLive {
		wg.Go(func() { fabricLoop(ctx, h, o, log) })
	}
	if o.PerfFrom != "" {
		wg.Go(func() { perf.Loop(ctx, o.Interval, log.Logf) })
	}
	err = agent.Serve(ctx, ln, h.Handler(hub.HandlerOptions{Token: o.Token}))
	stop()
	wg.Wait()
	if ferr := h.Flush(context.Background()); ferr != nil {
		log.Logf("%v", ferr)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return cmdutil.CannotRun(err)
	}
	log.Logf("stopped")
	return nil
}

// fabricLoop collects and judges the live fabric every --fabric-every.
func fabricLoop(ctx context.Context, h *hub.Hub, o *Options, log *cmdutil.Logger) {
	co := fabric.CollectOptions{Timeout: time.Minute, Parallel: 4, Now: o.F.Now}
	if o.IBSim != "" {
		env, err := fabric.IBSimEnv(o.IBSim)
		if err != nil {
			log.Logf("live fabric: %v", err)
			return
		}
		// libumad2sim.so leaves a sys-<pid> tree in the working directory
		// of every tool it runs in: keep those out of the hub's.
		dir, err := os.MkdirTemp("", "ibdoctor-ibsim-")
		if err != nil {
			log.Logf("live fabric: %v", err)
			return
		}
		defer os.RemoveAll(dir)
		co.Env, co.Dir = env, dir
	}
	for {
		start := time.Now()
		if err := h.CollectFabric(ctx, co); err != nil && ctx.Err() == nil {
			log.Logf("live fabric: %v", err)
		} else if err == nil {
			log.Logf("live fabric judged in %s", time.Since(start).Round(time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(o.FabricEvery):
		}
	}
}
