package fabric

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// CollectOptions are the inputs of `fabric collect`.
type CollectOptions struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Source Source
	Out    string
}

// NewCmdCollect builds `fabric collect`.
func NewCmdCollect(f *cmdutil.Factory, runF func(*CollectOptions) error) *cobra.Command {
	o := &CollectOptions{F: f}
	cmd := &cobra.Command{
		Use:   "collect --out DIR|FILE.tar.gz",
		Short: "Save the raw outputs of the fabric tools for offline analysis",
		Long: `Run ibnetdiscover, iblinkinfo, ibqueryerrors, dump_fts and sminfo and save
their outputs (NAME.txt, NAME.stderr) and meta.json into a directory or a
.tar.gz. Every fabric command reads it back with --from.

The tools run concurrently (--parallel): dump_fts beside ibnetdiscover, then
iblinkinfo and ibqueryerrors reuse ibnetdiscover's discovery (--load-cache).
Each tool's start, duration and output size are printed (and kept in
meta.json).`,
		Example: `  $ ibdoctor fabric collect --out fabric-$(date +%F).tar.gz
  $ ibdoctor fabric collect --out /tmp/fabric --ca mlx5_0 --port 1`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if o.Out == "" {
				return cmdutil.FlagErrorf("--out is required")
			}
			if runF != nil {
				return runF(o)
			}
			return runCollect(context.Background(), o)
		},
	}
	addSourceFlags(cmd, &o.Source)
	cmdutil.AddFormatFlag(cmd, &o.Format)
	cmd.Flags().StringVar(&o.Out, "out", "", "where to save: a directory, or a file ending in .tar.gz")
	return cmd
}

func runCollect(ctx context.Context, o *CollectOptions) error {
	raw, err := o.Source.load(ctx, o.F)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	if host, err := os.Hostname(); err == nil && o.Source.From == "" {
		raw.Host = host
	}
	if strings.HasSuffix(o.Out, ".tar.gz") || strings.HasSuffix(o.Out, ".tgz") {
		fh, err := os.Create(o.Out)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		if err := fabric.WriteTarGz(raw, fh); err != nil {
			fh.Close()
			return cmdutil.CannotRun(fmt.Errorf("%s: %w", o.Out, err))
		}
		if err := fh.Close(); err != nil {
			return cmdutil.CannotRun(err)
		}
	} else if err := fabric.WriteDir(raw, o.Out); err != nil {
		return cmdutil.CannotRun(err)
	}
	type saved struct {
		Name       string  `json:"name"`
		StartMS    float64 `json:"start_ms"`
		DurationMS float64 `json:"duration_ms"`
		Bytes      int     `json:"bytes"`
		Error      string  `json:"error,omitempty"`
	}
	summary := struct {
		Out     string  `json:"out"`
		Saved   int     `json:"saved"`
		WallMS  float64 `json:"wall_ms"`
		Outputs []saved `json:"outputs"`
	}{Out: o.Out, WallMS: raw.WallMS, Outputs: []saved{}}
	for _, out := range raw.Outputs {
		if out.Err == "" {
			summary.Saved++
		}
		summary.Outputs = append(summary.Outputs, saved{Name: out.Name, StartMS: out.StartMS, DurationMS: out.DurationMS, Bytes: len(out.Stdout), Error: out.Err})
	}
	ok := summary.Saved
	if o.Format == cmdutil.FormatJSON {
		if err := cmdutil.WriteJSON(o.F.Out, summary); err != nil {
			return err
		}
	} else {
		// Per tool: when it started (they run concurrently), how long it
		// took, what it printed.
		fmt.Fprintf(o.F.Out, "  %-14s %9s %9s %12s  %s\n", "tool", "start", "took", "bytes", "status")
		for _, out := range raw.Outputs {
			status := "ok"
			if out.Err != "" {
				status = out.Err
			}
			fmt.Fprintf(o.F.Out, "  %-14s %7.1f s %7.1f s %12d  %s\n", out.Name, out.StartMS/1000, out.DurationMS/1000, len(out.Stdout), status)
		}
		fmt.Fprintf(o.F.Out, "saved %d of %d tool outputs to %s in %.1f s\n", ok, len(raw.Outputs), o.Out, raw.WallMS/1000)
	}
	if ok == 0 {
		return cmdutil.CannotRun(fmt.Errorf("no tool could run"))
	}
	return nil
}
