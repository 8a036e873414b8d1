package fabric

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
)

// DiffOptions are the inputs of `fabric diff`.
type DiffOptions struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Source Source
	Plan   string
}

// NewCmdDiff builds `fabric diff`.
func NewCmdDiff(f *cmdutil.Factory, runF func(*DiffOptions) error) *cobra.Command {
	o := &DiffOptions{F: f}
	cmd := &cobra.Command{
		Use:   "diff --plan FILE",
		Short: "Compare the cabling with a plan: missing, unexpected and swapped cables",
		Long: `Compare the discovered cabling with a plan. The plan is an ibnetdiscover-
format topology (an ibsim net file works too) or lines

  nodeA portA nodeB portB [4xHDR]

naming nodes by description (quoted when it has spaces), ibnetdiscover ID
or GUID. Swapped cables are reported as such (fabric.cable_miswired), not as
two missing plus two unexpected links.`,
		Example: `  $ ibdoctor fabric diff --plan cabling.txt
  $ ibdoctor fabric diff --plan ibnetdiscover-golden.txt --from fabric.tar.gz --format json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if o.Plan == "" {
				return cmdutil.FlagErrorf("--plan is required")
			}
			if runF != nil {
				return runF(o)
			}
			return runDiff(context.Background(), o)
		},
	}
	cmdutil.AddFormatFlag(cmd, &o.Format)
	addSourceFlags(cmd, &o.Source)
	cmd.Flags().StringVar(&o.Plan, "plan", "", "cabling plan (required)")
	return cmd
}

func runDiff(ctx context.Context, o *DiffOptions) error {
	plan, err := readPlan(o.Plan)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	raw, err := o.Source.load(ctx, o.F)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	m := fabricrules.Build(raw)
	if len(m.Nodes) == 0 {
		const missing = "no fabric topology could be read (see the gaps)"
		_ = writeResult(o.F.Out, o.F, o.Format, m, nil, m.Gaps, nil, false, missing)
		return cmdutil.CannotRun(errors.New(missing))
	}
	fs := fabricrules.Diff(m, plan)
	if err := writeResult(o.F.Out, o.F, o.Format, m, fs, m.Gaps, nil, false, ""); err != nil {
		return err
	}
	return cmdutil.Exit(finding.ExitCode(fs))
}
