// Package agent implements `ibdoctor agent`: the long-running sampler with
// Prometheus metrics, rules over time and the node health API.
package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
	"github.com/ibdoctor/ibdoctor/internal/service/store"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// Options are the inputs of `ibdoctor agent`.
type Options struct {
	F        *cmdutil.Factory
	Format   cmdutil.Format
	Root     string
	Listen   string
	Interval time.Duration
	Expect   string
	StateDir string
	Token    string
	Config   string
	// KernelLog is "auto" (a root's saved log, else /dev/kmsg), "none", or
	// the path of a /dev/kmsg-style file to follow; KernelWindow how long
	// an event's finding stays active.
	KernelLog    string
	KernelWindow time.Duration
	// FullReadEvery is how often (in samples) the whole device tree is
	// read when nothing was seen to change.
	FullReadEvery int
	// GoMaxProcs is how many OS threads run Go code at once (GOMAXPROCS;
	// 0 leaves the Go default).
	GoMaxProcs int
	// PerfBackends are the pairwise test backends this agent runs
	// (tcp, perftest); PerfMaxDuration caps one test; PerfRateLimit
	// throttles its tcp tests (bytes/s, 0 none).
	PerfBackends    []string
	PerfMaxDuration time.Duration
	PerfRateLimit   float64
	// Ready, when set, receives the address the server listens on (tests
	// use it with --listen 127.0.0.1:0).
	Ready func(addr string)
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Sample every RDMA port continuously; serve Prometheus metrics and a node health API",
		Long: `Sample every port's counters, hw_counters and (RoCE) ethtool statistics every
interval, compute per-second rates (4-octet data words as bytes, 32-bit Q
counter wraps, saturated IBTA counters as unknown, resets as new series), run
the node rules and the rules over time, and serve:

  /metrics         Prometheus metrics of the last sample (scrapes never re-read sysfs)
  /api/v1/health   findings and verdict: HTTP 200 healthy or warning, 503 critical
  /api/v1/ports    every port's state, counters and rates over the last interval
  /healthz         200 while samples are fresh
  /api/v1/perf/    pairwise tests through agents (needs --token)

The agent is read-only unless a token is configured (--token or
IBDOCTOR_TOKEN). State (last samples, active findings with first-seen time,
flap history) survives restarts under --state-dir. Thresholds of the rules over
time are listed by 'ibdoctor rules' and set with --config (YAML).
SIGTERM or SIGINT shut it down gracefully.`,
		Example: `  # on a node, as the systemd unit in deploy/ runs it
  $ ibdoctor agent --state-dir /var/lib/ibdoctor --expect /etc/ibdoctor/expect.yaml
  # against a simulated node that changes over time
  $ ibdoctor sim node --live --out /tmp/node &
  $ ibdoctor agent --root /tmp/node --listen 127.0.0.1:9315 --interval 5s
  $ curl -s localhost:9315/api/v1/health`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Interval < time.Second {
				return cmdutil.FlagErrorf("--interval %s is below 1s", opts.Interval)
			}
			if opts.Token == "" {
				opts.Token = f.Getenv("IBDOCTOR_TOKEN")
			}
			for _, b := range opts.PerfBackends {
				if b != "tcp" && b != "perftest" {
					return cmdutil.FlagErrorf("--perf-backends: unknown backend %q (want tcp or perftest)", b)
				}
			}
			if opts.KernelWindow <= 0 {
				return cmdutil.FlagErrorf("--kernel-window %s must be positive", opts.KernelWindow)
			}
			if !cmd.Flags().Changed("gomaxprocs") {
				if v := f.Getenv("GOMAXPROCS"); v != "" {
					n, err := strconv.Atoi(v)
					if err != nil || n < 1 {
						return cmdutil.FlagErrorf("GOMAXPROCS=%q: want a positive number", v)
					}
					opts.GoMaxProcs = n
				}
			}
			if opts.GoMaxProcs < 0 {
				return cmdutil.FlagErrorf("--gomaxprocs %d: want 0 or more", opts.GoMaxProcs)
			}
			if opts.FullReadEvery < 1 {
				return cmdutil.FlagErrorf("--full-read-every %d: want 1 or more", opts.FullReadEvery)
			}
			if opts.KernelLog == "" {
				return cmdutil.FlagErrorf("--kernel-log: want auto, none or a path")
			}
			if opts.PerfRateLimit < 0 || opts.PerfMaxDuration <= 0 {
				return cmdutil.FlagErrorf("--perf-rate-limit must be ≥ 0 and --perf-max-duration > 0")
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(context.Background(), opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmdutil.AddRootFlag(cmd, &opts.Root)
	cmd.Flags().StringVar(&opts.Listen, "listen", ":9315", "address of the HTTP server: all interfaces by default, as node_exporter does, since Prometheus scrapes it from elsewhere (read-only without a token); 127.0.0.1:9315 keeps it local")
	cmd.Flags().DurationVar(&opts.Interval, "interval", 15*time.Second, "time between samples")
	cmd.Flags().StringVar(&opts.Expect, "expect", "", "expectation file (YAML, from 'ibdoctor baseline') for the node rules")
	cmd.Flags().StringVar(&opts.StateDir, "state-dir", "", "directory for the state store (empty: state is kept in memory only)")
	cmd.Flags().StringVar(&opts.Token, "token", "", "shared secret that allows requests that run something (default $IBDOCTOR_TOKEN)")
	cmd.Flags().StringSliceVar(&opts.PerfBackends, "perf-backends", []string{"tcp"}, "pairwise test backends this agent runs for 'ibdoctor perf pairwise': tcp, perftest (ib_write_bw/ib_write_lat)")
	cmd.Flags().DurationVar(&opts.PerfMaxDuration, "perf-max-duration", 60*time.Second, "longest pairwise test this agent accepts")
	cmd.Flags().Float64Var(&opts.PerfRateLimit, "perf-rate-limit", 0, "throttle this agent's tcp tests to this many bytes/s (0: none; for testing the culprit inference)")
	cmd.Flags().StringVar(&opts.Config, "config", "", "YAML file of thresholds for the rules over time (see 'ibdoctor rules')")
	cmd.Flags().StringVar(&opts.KernelLog, "kernel-log", "auto", "kernel log to follow: auto (the root's cmd/dmesg.txt, journalctl-k.txt or kmsg.txt when it has a cmd/ directory, else /dev/kmsg), none, or the path of a /dev/kmsg-style file")
	cmd.Flags().IntVar(&opts.FullReadEvery, "full-read-every", agent.DefaultFullReadEvery, "read again identities, GID and P_Key tables every this many samples, and the whole device tree (the PCI chain too) every 4 times that; the samples between read only counters and state, and an RDMA device or net device that appears or goes triggers a full read at once (1: every sample)")
	cmd.Flags().IntVar(&opts.GoMaxProcs, "gomaxprocs", 1, "OS threads that run Go code at once (GOMAXPROCS): 1, as node_exporter's --runtime.gomaxprocs, halves the context switches of a sample; a tcp pairwise test uses every CPU while it runs; 0 leaves Go's default (all CPUs); the GOMAXPROCS environment variable sets the default")
	cmd.Flags().DurationVar(&opts.KernelWindow, "kernel-window", agent.DefaultKernelWindow, "how long a finding raised by a kernel-log event (Xid, AER, link flap, module, mlx5 health) stays active after the event")
	return cmd
}

// kernelReader picks the kernel log the agent follows.
func kernelReader(root *rootfs.Root, flag string) agent.KernelReader {
	switch flag {
	case "none":
		return nil
	case "auto":
		if name, ok := agent.RootKernelLog(root); ok {
			return agent.FileKernel(root, name)
		}
		if fi, err := fs.Stat(root.FS(), layout.CmdDir); root.IsBundle() || (err == nil && fi.IsDir()) {
			return nil // a saved root without a kernel log
		}
		return agent.LiveKernel("/dev/kmsg")
	}
	return agent.LiveKernel(flag)
}

// Run starts the agent and blocks until ctx ends or SIGTERM/SIGINT.
func Run(ctx context.Context, o *Options) error {
	log := &cmdutil.Logger{F: o.F, Command: "agent", JSON: o.Format == cmdutil.FormatJSON}
	if o.GoMaxProcs > 0 {
		// A sample is one goroutine reading files one after another:
		// a second thread only adds wake-ups (a sample on two
		// threads switches context twice as often and costs about
		// 15% more CPU on a 2-CPU VM).
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(o.GoMaxProcs))
	}
	// Findings raised and cleared, and pairwise tests served: one
	// structured line each, on stderr (JSON with --format json).
	var h slog.Handler = slog.NewTextHandler(o.F.ErrOut, nil)
	if log.JSON {
		h = slog.NewJSONHandler(o.F.ErrOut, nil)
	}
	events := slog.New(h)
	th := trend.Defaults()
	if o.Config != "" {
		f, err := os.Open(o.Config)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		th, err = trend.LoadConfig(o.Config, f)
		f.Close()
		if err != nil {
			return cmdutil.CannotRun(err)
		}
	}
	exp, err := cmdutil.LoadExpectation(o.Expect)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	root, err := rootfs.Open(o.Root)
	if err != nil {
		return cmdutil.CannotRun(fmt.Errorf("cannot open root: %w", err))
	}
	defer root.Close()
	var st *store.Store
	if o.StateDir != "" {
		st, err = store.Open(o.StateDir, store.Options{KeepSamples: agent.KeepFor(o.Interval, th)})
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		defer st.Close()
		if st.Note != "" {
			log.Logf("state store: %s", st.Note)
		}
	}
	src := agent.NewCachedSource(root, o.F.Now, o.FullReadEvery)
	a, err := agent.New(agent.Options{
		Read: src.Read, Ethtool: agent.EthtoolFor(root), Interval: o.Interval,
		Expect: exp, Thresholds: &th, Store: st, Version: o.F.Version, Logf: log.Logf, Log: events,
		Kernel: kernelReader(root, o.KernelLog), Boot: agent.RootBoot(root), KernelWindow: o.KernelWindow,
		KernelNews: src.Kernel,
	})
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	// The first sample is taken before listening: a root without sys/ is
	// unusable (exit 3); any other failure is retried every interval.
	if err := a.Sample(ctx); errors.Is(err, sysfs.ErrNoSys) {
		return cmdutil.CannotRun(fmt.Errorf("%s: %w", o.Root, err))
	} else if err != nil {
		log.Logf("%v", err)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Logf("sampling %s every %s; listening on %s", root.Name(), o.Interval, ln.Addr())
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	perf := pairwise.NewServer(pairwise.ServerOptions{Token: o.Token, Backends: o.PerfBackends, MaxDuration: o.PerfMaxDuration, RateLimit: o.PerfRateLimit, Log: events})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Tick(ctx)
	}()
	err = agent.Serve(ctx, ln, a.Handler(agent.HandlerOptions{Token: o.Token, Perf: perf}))
	stop()
	<-done
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	log.Logf("stopped")
	return nil
}
