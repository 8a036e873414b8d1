package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	agentcmd "github.com/ibdoctor/ibdoctor/internal/cli/agent"
	analyzecmd "github.com/ibdoctor/ibdoctor/internal/cli/analyze"
	"github.com/ibdoctor/ibdoctor/internal/cli/baseline"
	"github.com/ibdoctor/ibdoctor/internal/cli/check"
	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/cli/collect"
	"github.com/ibdoctor/ibdoctor/internal/cli/demo"
	"github.com/ibdoctor/ibdoctor/internal/cli/doctor"
	fabriccmd "github.com/ibdoctor/ibdoctor/internal/cli/fabric"
	hubcmd "github.com/ibdoctor/ibdoctor/internal/cli/hub"
	ncclcmd "github.com/ibdoctor/ibdoctor/internal/cli/nccl"
	perfcmd "github.com/ibdoctor/ibdoctor/internal/cli/perf"
	"github.com/ibdoctor/ibdoctor/internal/cli/rules"
	simcmd "github.com/ibdoctor/ibdoctor/internal/cli/sim"
	"github.com/ibdoctor/ibdoctor/internal/cli/status"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// NewRootCmd builds the command tree. Commands are listed here, not
// registered from init().
func NewRootCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "ibdoctor <command>",
		Short: "Keep the RDMA network of GPU training clusters healthy",
		Long: `ibdoctor checks InfiniBand and RoCE ports on a node, the switched fabric
between nodes, and the NCCL jobs on top, and explains what is wrong with
evidence, likely causes and the next command to run.

Start with 'ibdoctor demo' (no hardware needed) or 'ibdoctor status' on a node.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       f.Version,
	}
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return cmdutil.FlagErrorf("%v", err)
	})
	root.AddCommand(
		demo.NewCmd(f, Run, nil),
		status.NewCmd(f, nil),
		check.NewCmd(f, nil),
		doctor.NewCmd(f, nil),
		baseline.NewCmd(f, nil),
		rules.NewCmd(f, nil),
		collect.NewCmd(f, nil),
		simcmd.NewCmd(f),
		perfcmd.NewCmd(f),
		ncclcmd.NewCmd(f),
		agentcmd.NewCmd(f, nil),
		hubcmd.NewCmd(f, nil),
		fabriccmd.NewCmd(f),
		analyzecmd.NewCmd(f, nil),
	)
	rejectUnknownSubcommands(root)
	return root
}

// rejectUnknownSubcommands makes every group command (fabric, perf, nccl,
// sim, ...) refuse an argument that names none of its subcommands: cobra
// would print the group's help and exit 0, so `ibdoctor fabric chek` in a
// health check would read as healthy. Without arguments the help is
// still printed.
func rejectUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		rejectUnknownSubcommands(sub)
	}
	if c.Parent() == nil || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			var names []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			return cmdutil.FlagErrorf("unknown command %q for %q (one of: %s)", args[0], cmd.CommandPath(), strings.Join(names, ", "))
		}
		return cmd.Help()
	}
}

// Main runs ibdoctor with args and returns the process exit code.
func Main(version string, args []string) int {
	f := cmdutil.System(version)
	return Run(f, args)
}

// Run executes the command tree with a Factory and returns the exit code;
// tests call it in-process.
func Run(f *cmdutil.Factory, args []string) int {
	// Count what the command writes: an exit-3 run asked for JSON that
	// wrote nothing still prints an object (see notJudgedJSON).
	out := &countingWriter{w: f.Out}
	fc := *f
	fc.Out = out
	root := NewRootCmd(&fc)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return finding.ExitHealthy
	}
	code, msg := finding.ExitCannot, err
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		code, msg = ee.Code, ee.Err
	}
	// Cobra's own errors (unknown command, bad args) and anything
	// unexpected: the tool could not run.
	if msg != nil {
		fmt.Fprintf(f.ErrOut, "ibdoctor: %v\n", msg)
	}
	if code == finding.ExitCannot && out.n == 0 && wantsJSON(cmd) {
		reason := "the command could not run"
		if msg != nil {
			reason = msg.Error()
		}
		_ = cmdutil.WriteJSON(f.Out, notJudgedJSON{Outcome: finding.NotJudged(reason), Findings: []finding.Finding{}})
	}
	return code
}

// notJudgedJSON is the document of a run that stopped before judging
// anything (an unreadable root, a file that is not there): scripts that
// asked for JSON get an object, not an empty stdout.
type notJudgedJSON struct {
	finding.Outcome
	Findings []finding.Finding `json:"findings"`
}

// wantsJSON says whether cmd was given --format json.
func wantsJSON(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	fl := cmd.Flags().Lookup("format")
	return fl != nil && fl.Value.String() == string(cmdutil.FormatJSON)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
