// Package fabric implements `ibdoctor fabric`: subnet-wide collection,
// checks, cabling diff against a plan and hop-by-hop paths from the
// forwarding tables.
package fabric

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/job"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
	"github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// Source are the flags every fabric command shares: where the data comes
// from.
type Source struct {
	// From is a saved collection (DIR or FILE.tar.gz); empty = live.
	From    string
	CA      string
	Port    int
	Timeout time.Duration
	// IBSim runs the tools against an ibsim instance with this socket name
	// (LD_PRELOAD of libumad2sim.so, IBSIM_SOCKNAME).
	IBSim string
	// Parallel bounds the tools running at once.
	Parallel int
	// QoS also reads the SL-to-VL and VL arbitration tables.
	QoS bool
	// PathSL also reads the SL of every CA-to-CA path (implies QoS).
	PathSL bool
	// MTU also reads the MTUs of every CA link's two ends.
	MTU bool
}

func addSourceFlags(cmd *cobra.Command, s *Source) {
	cmd.Flags().StringVar(&s.From, "from", "", "read a saved collection (DIR or FILE.tar.gz from 'ibdoctor fabric collect') instead of querying the fabric")
	cmd.Flags().StringVarP(&s.CA, "ca", "C", "", "local HCA to send from (passed to the tools as -C)")
	cmd.Flags().IntVarP(&s.Port, "port", "P", 0, "local HCA port to send from (-P)")
	cmd.Flags().DurationVar(&s.Timeout, "timeout", 60*time.Second, "time limit of each tool run")
	cmd.Flags().IntVar(&s.Parallel, "parallel", 4, "tools run at once while collecting (1: one after another)")
	cmd.Flags().BoolVar(&s.QoS, "qos", false, "also read every linked port's SL-to-VL mapping and VL arbitration tables (smpquery sl2vl/vlarb: two runs per port)")
	cmd.Flags().BoolVar(&s.PathSL, "path-sl", false, "also ask the SA for the SL of every CA-to-CA path (saquery --src-to-dst, one run per pair, fabrics up to 64 CA ports; implies --qos) so the credit-loop check models virtual lanes")
	cmd.Flags().BoolVar(&s.MTU, "mtu", false, "also read the MTUs of every linked CA port and of the switch port at its other end (smpquery portinfo: two runs per CA port) so the MTU check can name a host link below the fabric's MTU")
	cmd.Flags().StringVar(&s.IBSim, "ibsim", "", "query a simulated fabric: the ibsim socket name (IBSIM_SOCKNAME; preloads libumad2sim.so)")
}

func (s *Source) collectOptions(f *cmdutil.Factory) (fabric.CollectOptions, error) {
	o := fabric.CollectOptions{CA: s.CA, Port: s.Port, Timeout: s.Timeout, Now: f.Now, Parallel: s.Parallel, QoS: s.QoS || s.PathSL, PathSL: s.PathSL, MTU: s.MTU}
	if s.IBSim != "" {
		env, err := fabric.IBSimEnv(s.IBSim)
		if err != nil {
			return o, err
		}
		o.Env = env
	}
	return o, o.Validate()
}

