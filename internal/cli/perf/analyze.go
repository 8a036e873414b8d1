package perf

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/parse/perftest"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	perftestrules "github.com/ibdoctor/ibdoctor/internal/rules/perftest"
)

// AnalyzeOptions are the inputs of `ibdoctor perf analyze`.
type AnalyzeOptions struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Files  []string
	// LineRate is the link's line rate in Gb/s; MaxLatency overrides the
	// latency threshold in µs.
	LineRate   float64
	MaxLatency float64
	// Root, when set, gives each banner device's line rate (port 1).
	Root string
}

// NewCmdAnalyze builds `perf analyze`; runF replaces the run function in tests.
func NewCmdAnalyze(f *cmdutil.Factory, runF func(*AnalyzeOptions) error) *cobra.Command {
	opts := &AnalyzeOptions{F: f}
	cmd := &cobra.Command{
		Use:   "analyze FILE...",
		Short: "Diagnose saved perftest output (ib_write_bw, ib_read_bw, ib_send_bw, *_lat)",
		Long: `Read saved perftest output (one or several tests per file, old and new
releases, Gb/s with --report_gbits or MB/s) and judge it: bandwidth against
the link's line rate (a healthy HDR link gives about 190 of 200 Gb/s with
ib_write_bw), small-message latency against the floor of the verb and link
type (about 1 us for IB write/send), and the test itself: messages too
small to show line rate, a RoCE test on a link-local GID, and, when both
ends' outputs are given, an MTU the two ends disagree on.

Exit code: 0 healthy, 1 warnings (or a file not analysed), 2 critical,
3 nothing could be read.`,
		Example: `  # client output of an HDR test
  $ ibdoctor perf analyze --line-rate 200 ib_write_bw.client.txt
  # both ends, to compare their banners
  $ ibdoctor perf analyze server.txt client.txt
  # latency against a stricter limit
  $ ibdoctor perf analyze --max-latency 1.2 ib_write_lat.txt
  # line rate of the tested device, read from the node (or its bundle)
  $ ibdoctor perf analyze --root gpu017.tar.gz ib_write_bw.txt`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Files = args
			if opts.LineRate < 0 || opts.MaxLatency < 0 {
				return cmdutil.FlagErrorf("--line-rate and --max-latency must not be negative")
			}
			if runF != nil {
				return runF(opts)
			}
			return analyzeRun(context.Background(), opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmd.Flags().Float64Var(&opts.LineRate, "line-rate", 0, "link line rate in Gb/s (200 for HDR 4X, 400 for NDR 4X)")
	cmd.Flags().Float64Var(&opts.MaxLatency, "max-latency", 0, "latency limit in us (default: 1.5 x the floor of the verb and link type)")
	cmd.Flags().StringVar(&opts.Root, "root", "", "root (directory or bundle) of the node the test ran on: the banner device's port 1 gives the line rate")
	return cmd
}

type analyzeError struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

type analyzeDoc struct {
	finding.Outcome
	Results  []*perftest.Result      `json:"results"`
	Summary  []perftestrules.Summary `json:"summary"`
	Findings []finding.Finding       `json:"findings"`
	Notes    []string                `json:"notes,omitempty"`
	Errors   []analyzeError          `json:"errors,omitempty"`
	// files is how many inputs were given (not in the JSON document).
	files int
}

func analyzeRun(ctx context.Context, o *AnalyzeOptions) error {
	doc := analyzeDoc{files: len(o.Files)}
	rates, err := deviceRates(ctx, o)
	if err != nil {
		return cmdutil.CannotRun(fmt.Errorf("--root %s: %w", o.Root, err))
	}
	for _, name := range o.Files {
		rs, err := parsePerftestFile(o.F, name)
		if err != nil {
			doc.Errors = append(doc.Errors, analyzeError{name, err.Error()})
			continue
		}
		doc.Results = append(doc.Results, rs...)
	}
	a := perftestrules.Check(doc.Results, perftestrules.Options{LineRateGbps: o.LineRate, MaxLatencyUS: o.MaxLatency, DeviceRateGbps: rates})
	doc.Summary, doc.Notes = a.Results, a.Notes
	catalog.Sort(a.Findings)
	missing := ""
	switch {
	case len(doc.Errors) == len(o.Files):
		missing = "no input could be read"
	case len(a.Findings) == 0 && !slices.ContainsFunc(doc.Results, func(r *perftest.Result) bool { return len(r.BW) > 0 || len(r.Lat) > 0 }):
		missing = "no result row in any input (the test printed its banner and stopped, or the output was cut)"
	}
	doc.Outcome, doc.Findings = finding.Judge(a.Findings, missing)
	if len(doc.Errors) > 0 && doc.ExitCode == finding.ExitHealthy {
		doc.ExitCode = finding.ExitWarning
	}
	if o.Format == cmdutil.FormatJSON {
		if err := cmdutil.WriteJSON(o.F.Out, doc); err != nil {
			return err
		}
		return cmdutil.Exit(doc.ExitCode)
	}
	writeAnalyzeText(o.F.Out, report.Style{Enabled: o.F.Color}, &doc)
	return cmdutil.Exit(doc.ExitCode)
}

// deviceRates reads port 1 of every RDMA device at --root: the port
// perftest uses unless -i says otherwise. Ports that are not ACTIVE give no
// rate (their rate file means nothing).
func deviceRates(ctx context.Context, o *AnalyzeOptions) (map[string]float64, error) {
	if o.Root == "" {
		return nil, nil
	}
	snap, err := cmdutil.LoadSnapshot(ctx, o.F, o.Root)
	if err != nil {
		return nil, err
	}
	rates := map[string]float64{}
	for _, d := range snap.Devices {
		for _, p := range d.Ports {
			if p.Number == 1 && p.State != nil && *p.State == ib.StateActive && p.Rate != nil && !p.Rate.IsZero() {
				rates[d.Name] = p.Rate.Gbps()
			}
		}
	}
	return rates, nil
}

func parsePerftestFile(f *cmdutil.Factory, name string) ([]*perftest.Result, error) {
	var r io.Reader
	if name == "-" {
		if f.In == nil {
			return nil, fmt.Errorf("no standard input to read")
		}
		r = io.LimitReader(f.In, 64<<20)
	} else {
		fh, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		if st, err := fh.Stat(); err == nil && st.IsDir() {
			return nil, fmt.Errorf("%s is a directory", name)
		}
		r = io.LimitReader(fh, 64<<20)
	}
	return perftest.ParseAll(r, name)
}

func writeAnalyzeText(w io.Writer, st report.Style, doc *analyzeDoc) {
	if len(doc.Results) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TEST\tDEVICE\tLINK\tMTU\tRESULT\tSOURCE")
		for i, r := range doc.Results {
			s := doc.Summary[i]
			res := "-"
			switch {
			case s.BestGbps > 0 && s.Fraction > 0:
				res = fmt.Sprintf("%s Gb/s at %d B (%.0f%% of line rate)", gbps(s.BestGbps), s.BestBytes, s.Fraction*100)
			case s.BestGbps > 0:
				res = fmt.Sprintf("%s Gb/s at %d B", gbps(s.BestGbps), s.BestBytes)
			case s.LatencyUS > 0:
				res = fmt.Sprintf("%.2f us at %d B (limit %.2f us)", s.LatencyUS, s.LatencyBytes, s.ThresholdUS)
			}
			link := r.LinkType
			if r.GIDIndex != nil {
				link += fmt.Sprintf(" gid %d", *r.GIDIndex)
			}
			mtu := "-"
			if r.MTU > 0 {
				mtu = fmt.Sprint(r.MTU)
			}
			test := r.Test
			if test == "" {
				test = "(no banner)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s:%d\n", test, orDash(r.Device), orDash(strings.TrimSpace(link)), mtu, res, r.Source, r.Line)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	if !doc.IsJudged() {
		fmt.Fprintln(w, st.Severity(finding.Critical, "NOT ANALYSED")+" ("+doc.NotJudged+")")
	} else {
		fmt.Fprintln(w, report.VerdictLine(st, "", doc.Findings))
	}
	if len(doc.Findings) > 0 {
		fmt.Fprintln(w)
		report.Findings(w, st, doc.Findings)
	}
	if len(doc.Errors) > 0 {
		fmt.Fprintln(w, "\nnot analysed:")
		for _, e := range doc.Errors {
			msg := e.Error
			if !strings.HasPrefix(msg, e.Source) {
				msg = e.Source + ": " + msg
			}
			fmt.Fprintf(w, "  - %s\n", msg)
		}
	}
	if len(doc.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range doc.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

// gbps prints a bandwidth with one decimal, or two below 10 Gb/s.
func gbps(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
