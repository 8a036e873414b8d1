// Package nccl implements `ibdoctor nccl`: analysis of nccl-tests output
// (`nccl perf`) and of NCCL_DEBUG=INFO logs (`nccl log`).
package nccl

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// NewCmd builds the `nccl` parent command. Subcommands are listed here
// explicitly, one line each.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "nccl <command>",
		Short: "Diagnose NCCL jobs: nccl-tests output and NCCL_DEBUG logs",
		Example: `  # judge an all_reduce_perf run against 400 Gb/s NICs
  $ ibdoctor nccl perf --line-rate 400 all_reduce_perf.out
  # what did NCCL choose, and why did it fail?
  $ ibdoctor nccl log --expect-ib job-*.log`,
	}
	cmd.AddCommand(
		NewCmdPerf(f, nil),
		NewCmdLog(f, nil),
	)
	return cmd
}

// maxInput bounds one analysed file (a day of NCCL INFO output fits).
const maxInput = 512 << 20

// openInput opens a file argument; "-" is standard input.
func openInput(f *cmdutil.Factory, name string) (io.ReadCloser, error) {
	if name == "-" {
		if f.In == nil {
			return nil, fmt.Errorf("no standard input to read")
		}
		return io.NopCloser(io.LimitReader(f.In, maxInput)), nil
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err == nil && st.IsDir() {
		fh.Close()
		return nil, fmt.Errorf("%s is a directory", name)
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(fh, maxInput), fh}, nil
}

// nodeFacts is what the node at root says about its RDMA ports.
type nodeFacts struct {
	// Present says whether any RDMA port exists.
	Present bool
	// Slowest is the slowest ACTIVE compute-fabric port's rate in Gb/s (0
	// when none) and Port names it.
	Slowest float64
	Port    string
	// NICs counts the compute-fabric ports, ACTIVE or not: a port that is
	// down still belongs to the node's bandwidth. Fabric is their link
	// layer.
	NICs   int
	Fabric ib.LinkLayer
}

// readNode loads the node at root and sums up its RDMA ports.
func readNode(ctx context.Context, f *cmdutil.Factory, root string) (nodeFacts, error) {
	snap, err := cmdutil.LoadSnapshot(ctx, f, root)
	if err != nil {
		return nodeFacts{}, err
	}
	return computeFabric(snap), nil
}

// computeFabric picks the compute fabric — the link layer most ports share
// (a frontend RoCE NIC next to eight IB HCAs is not on the NCCL path) — and
// returns its port count and slowest active port.
func computeFabric(snap *snapshot.Snapshot) nodeFacts {
	var nf nodeFacts
	count := map[ib.LinkLayer]int{}
	for _, d := range snap.Devices {
		for _, p := range d.Ports {
			nf.Present = true
			count[p.LinkLayer]++
		}
	}
	for ll, n := range count {
		if n > count[nf.Fabric] || (n == count[nf.Fabric] && ll < nf.Fabric) {
			nf.Fabric = ll
		}
	}
	nf.NICs = count[nf.Fabric]
	for _, d := range snap.Devices {
		for _, p := range d.Ports {
			if p.LinkLayer != nf.Fabric || p.State == nil || *p.State != ib.StateActive || p.Rate == nil || p.Rate.IsZero() {
				continue
			}
			if g := p.Rate.Gbps(); nf.Slowest == 0 || g < nf.Slowest {
				nf.Slowest, nf.Port = g, fmt.Sprintf("%s port %d", d.Name, p.Number)
			}
		}
	}
	return nf
}

// fileError is one input that could not be analysed.
type fileError struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

// judge sorts the findings and sets the outcome: "not_judged" (exit 3)
// when no input could be read or missing says what else was missing, at
// least a warning when some input was not analysed.
func judge(out *finding.Outcome, fs *[]finding.Finding, failed, total int, missing string) {
	if total > 0 && failed == total {
		missing = "no input could be read"
	}
	*out, *fs = finding.Judge(sortFindings(*fs), missing)
	if failed > 0 && out.ExitCode == finding.ExitHealthy {
		out.ExitCode = finding.ExitWarning
	}
}

// finish writes the document as JSON (exit 3 too: scripts get an object)
// or through text, and returns the exit.
func finish(f *cmdutil.Factory, format cmdutil.Format, code int, doc any, text func(io.Writer, report.Style)) error {
	if format == cmdutil.FormatJSON {
		if err := cmdutil.WriteJSON(f.Out, doc); err != nil {
			return err
		}
	} else {
		text(f.Out, report.Style{Enabled: f.Color})
	}
	return cmdutil.Exit(code)
}

func writeFindings(w io.Writer, st report.Style, fs []finding.Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintln(w)
	report.Findings(w, st, fs)
}

func writeNotes(w io.Writer, notes []string, errs []fileError) {
	if len(errs) > 0 {
		fmt.Fprintln(w, "\nnot analysed:")
		for _, e := range errs {
			fmt.Fprintf(w, "  - %s\n", errLine(e.Source, e.Error))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

// errLine names the file once: parse errors already start with it.
func errLine(source, msg string) string {
	if strings.HasPrefix(msg, source) {
		return msg
	}
	return source + ": " + msg
}

// verdictLine is the verdict, or says what was missing when nothing was
// judged (a "HEALTHY" over nothing would be a lie).
func verdictLine(st report.Style, o finding.Outcome, fs []finding.Finding) string {
	if !o.IsJudged() {
		return st.Severity(finding.Critical, "NOT ANALYSED") + " (" + o.NotJudged + ")"
	}
	return report.VerdictLine(st, "", fs)
}

func sortFindings(fs []finding.Finding) []finding.Finding {
	if fs == nil {
		return []finding.Finding{}
	}
	catalog.Sort(fs)
	return fs
}
