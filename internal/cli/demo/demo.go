// Package demo implements `ibdoctor demo`: the main job on a simulated node
// with injected faults, diagnosed and explained, with no hardware needed.
package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
)

// Runner runs an ibdoctor command line in-process with the demo's output
// streams and returns its exit code (the root command provides it).
type Runner func(f *cmdutil.Factory, args []string) int

// Options are the inputs of `ibdoctor demo`.
type Options struct {
	F      *cmdutil.Factory
	Format cmdutil.Format
	Keep   string
	Run    Runner
	// UI runs the whole system instead (demo --ui): Nodes simulated
	// nodes, their agents, the fabric and the hub serving on Listen.
	UI     bool
	Listen string
	Nodes  int
}

// Faults are what the demo breaks on the simulated node: the failures the
// runbook is about, one of each kind.
var Faults = []struct{ Fault, Story string }{
	{"width:mlx5_2/1=2", "a cable with a dead lane: mlx5_2 trained at 2X instead of 4X"},
	{"polling:mlx5_5/1", "an unplugged or broken cable: mlx5_5 is Polling"},
	{"pcie-width:mlx5_4=8", "an HCA not seated well: its PCIe link trained at x8"},
	{"saturate:mlx5_1/1/symbol_error", "an aging cable: symbol_error stuck at 65535"},
	{"fw:mlx5_6=28.36.1010", "a half-finished firmware upgrade on mlx5_6"},
	{"unreadable:mlx5_0/1/counters/port_rcv_data", "a counter file that cannot be read (degrades one value, not the report)"},
	{"xid:gpu3=79", "a GPU that fell off the PCIe bus (Xid 79 in the kernel log)"},
	{"no-module:nvidia_peermem", "nvidia_peermem not loaded: no GPUDirect RDMA for NCCL"},
	{"env:NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_17", "the job's NCCL_IB_HCA names mlx5_17, which does not exist (a typo for mlx5_7?)"},
	{"env:NCCL_SOCKET_IFNAME=eth0", "the job's NCCL_SOCKET_IFNAME=eth0 names no interface of this node"},
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runner Runner, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f, Run: runner}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Diagnose a simulated GPU node with injected faults (no hardware needed)",
		Long: `Build a simulated 8-GPU H100 node with 8 NDR InfiniBand HCAs and a RoCE
frontend, break it the ways real nodes break, then run what an SRE would:
'ibdoctor status', 'ibdoctor check' and 'ibdoctor doctor', explaining each.
The simulated root is byte-faithful Linux sysfs; keep it with --keep DIR and
point any command at it with --root DIR.`,
		Example: `  $ ibdoctor demo
  # keep the simulated node to explore it
  $ ibdoctor demo --keep /tmp/gpu017 && ibdoctor status --root /tmp/gpu017
  # the whole system: 12 live nodes with faults over time, their agents,
  # the fabric, a pairwise run and the hub's web UI at the printed URL
  $ ibdoctor demo --ui --listen 127.0.0.1:9316`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !opts.UI && (cmd.Flags().Changed("listen") || cmd.Flags().Changed("nodes")) {
				return cmdutil.FlagErrorf("--listen and --nodes go with --ui")
			}
			if opts.UI && (opts.Nodes < 4 || opts.Nodes > 99) {
				return cmdutil.FlagErrorf("--nodes %d: want 4 to 99", opts.Nodes)
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.UI {
				return runUI(opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Keep, "keep", "", "write the simulated node root here and keep it (must not exist or be empty)")
	cmd.Flags().BoolVar(&opts.UI, "ui", false, "run the whole system until Ctrl-C: simulated nodes with faults over time, their agents, the fabric, a pairwise run and the hub with its web UI")
	cmd.Flags().StringVar(&opts.Listen, "listen", "127.0.0.1:0", "with --ui: the hub's address (port 0 picks a free one; the URL is printed)")
	cmd.Flags().IntVar(&opts.Nodes, "nodes", 12, "with --ui: how many simulated nodes (4 to 99, 4 a leaf)")
	cmdutil.AddFormatFlag(cmd, &opts.Format)
	return cmd
}

func run(o *Options) error {
	dir := o.Keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "ibdoctor-demo-")
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "gpu017")
	} else if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return cmdutil.FlagErrorf("--keep %s is not empty", dir)
	}
	var faults []simnode.Fault
	for _, x := range Faults {
		f, err := simnode.ParseFault(x.Fault)
		if err != nil {
			return err
		}
		faults = append(faults, f)
	}
	n, err := simnode.Build(simnode.Options{Profile: "h100-ndr", Host: "gpu017", Faults: faults})
	if err != nil {
		return err
	}
	if err := n.Write(dir); err != nil {
		return cmdutil.CannotRun(err)
	}
	args := []string{"doctor", "--root", dir}
	if n.Job != nil {
		// The training job's process: its limits and NCCL environment.
		args = append(args, "--pid", strconv.Itoa(n.Job.PID))
	}
	if o.Format == cmdutil.FormatJSON {
		return runJSON(o, dir, args)
	}
	w := o.F.Out
	sty := report.Style{Enabled: o.F.Color}
	say := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	step := func(title string) { say("\n%s\n", sty.Bold("━━ "+title)) }
	cmdline := func(args ...string) {
		say("%s\n", sty.Dim("$ ibdoctor "+strings.Join(args, " ")))
	}
	runCmd := func(args ...string) int {
		cmdline(args...)
		return o.Run(o.F, args)
	}

	say("%s\n", sty.Bold(fmt.Sprintf("ibdoctor demo: a simulated H100 training node, gpu017, broken in %d ways", len(Faults))))
	say("The node: 8x H100 + 8x ConnectX-7 NDR InfiniBand (mlx5_0..7) behind 4 PCIe switches,\nplus a dual-port 100G RoCE frontend (mlx5_8/9). Its root is %s\n(real sysfs layout, byte for byte). What was broken:\n", dir)
	for _, x := range Faults {
		say("  - %s\n", x.Story)
	}

	step("1. Every port in one screen (ibstat + ibstatus + lspci, with a verdict)")
	runCmd("status", "--root", dir)
	say("\nRead it like this: mlx5_2 is ACTIVE but at 200 Gb/s 2X — a link that is up but\nhalf as fast, which 'ibstat' shows only if you look at the width. mlx5_5 is\nPolling (no link partner). mlx5_4's PCIe link is x8 of x16. The unreadable\ncounter is listed, not fatal.\n")

	step("2. The scheduler's verdict, with evidence and remedies (exit 0/1/2/3)")
	code := runCmd("check", "--root", dir)
	say("\nexit code %d: a Slurm HealthCheckProgram or a Kubernetes probe drains the node on 2.\n", code)

	step("3. Full triage in the runbook's order: ports → PCIe/topology → kernel log → limits → NCCL → containers")
	code = runCmd(args...)
	say("\nexit code %d. The doctor adds what a port check cannot see: the kernel log (Xid 79),\nthe GPU–NIC topology, the missing nvidia_peermem module and the NCCL environment.\n", code)

	step("Next")
	if o.Keep != "" {
		say("The node is kept at %s: try 'ibdoctor status --root %s --format json'\nor 'ibdoctor baseline --root %s'.\n", dir, dir, dir)
	} else {
		say("Keep the simulated node with 'ibdoctor demo --keep DIR'; make your own with\n'ibdoctor sim node --list'. On a real node: 'ibdoctor status', 'ibdoctor check'.\n")
	}
	return nil
}

