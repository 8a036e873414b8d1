package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	hostrules "github.com/ibdoctor/ibdoctor/internal/rules/host"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

// fleetMembers lists the nodes of a --fleet directory: its bundles
// (*.tar.gz, *.tgz) and its subdirectories (roots), by name.
func fleetMembers(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() || e.Type().IsRegular() && (strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".tgz")) {
			out = append(out, filepath.Join(dir, name))
		}
	}
	slices.Sort(out)
	return out, nil
}

// runFleet judges every node of the --fleet directory with the node rules
// (against --expect when given), then compares their driver and firmware
// versions with the fleet's majority (host.VersionOutliers). A node that
// cannot be read is a gap named after it; none readable cannot run.
func runFleet(ctx context.Context, o *Options) error {
	if o.RootSet {
		return cmdutil.FlagErrorf("give either --root or --fleet, not both")
	}
	if o.Format == cmdutil.FormatDrainReason {
		return cmdutil.FlagErrorf("--format drain-reason names one node: run it per node, not with --fleet")
	}
	exp, err := cmdutil.LoadExpectation(o.Expect)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	members, err := fleetMembers(o.Fleet)
	if err != nil {
		return cmdutil.CannotRun(fmt.Errorf("--fleet: %w", err))
	}
	var fs []finding.Finding
	var gaps []snapshot.Gap
	var versions []hostrules.NodeVersions
	for _, m := range members {
		snap, err := cmdutil.LoadSnapshot(ctx, o.F, m)
		if err != nil {
			gaps = append(gaps, snapshot.Gap{Path: m, Err: err.Error()})
			continue
		}
		fs = append(fs, noderules.Check(snap, exp)...)
		for _, g := range snap.Gaps {
			gaps = append(gaps, snapshot.Gap{Path: snap.Host + ": " + g.Path, Err: g.Err})
		}
		versions = append(versions, hostrules.VersionsOf(snap))
	}
	if len(versions) == 0 {
		return cmdutil.CannotRun(fmt.Errorf("--fleet %s: no readable node (bundles *.tar.gz or root directories)", o.Fleet))
	}
	fs = append(fs, hostrules.VersionOutliers(versions)...)
	catalog.Sort(fs)
	code := finding.ExitCode(fs)
	if o.Format == cmdutil.FormatJSON {
		if err := cmdutil.WriteJSON(o.F.Out, report.NewDocument(o.Fleet, fs, gaps)); err != nil {
			return err
		}
		return cmdutil.Exit(code)
	}
	sty := report.Style{Enabled: o.F.Color}
	if o.Quiet && code == finding.ExitHealthy && len(gaps) == 0 {
		return nil
	}
	fmt.Fprintf(o.F.Out, "%s — %d nodes checked", report.VerdictLine(sty, "fleet "+o.Fleet, fs), len(versions))
	if exp != nil {
		fmt.Fprintf(o.F.Out, " against %s", exp.Source)
	}
	fmt.Fprintln(o.F.Out)
	if len(fs) > 0 {
		fmt.Fprintln(o.F.Out)
		report.Findings(o.F.Out, sty, fs)
	}
	if len(gaps) > 0 {
		fmt.Fprintln(o.F.Out)
		report.Gaps(o.F.Out, sty, gaps)
	}
	return cmdutil.Exit(code)
}
