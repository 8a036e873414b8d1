package fabric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/job"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
	"github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// CheckOptions are the inputs of `fabric check`.
type CheckOptions struct {
	F        *cmdutil.Factory
	Format   cmdutil.Format
	Source   Source
	Plan     string
	Baseline string
	// QoSPlan is the --qos-plan file (class SL [VL] lines).
	QoSPlan string
	// NoRouting skips the routing analysis.
	NoRouting bool
	// Thresholds are the --threshold NAME=VALUE overrides.
	Thresholds []string
	// Verbose lists every gap instead of a summary per reason.
	Verbose bool
	// Bisections is how many random pairings sample the effective
	// bisection bandwidth: 0 chooses by fabric size, -1 skips it.
	Bisections int
}

// NewCmdCheck builds `fabric check`; runF replaces the run function in
// tests.
func NewCmdCheck(f *cmdutil.Factory, runF func(*CheckOptions) error) *cobra.Command {
	o := &CheckOptions{F: f}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Judge links, port counters, GUIDs/LIDs, the subnet manager and the routes",
		Long: `Judge the whole subnet: links down or below the expected width/speed (the
plan's, else the majority of links between the same tiers), port error
counters and congestion (against a baseline collection: their growth),
duplicate GUIDs and LIDs, ports without a LID, the subnet manager, the
SL-to-VL mapping and VL arbitration tables (against --qos-plan, else
across nodes), and the routes in the switches' forwarding tables.

Exit codes as 'ibdoctor check': 0 healthy, 1 warnings, 2 critical, 3 could
not run (no topology could be read).`,
		Example: `  $ ibdoctor fabric check
  $ ibdoctor fabric check --from fabric.tar.gz --plan cabling.txt --format json
  # which SLs the traffic classes use ("training 0 0", "storage 1 1" lines)
  $ ibdoctor fabric check --qos-plan qos.plan
  # counter growth since yesterday's collection
  $ ibdoctor fabric check --baseline /var/lib/ibdoctor/fabric-yesterday.tar.gz`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(o)
			}
			return runCheck(context.Background(), o)
		},
	}
	cmdutil.AddFormatFlag(cmd, &o.Format)
	addSourceFlags(cmd, &o.Source)
	cmd.Flags().StringVar(&o.Plan, "plan", "", "cabling plan (ibnetdiscover format or 'nodeA portA nodeB portB' lines): expected links, widths and speeds")
	cmd.Flags().StringVar(&o.QoSPlan, "qos-plan", "", "QoS plan: 'class SL [VL]' lines (training 0 0); checks the SL-to-VL tables and VL arbitration weights against it")
	cmd.Flags().StringVar(&o.Baseline, "baseline", "", "earlier collection (DIR or FILE.tar.gz) to judge counter growth and vanished links against")
	cmd.Flags().BoolVar(&o.NoRouting, "no-routing", false, "skip the routing analysis of the forwarding tables")
	cmd.Flags().IntVar(&o.Bisections, "bisections", 0, "random pairings of the CA ports that sample the effective bisection bandwidth (0: by fabric size, 2-20; -1: skip)")
	cmd.Flags().BoolVarP(&o.Verbose, "verbose", "v", false, "list every gap (port whose counters could not be read) instead of a summary per reason")
	cmd.Flags().StringArrayVar(&o.Thresholds, "threshold", nil, "override a counter threshold, NAME=VALUE (symbol_errors, link_error_recovery, link_downed, rcv_errors, xmit_discards, xmit_wait; see 'ibdoctor rules')")
	return cmd
}