// runJSON runs the three commands with --format json and returns one
// document holding their outputs and exit codes.
func runJSON(o *Options, dir string, doctorArgs []string) error {
	type step struct {
		Command  string          `json:"command"`
		ExitCode int             `json:"exit_code"`
		Output   json.RawMessage `json:"output"`
	}
	type fault struct {
		Fault string `json:"fault"`
		Story string `json:"story"`
	}
	doc := struct {
		Root   string  `json:"root,omitempty"`
		Faults []fault `json:"faults"`
		Steps  []step  `json:"steps"`
	}{Faults: []fault{}, Steps: []step{}}
	if o.Keep != "" {
		doc.Root = dir
	}
	for _, x := range Faults {
		doc.Faults = append(doc.Faults, fault{x.Fault, x.Story})
	}
	for _, args := range [][]string{{"status", "--root", dir}, {"check", "--root", dir}, doctorArgs} {
		var out bytes.Buffer
		f := *o.F
		f.Out, f.Color = &out, false
		code := o.Run(&f, append(args, "--format", "json"))
		if !json.Valid(out.Bytes()) {
			return fmt.Errorf("ibdoctor %s gave no JSON (exit %d)", args[0], code)
		}
		doc.Steps = append(doc.Steps, step{Command: "ibdoctor " + strings.Join(args, " "), ExitCode: code, Output: out.Bytes()})
	}
	return cmdutil.WriteJSON(o.F.Out, doc)
}