// load returns the raw collection: saved, or collected live.
func (s *Source) load(ctx context.Context, f *cmdutil.Factory) (*fabricmodel.Raw, error) {
	if s.From != "" && s.IBSim != "" {
		// A saved collection is never queried: --ibsim would be ignored
		// and the verdict would not be about the simulated fabric.
		return nil, fmt.Errorf("--from and --ibsim exclude each other: --from reads a saved collection, --ibsim queries a simulated fabric")
	}
	if s.From != "" {
		return fabric.ReadFrom(s.From)
	}
	o, err := s.collectOptions(f)
	if err != nil {
		return nil, err
	}
	if s.IBSim != "" {
		// libumad2sim.so leaves a sys-<pid> tree in the working directory
		// of every tool it runs in: keep those out of the user's.
		dir, err := os.MkdirTemp("", "ibdoctor-ibsim-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		o.Dir = dir
	}
	return fabric.Collect(ctx, o)
}

// maxConfirm bounds the ibtracert runs of one check.
const maxConfirm = 8

// confirmer checks the sample pair of a critical routing finding on the
// fabric: ibtracert from this node when the collection is live (or from
// ibsim); a saved collection cannot be checked, and says so. The returned
// function removes what it left behind.
func (s *Source) confirmer(ctx context.Context, f *cmdutil.Factory) (func(routing.Sample) routing.Confirmation, func()) {
	if s.From != "" {
		return func(routing.Sample) routing.Confirmation {
			return routing.Confirmation{Note: "not confirmed: offline collection"}
		}, func() {}
	}
	o, err := s.collectOptions(f)
	cleanup := func() {}
	if err == nil && s.IBSim != "" {
		var dir string
		if dir, err = os.MkdirTemp("", "ibdoctor-ibsim-"); err == nil {
			o.Dir = dir
			cleanup = func() { os.RemoveAll(dir) }
		}
	}
	n := 0
	return func(sm routing.Sample) routing.Confirmation {
		if err != nil {
			return routing.Confirmation{Note: "not confirmed: " + err.Error()}
		}
		if n++; n > maxConfirm {
			return routing.Confirmation{Note: fmt.Sprintf("not confirmed: only the first %d critical routing findings are traced", maxConfirm)}
		}
		tr := fabric.TraceRoute(ctx, o, int(sm.SrcLID), int(sm.DstLID))
		switch {
		case tr.Broken:
			return routing.Confirmation{Confirmed: true, Note: "confirmed by ibtracert", Evidence: fmt.Sprintf("%s to %s: %s", sm.SrcName, sm.DstName, tr.Line)}
		case tr.Reached:
			return routing.Confirmation{Note: fmt.Sprintf("not confirmed: ibtracert finds a route from %s to %s now (the tables changed since they were read?)", sm.SrcName, sm.DstName), Evidence: tr.Line}
		default:
			return routing.Confirmation{Note: "not confirmed: " + tr.Err}
		}
	}, cleanup
}

// NewCmd builds `ibdoctor fabric` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fabric <command>",
		Short: "Check the whole InfiniBand subnet: links, counters, identity, SM, cabling, routing",
		Long: `Check the whole InfiniBand subnet from one node with a port on it, with the
standard infiniband-diags tools (ibnetdiscover, iblinkinfo, ibqueryerrors,
dump_fts, sminfo), or offline from a saved collection (--from).

It keeps working without a subnet manager or with broken routes: tools
that fail are reported as gaps, and the rest is still judged.`,
		Example: `  # full check from this node
  $ ibdoctor fabric check
  # save the raw outputs, check them elsewhere
  $ ibdoctor fabric collect --out fabric.tar.gz
  $ ibdoctor fabric check --from fabric.tar.gz --plan cabling.txt
  # is every cable where the plan says?
  $ ibdoctor fabric diff --plan cabling.txt
  # the route between two LIDs, from the forwarding tables
  $ ibdoctor fabric path 12 57 --from fabric.tar.gz`,
	}
	cmd.AddCommand(
		NewCmdCollect(f, nil),
		NewCmdCheck(f, nil),
		NewCmdDiff(f, nil),
		NewCmdPath(f, nil),
		NewCmdJob(f, nil),
	)
	return cmd
}

// Document is the JSON output of check and diff.
type Document struct {
	Source  string    `json:"source"`
	Taken   time.Time `json:"taken"`
	Summary Summary   `json:"summary"`
	// Bisection is the effective bisection bandwidth under the static
	// routes (check only, when the collection has forwarding tables).
	Bisection *job.Bisection `json:"bisection,omitempty"`
	finding.Outcome
	Findings []finding.Finding `json:"findings"`
	Gaps     []fabricrules.Gap `json:"gaps"`
}

// Summary counts what the model holds.
type Summary struct {
	Switches int `json:"switches"`
	CAs      int `json:"cas"`
	Links    int `json:"links"`
	Tables   int `json:"forwarding_tables"`
}

func summarize(m *fabricrules.Fabric) Summary {
	s := Summary{Links: len(m.Links), Tables: len(m.LFTs)}
	for _, n := range m.Nodes {
		if n.Type == "Switch" {
			s.Switches++
		} else {
			s.CAs++
		}
	}
	return s
}

