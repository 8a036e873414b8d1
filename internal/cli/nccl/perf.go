package nccl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccltests"
	ncclrules "github.com/ibdoctor/ibdoctor/internal/rules/nccl"
)

// PerfOptions are the inputs of `ibdoctor nccl perf`.
type PerfOptions struct {
	F          *cmdutil.Factory
	Format     cmdutil.Format
	Files      []string
	Collective string
	// ExpectBusBW (GB/s), LineRate (Gb/s), Efficiency, SmallLatency (µs):
	// see ncclrules.TestsOptions.
	ExpectBusBW  float64
	LineRate     float64
	Efficiency   float64
	SmallLatency float64
	// NICsPerNode is how many NICs each node has on the inter-node
	// network (0: from --root, the NCCL log in the output, or the rank
	// layout).
	NICsPerNode int
	// Root, when set, supplies the line rate (the slowest active port of
	// the compute fabric) and the NICs per node (its ports).
	Root string
	// ExpectIB says the job should use InfiniBand/RoCE (also set by RDMA
	// ports under Root): a run launched with NCCL_IB_DISABLE=1 is critical.
	ExpectIB bool
}

// NewCmdPerf builds `nccl perf`; runF replaces the run function in tests.
func NewCmdPerf(f *cmdutil.Factory, runF func(*PerfOptions) error) *cobra.Command {
	opts := &PerfOptions{F: f}
	cmd := &cobra.Command{
		Use:   "perf FILE...",
		Short: "Diagnose nccl-tests output (all_reduce_perf, all_gather_perf, ...)",
		Long: `Read the output of nccl-tests binaries (all_reduce_perf, all_gather_perf,
reduce_scatter_perf, alltoall_perf, broadcast_perf, reduce_perf,
sendrecv_perf) and judge it: corrupted results (#wrong, out-of-bounds
values), busbw that disagrees with algbw × the collective's factor,
large-message bus bandwidth against --expect-busbw or the NICs' line rate,
small messages slow while large ones are fine (algorithm or PCIe path) or
both slow (network links), in-place vs out-of-place gaps, a curve that never
plateaus, and copies of a non-MPI binary started by mpirun. NCCL INFO lines,
mpirun --tag-output prefixes, CRLF and truncated tails are tolerated.

A multi-node run's busbw is bounded by each node's aggregate NIC bandwidth:
the expectation is NICs in use per node x --line-rate / 8 x --efficiency.
The NICs per node come from --nics-per-node, else the ports of --root, else
the NCCL log inside the output ("NET/IB : Using [0]mlx5_0:1/IB ..."), else
the rank layout (one NIC per GPU); a node with fewer GPUs than NICs uses one
per GPU. The report says which source set it. NCCL_DEBUG=INFO lines in the
output that show a multi-node run on TCP sockets, or on fewer NICs than the
node has, are critical.

Exit code: 0 healthy, 1 warnings (or a file not analysed), 2 critical,
3 nothing could be read.`,
		Example: `  # 2 nodes x 8 H100, one 400G NIC per GPU
  $ ibdoctor nccl perf --line-rate 400 all_reduce_perf.2n.out
  # 8 GPUs but 4 x 200G NICs per node
  $ ibdoctor nccl perf --line-rate 200 --nics-per-node 4 all_reduce_perf.2n.out
  # against a number from the acceptance plan
  $ ibdoctor nccl perf --expect-busbw 360 --collective all_reduce run.log
  # the line rate and NIC count of this node's compute fabric
  $ ibdoctor nccl perf --root / all_reduce_perf.out
  # machine-readable, with every parsed row
  $ ibdoctor nccl perf --format json all_reduce_perf.out`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Files = args
			if opts.Collective != "" {
				if _, err := nccltests.ParseCollective(opts.Collective); err != nil {
					return cmdutil.FlagErrorf("--collective: %v", err)
				}
			}
			if opts.ExpectBusBW < 0 || opts.LineRate < 0 || opts.SmallLatency < 0 || opts.NICsPerNode < 0 {
				return cmdutil.FlagErrorf("--expect-busbw, --line-rate, --nics-per-node and --small-latency must not be negative")
			}
			if opts.Efficiency < 0 || opts.Efficiency > 1 {
				return cmdutil.FlagErrorf("--efficiency %v out of range 0-1", opts.Efficiency)
			}
			if runF != nil {
				return runF(opts)
			}
			return runPerf(context.Background(), opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmd.Flags().StringVar(&opts.Collective, "collective", "", "collective when the output does not say (all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv)")
	cmd.Flags().Float64Var(&opts.ExpectBusBW, "expect-busbw", 0, "expected large-message bus bandwidth in GB/s")
	cmd.Flags().Float64Var(&opts.LineRate, "line-rate", 0, "line rate of one NIC in Gb/s (e.g. 400 for NDR); expectation = NICs in use per node x rate/8 x --efficiency")
	cmd.Flags().IntVar(&opts.NICsPerNode, "nics-per-node", 0, "NICs each node has on the inter-node network (default: from --root, the NCCL log in the output, or one per GPU)")
	cmd.Flags().Float64Var(&opts.Efficiency, "efficiency", ncclrules.DefaultEfficiency, "fraction of the line rate busbw should reach")
	cmd.Flags().Float64Var(&opts.SmallLatency, "small-latency", ncclrules.DefaultSmallLatencyUS, "time in us above which the smallest message counts as slow")
	cmd.Flags().BoolVar(&opts.ExpectIB, "expect-ib", false, "the job should use InfiniBand/RoCE: a multi-node run launched with NCCL_IB_DISABLE=1 is critical")
	cmd.Flags().StringVar(&opts.Root, "root", "", "node root (directory or bundle) whose compute-fabric ports give the NICs per node and, the slowest active one, the line rate")
	return cmd
}

type perfFile struct {
	Source   string                   `json:"source"`
	Output   *nccltests.Output        `json:"output,omitempty"`
	Analysis *ncclrules.TestsAnalysis `json:"analysis,omitempty"`
}

type perfDoc struct {
	finding.Outcome
	Files    []perfFile        `json:"files"`
	Findings []finding.Finding `json:"findings"`
	Notes    []string          `json:"notes,omitempty"`
	Errors   []fileError       `json:"errors,omitempty"`
}

func runPerf(ctx context.Context, o *PerfOptions) error {
	to := ncclrules.TestsOptions{ExpectBusBW: o.ExpectBusBW, LineRateGbps: o.LineRate, Efficiency: o.Efficiency, SmallLatencyUS: o.SmallLatency, NICsPerNode: o.NICsPerNode, ExpectIB: o.ExpectIB}
	if o.NICsPerNode > 0 {
		to.NICsFrom = "--nics-per-node"
	}
	if o.Collective != "" {
		to.Collective, _ = nccltests.ParseCollective(o.Collective)
	}
	var doc perfDoc
	if o.Root != "" {
		nf, err := readNode(ctx, o.F, o.Root)
		if err != nil {
			return cmdutil.CannotRun(fmt.Errorf("--root %s: %w", o.Root, err))
		}
		to.ExpectIB = to.ExpectIB || nf.Present
		if o.LineRate == 0 {
			if nf.Slowest > 0 {
				to.LineRateGbps = nf.Slowest
				doc.Notes = append(doc.Notes, fmt.Sprintf("line rate %.0f Gb/s from %s, the slowest active port of the compute fabric in %s", nf.Slowest, nf.Port, o.Root))
			} else {
				doc.Notes = append(doc.Notes, fmt.Sprintf("%s has no active RDMA port: line rate unknown", o.Root))
			}
		}
		if o.NICsPerNode == 0 && nf.NICs > 0 {
			to.NICsPerNode = nf.NICs
			to.NICsFrom = fmt.Sprintf("NICs per node from --root %s: %d %s ports", o.Root, nf.NICs, nf.Fabric.Short())
		}
	}
	for _, name := range o.Files {
		out, lg, err := parseTestsFile(o.F, name)
		if err != nil {
			doc.Errors = append(doc.Errors, fileError{name, err.Error()})
			continue
		}
		fo := to
		if lg != nil {
			fo.Net = ncclrules.NetUseOf(lg)
		}
		a := ncclrules.CheckTests(out, fo)
		doc.Files = append(doc.Files, perfFile{Source: name, Output: out, Analysis: a})
		doc.Findings = append(doc.Findings, a.Findings...)
		doc.Notes = append(doc.Notes, a.Notes...)
	}
	missing := ""
	if len(doc.Findings) == 0 && !hasRows(doc.Files) {
		missing = "no result row in any input (the test printed its header and stopped, or the output was cut)"
	}
	judge(&doc.Outcome, &doc.Findings, len(doc.Errors), len(o.Files), missing)
	return finish(o.F, o.Format, doc.ExitCode, &doc,
		func(w io.Writer, st report.Style) { writePerfText(w, st, &doc) })
}

// hasRows says whether any run of the files printed a result row.
func hasRows(fs []perfFile) bool {
	for _, f := range fs {
		for _, r := range f.Output.Runs {
			if len(r.Rows) > 0 {
				return true
			}
		}
	}
	return false
}

// parseTestsFile parses an nccl-tests output and, when NCCL_DEBUG=INFO
// lines are mixed in, the NCCL log they form (nil otherwise).
func parseTestsFile(f *cmdutil.Factory, name string) (*nccltests.Output, *nccllog.Log, error) {
	rc, err := openInput(f, name)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	text, err := io.ReadAll(rc)
	if err != nil {
		return nil, nil, err
	}
	out, err := nccltests.Parse(bytes.NewReader(text), name)
	if err != nil {
		return nil, nil, err
	}
	if !nccllog.Detect(string(text)) {
		return out, nil, nil
	}
	lg, err := nccllog.Parse(bytes.NewReader(text), name)
	if err != nil {
		return out, nil, nil // the tests output stands on its own
	}
	return out, lg, nil
}

func writePerfText(w io.Writer, st report.Style, doc *perfDoc) {
	for _, pf := range doc.Files {
		for i, run := range pf.Output.Runs {
			sum := pf.Analysis.Runs[i]
			fmt.Fprintf(w, "%s\n", st.Bold(runTitle(pf.Source, run, sum)))
			writeCurve(w, run)
			if sum.PeakBusBW > 0 {
				line := fmt.Sprintf("  peak busbw at large sizes: %.2f GB/s", sum.PeakBusBW)
				if sum.ExpectBusBW > 0 {
					line += fmt.Sprintf(" (expected %.1f GB/s, %.0f%%)", sum.ExpectBusBW, sum.PeakBusBW/sum.ExpectBusBW*100)
				}
				fmt.Fprintln(w, line)
				if sum.ExpectBasis != "" && !strings.HasPrefix(sum.ExpectBasis, "--expect-busbw") {
					fmt.Fprintf(w, "  expectation: %s\n", sum.ExpectBasis)
				}
			}
			if sum.SmallTimeUS > 0 {
				fmt.Fprintf(w, "  smallest message: %s in %.1f us\n", ncclrules.FormatBytes(sum.MinSize), sum.SmallTimeUS)
			}
			var foot []string
			if run.OutOfBounds != nil {
				foot = append(foot, fmt.Sprintf("%d out-of-bounds values", *run.OutOfBounds))
			}
			if run.AvgBusBW != nil {
				foot = append(foot, fmt.Sprintf("avg bus bandwidth %g GB/s", *run.AvgBusBW))
			}
			if len(foot) > 0 {
				fmt.Fprintf(w, "  footer: %s\n", strings.Join(foot, ", "))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w, verdictLine(st, doc.Outcome, doc.Findings))
	writeFindings(w, st, doc.Findings)
	writeNotes(w, doc.Notes, doc.Errors)
}

func runTitle(source string, run *nccltests.Run, sum ncclrules.RunSummary) string {
	what := run.Program
	if what == "" && sum.Collective != "" {
		what = string(sum.Collective)
	}
	if what == "" {
		what = "nccl-tests"
	}
	parts := []string{fmt.Sprintf("%s: %s", source, what)}
	if run.Version != "" {
		parts = append(parts, "nccl-tests "+run.Version)
	}
	switch {
	case run.Independent():
		copies := run.Headers
		zeros := 0
		for _, r := range run.Ranks {
			if r.Rank == 0 {
				zeros++
			}
		}
		parts = append(parts, fmt.Sprintf("%d separate runs of %d rank(s), one per process, on %d host(s) (%s)", max(copies, zeros), sum.Ranks, len(sum.Hosts), strings.Join(firstHosts(sum.Hosts, 4), ", ")))
	case sum.Ranks > 0 && len(sum.Hosts) > 0:
		parts = append(parts, fmt.Sprintf("%d ranks on %d host(s) (%s)", sum.Ranks, len(sum.Hosts), strings.Join(firstHosts(sum.Hosts, 4), ", ")))
	case sum.Ranks > 0:
		parts = append(parts, fmt.Sprintf("%d ranks", sum.Ranks))
	}
	if len(run.Rows) > 0 {
		parts = append(parts, fmt.Sprintf("%s to %s", ncclrules.FormatBytes(sum.MinSize), ncclrules.FormatBytes(sum.MaxSize)))
	}
	return strings.Join(parts, ", ")
}

func firstHosts(h []string, n int) []string {
	if len(h) <= n {
		return h
	}
	return append(append([]string(nil), h[:n]...), fmt.Sprintf("+%d", len(h)-n))
}

// writeCurve prints the busbw curve: every row when there are few, else
// every other power of four and the largest sizes.
func writeCurve(w io.Writer, run *nccltests.Run) {
	if len(run.Rows) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  size\ttime us\talgbw GB/s\tbusbw GB/s\tin-place busbw\t#wrong\t")
	step := 1
	if len(run.Rows) > 16 {
		step = (len(run.Rows) + 11) / 12
	}
	for i, r := range run.Rows {
		if i%step != 0 && i != len(run.Rows)-1 {
			continue
		}
		oop, ip := "-", "-"
		t, alg, wrong := "-", "-", "0"
		if m := r.OutOfPlace; m != nil {
			t, alg, oop = fmt.Sprintf("%.1f", m.TimeUS), fmt.Sprintf("%.2f", m.AlgBW), fmt.Sprintf("%.2f", m.BusBW)
			wrong = fmt.Sprint(m.Wrong)
		} else if m := r.InPlace; m != nil {
			t, alg = fmt.Sprintf("%.1f", m.TimeUS), fmt.Sprintf("%.2f", m.AlgBW)
		}
		if m := r.InPlace; m != nil {
			ip = fmt.Sprintf("%.2f", m.BusBW)
			if m.Wrong > 0 {
				wrong = fmt.Sprint(m.Wrong)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t\n", ncclrules.FormatBytes(r.Size), t, alg, oop, ip, wrong)
	}
	tw.Flush()
}
