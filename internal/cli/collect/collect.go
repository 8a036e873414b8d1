// Package collect implements `ibdoctor collect`: a support bundle of the
// node's RDMA-relevant sysfs subset, analysed anywhere with --root.
package collect

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/source/bundle"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// Options are the inputs of `ibdoctor collect`.
type Options struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Root   string
	// Out is the bundle file; "-" writes it to stdout.
	Out   string
	Force bool
	// NoCommands skips running tools (bundle.NodeCommands and Commands).
	NoCommands bool
	// Commands are the tools whose outputs the bundle saves under cmd/
	// (bundle.Command); they run only when Root is the live "/", since
	// they describe the machine that runs them, not a copied root.
	Commands []bundle.Command
	// PIDs are job processes whose limits, cmdline and NCCL/RDMA
	// environment variables are saved (for the doctor's checks).
	PIDs []int
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "collect --out FILE.tar.gz",
		Short: "Write a support bundle of this node's RDMA state",
		Long: `Write a support bundle: the sysfs subset that diagnoses the node's RDMA
network (RDMA devices with ports, counters, hw_counters and GIDs; their PCI
functions and every PCI bridge above them; GPUs; net devices), kept as real
files and relative symlinks, plus proc/sys/kernel/{hostname,osrelease},
proc/modules, sys/class/infiniband_verbs, dev/infiniband (as empty marker
files) and meta.json (host, time, version, what was collected, every file
that could not be read). On the live root (--root /) it also saves the
outputs of dmesg, ethtool -S for each RoCE netdev and nvidia-smi topo -m
under cmd/, each with a timeout; a missing tool is noted, not fatal.
Unreadable files are recorded, not fatal.

Every node command reads a bundle with --root FILE.tar.gz, on any machine.
The bundle is deterministic: the same node state gives the same bytes.`,
		Example: `  # on the broken node
  $ sudo ibdoctor collect --out gpu017.tar.gz
  # anywhere else
  $ ibdoctor status --root gpu017.tar.gz
  $ ibdoctor check --root gpu017.tar.gz --format json
  # stream it over ssh
  $ ssh gpu017 ibdoctor collect --out - > gpu017.tar.gz`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if opts.Out == "" {
				return cmdutil.FlagErrorf("--out is required (a file name ending in .tar.gz, or - for stdout)")
			}
			if opts.Out != "-" && !strings.HasSuffix(opts.Out, ".tar.gz") && !strings.HasSuffix(opts.Out, ".tgz") {
				return cmdutil.FlagErrorf("--out %q: name the bundle FILE.tar.gz so --root recognises it", opts.Out)
			}
			if runF != nil {
				return runF(opts)
			}
			return run(context.Background(), opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmdutil.AddRootFlag(cmd, &opts.Root)
	cmd.Flags().StringVar(&opts.Out, "out", "", "bundle file to write (FILE.tar.gz, or - for stdout)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite --out if it exists")
	cmd.Flags().IntSliceVar(&opts.PIDs, "pid", nil, "also save proc/<pid>/limits, cmdline and the NCCL_/UCX_/CUDA_ environment of this job (repeatable)")
	cmd.Flags().BoolVar(&opts.NoCommands, "no-commands", false, "do not run dmesg, ethtool -S and nvidia-smi topo -m (only with --root /)")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	rt, err := rootfs.Open(o.Root)
	if err != nil {
		return cmdutil.CannotRun(fmt.Errorf("cannot open root: %w", err))
	}
	defer rt.Close()
	bo := bundle.Options{Source: o.Root, Now: o.F.Now, Version: o.F.Version, PIDs: o.PIDs}
	if filepath.Clean(o.Root) == "/" && !o.NoCommands {
		bo.Commands, bo.NodeCommands = o.Commands, true
	}
	var meta *bundle.Meta
	size := int64(-1)
	if o.Out == "-" {
		cw := &countWriter{w: o.F.Out}
		if meta, err = bundle.Collect(ctx, rt.FS(), cw, bo); err != nil {
			return cmdutil.CannotRun(err)
		}
		size = cw.n
	} else {
		if meta, size, err = writeFile(ctx, o, rt, bo); err != nil {
			return cmdutil.CannotRun(err)
		}
	}
	// With the bundle on stdout, the summary goes to stderr.
	w := o.F.Out
	if o.Out == "-" {
		w = o.F.ErrOut
	}
	if o.Format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(w, struct {
			Out   string       `json:"out"`
			Bytes int64        `json:"bytes"`
			Meta  *bundle.Meta `json:"meta"`
		}{o.Out, size, meta})
	}
	return summary(w, o.Out, size, meta)
}

// writeFile writes the bundle next to its destination and renames it into
// place, so a failed or interrupted collect leaves no half bundle.
func writeFile(ctx context.Context, o *Options, rt *rootfs.Root, bo bundle.Options) (*bundle.Meta, int64, error) {
	if _, err := os.Lstat(o.Out); err == nil && !o.Force {
		return nil, 0, fmt.Errorf("%s exists (use --force to overwrite)", o.Out)
	}
	tmp, err := os.CreateTemp(filepath.Dir(o.Out), ".ibdoctor-collect-*.tmp")
	if err != nil {
		return nil, 0, err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	cw := &countWriter{w: tmp}
	meta, err := bundle.Collect(ctx, rt.FS(), cw, bo)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600) // a bundle describes the node: keep it private
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.Out)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("writing %s: %w", o.Out, err)
	}
	return meta, cw.n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func summary(w io.Writer, out string, size int64, m *bundle.Meta) error {
	c := m.Collected
	name := out
	if out == "-" {
		name = "bundle to stdout"
	}
	fmt.Fprintf(w, "wrote %s (%s) for host %s\n", name, human(size), orUnknown(m.Host))
	fmt.Fprintf(w, "  %s, %s, %s, %s, %s; %s, %s\n",
		count(c.Devices, "RDMA device"), count(c.Ports, "port"), count(c.PCI, "PCI function"), count(c.GPUs, "GPU"),
		count(c.NetDevs, "net device"), count(c.Files, "file"), count(c.Symlinks, "symlink"))
	for _, r := range m.Commands {
		status := "ok"
		if r.Error != "" {
			status = r.Error
		}
		fmt.Fprintf(w, "  cmd %s: %s\n", r.Name, status)
	}
	if len(m.Errors) > 0 {
		fmt.Fprintf(w, "%s could not be read (recorded in meta.json; those the analysis uses show as gaps):\n", count(len(m.Errors), "file"))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, e := range m.Errors {
			fmt.Fprintf(tw, "  %s\t%s\n", e.Path, e.Error)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if c.Devices == 0 {
		fmt.Fprintln(w, "note: no RDMA devices found (sys/class/infiniband is empty or missing)")
	}
	return nil
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

func human(n int64) string {
	switch {
	case n < 0:
		return "size unknown"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