// parseThresholds applies NAME=VALUE overrides to the defaults.
func parseThresholds(kvs []string) (fabricrules.Thresholds, error) {
	t := fabricrules.DefaultThresholds()
	fields := map[string]*uint64{
		"symbol_errors": &t.SymbolErrors, "link_error_recovery": &t.LinkErrorRecovery, "link_downed": &t.LinkDowned,
		"rcv_errors": &t.RcvErrors, "xmit_discards": &t.XmitDiscards, "xmit_wait": &t.XmitWait,
	}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		p, known := fields[k]
		n, err := strconv.ParseUint(v, 10, 64)
		if !ok || !known || err != nil {
			return t, fmt.Errorf("--threshold %q: want NAME=VALUE with NAME one of symbol_errors, link_error_recovery, link_downed, rcv_errors, xmit_discards, xmit_wait and a whole number", kv)
		}
		*p = n
	}
	return t, nil
}

func runCheck(ctx context.Context, o *CheckOptions) error {
	var opts fabricrules.Options
	th, err := parseThresholds(o.Thresholds)
	if err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	opts.Thresholds = th
	if o.Plan != "" {
		p, err := readPlan(o.Plan)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		opts.Plan = p
	}
	if o.QoSPlan != "" {
		fh, err := os.Open(o.QoSPlan)
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		p, err := fabricrules.ParseQoSPlan(fh, o.QoSPlan)
		fh.Close()
		if err != nil {
			return cmdutil.CannotRun(err)
		}
		opts.QoS = p
		// A live check reads the tables the plan is judged by.
		o.Source.QoS = true
	}
	if o.Baseline != "" {
		raw, err := fabric.ReadFrom(o.Baseline)
		if err != nil {
			return cmdutil.CannotRun(fmt.Errorf("--baseline: %w", err))
		}
		opts.Baseline = fabricrules.Build(raw)
	}
	raw, err := o.Source.load(ctx, o.F)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	m := fabricrules.Build(raw)
	if len(m.Nodes) == 0 {
		const missing = "no fabric topology could be read (see the gaps)"
		_ = writeResult(o.F.Out, o.F, o.Format, m, nil, m.Gaps, nil, o.Verbose, missing)
		return cmdutil.CannotRun(errors.New(missing))
	}
	fs := fabricrules.Check(m, opts)
	var routingGap []fabricrules.Gap
	if !o.NoRouting {
		// Critical routing findings are checked on the fabric itself
		// (ibtracert) when it is at hand.
		confirm, cleanup := o.Source.confirmer(ctx, o.F)
		rfs, _, err := fabricrules.CheckRouting(m, routing.Options{Confirm: confirm})
		cleanup()
		if err != nil {
			routingGap = append(routingGap, fabricrules.Gap{Source: "routing", Reason: err.Error()})
		}
		fs = append(fs, rfs...)
	}
	var bis *job.Bisection
	if !o.NoRouting && o.Bisections >= 0 {
		bis = bisection(m, o.Bisections)
	}
	// CheckRouting sets the causes of the gaps it explains: read them after.
	gaps := append(slices.Clone(m.Gaps), routingGap...)
	catalog.Sort(fs)
	if err := writeResult(o.F.Out, o.F, o.Format, m, fs, gaps, bis, o.Verbose, ""); err != nil {
		return err
	}
	return cmdutil.Exit(finding.ExitCode(fs))
}

// bisectionFlows bounds the automatic sampling: about this many routes
// are followed in all (each pairing follows one per CA port).
const bisectionFlows = 65536

// bisection samples the effective bisection bandwidth of the collection's
// routes: n pairings, or with n = 0 as many as bisectionFlows allows (2 to
// 20). Nil when there are no tables or too few CA ports.
func bisection(m *fabricrules.Fabric, n int) *job.Bisection {
	rf, err := fabricrules.RoutingInput(m)
	if err != nil {
		return nil
	}
	g, err := routing.New(rf)
	if err != nil {
		return nil
	}
	if n == 0 {
		cas := 0
		for i := range rf.Nodes {
			if rf.Nodes[i].Type == routing.CA {
				cas++
			}
		}
		n = min(max(bisectionFlows/max(cas, 1), 2), 20)
	}
	b, err := job.EffectiveBisection(g, n, 1)
	if err != nil {
		return nil
	}
	return b
}
