package doctor

import (
	"bytes"
	"context"
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/source/gather"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/host"
	ncclrules "github.com/ibdoctor/ibdoctor/internal/rules/nccl"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
	"github.com/ibdoctor/ibdoctor/internal/rules/topo"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
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

// Result is what doctor found: the JSON document (report.Document's keys
// plus the topology and the notes).
type Result struct {
	Host     string            `json:"host,omitempty"`
	Verdict  string            `json:"verdict"`
	ExitCode int               `json:"exit_code"`
	Findings []finding.Finding `json:"findings"`
	Gaps     []snapshot.Gap    `json:"gaps"`
	// Topology is the GPU×NIC matrix from the PCI tree, nil without GPUs.
	Topology *Topology `json:"topology,omitempty"`
	// NotChecked lists sources that were missing, with why.
	NotChecked []string `json:"not_checked"`
	// KernelLog names the log judged and its window.
	KernelLog string `json:"kernel_log,omitempty"`

	root    string
	snap    *snapshot.Snapshot
	skipped map[int]bool
}

// Topology is the GPU–NIC view of the text and JSON reports.
type Topology struct {
	*topo.Matrix
	SuggestedHCA string `json:"suggested_nccl_ib_hca,omitempty"`
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

// Diagnose runs the whole triage for the options and returns the result;
// only an unusable root or an unreadable file named by a flag is an error.
func Diagnose(ctx context.Context, o *Options) (*Result, error) {
	now := time.Now
	if o.F != nil && o.F.Now != nil {
		now = o.F.Now
	}
	exp, err := cmdutil.LoadExpectation(o.Expect)
	if err != nil {
		return nil, err
	}
	var env *ncclenv.Env
	switch {
	case o.Env:
		environ := os.Environ
		if o.F != nil && o.F.Environ != nil {
			environ = o.F.Environ
		}
		env = ncclenv.FromList("environment of ibdoctor (--env)", environ())
	case o.NCCLEnv != "":
		b, err := readLimited(o.NCCLEnv)
		if err != nil {
			return nil, fmt.Errorf("--nccl-env: %w", err)
		}
		if env, err = ncclenv.Parse(bytes.NewReader(b), o.NCCLEnv); err != nil {
			return nil, fmt.Errorf("--nccl-env: %w", err)
		}
	}
	var ncclLog []byte
	if o.NCCLLog != "" {
		if ncclLog, err = readLimited(o.NCCLLog); err != nil {
			return nil, fmt.Errorf("--nccl-log: %w", err)
		}
	}
	rt, err := rootfs.Open(o.Root)
	if err != nil {
		return nil, fmt.Errorf("cannot open root: %w", err)
	}
	defer rt.Close()
	snap, err := sysfs.Read(ctx, rt.FS(), sysfs.Options{Root: o.Root, Now: now})
	if err != nil {
		return nil, err
	}
	live := o.Root == "/" && !rt.IsBundle() && runtime.GOOS == "linux"
	gopts := gather.Options{Live: live, Since: o.Since, Now: now(), PID: o.PID, Env: env}
	if live {
		gopts.Sources = gather.NewLive(ctx)
	}
	g := gather.Node(rt.FS(), snap, gopts)

	// 1) ports and counters: the node rules; 2–6) the triage rules.
	fs := noderules.Node(snap, exp)
	fs = append(fs, host.Run(g.In)...)
	if ncclLog != nil {
		lg, err := nccllog.Parse(bytes.NewReader(ncclLog), o.NCCLLog)
		if err != nil {
			g.Note("NCCL log %s: %v", o.NCCLLog, err)
		} else {
			a := ncclrules.CheckLog(lg, ncclrules.LogOptions{RDMAPresent: len(snap.Devices) > 0})
			for i := range a.Findings {
				if a.Findings[i].Subject.Host == "" {
					a.Findings[i].Subject.Host = snap.Host
				}
			}
			fs = append(fs, a.Findings...)
		}
	}
	catalog.Sort(fs)
	doc := report.NewDocument(snap.Host, fs, snap.Gaps)
	res := &Result{
		Host: doc.Host, Verdict: doc.Verdict, ExitCode: doc.ExitCode, Findings: doc.Findings, Gaps: doc.Gaps,
		NotChecked: g.Notes, root: o.Root, snap: snap, skipped: g.Skipped,
	}
	if res.NotChecked == nil {
		res.NotChecked = []string{}
	}
	if m := topo.Build(snap); len(m.GPUs) > 0 && len(m.NICs) > 0 {
		res.Topology = &Topology{Matrix: m, SuggestedHCA: m.SuggestHCA()}
	}
	if g.In.Kernel != nil {
		res.KernelLog = g.In.Kernel.Source
		if g.In.Window > 0 {
			res.KernelLog += ", last " + host.ShortDuration(o.Since)
		}
	}
	return res, nil
}

// steps are the runbook's steps as the report names them.
var steps = []struct {
	n    int
	name string
}{
	{finding.StepPort, "ports and counters"},
	{finding.StepPCIe, "PCIe and GPU topology"},
	{finding.StepKernelLog, "kernel log"},
	{finding.StepHost, "memory and registration limits"},
	{finding.StepNCCL, "NCCL configuration"},
	{finding.StepContainer, "container device access"},
}

func writeText(w io.Writer, st report.Style, r *Result, maxSteps int) {
	fmt.Fprintf(w, "%s %s\n", st.Bold("ibdoctor doctor"), report.VerdictLine(st, r.Host, r.Findings))
	var ctx []string
	ctx = append(ctx, "root "+r.root)
	if r.snap.Kernel != "" {
		ctx = append(ctx, "kernel "+r.snap.Kernel)
	}
	ctx = append(ctx, fmt.Sprintf("%d RDMA devices, %d GPUs", len(r.snap.Devices), len(r.snap.GPUs())))
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
	for _, s := range steps {
		var c, wn, in int
		for _, f := range r.Findings {
			if catalog.Default.Step(f.ID) != s.n {
				continue
			}
			switch f.Severity {
			case finding.Critical:
				c++
			case finding.Warning:
				wn++
			default:
				in++
			}
		}
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
		case r.skipped[s.n]:
			status = st.Dim("not fully checked (see below)")
		}
		fmt.Fprintf(w, "  %d. %-32s %s\n", s.n, s.name, status)
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
	if len(r.NotChecked) > 0 || len(r.Gaps) > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Bold("Not checked"))
		for _, n := range r.NotChecked {
			fmt.Fprintf(w, "  - %s\n", n)
		}
		if len(r.Gaps) > 0 {
			report.Gaps(w, st, r.Gaps)
		}
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

// nextSteps returns the first remedy of the most urgent findings, one per
// ID, in report order.
func nextSteps(fs []finding.Finding, max int) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fs {
		if f.Severity == finding.Info || seen[f.ID] || len(f.Remedy) == 0 {
			continue
		}
		seen[f.ID] = true
		subj := report.SubjectString(f.Subject)
		out = append(out, fmt.Sprintf("%s (%s %s): %s", f.ID, subj, f.Severity, f.Remedy[0]))
		if len(out) == max {
			break
		}
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
