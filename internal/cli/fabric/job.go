package fabric

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/parse/hostlist"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/job"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// FormatCSV is `fabric job`'s per-link output.
const FormatCSV cmdutil.Format = "csv"

// JobOptions are the inputs of `fabric job`.
type JobOptions struct {
	F          *cmdutil.Factory
	Format     cmdutil.Format
	Source     Source
	Hosts      string
	Pattern    string
	HCAMap     string
	Congested  float64
	OutHosts   string
	Bisections int
}

// NewCmdJob builds `fabric job --hosts H`.
func NewCmdJob(f *cmdutil.Factory, runF func(*JobOptions) error) *cobra.Command {
	o := &JobOptions{F: f}
	cmd := &cobra.Command{
		Use:   "job --hosts HOSTS",
		Short: "Predict where a job's collectives collide on the fabric's static routes, and propose a better host order",
		Long: `Build the flows of a collective over the job's hosts in the order NCCL
would (a ring per rail in host order, a binary tree, all-to-all, or pairs),
follow each flow hop by hop through the switches' forwarding tables, and
count the flows on every link and direction. InfiniBand routes are static:
two flows of one all-reduce can share an uplink while others idle, and the
job loses bandwidth without any error counter moving.

HOSTS is a file (one host or Slurm hostlist per line, as mpirun's --hostfile
or 'scontrol show hostnames'), a Slurm hostlist expression (gpu[001-128,130])
or - for standard input. Hosts are matched to CAs by the first word of the
node description ("gpu017 mlx5_0"); --hca-map FILE says it otherwise (lines
of: host "CA description"|GUID|LID ...). A host's CAs, sorted by
description, are its rails.

Each link runs at its own rate (width × lane speed), so a link trained at
1X or SDR is a bottleneck even for one flow. The report names the most
constrained links with both ends, the slowest flow, the predicted fraction
of a contention-free fabric, the hosts whose removal takes every flow off
a degraded link (narrower or slower than expected, or with errors) when
the flows cross one, and a host order for
the same nodes that keeps ring neighbours under one leaf (--out-hostfile
writes it for mpirun/srun). fabric.job_congested is raised below
--congested. --bisections N also samples the effective bisection bandwidth
of the whole fabric.`,
		Example: `  # the hosts Slurm gave the job, against a saved collection
  $ ibdoctor fabric job --hosts "gpu[001-064]" --from fabric.tar.gz
  $ scontrol show hostnames "$SLURM_JOB_NODELIST" | ibdoctor fabric job --hosts - --from fabric/
  # all-to-all, write the proposed order
  $ ibdoctor fabric job --hosts hosts.txt --pattern alltoall --out-hostfile better.txt
  # per-link loads as CSV
  $ ibdoctor fabric job --hosts hosts.txt --format csv`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if o.Hosts == "" {
				return cmdutil.FlagErrorf("--hosts is required: a host file, a Slurm hostlist or - for stdin")
			}
			if _, err := job.ParsePattern(o.Pattern); err != nil {
				return cmdutil.FlagErrorf("--pattern: %v", err)
			}
			if o.Congested < 0 || o.Congested > 1 {
				return cmdutil.FlagErrorf("--congested %v: want a fraction between 0 and 1", o.Congested)
			}
			if o.Bisections < 0 || o.Bisections > 10000 {
				return cmdutil.FlagErrorf("--bisections %d: want 0 to 10000", o.Bisections)
			}
			if runF != nil {
				return runF(o)
			}
			return runJob(context.Background(), o)
		},
	}
	cmdutil.AddFormatFlag(cmd, &o.Format, FormatCSV)
	addSourceFlags(cmd, &o.Source)
	fl := cmd.Flags()
	fl.StringVar(&o.Hosts, "hosts", "", "the job's hosts: a file, a Slurm hostlist (gpu[001-128]) or - for stdin")
	fl.StringVar(&o.Pattern, "pattern", string(job.Ring), "ring, tree, alltoall or pairs")
	fl.StringVar(&o.HCAMap, "hca-map", "", "file mapping hosts to their CAs: host \"CA description\"|GUID|LID ...")
	fl.Float64Var(&o.Congested, "congested", job.DefaultCongested, "predicted fraction below which fabric.job_congested is raised")
	fl.StringVar(&o.OutHosts, "out-hostfile", "", "write the proposed host order to this file, one host per line")
	fl.IntVar(&o.Bisections, "bisections", 0, "also sample the fabric's effective bisection bandwidth this many times")
	return cmd
}

