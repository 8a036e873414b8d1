// Package rules implements `ibdoctor rules`: the finding catalogue.
package rules

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// Options are the inputs of `ibdoctor rules`.
type Options struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Area   string
	ID     string
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "rules [ID]",
		Short: "List every finding ID with its severity, thresholds and meaning",
		Example: `  # the whole catalogue
  $ ibdoctor rules
  # one finding, with causes and remedies
  $ ibdoctor rules port.width_degraded
  # machine-readable
  $ ibdoctor rules --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
				if _, ok := catalog.Default.Lookup(opts.ID); !ok {
					return cmdutil.FlagErrorf("unknown finding ID %q (see 'ibdoctor rules')", opts.ID)
				}
			}
			if opts.Area != "" && !knownArea(opts.Area) {
				return cmdutil.FlagErrorf("unknown area %q for --area (one of: %s)", opts.Area, strings.Join(areas(), ", "))
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmd.Flags().StringVar(&opts.Area, "area", "", "only this area ("+strings.Join(areas(), ", ")+")")
	return cmd
}

// areas are the areas of the catalogue, sorted.
func areas() []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range catalog.Default.All() {
		if !seen[m.Area] {
			seen[m.Area] = true
			out = append(out, m.Area)
		}
	}
	sort.Strings(out)
	return out
}

func knownArea(a string) bool {
	for _, x := range areas() {
		if x == a {
			return true
		}
	}
	return false
}

func run(o *Options) error {
	var metas []finding.Meta
	for _, m := range catalog.Default.All() {
		if (o.Area == "" || m.Area == o.Area) && (o.ID == "" || m.ID == o.ID) {
			metas = append(metas, m)
		}
	}
	counters := o.ID == "" && (o.Area == "" || o.Area == "node" || o.Area == "fabric")
	if o.Format == cmdutil.FormatJSON {
		doc := struct {
			Rules []finding.Meta `json:"rules"`
			// PortCounters is the IBTA error counter table the node
			// rules, the agent and fabric check judge with.
			PortCounters []limits.Counter `json:"port_counters,omitempty"`
		}{Rules: metas}
		if counters {
			doc.PortCounters = limits.Counters
		}
		return cmdutil.WriteJSON(o.F.Out, doc)
	}
	if o.ID != "" {
		m := metas[0]
		fmt.Fprintf(o.F.Out, "%s  (%s, area %s)\n  %s\n\n%s\n", m.ID, m.Severity, m.Area, m.Title, wrap(m.Meaning, 78))
		for _, t := range m.Thresholds {
			fmt.Fprintf(o.F.Out, "\nthreshold %s = %s: %s", t.Name, t.Default, t.Meaning)
		}
		fmt.Fprintln(o.F.Out, "\n\nlikely causes:")
		for _, c := range m.Causes {
			fmt.Fprintf(o.F.Out, "  - %s\n", c)
		}
		fmt.Fprintln(o.F.Out, "remedy:")
		for _, r := range m.Remedy {
			fmt.Fprintf(o.F.Out, "  - %s\n", r)
		}
		return nil
	}
	tw := tabwriter.NewWriter(o.F.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tTHRESHOLDS\tMEANING")
	for _, m := range metas {
		var th []string
		for _, t := range m.Thresholds {
			th = append(th, t.Name+"="+t.Default)
		}
		ths := strings.Join(th, ",")
		if ths == "" {
			ths = "-"
		} else if r := []rune(ths); len(r) > 40 {
			// The full list is in 'ibdoctor rules ID'.
			ths = string(r[:39]) + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, m.Severity, ths, m.Title)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if counters {
		return writeCounters(o.F.Out)
	}
	return nil
}

// writeCounters prints the IBTA error counter table: the values the node
// rules, the agent's defaults and fabric check judge with.
func writeCounters(w io.Writer) error {
	fmt.Fprintln(w, "\nIBTA port error counters: status, check and doctor warn on the total since the counters")
	fmt.Fprintln(w, "were last cleared, fabric check on the same total (or growth by it over --baseline), the")
	fmt.Fprintln(w, "agent on the rate over its window (agent --config overrides the rates):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COUNTER\tPMA\tTOTAL\tAGENT PER MIN\tFINDINGS")
	for _, c := range limits.Counters {
		per := "-"
		if c.PerMin > 0 {
			per = limits.Float(c.PerMin)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s, fabric.link_errors\n", c.Sysfs, c.PMA, limits.Uint(c.Total), per, c.NodeID)
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", "port_xmit_wait", "PortXmitWait", limits.Uint(limits.XmitWaitTicks), "-", "fabric.congestion (the agent: port.congestion)")
	return tw.Flush()
}

func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
