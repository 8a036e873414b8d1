// Package perf implements `ibdoctor perf`: performance tests between nodes
// and the analysis of perftest output.
package perf

import (
	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
)

// NewCmd builds the `perf` parent command. Subcommands are listed here
// explicitly, one line each.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "perf <command>",
		Short: "Bandwidth and latency tests between nodes, and perftest output analysis",
		Example: `  # judge saved ib_write_bw output against a 400 Gb/s link
  $ ibdoctor perf analyze --line-rate 400 ib_write_bw.txt`,
	}
	cmd.AddCommand(
		NewCmdAnalyze(f, nil),
		NewCmdPairwise(f, nil),
	)
	return cmd
}
