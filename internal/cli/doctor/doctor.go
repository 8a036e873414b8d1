package doctor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	diagdoctor "github.com/ibdoctor/ibdoctor/internal/diagnose/doctor"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/source/gather"
)

// Options are the inputs of `ibdoctor doctor`.
type Options struct {
	F        *cmdutil.Factory
	Format   cmdutil.Format
	Root     string
	Expect   string
	NCCLEnv  string
	Env      bool
	NCCLLog  string
	Since    time.Duration
	PID      int
	MaxSteps int // "what to do next" items
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f, MaxSteps: 5}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Full node triage: ports, PCIe and GPU topology, kernel log, limits, NCCL, containers",
		Long: `Walk the runbook on this node in its fixed order and report ranked findings
with evidence, likely causes and the next command to run:

  1. end-to-end port state and counters
  2. PCIe and GPU topology (AER errors, GPU–NIC distance, nvidia-smi)
  3. kernel log (NVIDIA Xid, fallen off the bus, AER, mlx5 link flaps,
     cable/module events, firmware health) within --since
  4. memory and registration limits (RLIMIT_MEMLOCK, nvidia_peermem)
  5. NCCL configuration (NCCL_IB_HCA, NCCL_SOCKET_IFNAME, NCCL_IB_GID_INDEX,
     NCCL_IB_DISABLE; an NCCL debug log with --nccl-log)
  6. container device access (/dev/infiniband/uverbsN, rdma_cm)

RoCE ports are also checked for a RoCE v2 GID, consistent MTUs, PFC pause
storms, ECN that does not work, and PHY errors (ethtool statistics).

On the running host the kernel log is read from /dev/kmsg (CAP_SYSLOG may be
needed) and ethtool statistics through the ioctl; a bundle's saved outputs
(cmd/dmesg.txt, cmd/ethtool-S-<netdev>.txt, cmd/nvidia-smi-topo-m.txt) are
used otherwise. Exit codes as check: 0 healthy, 1 warnings, 2 critical,
3 could not run.`,
		Example: `  # this node, the last 24 hours of kernel log
  $ ibdoctor doctor
  # a running job: its limits and NCCL environment, and its NCCL log
  $ ibdoctor doctor --pid 4242 --nccl-log /tmp/nccl.rank0.log
  # the environment of this shell (what a job started here would get)
  $ ibdoctor doctor --env
  # a support bundle, the whole kernel log, as JSON
  $ ibdoctor doctor --root gpu017.tar.gz --since 0 --format json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if opts.Env && opts.NCCLEnv != "" {
				return cmdutil.FlagErrorf("--env and --nccl-env are exclusive: read this process's environment or a file, not both")
			}
			if opts.Since < 0 {
				return cmdutil.FlagErrorf("--since %v: want a positive duration (e.g. 24h) or 0 for the whole log", opts.Since)
			}
			if opts.PID < 0 {
				return cmdutil.FlagErrorf("--pid %d: want a process id", opts.PID)
			}
			if runF != nil {
				return runF(opts)
			}
			return run(context.Background(), opts)
		},
	}
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	cmdutil.AddRootFlag(cmd, &opts.Root)
	cmd.Flags().StringVar(&opts.Expect, "expect", "", "expectation file (YAML, from 'ibdoctor baseline') for the port checks")
	cmd.Flags().StringVar(&opts.NCCLEnv, "nccl-env", "", "NCCL environment to check: a KEY=VALUE file or a copy of /proc/<pid>/environ")
	cmd.Flags().BoolVar(&opts.Env, "env", false, "check this process's environment as the NCCL environment")
	cmd.Flags().StringVar(&opts.NCCLLog, "nccl-log", "", "NCCL debug log (NCCL_DEBUG=INFO) of a job on this node to analyse too")
	cmd.Flags().DurationVar(&opts.Since, "since", 24*time.Hour, "kernel-log window (0: the whole log)")
	cmd.Flags().IntVar(&opts.PID, "pid", 0, "process id of the job: its proc/<pid>/limits and, without --env/--nccl-env, its environ (default: proc/self, which in a bundle or simulated root is the job)")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	res, err := Diagnose(ctx, o)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	if o.Format == cmdutil.FormatJSON {
		if err := cmdutil.WriteJSON(o.F.Out, res); err != nil {
			return err
		}
	} else {
		writeText(o.F.Out, report.Style{Enabled: o.F.Color}, res, o.MaxSteps)
	}
	return cmdutil.Exit(res.ExitCode)
}

// Diagnose reads the files the flags name and runs the runbook on the
// root; only an unusable root or an unreadable file named by a flag is an
// error.
func Diagnose(ctx context.Context, o *Options) (*diagdoctor.Result, error) {
	do := diagdoctor.Options{Root: o.Root, Since: o.Since, PID: o.PID, NCCLLogName: o.NCCLLog}
	if o.F != nil {
		do.Now = o.F.Now
	}
	var err error
	if do.Expect, err = cmdutil.LoadExpectation(o.Expect); err != nil {
		return nil, err
	}
	switch {
	case o.Env:
		environ := os.Environ
		if o.F != nil && o.F.Environ != nil {
			environ = o.F.Environ
		}
		do.Env = ncclenv.FromList("environment of ibdoctor (--env)", environ())
	case o.NCCLEnv != "":
		b, err := readLimited(o.NCCLEnv)
		if err != nil {
			return nil, fmt.Errorf("--nccl-env: %w", err)
		}
		if do.Env, err = ncclenv.Parse(bytes.NewReader(b), o.NCCLEnv); err != nil {
			return nil, fmt.Errorf("--nccl-env: %w", err)
		}
	}
	if o.NCCLLog != "" {
		if do.NCCLLog, err = readLimited(o.NCCLLog); err != nil {
			return nil, fmt.Errorf("--nccl-log: %w", err)
		}
	}
	res, err := diagdoctor.Diagnose(ctx, do)
	if err != nil {
		return nil, err
	}
	// Empty lists, not null, in the JSON document.
	doc := report.NewDocument(res.Host, res.Findings, res.Gaps)
	res.Findings, res.Gaps = doc.Findings, doc.Gaps
	return res, nil
}

func writeText(w io.Writer, st report.Style, r *diagdoctor.Result, maxSteps int) {
	verdict := report.VerdictLine(st, r.Host, r.Findings)
	if !r.IsJudged() {
		verdict = st.Severity(finding.Critical, "NOT JUDGED") + " (" + r.NotJudged + ")"
	}
	fmt.Fprintf(w, "%s %s\n", st.Bold("ibdoctor doctor"), verdict)
	var ctx []string
	ctx = append(ctx, "root "+r.Root)
	if r.Snap.Kernel != "" {
		ctx = append(ctx, "kernel "+r.Snap.Kernel)
	}
	ctx = append(ctx, fmt.Sprintf("%d RDMA devices, %d GPUs", len(r.Snap.Devices), len(r.Snap.GPUs())))
	if r.KernelLog != "" {
		ctx = append(ctx, "log "+r.KernelLog)
	}
	fmt.Fprintf(w, "%s\n", st.Dim(strings.Join(ctx, " · ")))
	if len(r.Findings) > 0 && r.Findings[0].Severity != finding.Info {
		f := r.Findings[0]
		more := ""
		if n := len(r.Findings) - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more below)", n)
		}
		fmt.Fprintf(w, "Start here: %s%s\n", f.Summary, more)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, st.Bold("Runbook"))
	for _, s := range diagdoctor.Steps {
		t := r.Tally(s.N)
		c, wn, in := t.Critical, t.Warning, t.Info
		status := st.Green("ok")
		switch {
		case c > 0:
			status = st.Severity(finding.Critical, fmt.Sprintf("%d critical", c))
			if wn > 0 {
				status += fmt.Sprintf(", %d warning", wn)
			}
		case wn > 0:
			status = st.Severity(finding.Warning, fmt.Sprintf("%d warning", wn))
		case in > 0:
			status = fmt.Sprintf("%d note", in)
		case t.Skipped:
			status = st.Dim("not fully checked (see below)")
		}
		fmt.Fprintf(w, "  %d. %-32s %s\n", s.N, s.Name, status)
	}
	if len(r.Findings) > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Bold("Findings, most urgent first"))
		report.Findings(w, st, r.Findings)
	}
	if r.Topology != nil {
		fmt.Fprintf(w, "\n%s\n", st.Bold("GPU–NIC topology (from the PCI tree)"))
		fmt.Fprint(w, r.Topology.Table())
		if r.Topology.SuggestedHCA != "" {
			fmt.Fprintf(w, "suggested NCCL_IB_HCA=%s\n", r.Topology.SuggestedHCA)
		}
	}
	if gaps := r.UngroupedGaps(); len(r.NotChecked) > 0 || len(gaps) > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Bold("Not checked"))
		for _, n := range r.NotChecked {
			fmt.Fprintf(w, "  - %s\n", n)
		}
		report.Gaps(w, st, gaps)
	}
	fmt.Fprintf(w, "\n%s\n", st.Bold("What to do next"))
	next := nextSteps(r.Findings, maxSteps)
	if len(next) == 0 {
		fmt.Fprintln(w, "  Nothing on this node explains a slow or failing job. Test the path itself:")
		fmt.Fprintln(w, "  ib_write_bw between this node and a known-good peer, then all_reduce_perf across nodes")
		fmt.Fprintln(w, "  ('ibdoctor perf'), and 'ibdoctor fabric check' for the switches between them.")
		return
	}
	for i, n := range next {
		fmt.Fprintf(w, "  %d. %s\n", i+1, n)
	}
}

// nextSteps renders the runbook's next steps: the finding, its subject and
// severity, and its first remedy.
func nextSteps(fs []finding.Finding, max int) []string {
	var out []string
	for _, f := range diagdoctor.NextSteps(fs, max) {
		out = append(out, fmt.Sprintf("%s (%s %s): %s", f.ID, report.SubjectString(f.Subject), f.Severity, f.Remedy[0]))
	}
	return out
}

// readLimited reads a file named by a flag, refusing more than gather.MaxFile.
func readLimited(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, gather.MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > gather.MaxFile {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, gather.MaxFile>>20)
	}
	return b, nil
}