// JobReport is the JSON output of `fabric job`.
type JobReport struct {
	Verdict   string            `json:"verdict"`
	ExitCode  int               `json:"exit_code"`
	Given     *job.Result       `json:"given"`
	Proposed  *job.Result       `json:"proposed,omitempty"`
	Missing   []string          `json:"missing_hosts,omitempty"`
	Bisection *job.Bisection    `json:"bisection,omitempty"`
	Findings  []finding.Finding `json:"findings"`
}

func runJob(ctx context.Context, o *JobOptions) error {
	names, err := readHosts(o.F, o.Hosts)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	var hcaMap map[string][]string
	if o.HCAMap != "" {
		b, err := os.ReadFile(o.HCAMap)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		if hcaMap, err = job.ParseHCAMap(string(b), o.HCAMap); err != nil {
			return cmdutil.CannotRun(err)
		}
	}
	raw, err := o.Source.load(ctx, o.F)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	fab := fabricrules.Build(raw)
	rf, err := fabricrules.RoutingInput(fab)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	links := jobLinks(fab)
	g, err := routing.New(rf)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	pattern, _ := job.ParsePattern(o.Pattern)
	hosts, missing := job.Place(g, names, hcaMap)
	rep := JobReport{Missing: missing}
	if rep.Given, err = job.Predict(g, hosts, pattern, links); err != nil {
		return cmdutil.CannotRun(fmt.Errorf("%w (%d of %d hosts found in the fabric)", err, len(hosts), len(names)))
	}
	rep.Given.Relief = job.Relieve(g, hosts, pattern, links)
	order := job.Propose(g, hosts, pattern, links)
	if rep.Proposed, err = job.Predict(g, job.Reorder(hosts, order), pattern, links); err != nil {
		rep.Proposed = nil
	}
	if o.Bisections > 0 {
		if rep.Bisection, err = job.EffectiveBisection(g, o.Bisections, 1); err != nil {
			fmt.Fprintf(o.F.ErrOut, "ibdoctor: bisection: %v\n", err)
		}
	}
	rep.Findings = job.Check(rep.Given, rep.Proposed, o.Congested)
	if rep.Findings == nil {
		rep.Findings = []finding.Finding{}
	}
	rep.Verdict, rep.ExitCode = finding.Verdict(rep.Findings), finding.ExitCode(rep.Findings)
	if o.OutHosts != "" && rep.Proposed != nil {
		if err := os.WriteFile(o.OutHosts, []byte(strings.Join(rep.Proposed.Hosts, "\n")+"\n"), 0o644); err != nil {
			return cmdutil.CannotRun(err)
		}
	}
	switch o.Format {
	case cmdutil.FormatJSON:
		err = cmdutil.WriteJSON(o.F.Out, rep)
	case FormatCSV:
		err = writeJobCSV(o.F.Out, rep.Given)
	default:
		writeJobText(o.F.Out, report.Style{Enabled: o.F.Color}, &rep)
	}
	if err != nil {
		return err
	}
	return cmdutil.Exit(rep.ExitCode)
}

// jobLinks gives every cable's rate and state to the prediction, keyed by
// both ends (the routing model numbers nodes as the fabric model does).
func jobLinks(fab *fabricrules.Fabric) job.Links {
	out := job.Links{}
	for _, lr := range fabricrules.LinkRates(fab, nil, fabricrules.DefaultThresholds()) {
		li := job.LinkInfo{Gbps: lr.Gbps, Degraded: lr.Degraded}
		out[routing.PortRef{Node: lr.A.Node, Port: lr.A.Port}] = li
		out[routing.PortRef{Node: lr.B.Node, Port: lr.B.Port}] = li
	}
	return out
}

