// Package sim implements `ibdoctor sim`: simulated node roots (and, from
// fabric.go, simulated fabrics) with injected faults, for demos and tests.
package sim

import (
	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
)

// NewCmd builds the `sim` parent command. Subcommands are listed here
// explicitly, one line each.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim <command>",
		Short: "Simulated node roots and fabrics with injected faults (no hardware needed)",
		Example: `  # an 8-GPU H100 node with 8 NDR ports and a RoCE frontend, one port down
  $ ibdoctor sim node --out /tmp/node --fault down:mlx5_3/1
  $ ibdoctor status --root /tmp/node`,
	}
	cmd.AddCommand(
		NewCmdNode(f, nil),
		NewCmdFabric(f, nil),
	)
	return cmd
}
