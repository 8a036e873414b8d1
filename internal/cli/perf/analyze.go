package perf

import (
	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
)

// AnalyzeOptions are the inputs of `ibdoctor perf analyze`.
type AnalyzeOptions struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Files  []string
}

// NewCmdAnalyze builds `perf analyze`; runF replaces the run function in tests.
func NewCmdAnalyze(f *cmdutil.Factory, runF func(*AnalyzeOptions) error) *cobra.Command {
	opts := &AnalyzeOptions{F: f}
	cmd := &cobra.Command{
		Use:     "analyze FILE...",
		Short:   "Diagnose saved perftest output (ib_write_bw, ib_read_bw, ib_send_bw, *_lat)",
		Example: `  $ ibdoctor perf analyze ib_write_bw.txt`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(opts)
			}
			return cmdutil.FlagErrorf("perf analyze: not yet implemented")
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	return cmd
}
