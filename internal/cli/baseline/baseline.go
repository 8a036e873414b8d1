// Package baseline implements `ibdoctor baseline`: the node's current state
// written as a reviewed, hand-editable expectation file.
package baseline

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/parse/expect"
)

// Options are the inputs of `ibdoctor baseline`.
type Options struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Root   string
	Out    string
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Write the node's current RDMA state as an expectation file (YAML)",
		Long: `Write the node's current state — devices, ports, link layer, state, rate,
firmware, PCIe generation and width — as a YAML expectation to review and
keep (counter values are not part of it). 'ibdoctor check --expect FILE'
then reports every deviation. Ports that are not ACTIVE now are recorded as
they are and listed on stderr: edit them if they must be up.`,
		Example: `  # on a known-good node
  $ ibdoctor baseline > /etc/ibdoctor/expect.yaml
  $ ibdoctor check --expect /etc/ibdoctor/expect.yaml
  # the same as JSON, for configuration management (--expect reads it too)
  $ ibdoctor baseline --format json > expect.json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return run(context.Background(), opts)
		},
	}
	cmdutil.AddRootFlag(cmd, &opts.Root)
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmd.Flags().StringVar(&opts.Out, "out", "", "write to this file instead of stdout")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	snap, err := cmdutil.LoadSnapshot(ctx, o.F, o.Root)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	if len(snap.Devices) == 0 {
		return cmdutil.CannotRun(fmt.Errorf("no RDMA devices under %s: nothing to baseline", o.Root))
	}
	e, notes := expect.FromSnapshot(snap)
	w := o.F.Out
	if o.Out != "" {
		f, err := os.Create(o.Out)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		defer f.Close()
		w = f
	}
	// "text" is the commented YAML; JSON carries the same keys and is
	// read by --expect too (JSON is YAML).
	write := func() error { return expect.Write(w, e, o.F.Now(), "ibdoctor baseline "+o.F.Version) }
	if o.Format == cmdutil.FormatJSON {
		write = func() error { return expect.WriteJSON(w, e) }
	}
	if err := write(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(o.F.ErrOut, "review: %s\n", n)
	}
	for _, g := range snap.Gaps {
		fmt.Fprintf(o.F.ErrOut, "unreadable (left out): %s: %s\n", g.Path, g.Err)
	}
	return nil
}
