// Package doctor is the node runbook: it reads a node root (the sysfs
// snapshot and, through internal/source/gather, the kernel log, ethtool
// statistics, nvidia-smi, limits, modules, /dev entries and the job's
// environment), runs the node rules, the host triage rules and the NCCL log
// rules, orders the findings by severity and runbook step, and picks what to
// do next. `ibdoctor doctor` prints its result; it does no printing itself.
package doctor

import (
	"bytes"
	"context"
	"fmt"
	iofs "io/fs"
	"path"
	"runtime"
	"slices"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/expect"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/host"
	"github.com/ibdoctor/ibdoctor/internal/rules/nccl"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
	"github.com/ibdoctor/ibdoctor/internal/rules/topo"
	"github.com/ibdoctor/ibdoctor/internal/source/gather"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// Options are the inputs of one diagnosis.
type Options struct {
	// Root is the node root: "/" (the running host), a directory or a
	// bundle.
	Root string
	// Expect is the expectation for the port checks, nil for none.
	Expect *expect.Expectation
	// Env is the job's NCCL environment given by the caller; nil reads
	// the job's proc/<pid>/environ where there is one.
	Env *ncclenv.Env
	// NCCLLog is an NCCL debug log (NCCL_DEBUG=INFO) of a job on this
	// node, named NCCLLogName in evidence and notes; nil for none.
	NCCLLog     []byte
	NCCLLogName string
	// Since is the kernel-log window, 0 for the whole log.
	Since time.Duration
	// PID is the job's process id (its proc/<pid>/limits and environ); 0
	// for proc/self.
	PID int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Result is what the diagnosis found. Its JSON is the doctor's document:
// report.Document's keys plus the topology and the notes.
type Result struct {
	Host string `json:"host,omitempty"`
	finding.Outcome
	Findings []finding.Finding `json:"findings"`
	Gaps     []snapshot.Gap    `json:"gaps"`
	// Topology is the GPU×NIC matrix from the PCI tree, nil without GPUs.
	Topology *Topology `json:"topology,omitempty"`
	// NotChecked lists sources that were missing, with why.
	NotChecked []string `json:"not_checked"`
	// KernelLog names the log judged and its window.
	KernelLog string `json:"kernel_log,omitempty"`

	// Root is the root read; Snap its snapshot.
	Root string             `json:"-"`
	Snap *snapshot.Snapshot `json:"-"`
	// Skipped marks runbook steps with a source that could not be read.
	Skipped map[int]bool `json:"-"`
	// Grouped are the paths of Gaps a note of NotChecked names together
	// (the config files of bridges whose ACS was not readable): the text
	// report prints the note, not each gap. The JSON keeps every gap.
	Grouped []string `json:"-"`
}

// UngroupedGaps returns the gaps no note names.
func (r *Result) UngroupedGaps() []snapshot.Gap {
	var out []snapshot.Gap
	for _, g := range r.Gaps {
		if !slices.Contains(r.Grouped, g.Path) {
			out = append(out, g)
		}
	}
	return out
}

// Topology is the GPU–NIC view of the text and JSON reports.
type Topology struct {
	*topo.Matrix
	SuggestedHCA string `json:"suggested_nccl_ib_hca,omitempty"`
}

// Diagnose runs the whole runbook on the root. Only an unusable root is an
// error; a source that cannot be read is a note, and a bad NCCL log too.
func Diagnose(ctx context.Context, o Options) (*Result, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	rt, err := rootfs.Open(o.Root)
	if err != nil {
		return nil, fmt.Errorf("cannot open root: %w", err)
	}
	defer rt.Close()
	snap, err := sysfs.Read(ctx, rt.FS(), sysfs.Options{Root: o.Root, Now: now, ReadACS: true})
	if err != nil {
		return nil, err
	}
	live := o.Root == "/" && !rt.IsBundle() && runtime.GOOS == "linux"
	gopts := gather.Options{Live: live, Since: o.Since, Now: now(), PID: o.PID, Env: o.Env}
	if live {
		gopts.Sources = gather.NewLive(ctx)
	}
	g := gather.Node(rt.FS(), snap, gopts)

	// 1) ports and counters: the node rules; 2–6) the triage rules.
	fs := noderules.Check(snap, o.Expect)
	fs = append(fs, host.Check(hostInput(snap, g))...)
	if o.NCCLLog != nil {
		lg, err := nccllog.Parse(bytes.NewReader(o.NCCLLog), o.NCCLLogName)
		if err != nil {
			g.Note("NCCL log %s: %v", o.NCCLLogName, err)
		} else {
			a := nccl.CheckLog(lg, nccl.LogOptions{RDMAPresent: len(snap.Devices) > 0})
			for i := range a.Findings {
				if a.Findings[i].Subject.Host == "" {
					a.Findings[i].Subject.Host = snap.Host
				}
			}
			fs = append(fs, a.Findings...)
		}
	}
	catalog.Sort(fs)
	missing := ""
	if o.PID > 0 {
		// The job named is what was asked about: without its process
		// its limits and environment were not judged.
		if _, err := iofs.Stat(rt.FS(), layout.JobDir(o.PID)); err != nil {
			missing = fmt.Sprintf("no process %d under %s: the job's limits and NCCL environment could not be read (is it running on this node?)", o.PID, path.Join(o.Root, layout.JobDir(o.PID)))
		}
	}
	out, fs := finding.Judge(fs, missing)
	res := &Result{
		Host: snap.Host, Outcome: out, Findings: fs, Gaps: snap.Gaps,
		NotChecked: g.Notes, Root: o.Root, Snap: snap, Skipped: g.Skipped, Grouped: g.Grouped,
	}
	if res.NotChecked == nil {
		res.NotChecked = []string{}
	}
	if m := topo.Build(snap); len(m.GPUs) > 0 && len(m.NICs) > 0 {
		res.Topology = &Topology{Matrix: m, SuggestedHCA: m.SuggestHCA()}
	}
	if g.Kernel != nil {
		res.KernelLog = g.Kernel.Source
		if g.Window > 0 {
			res.KernelLog += ", last " + host.ShortDuration(o.Since)
		}
	}
	return res, nil
}

// hostInput is the triage rules' input: the snapshot and what gather read.
func hostInput(snap *snapshot.Snapshot, g *gather.Result) *host.Input {
	return &host.Input{
		Snap: snap, Kernel: g.Kernel, Boot: g.Boot, Since: g.Since, Window: g.Window,
		Ethtool: g.Ethtool, SMI: g.SMI, Env: g.Env,
		Interfaces: g.Interfaces, InterfacesPartial: g.InterfacesPartial,
		Memlock: g.Memlock, Modules: g.Modules, Uverbs: g.Uverbs, Dev: g.Dev,
		Cmdline: g.Cmdline, IOMMUs: g.IOMMUs,
	}
}

// Step is one step of the runbook as the report names it.
type Step struct {
	N    int
	Name string
}

// Steps are the node's runbook steps, in order.
var Steps = []Step{
	{finding.StepPort, "ports and counters"},
	{finding.StepPCIe, "PCIe and GPU topology"},
	{finding.StepKernelLog, "kernel log"},
	{finding.StepHost, "memory and registration limits"},
	{finding.StepNCCL, "NCCL configuration"},
	{finding.StepContainer, "container device access"},
}

// Tally is how one runbook step came out.
type Tally struct {
	Critical, Warning, Info int
	// Skipped says a source of the step could not be read.
	Skipped bool
}

// Tally counts the findings of runbook step n by severity.
func (r *Result) Tally(n int) Tally {
	t := Tally{Skipped: r.Skipped[n]}
	for _, f := range r.Findings {
		if catalog.Default.Step(f.ID) != n {
			continue
		}
		switch f.Severity {
		case finding.Critical:
			t.Critical++
		case finding.Warning:
			t.Warning++
		default:
			t.Info++
		}
	}
	return t
}

// NextSteps returns what to do next: the most urgent findings that carry
// a remedy, one per ID, in report order, at most max. A finding's first
// remedy is the step.
func NextSteps(fs []finding.Finding, max int) []finding.Finding {
	seen := map[string]bool{}
	var out []finding.Finding
	for _, f := range fs {
		if f.Severity == finding.Info || seen[f.ID] || len(f.Remedy) == 0 {
			continue
		}
		seen[f.ID] = true
		out = append(out, f)
		if len(out) == max {
			break
		}
	}
	return out
}