// readHosts reads --hosts: "-" is standard input, an existing file is a
// host file, anything else a Slurm hostlist expression.
func readHosts(f *cmdutil.Factory, spec string) ([]string, error) {
	if spec == "-" {
		return hostlist.Parse(io.LimitReader(f.In, 16<<20), "stdin")
	}
	if st, err := os.Stat(spec); err == nil && st.Mode().IsRegular() {
		fh, err := os.Open(spec)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		return hostlist.Parse(io.LimitReader(fh, 16<<20), spec)
	}
	names, err := hostlist.Expand(spec)
	if err != nil {
		return nil, fmt.Errorf("--hosts %s: not a file, and not a hostlist: %w", spec, err)
	}
	return names, nil
}

func writeJobText(w io.Writer, st report.Style, rep *JobReport) {
	g := rep.Given
	fmt.Fprintf(w, "%s over %d hosts, %d rail(s): %d flows\n", g.Pattern, len(g.Hosts), g.Rails, g.Flows)
	if len(rep.Missing) > 0 {
		fmt.Fprintf(w, "not in the fabric (left out): %s\n", strings.Join(rep.Missing, " "))
	}
	fmt.Fprintf(w, "predicted: %.0f%% of a contention-free fabric (mean over flows %.0f%%), up to %d flow(s) on one fabric link\n",
		100*g.Fraction, 100*g.MeanFraction, g.MaxLoad)
	if g.Slowest != "" && g.Fraction < 1 {
		fmt.Fprintf(w, "slowest flow: %s\n", g.Slowest)
	}
	if len(g.Hot) > 0 {
		fmt.Fprintln(w, "\nmost constrained links (flows, share of the fabric's rate per flow, direction, hosts whose flows cross it):")
		for _, h := range g.Hot[:min(len(g.Hot), 10)] {
			fmt.Fprintf(w, "  %3d  %3.0f%%  %s → %s  (%s)\n", h.Flows, 100*h.Share, h.From, h.To, strings.Join(h.Hosts, " "))
			if h.Degraded != "" {
				fmt.Fprintf(w, "            degraded: %s\n", h.Degraded)
			}
		}
	}
	if r := g.Relief; r != nil {
		fmt.Fprintf(w, "\nhosts whose removal clears the hot spot: %s (the rest, same order: %.0f%% predicted)\n", strings.Join(r.Hosts, " "), 100*r.Fraction)
		for _, l := range r.Links {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if p := rep.Proposed; p != nil {
		fmt.Fprintf(w, "\nproposed order (leaf by leaf): %.0f%% predicted, up to %d flow(s) on one fabric link\n", 100*p.Fraction, p.MaxLoad)
		fmt.Fprintf(w, "  %s\n", strings.Join(p.Hosts[:min(len(p.Hosts), 32)], " "))
		if len(p.Hosts) > 32 {
			fmt.Fprintf(w, "  … %d more (--out-hostfile writes them all)\n", len(p.Hosts)-32)
		}
	}
	if b := rep.Bisection; b != nil {
		fmt.Fprintf(w, "\neffective bisection bandwidth (%d random pairings of %d CA ports): mean %.0f%%, median %.0f%%, min %.0f%% of flows at full rate\n",
			b.Samples, b.Ports, 100*b.Mean, 100*b.Median, 100*b.Min)
		if b.Worst != "" {
			fmt.Fprintf(w, "  worst link: %s\n", b.Worst)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, report.VerdictLine(st, "", rep.Findings))
	report.Findings(w, st, rep.Findings)
}

func writeJobCSV(w io.Writer, r *job.Result) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"from", "to", "flows", "hosts", "share", "gbps", "degraded"})
	for _, h := range r.Hot {
		cw.Write([]string{h.From, h.To, strconv.Itoa(h.Flows), strings.Join(h.Hosts, " "),
			strconv.FormatFloat(h.Share, 'f', 4, 64), strconv.FormatFloat(h.Gbps, 'f', -1, 64), h.Degraded})
	}
	cw.Flush()
	return cw.Error()
}
