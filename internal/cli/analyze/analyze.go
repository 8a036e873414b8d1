// Package analyze implements `ibdoctor analyze`: diagnose tool outputs
// pasted into a ticket or saved to files.
package analyze

import (
	"context"
	"fmt"
	"io"
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

// maxInput bounds one file read (a day of a busy node's kernel log or a
// 2k-node ibnetdiscover is well under it).
const maxInput = 512 << 20

func readInput(o *Options, name string) analyze.Input {
	var r io.Reader
	label := name
	if name == "-" {
		r, label = o.F.In, "stdin"
	} else {
		// A regular file's size is known before reading: refuse what is too
		// big at once, and what is not a file (/dev/zero never ends, a FIFO
		// without a writer blocks the open) before opening it.
		st, err := os.Stat(name)
		switch {
		case err != nil:
			// The open below says why, as for any unreadable file.
		case !st.Mode().IsRegular():
			return analyze.Input{Name: label, Err: fmt.Errorf("%s: not a regular file (%s); pipe it to 'ibdoctor analyze -' instead", label, st.Mode().Type())}
		case st.Size() > maxInput:
			return analyze.Input{Name: label, Err: fmt.Errorf("%s: %d MiB, larger than %d MiB; split it", label, st.Size()>>20, maxInput>>20)}
		}
		f, err := os.Open(name)
		if err != nil {
			return analyze.Input{Name: label, Err: err}
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return analyze.Input{Name: label, Err: fmt.Errorf("%s: %w", label, err)}
	}
	if len(b) > maxInput {
		return analyze.Input{Name: label, Err: fmt.Errorf("%s: larger than %d MiB; split it", label, maxInput>>20)}
	}
	return analyze.Input{Name: label, Text: string(b)}
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
