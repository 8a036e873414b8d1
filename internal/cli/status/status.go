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
	// FabricFrom is a saved fabric collection naming each port's peer.
	FabricFrom string
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
verdict with the finding IDs that explain it.

Every port shows its GUID (0x + 16 hex digits, as ibnetdiscover prints
it). Where fabric data is at hand — a saved collection given with
--fabric-from, or a saved 'ibnetdiscover -p' output in the root
(cmd/ibnetdiscover-p.txt) — each InfiniBand port also shows the switch and
port at the other end of its cable (PEER, "leaf2[14]").`,
		Example: `  # this node
  $ ibdoctor status
  # a support bundle from another node, as JSON
  $ ibdoctor status --root gpu017.tar.gz --format json
  # judged against a reviewed baseline
  $ ibdoctor status --expect /etc/ibdoctor/expect.yaml
  # with each port's switch and port, from a saved fabric collection
  $ ibdoctor status --fabric-from fabric.tar.gz`,
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
	cmd.Flags().StringVar(&opts.FabricFrom, "fabric-from", "", "saved fabric collection (DIR or FILE.tar.gz from 'ibdoctor fabric collect') that names each port's peer switch and port")
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
	fs := noderules.Check(snap, exp)
	st := report.NewStatus(snap, fs)
	if o.FabricFrom != "" {
		peers, err := peersFromFabric(o.FabricFrom)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		st.SetPeers(peers)
	} else if o.Root != "/" {
		// A bundle or a saved root may hold the node's own sweep.
		peers, gap := peersFromRoot(o.Root)
		if gap != nil {
			snap.Gaps = append(snap.Gaps, *gap)
			st.Gaps = append(st.Gaps, *gap)
		}
		st.SetPeers(peers)
	}
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
