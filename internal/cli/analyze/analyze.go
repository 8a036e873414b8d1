// Package analyze implements `ibdoctor analyze`: diagnose tool outputs
// pasted into a ticket or saved to files.
package analyze

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/diagnose/analyze"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
)

// Options are the inputs of `ibdoctor analyze`.
type Options struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Files  []string
	// Kind forces the kind of every file ("" detects; "list" lists).
	Kind        string
	ExpectBusBW float64
	LineRate    float64
	Expect      string
	// Root is the node the outputs came from (directory or bundle).
	Root       string
	ExpectIB   bool
	MaxLatency float64
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "analyze FILE...",
		Short: "Diagnose pasted tool outputs (ibstat, dmesg, NCCL logs, nccl-tests, perftest, fabric tools…)",
		Long: `Read saved or pasted tool outputs, recognise what printed them and judge
them with the same rules the live commands use: ibstat, ibstatus,
ibv_devinfo [-v], rdma link/statistic, dmesg/journalctl -k, nvidia-smi
topo -m, ethtool -S, NCCL debug logs, nccl-tests, perftest, and the
infiniband-diags fabric tools (ibnetdiscover, iblinkinfo, ibqueryerrors,
perfquery, dump_fts, sminfo, saquery -s). A paste of several outputs is
split at their headers; prompts, tool crashes (ibpanic), debug noise, CRLF
and truncated tails are tolerated and listed as skipped, with line numbers.
Outputs in one file inform each other, as --root does: an ibstat beside an
NCCL log makes a socket fallback critical, and the rate most of its ACTIVE
ports run at is the line rate for nccl-tests and perftest unless
--line-rate is given.

Exit codes: 0 healthy, 1 warnings only, 2 at least one critical finding,
3 a file could not be read or was not recognised (the closest kind is
named; force one with --kind).`,
		Example: `  # what a user pasted into a ticket
  $ ibdoctor analyze ticket-1234.txt
  # from the clipboard
  $ xclip -o | ibdoctor analyze -
  # nccl-tests output judged against the NICs' line rate
  $ ibdoctor analyze --line-rate 400 all_reduce_perf.out
  # an NCCL log and a perftest run judged against the node they ran on
  $ ibdoctor analyze --root gpu017.tar.gz nccl.log ib_write_bw.out
  # force the kind, as JSON
  $ ibdoctor analyze --kind ibstat --format json node17.txt
  # the kinds analyze knows
  $ ibdoctor analyze --kind list`,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Files = args
			if opts.Kind != "list" {
				if len(args) == 0 {
					return cmdutil.FlagErrorf("give at least one FILE (- reads standard input)")
				}
				if _, ok := analyze.ParseKind(opts.Kind); opts.Kind != "" && !ok {
					return cmdutil.FlagErrorf("--kind %q is not a known kind; see --kind list", opts.Kind)
				}
			}
			if opts.ExpectBusBW < 0 || opts.LineRate < 0 || opts.MaxLatency < 0 {
				return cmdutil.FlagErrorf("--expect-busbw, --line-rate and --max-latency must not be negative")
			}
			stdin := 0
			for _, a := range args {
				if a == "-" {
					stdin++
				}
			}
			if stdin > 1 {
				return cmdutil.FlagErrorf("standard input (-) can be read once")
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmd.Flags().StringVar(&opts.Kind, "kind", "", "read every file as this kind instead of detecting it ('list' lists the kinds)")
	cmd.Flags().Float64Var(&opts.ExpectBusBW, "expect-busbw", 0, "expected nccl-tests large-message bus bandwidth, GB/s")
	cmd.Flags().Float64Var(&opts.LineRate, "line-rate", 0, "line rate of the NICs, Gb/s (judges nccl-tests and perftest bandwidth)")
	cmd.Flags().StringVar(&opts.Expect, "expect", "", "expectation file (YAML, from 'ibdoctor baseline') for ibstat/ibstatus/ibv_devinfo/rdma outputs")
	cmd.Flags().StringVar(&opts.Root, "root", "", "root (directory or bundle) of the node the outputs came from: its RDMA devices make a socket fallback critical, its ACTIVE ports give the line rate")
	cmd.Flags().BoolVar(&opts.ExpectIB, "expect-ib", false, "the NCCL job should use InfiniBand/RoCE: a socket fallback is critical")
	cmd.Flags().Float64Var(&opts.MaxLatency, "max-latency", 0, "perftest latency limit in us (default: 1.5 x the floor of the verb and link type)")
	return cmd
}

// readInput opens one input: standard input for "-". Big kernel and NCCL
// logs are streamed by analyze, other outputs read whole up to a limit
// (analyze.MaxInMemory), which a regular file's size lets it apply before
// reading.
func readInput(o *Options, name string) analyze.Input {
	if name == "-" {
		return analyze.Input{Name: "stdin", R: o.F.In, Size: -1}
	}
	// What is not a regular file is refused before it is opened:
	// /dev/zero never ends, a FIFO without a writer blocks the open.
	st, err := os.Stat(name)
	if err == nil && !st.Mode().IsRegular() {
		return analyze.Input{Name: name, Err: fmt.Errorf("%s: not a regular file (%s); pipe it to 'ibdoctor analyze -' instead", name, st.Mode().Type())}
	}
	f, err := os.Open(name)
	if err != nil {
		return analyze.Input{Name: name, Err: err}
	}
	size := int64(-1)
	if st != nil {
		size = st.Size()
	}
	return analyze.Input{Name: name, R: f, Size: size}
}

func run(o *Options) error {
	if o.Kind == "list" {
		return listKinds(o)
	}
	opts := analyze.Options{ExpectBusBW: o.ExpectBusBW, LineRateGbps: o.LineRate, Year: o.F.Now().Year(), ExpectIB: o.ExpectIB, MaxLatencyUS: o.MaxLatency}
	opts.Kind, _ = analyze.ParseKind(o.Kind)
	if o.Expect != "" {
		exp, err := cmdutil.LoadExpectation(o.Expect)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		opts.Expect = exp
	}
	if o.Root != "" {
		snap, err := cmdutil.LoadSnapshot(context.Background(), o.F, o.Root)
		if err != nil {
			return cmdutil.CannotRun(fmt.Errorf("--root %s: %w", o.Root, err))
		}
		opts.Node, opts.NodeSource = snap, "--root "+o.Root
	}
	var in []analyze.Input
	for _, name := range o.Files {
		in = append(in, readInput(o, name))
	}
	defer func() {
		for _, i := range in {
			if c, ok := i.R.(*os.File); ok && c != os.Stdin {
				c.Close()
			}
		}
	}()
	rep := analyze.Run(in, opts)
	if o.Format == cmdutil.FormatJSON {
		if err := cmdutil.WriteJSON(o.F.Out, rep); err != nil {
			return err
		}
		return cmdutil.Exit(rep.ExitCode)
	}
	writeText(o.F.Out, report.Style{Enabled: o.F.Color}, rep)
	return cmdutil.Exit(rep.ExitCode)
}

func listKinds(o *Options) error {
	if o.Format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(o.F.Out, analyze.Kinds)
	}
	tw := tabwriter.NewWriter(o.F.Out, 0, 4, 2, ' ', 0)
	for _, k := range analyze.Kinds {
		fmt.Fprintf(tw, "%s\t%s\n", k.Kind, k.Description)
	}
	return tw.Flush()
}
