// Package status implements `ibdoctor status`: every RDMA device and port
// of the node in one screen, with a verdict per port.
package status

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

// Options are the inputs of `ibdoctor status`.
type Options struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Root   string
	Expect string
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show every RDMA device and port with its health verdict",
		Long: `Show every RDMA device and port of the node, like ibstat and ibstatus
together: link layer, state, physical state, rate with width and generation,
LID and SM LID (InfiniBand), netdev and RoCE v2 GID (Ethernet), firmware,
PCIe link (current / max), NUMA node, non-zero error counters, and the
verdict with the finding IDs that explain it.`,
		Example: `  # this node
  $ ibdoctor status
  # a support bundle from another node, as JSON
  $ ibdoctor status --root gpu017.tar.gz --format json
  # judged against a reviewed baseline
  $ ibdoctor status --expect /etc/ibdoctor/expect.yaml`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return run(context.Background(), opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmdutil.AddRootFlag(cmd, &opts.Root)
	cmd.Flags().StringVar(&opts.Expect, "expect", "", "expectation file (YAML, from 'ibdoctor baseline') to judge against")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	exp, err := cmdutil.LoadExpectation(o.Expect)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	snap, err := cmdutil.LoadSnapshot(ctx, o.F, o.Root)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	fs := noderules.Node(snap, exp)
	st := report.NewStatus(snap, fs)
	if o.Format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(o.F.Out, st)
	}
	sty := report.Style{Enabled: o.F.Color}
	fmt.Fprintln(o.F.Out, report.VerdictLine(sty, snap.Host, fs))
	if len(st.Ports) == 0 {
		fmt.Fprintf(o.F.Out, "no RDMA devices under %s (sys/class/infiniband is empty or missing)\n", snap.Root)
	} else if err := report.StatusTable(o.F.Out, sty, st); err != nil {
		return err
	}
	if len(snap.Gaps) > 0 {
		fmt.Fprintln(o.F.Out)
		report.Gaps(o.F.Out, sty, snap.Gaps)
	}
	if len(fs) > 0 {
		fmt.Fprintln(o.F.Out, "\nrun 'ibdoctor check' for the findings with evidence and remedies")
	}
	return nil
}