// writeResult writes the verdict on fs, or "not judged" with what was
// missing when missing is not "".
func writeResult(w io.Writer, f *cmdutil.Factory, format cmdutil.Format, m *fabricrules.Fabric, fs []finding.Finding, gaps []fabricrules.Gap, bis *job.Bisection, verbose bool, missing string) error {
	out, fs := finding.Judge(fs, missing)
	if gaps == nil {
		gaps = []fabricrules.Gap{}
	}
	src := m.Source
	if src == "" {
		src = "live"
	}
	if format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(w, Document{Source: src, Taken: m.Taken, Summary: summarize(m), Bisection: bis, Outcome: out, Findings: fs, Gaps: gaps})
	}
	sty := report.Style{Enabled: f.Color}
	s := summarize(m)
	verdict := report.VerdictLine(sty, "fabric", fs)
	if !out.IsJudged() {
		verdict = "fabric: " + sty.Severity(finding.Critical, "NOT JUDGED") + " (" + out.NotJudged + ")"
	}
	fmt.Fprintf(w, "%s — %d switches, %d CAs, %d links, %d forwarding tables (%s)\n",
		verdict, s.Switches, s.CAs, s.Links, s.Tables, src)
	if bis != nil {
		fmt.Fprintf(w, "effective bisection bandwidth: %.0f%% of flows at full rate (median %.0f%%, min %.0f%% over %d random pairings of %d CA ports)\n",
			100*bis.Mean, 100*bis.Median, 100*bis.Min, bis.Samples, bis.Ports)
		if bis.Worst != "" && bis.Mean < 1 {
			fmt.Fprintf(w, "  most shared link: %s\n", bis.Worst)
		}
	}
	if len(fs) > 0 {
		fmt.Fprintln(w)
		report.Findings(w, sty, fs)
	}
	if len(gaps) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%s %s thing(s) could not be queried or read; what depends on them was not judged:\n", sty.Severity(finding.Warning, "gaps:"), thousands(len(gaps)))
		for _, l := range gapLines(gaps, verbose) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	return nil
}

// gapLines renders the gaps for the text report. Per-port gaps (counters
// that could not be read) are summed up per tool, reason and cause: "counters of 31
// switches (3,968 ports) could not be read: ...", so that a fabric of
// thousands of ports fits on a screen; verbose lists every one.
func gapLines(gaps []fabricrules.Gap, verbose bool) []string {
	var out []string
	type key struct{ source, kind, cause string }
	type group struct {
		ports int
		nodes map[string]bool
		types map[string]bool
		first fabricrules.Gap
	}
	groups := map[key]*group{}
	var order []key
	for _, g := range gaps {
		if g.Kind == "" || verbose {
			l := g.Source + ": " + g.Reason
			if g.Cause != "" {
				l += ": " + g.Cause
			}
			out = append(out, l)
			continue
		}
		k := key{g.Source, g.Kind, g.Cause}
		gr := groups[k]
		if gr == nil {
			gr = &group{nodes: map[string]bool{}, types: map[string]bool{}, first: g}
			groups[k] = gr
			order = append(order, k)
		}
		gr.ports++
		gr.nodes[fmt.Sprintf("%d/%s", g.LID, g.Node)] = true
		gr.types[string(g.NodeType)] = true
	}
	summed := false
	for _, k := range order {
		gr := groups[k]
		if gr.ports == 1 {
			l := k.source + ": " + gr.first.Reason
			if k.cause != "" {
				l += ": " + k.cause
			}
			out = append(out, l)
			continue
		}
		what := "nodes"
		if len(gr.types) == 1 {
			switch {
			case gr.types["Switch"]:
				what = "switches"
			case gr.types["CA"]:
				what = "CAs"
			}
		}
		if len(gr.nodes) == 1 {
			what = map[string]string{"nodes": "node", "switches": "switch", "CAs": "CA"}[what]
		}
		cause := k.cause
		if cause == "" {
			cause = "their performance management (PMA) queries failed"
		}
		summed = true
		out = append(out, fmt.Sprintf("%s: counters of %s %s (%s ports) could not be read: %s", k.source, thousands(len(gr.nodes)), what, thousands(gr.ports), cause))
	}
	if summed && !verbose {
		out = append(out, "(every port: --verbose, or --format json)")
	}
	return out
}

// thousands renders n with thousands separators: 3,968.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// readPlan opens and parses a plan file.
func readPlan(path string) (*fabricrules.Plan, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return fabricrules.ParsePlan(fh, path)
}
