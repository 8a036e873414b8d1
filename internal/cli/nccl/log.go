package nccl

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	ncclrules "github.com/ibdoctor/ibdoctor/internal/rules/nccl"
)

// LogOptions are the inputs of `ibdoctor nccl log`.
type LogOptions struct {
	F        *cmdutil.Factory
	Format   cmdutil.Format
	Files    []string
	ExpectIB bool
	// Root, when set, says whether the node has RDMA devices: a socket
	// fallback there is critical.
	Root string
}

// NewCmdLog builds `nccl log`; runF replaces the run function in tests.
func NewCmdLog(f *cmdutil.Factory, runF func(*LogOptions) error) *cobra.Command {
	opts := &LogOptions{F: f}
	cmd := &cobra.Command{
		Use:   "log FILE...",
		Short: "Diagnose NCCL_DEBUG=INFO logs and NCCL watchdog timeouts",
		Long: `Read NCCL_DEBUG=INFO logs of one or many ranks (and PyTorch
ProcessGroupNCCL watchdog messages) and say, per process, which network NCCL
chose (NET/IB with which HCAs and ports, or NET/Socket over which interface),
whether GPUDirect RDMA is on, how many channels it built; then diagnose:
socket fallback, NCCL_IB_DISABLE, work-completion errors decoded from their
ibv_wc_status (the first one is the cause, later flushes are fallout), verbs
resource failures (memlock, container devices, GID/route), and collective
timeouts with their sequence numbers.

Exit code: 0 healthy, 1 warnings (or a file not analysed), 2 critical,
3 nothing could be read.`,
		Example: `  # every rank's log of a failed job
  $ ibdoctor nccl log --expect-ib logs/rank*.log
  # judged against the RDMA devices of this node
  $ ibdoctor nccl log --root / train.log
  # from a pipe
  $ kubectl logs trainer-0 | ibdoctor nccl log -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(opts)
			}
			return runLog(context.Background(), opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmd.Flags().BoolVar(&opts.ExpectIB, "expect-ib", false, "the job should use InfiniBand/RoCE: a socket fallback is critical")
	cmd.Flags().StringVar(&opts.Root, "root", "", "node root (directory or bundle); RDMA devices there make a socket fallback critical")
	return cmd
}

type logFile struct {
	Source string       `json:"source"`
	Log    *nccllog.Log `json:"log"`
}

type logDoc struct {
	finding.Outcome
	Files    []logFile              `json:"files"`
	Analysis *ncclrules.LogAnalysis `json:"analysis,omitempty"`
	Findings []finding.Finding      `json:"findings"`
	Notes    []string               `json:"notes,omitempty"`
	Errors   []fileError            `json:"errors,omitempty"`
}

// runLog analyses every file as one job (nccllog.Merge): a socket
// fallback on one node next to IB on others is a mixed job, and one peer
// failing from several ranks shows up as one finding.
func runLog(ctx context.Context, o *LogOptions) error {
	lo := ncclrules.LogOptions{ExpectIB: o.ExpectIB}
	var doc logDoc
	if o.Root != "" {
		nf, err := readNode(ctx, o.F, o.Root)
		if err != nil {
			return cmdutil.CannotRun(fmt.Errorf("--root %s: %w", o.Root, err))
		}
		lo.RDMAPresent = nf.Present
		if nf.Present {
			doc.Notes = append(doc.Notes, fmt.Sprintf("%s has RDMA devices: NCCL should use them", o.Root))
		}
	}
	var logs []*nccllog.Log
	for _, name := range o.Files {
		lg, err := parseLogFile(o.F, name)
		if err != nil {
			doc.Errors = append(doc.Errors, fileError{name, err.Error()})
			continue
		}
		logs = append(logs, lg)
		doc.Files = append(doc.Files, logFile{Source: name, Log: lg})
	}
	if len(logs) > 0 {
		doc.Analysis = ncclrules.CheckLog(nccllog.Merge(logs...), lo)
		doc.Findings = doc.Analysis.Findings
		doc.Notes = append(doc.Notes, doc.Analysis.Notes...)
	}
	judge(&doc.Outcome, &doc.Findings, len(doc.Errors), len(o.Files), "")
	return finish(o.F, o.Format, doc.ExitCode, &doc,
		func(w io.Writer, st report.Style) { writeLogText(w, st, &doc) })
}

func parseLogFile(f *cmdutil.Factory, name string) (*nccllog.Log, error) {
	rc, err := openInput(f, name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return nccllog.Parse(rc, name)
}

func writeLogText(w io.Writer, st report.Style, doc *logDoc) {
	for _, lf := range doc.Files {
		title := fmt.Sprintf("%s: %d NCCL line(s) from %d process(es)", lf.Source, lf.Log.NCCLLines, len(lf.Log.Procs))
		if lf.Log.Version != "" {
			title += ", NCCL " + lf.Log.Version
		}
		fmt.Fprintln(w, st.Bold(title))
		var procs []ncclrules.ProcSummary
		for _, p := range doc.Analysis.Procs {
			if p.Source == lf.Source {
				procs = append(procs, p)
			}
		}
		if len(procs) > 0 {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  PROCESS\tRANKS\tNETWORK\tDEVICES\tGDR\tCHANNELS")
			for _, p := range procs {
				devs := strings.Join(p.IBDevices, " ")
				if p.Network == "Socket" || devs == "" {
					devs = strings.Join(p.SocketIfs, " ")
				}
				ch := "-"
				if p.Channels > 0 {
					ch = fmt.Sprint(p.Channels)
					if p.Trees {
						ch += " +trees"
					}
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", p.Name, ranks(p.Ranks), dash(p.Network), dash(devs), dash(p.GDR), ch)
			}
			tw.Flush()
		}
		var counts []string
		byKind := map[nccllog.EventKind]int{}
		for _, e := range lf.Log.Events {
			byKind[e.Kind]++
		}
		for _, k := range []nccllog.EventKind{nccllog.EventCompletion, nccllog.EventResource, nccllog.EventTimeout, nccllog.EventWarn} {
			if byKind[k] > 0 {
				counts = append(counts, fmt.Sprintf("%d %s", byKind[k], k))
			}
		}
		if len(counts) > 0 {
			fmt.Fprintf(w, "  events: %s\n", strings.Join(counts, ", "))
		}
		var env []string
		for _, p := range procs {
			for _, e := range p.Env {
				if !slices.Contains(env, e) {
					env = append(env, e)
				}
			}
		}
		if len(env) > 0 {
			slices.Sort(env)
			fmt.Fprintf(w, "  environment: %s\n", strings.Join(env, " "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, verdictLine(st, doc.Outcome, doc.Findings))
	writeFindings(w, st, doc.Findings)
	writeNotes(w, doc.Notes, doc.Errors)
}

func ranks(r []int) string {
	if len(r) == 0 {
		return "-"
	}
	var s []string
	for _, x := range r {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ",")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
