// Package baseline implements `ibdoctor baseline`: the node's current state
// written as a reviewed, hand-editable expectation file.
package baseline

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/expect"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

// Options are the inputs of `ibdoctor baseline`.
type Options struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Root   string
	Out    string
	// Accept lists finding IDs whose current state the baseline records
	// as expected.
	Accept []string
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
then reports every deviation. Ports that are not ACTIVE now (and that check
does not flag) are recorded as they are and listed on stderr: edit them if
they must be up.

A baseline does not bless a fault. Whatever 'ibdoctor check' flags on the
node — a 2X link, a slower lane speed, a port down while its siblings are
up, firmware unlike the other HCAs of its model, a PCIe link below what both
ends support — is written as the healthy expectation where one is known
(the rate of the model's other ports, ACTIVE/LinkUp, the PCIe maximum) and
left out otherwise (firmware: check then compares it with the model's other
HCAs). Every such finding is listed on stderr and the exit code is 1; the
file is still written. --accept ID,... records the current state for those
finding IDs instead (a port that is narrow by design) and lists them too.

Exit code: 0 written, 1 written with findings left out, 3 cannot run.`,
		Example: `  # on a known-good node
  $ ibdoctor baseline > /etc/ibdoctor/expect.yaml
  $ ibdoctor check --expect /etc/ibdoctor/expect.yaml
  # a node whose mlx5_3 is an uncabled spare that check flags
  $ ibdoctor baseline --accept port.polling > expect.yaml
  # the same as JSON, for configuration management (--expect reads it too)
  $ ibdoctor baseline --format json > expect.json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			for _, id := range opts.Accept {
				if _, ok := catalog.Default.Lookup(id); !ok {
					return cmdutil.FlagErrorf("--accept: unknown finding ID %q (ibdoctor rules lists them)", id)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return run(context.Background(), opts)
		},
	}
	cmdutil.AddRootFlag(cmd, &opts.Root)
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmd.Flags().StringVar(&opts.Out, "out", "", "write to this file instead of stdout")
	cmd.Flags().StringSliceVar(&opts.Accept, "accept", nil, "finding IDs whose current state the baseline records as expected (comma-separated)")
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
	left, accepted, stale := screen(e, snap, noderules.Check(snap, nil), o.Accept)
	notes = slices.DeleteFunc(notes, func(n string) bool {
		return slices.ContainsFunc(stale, func(p string) bool { return strings.HasPrefix(n, p) })
	})
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
	writeList(o.F.ErrOut, "accepted (recorded as it is now, by --accept)", accepted)
	writeList(o.F.ErrOut, "not recorded: 'ibdoctor check' flags it (fix it, or record it with --accept ID)", left)
	if len(left) > 0 {
		return cmdutil.Exit(1)
	}
	return nil
}

func writeList(w io.Writer, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// screen keeps the faults check flags on the node out of the expectation:
// a flagged fact is replaced by the healthy value where the node rules know
// it and left out otherwise, unless its ID is accepted. It returns one line
// per finding left out and per finding accepted. Findings about things the
// baseline does not record (counters) are neither: check reports them
// whatever the file says. stale are the prefixes of FromSnapshot's review
// notes that no longer hold (a port now recorded as ACTIVE).
func screen(e *expect.Expectation, s *snapshot.Snapshot, fs []finding.Finding, accept []string) (left, accepted, stale []string) {
	for _, f := range fs {
		if f.Severity != finding.Critical && f.Severity != finding.Warning {
			continue
		}
		d := entry(e, f.Subject.Device)
		var pe *expect.PortEntry
		if d != nil && f.Subject.Port > 0 {
			for i := range d.Ports {
				if d.Ports[i].Port == f.Subject.Port {
					pe = &d.Ports[i]
				}
			}
		}
		line := fmt.Sprintf("%s %s: %s", f.ID, subject(f.Subject), f.Summary)
		var instead string
		switch f.ID {
		case "port.width_degraded", "port.speed_degraded", "port.rate_below_expected":
			if pe == nil {
				continue
			}
			if slices.Contains(accept, f.ID) {
				break
			}
			pe.Rate = nil
			instead = "rate left out: check compares it with the other ports of the model"
			if r, ok := noderules.HealthyRate(s, f.Subject.Device, f.Subject.Port); ok {
				pe.Rate = &r
				instead = "recorded rate: " + r.Sysfs()
			}
		case "port.down", "port.polling", "port.disabled", "port.init_no_sm":
			if pe == nil {
				continue
			}
			if slices.Contains(accept, f.ID) {
				break
			}
			active, up := ib.StateActive, ib.PhysLinkUp
			pe.State, pe.PhysState = &active, &up
			instead = "recorded state: ACTIVE, phys_state: LinkUp"
			stale = append(stale, fmt.Sprintf("%s port %d is ", f.Subject.Device, f.Subject.Port))
		case "port.fw_mismatch":
			if d == nil {
				continue
			}
			if slices.Contains(accept, f.ID) {
				break
			}
			d.FWVersion = nil
			instead = "fw_ver left out: check compares it with the other HCAs of the model"
		case "pcie.link_degraded":
			if d == nil {
				continue // a GPU: the baseline does not record GPUs
			}
			if slices.Contains(accept, f.ID) {
				break
			}
			d.PCIe.Speed, d.PCIe.Width = noderules.HealthyPCIe(s, f.Subject.Device)
			instead = "recorded pcie: the maximum both ends support"
			stale = append(stale, f.Subject.Device+": PCIe link recorded below")
		case "port.missing":
			// A function without an RDMA device cannot be named in the
			// file, and check --expect judges only what the file names.
			if slices.Contains(accept, f.ID) {
				break
			}
			instead = "a device that is not there cannot be recorded; check --expect judges only the devices the file names"
		default:
			continue
		}
		if instead == "" {
			accepted = append(accepted, line)
			continue
		}
		left = append(left, line+" — "+instead)
	}
	return left, accepted, stale
}

func entry(e *expect.Expectation, dev string) *expect.DeviceEntry {
	if dev == "" {
		return nil
	}
	for i := range e.Devices {
		if e.Devices[i].Name == dev {
			return &e.Devices[i]
		}
	}
	return nil
}

func subject(s finding.Subject) string {
	var parts []string
	for _, p := range []string{s.Device, s.PCI} {
		if p != "" {
			parts = append(parts, p)
			break
		}
	}
	if s.Port > 0 {
		parts = append(parts, fmt.Sprintf("port %d", s.Port))
	}
	if len(parts) == 0 {
		return s.Host
	}
	return strings.Join(parts, " ")
}
