package sim

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	simfabric "github.com/ibdoctor/ibdoctor/internal/sim/fabric"
)

// FabricOptions are the inputs of `ibdoctor sim fabric`.
type FabricOptions struct {
	Format cmdutil.Format
	F      *cmdutil.Factory
	Spec   simfabric.Spec
	Faults []string
	Out    string
}

// NewCmdFabric builds `sim fabric`; runF replaces the run function in
// tests.
func NewCmdFabric(f *cmdutil.Factory, runF func(*FabricOptions) error) *cobra.Command {
	o := &FabricOptions{F: f}
	cmd := &cobra.Command{
		Use:   "fabric --out DIR",
		Short: "Write an ibsim net file of a fat-tree with injected faults, and its cabling plan",
		Long: `Write DIR/net (an ibsim net file: the fabric as built, faults included) and
DIR/plan (the same fabric as designed, in the same ibnetdiscover grammar),
for ibsim, OpenSM and 'ibdoctor fabric'. Links run 4X QDR unless a fault
says otherwise; ports are numbered hosts first, then uplinks.

Faults (repeat --fault):
  missing:leaf1[1]        the cable at that port is not installed
  swap:leaf2[1],leaf2[2]  the cables of two ports swapped
  narrow:leaf3[4]         the link trains at 1X (w=1)
  slow:h8                 the host's link runs DDR instead of QDR (s=2)
  dupguid:h5,h6           both hosts carry the same GUID (run ibsim -I)`,
		Example: `  $ ibdoctor sim fabric --spines 2 --leaves 4 --hosts-per-leaf 2 --fault narrow:leaf3[4] --out /tmp/fab
  $ mkfifo /tmp/fab/console; sleep infinity > /tmp/fab/console &
  $ IBSIM_SOCKNAME=fab ibsim -s /tmp/fab/net < /tmp/fab/console &
  $ IBSIM_SOCKNAME=fab ibsim-run opensm -o -R updn
  $ ibdoctor fabric check --ibsim fab --plan /tmp/fab/plan`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if o.Out == "" {
				return cmdutil.FlagErrorf("--out is required")
			}
			for _, s := range o.Faults {
				ft, err := simfabric.ParseFault(s)
				if err != nil {
					return cmdutil.FlagErrorf("--fault: %v", err)
				}
				o.Spec.Faults = append(o.Spec.Faults, ft)
			}
			if runF != nil {
				return runF(o)
			}
			return runFabric(o)
		},
	}
	cmd.Flags().IntVar(&o.Spec.Spines, "spines", 2, "spine switches (core switches with --levels 3)")
	cmd.Flags().IntVar(&o.Spec.Leaves, "leaves", 4, "leaf switches")
	cmd.Flags().IntVar(&o.Spec.HostsPerLeaf, "hosts-per-leaf", 2, "hosts (single-port HCAs) per leaf")
	cmd.Flags().IntVar(&o.Spec.Levels, "levels", 2, "2 (leaf-spine) or 3 (pods of --pod-leaves leaves with their own aggregation switches)")
	cmd.Flags().IntVar(&o.Spec.PodLeaves, "pod-leaves", 2, "leaves per pod with --levels 3")
	cmd.Flags().StringArrayVar(&o.Faults, "fault", nil, "inject a fault (see above); repeatable")
	cmd.Flags().StringVar(&o.Out, "out", "", "directory to write net and plan into")
	cmdutil.AddFormatFlag(cmd, &o.Format)
	return cmd
}

func runFabric(o *FabricOptions) error {
	fab, err := simfabric.Build(o.Spec)
	if err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	g := fab.Generate()
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return cmdutil.CannotRun(err)
	}
	for name, b := range map[string][]byte{"net": g.Net, "plan": g.Plan} {
		if err := os.WriteFile(filepath.Join(o.Out, name), b, 0o644); err != nil {
			return cmdutil.CannotRun(err)
		}
	}
	if o.Format == cmdutil.FormatJSON {
		faults := make([]string, len(o.Faults))
		copy(faults, o.Faults)
		return cmdutil.WriteJSON(o.F.Out, struct {
			Net                 string   `json:"net"`
			Plan                string   `json:"plan"`
			Faults              []string `json:"faults"`
			IbsimNeedsDuplicate bool     `json:"ibsim_needs_I"`
		}{filepath.Join(o.Out, "net"), filepath.Join(o.Out, "plan"), faults, g.IgnoreDuplicates})
	}
	fmt.Fprintf(o.F.Out, "wrote %s (ibsim net file, %d faults) and %s (cabling plan)\n",
		filepath.Join(o.Out, "net"), len(o.Spec.Faults), filepath.Join(o.Out, "plan"))
	if g.IgnoreDuplicates {
		fmt.Fprintln(o.F.Out, "the net file has duplicate GUIDs: start ibsim with -I")
	}
	return nil
}
