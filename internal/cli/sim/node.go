package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
)

// NodeOptions are the inputs of `ibdoctor sim node`.
type NodeOptions struct {
	F        *cmdutil.Factory
	Format   cmdutil.Format
	Profile  string
	Host     string
	Faults   []simnode.Fault
	Out      string
	Force    bool
	List     bool
	Live     bool
	Interval time.Duration
	Scenario string
	// Duration bounds --live (simulated time); 0 runs until interrupted.
	Duration time.Duration
	// Sleep, when set, replaces the real-time ticker between live steps,
	// and each step then covers exactly Interval: tests run a scenario
	// instantly and deterministically.
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewCmdNode builds `sim node`; runF replaces the run function in tests.
func NewCmdNode(f *cmdutil.Factory, runF func(*NodeOptions) error) *cobra.Command {
	opts := &NodeOptions{F: f}
	var faults []string
	cmd := &cobra.Command{
		Use:   "node --out DIR [--profile P] [--fault F ...]",
		Short: "Write a simulated node root (sys/, proc/, dev/, cmd/) byte-faithful to the kernel's formats",
		Long: `Write a simulated node root: the sysfs tree of a GPU node with InfiniBand and
RoCE adapters (PCI functions behind PCIe switches, /sys/class/infiniband,
/sys/class/net, GID tables, counters), /proc and /dev entries, and saved tool
outputs under cmd/ (dmesg, ethtool -S). Every other node command reads it with
--root DIR.

Faults are written KIND[:TARGET][=VALUE] and may be repeated; --list shows the
profiles, the fault kinds and the live scenarios. With --live the root keeps
changing (traffic, error bursts, flaps, a width degradation, a counter reset, a
32-bit counter wrap); every file is replaced atomically.`,
		Example: `  # the default 8x H100 + 8x NDR node
  $ ibdoctor sim node --out /tmp/node
  # an A100 node with a degraded link, a downtrained PCIe slot and a saturated counter
  $ ibdoctor sim node --profile a100-hdr --out /tmp/a100 \
      --fault width:mlx5_2/1=2 --fault pcie-width:mlx5_4=8 --fault saturate:mlx5_1/1/symbol_error
  # what can be simulated
  $ ibdoctor sim node --list
  # a root that changes every second, for the agent
  $ ibdoctor sim node --live --out /tmp/live --interval 1s --scenario mixed`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			for _, s := range faults {
				ft, err := simnode.ParseFault(s)
				if err != nil {
					return cmdutil.FlagErrorf("--fault: %v", err)
				}
				opts.Faults = append(opts.Faults, ft)
			}
			if !opts.List && opts.Out == "" {
				return cmdutil.FlagErrorf("--out DIR is required (or --list)")
			}
			if opts.Live && opts.Interval <= 0 {
				return cmdutil.FlagErrorf("--interval must be positive, got %s", opts.Interval)
			}
			if opts.Duration < 0 {
				return cmdutil.FlagErrorf("--duration must not be negative, got %s", opts.Duration)
			}
			if !opts.Live && (opts.Scenario != "" || opts.Duration != 0) {
				return cmdutil.FlagErrorf("--scenario and --duration need --live")
			}
			if opts.Live {
				if _, err := simnode.ScenarioByName(opts.Scenario); err != nil {
					return cmdutil.FlagErrorf("--scenario: %v", err)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return RunNode(opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	fl := cmd.Flags()
	fl.StringVar(&opts.Profile, "profile", simnode.DefaultProfile, "node profile (see --list)")
	fl.StringVar(&opts.Host, "host", simnode.DefaultHost, "host name; seeds GUIDs, MACs, LIDs and addresses")
	fl.StringArrayVar(&faults, "fault", nil, "inject a fault KIND[:TARGET][=VALUE], repeatable (see --list)")
	fl.StringVar(&opts.Out, "out", "", "directory to write the root into (must be empty unless --force)")
	fl.BoolVar(&opts.Force, "force", false, "write into a non-empty directory, replacing its sys/, proc/, dev/ and cmd/")
	fl.BoolVar(&opts.List, "list", false, "list profiles, fault kinds and live scenarios")
	fl.BoolVar(&opts.Live, "live", false, "keep the root changing over time")
	fl.DurationVar(&opts.Interval, "interval", time.Second, "live: time between updates")
	fl.StringVar(&opts.Scenario, "scenario", "", "live: scenario (default mixed; see --list)")
	fl.DurationVar(&opts.Duration, "duration", 0, "live: stop after this much time (default: until interrupted)")
	return cmd
}

// RunNode runs `sim node`.
func RunNode(o *NodeOptions) error {
	if o.List {
		return list(o)
	}
	n, err := simnode.Build(simnode.Options{Profile: o.Profile, Host: o.Host, Faults: o.Faults})
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	if err := prepareOut(o.Out, o.Force); err != nil {
		return cmdutil.CannotRun(err)
	}
	if err := n.Write(o.Out); err != nil {
		return cmdutil.CannotRun(fmt.Errorf("writing %s: %w", o.Out, err))
	}
	if err := summary(o, n); err != nil {
		return err
	}
	if !o.Live {
		return nil
	}
	return live(o, n)
}

// managed are the top-level directories the simulator writes; --force
// replaces exactly these.
var managed = []string{"sys", "proc", "dev", "cmd"}

func prepareOut(dir string, force bool) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return fmt.Errorf("--out %s: %w", dir, err)
	case len(ents) > 0 && !force:
		return fmt.Errorf("--out %s is not empty (%d entries); use --force to replace its sys/, proc/, dev/ and cmd/", dir, len(ents))
	}
	if force {
		for _, m := range managed {
			if err := os.RemoveAll(filepath.Join(dir, m)); err != nil {
				return err
			}
		}
	}
	return nil
}

type nodeSummary struct {
	Root     string          `json:"root"`
	Host     string          `json:"host"`
	Profile  string          `json:"profile"`
	Faults   []simnode.Fault `json:"faults"`
	Files    int             `json:"files"`
	Symlinks int             `json:"symlinks"`
	Devices  []devLine       `json:"devices"`
}

type devLine struct {
	Device    string `json:"device"`
	PCI       string `json:"pci"`
	LinkLayer string `json:"link_layer"`
	State     string `json:"state"`
	Rate      string `json:"rate"`
	NetDev    string `json:"netdev"`
	Present   bool   `json:"present"`
}

func summary(o *NodeOptions, n *simnode.Node) error {
	s := nodeSummary{Root: o.Out, Host: n.Host, Profile: n.Profile, Faults: o.Faults}
	if s.Faults == nil {
		s.Faults = []simnode.Fault{}
	}
	present := map[string]bool{}
	for _, e := range n.Entries() {
		switch e.Kind {
		case simnode.KindFile:
			s.Files++
		case simnode.KindSymlink:
			s.Symlinks++
			if dev, ok := strings.CutPrefix(e.Path, layout.ClassInfiniband+"/"); ok {
				present[dev] = true
			}
		}
	}
	for _, d := range n.Devices {
		p := d.Ports[0]
		nd := ""
		if p.NetDev != nil {
			nd = p.NetDev.Name
		}
		s.Devices = append(s.Devices, devLine{
			Device: d.Name, PCI: string(d.PCI.Addr), LinkLayer: p.LinkLayer.Short(),
			State: p.State.String() + "/" + p.Phys.String(), Rate: p.Rate().Sysfs(), NetDev: nd, Present: present[d.Name],
		})
	}
	if o.Format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(o.F.Out, s)
	}
	fmt.Fprintf(o.F.Out, "wrote %s: profile %s, host %s, %d files, %d symlinks\n", s.Root, s.Profile, s.Host, s.Files, s.Symlinks)
	for _, f := range o.Faults {
		fmt.Fprintf(o.F.Out, "  fault %s\n", f)
	}
	tw := tabwriter.NewWriter(o.F.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tPCI\tLINK\tSTATE\tRATE\tNETDEV")
	for _, d := range s.Devices {
		state, rate := d.State, d.Rate
		if !d.Present {
			state, rate = "absent", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", d.Device, d.PCI, d.LinkLayer, state, rate, d.NetDev)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(o.F.Out, "read it with: ibdoctor status --root %s\n", s.Root)
	return nil
}

func list(o *NodeOptions) error {
	scen := simnode.Scenarios()
	if o.Format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(o.F.Out, struct {
			Profiles  []simnode.Profile   `json:"profiles"`
			Faults    []simnode.FaultKind `json:"faults"`
			Scenarios []simnode.Scenario  `json:"scenarios"`
		}{simnode.Profiles(), simnode.Faults(), scen})
	}
	w := o.F.Out
	fmt.Fprintln(w, "PROFILES (--profile)")
	for _, p := range simnode.Profiles() {
		def := ""
		if p.Name == simnode.DefaultProfile {
			def = " (default)"
		}
		fmt.Fprintf(w, "  %s%s\n      %s\n", p.Name, def, p.Description)
	}
	fmt.Fprintln(w, "\nFAULTS (--fault KIND[:TARGET][=VALUE], repeatable)")
	for _, k := range simnode.Faults() {
		fmt.Fprintf(w, "  %s\n      %s\n      e.g. --fault %s\n", k.Syntax, k.Description, k.Example)
	}
	fmt.Fprintln(w, "\nLIVE SCENARIOS (--live --scenario S)")
	for _, s := range scen {
		fmt.Fprintf(w, "  %s\n      %s\n", s.Name, s.Description)
	}
	return nil
}

func live(o *NodeOptions, n *simnode.Node) error {
	sc, err := simnode.ScenarioByName(o.Scenario)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// wait blocks until the next step and says how much simulated time it
	// covers: with real time, the wall-clock time since the last step (so
	// rates a reader computes from its own clock match the traffic even
	// when writing lags); with an injected Sleep, exactly the interval.
	var wait func() (time.Duration, error)
	if o.Sleep != nil {
		wait = func() (time.Duration, error) { return o.Interval, o.Sleep(ctx, o.Interval) }
	} else {
		tick := time.NewTicker(o.Interval)
		defer tick.Stop()
		last := time.Now()
		wait = func() (time.Duration, error) {
			select {
			case <-ctx.Done():
				return 0, ctx.Err()
			case now := <-tick.C:
				dt := now.Sub(last)
				last = now
				return dt, nil
			}
		}
	}
	l := simnode.NewLive(n, sc)
	fmt.Fprintf(o.F.ErrOut, "live: scenario %s, every %s; interrupt to stop\n", sc.Name, o.Interval)
	for o.Duration == 0 || l.Elapsed < o.Duration {
		dt, err := wait()
		if err != nil {
			break
		}
		if o.Duration > 0 {
			dt = min(dt, o.Duration-l.Elapsed)
		}
		for _, msg := range l.Step(dt) {
			fmt.Fprintf(o.F.ErrOut, "live: %s\n", msg)
		}
		if _, err := n.Update(o.Out); err != nil {
			return cmdutil.CannotRun(fmt.Errorf("updating %s: %w", o.Out, err))
		}
	}
	fmt.Fprintf(o.F.ErrOut, "live: stopped after %s of simulated time\n", l.Elapsed.Round(time.Millisecond))
	return nil
}
