// Package check implements `ibdoctor check`: a one-shot node health verdict
// for schedulers, with the Nagios/NHC exit codes.
package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

// Options are the inputs of `ibdoctor check`.
type Options struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Root   string
	Expect string
	Quiet  bool
	// Fleet is a directory of bundles and roots judged together;
	// RootSet says --root was given too.
	Fleet   string
	RootSet bool
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Judge the node's RDMA ports and exit 0 healthy, 1 warning, 2 critical, 3 cannot run",
		Long: `Judge the node's RDMA ports once and report findings with evidence,
likely causes and remedies. Without --expect it judges against defaults:
every cabled port ACTIVE/LinkUp, all ports of one HCA model at one rate,
firmware alike, no PCIe link below what both ends support.

Exit codes (Nagios/NHC convention, for Slurm HealthCheckProgram and
Kubernetes probes): 0 healthy, 1 warnings only, 2 at least one critical
finding, 3 the check could not run (bad arguments, unreadable root).

--format drain-reason prints nothing when healthy, else one short line
naming the worst finding and where it is (the drain reason: sinfo -R cuts
long ones), then one line per finding for the log.

--fleet DIR judges every node of DIR (bundles *.tar.gz and root
directories) and compares their mlx5_core and HCA firmware versions with
the majority: a node that differs from a version more than half of the
nodes run is host.driver_outlier or host.fw_outlier (firmware per HCA
model).`,
		Example: `  # against defaults
  $ ibdoctor check
  # against a reviewed baseline, quiet unless something is wrong
  $ ibdoctor check --expect /etc/ibdoctor/expect.yaml --quiet
  # a bundle, as JSON
  $ ibdoctor check --root gpu017.tar.gz --format json
  # the drain reason for Slurm/NHC (deploy/slurm/nhc-ibdoctor.sh)
  $ ibdoctor check --format drain-reason
  # a directory of bundles: each node, and versions against the majority
  $ ibdoctor check --fleet bundles/`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.RootSet = c.Flags().Changed("root")
			if runF != nil {
				return runF(opts)
			}
			return run(context.Background(), opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format, cmdutil.FormatDrainReason)
	cmdutil.AddRootFlag(cmd, &opts.Root)
	cmd.Flags().StringVar(&opts.Expect, "expect", "", "expectation file (YAML, from 'ibdoctor baseline') to judge against")
	cmd.Flags().BoolVarP(&opts.Quiet, "quiet", "q", false, "print nothing when healthy (text format)")
	cmd.Flags().StringVar(&opts.Fleet, "fleet", "", "judge every bundle (*.tar.gz) and root directory in DIR, and their driver and firmware versions against the majority")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	if o.Fleet != "" {
		return runFleet(ctx, o)
	}
	exp, err := cmdutil.LoadExpectation(o.Expect)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	snap, err := cmdutil.LoadSnapshot(ctx, o.F, o.Root)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	fs := noderules.Check(snap, exp)
	if o.Format == cmdutil.FormatJSON {
		if err := cmdutil.WriteJSON(o.F.Out, report.NewDocument(snap.Host, fs, snap.Gaps)); err != nil {
			return err
		}
		return cmdutil.Exit(finding.ExitCode(fs))
	}
	code := finding.ExitCode(fs)
	if o.Format == cmdutil.FormatDrainReason {
		reason, lines := report.DrainReason(fs)
		if reason != "" {
			fmt.Fprintln(o.F.Out, reason)
		}
		for _, l := range lines {
			fmt.Fprintln(o.F.Out, l)
		}
		for _, g := range snap.Gaps {
			fmt.Fprintf(o.F.Out, "ibdoctor: not read: %s: %s\n", g.Path, g.Err)
		}
		return cmdutil.Exit(code)
	}
	sty := report.Style{Enabled: o.F.Color}
	if o.Quiet && code == finding.ExitHealthy && len(snap.Gaps) == 0 {
		return nil
	}
	fmt.Fprintf(o.F.Out, "%s — %d RDMA devices, %s", report.VerdictLine(sty, snap.Host, fs), len(snap.Devices), portsChecked(snap))
	if exp != nil {
		fmt.Fprintf(o.F.Out, " against %s", exp.Source)
	}
	fmt.Fprintln(o.F.Out)
	if len(fs) > 0 {
		fmt.Fprintln(o.F.Out)
		report.Findings(o.F.Out, sty, fs)
	}
	if len(snap.Gaps) > 0 {
		fmt.Fprintln(o.F.Out)
		report.Gaps(o.F.Out, sty, snap.Gaps)
	}
	return cmdutil.Exit(code)
}

// portsChecked says how many ports were judged: a port whose state could
// not be read was not, and the headline names it instead of counting it.
func portsChecked(snap *snapshot.Snapshot) string {
	var total int
	var unread []string
	for _, d := range snap.Devices {
		for _, p := range d.Ports {
			total++
			if p.State == nil {
				unread = append(unread, fmt.Sprintf("%s/%d", p.Device, p.Number))
			}
		}
	}
	if len(unread) == 0 {
		return fmt.Sprintf("%d ports checked", total)
	}
	const show = 3
	names := strings.Join(unread[:min(len(unread), show)], ", ")
	if len(unread) > show {
		names += fmt.Sprintf(" and %d more", len(unread)-show)
	}
	return fmt.Sprintf("%d of %d ports checked (state not read: %s)", total-len(unread), total, names)
}
