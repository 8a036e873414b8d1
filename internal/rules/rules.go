// Package rules is the judging stage: every sub-package holds pure
// functions from parsed or sampled data to findings (node, host, trend,
// fabric, routing, topo, nccl, perftest, pairwise, ibdiagnet, job), each
// entered through a function named Check (or CheckX when a package judges
// several inputs), with catalog naming every finding ID they may report and
// limits holding the thresholds they share. No rule does I/O or reads the
// clock: scripts/check-imports.sh keeps it so.
package rules

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// Rule is one entry of a rule set: its name, the finding IDs it may report
// (tests hold every ID to the catalogue) and its pure check over In.
type Rule[In any] struct {
	Name  string
	IDs   []string
	Check func(in In) []finding.Finding
}

// Run runs every rule of set over in, in order.
func Run[In any](set []Rule[In], in In) []finding.Finding {
	var out []finding.Finding
	for _, r := range set {
		out = append(out, r.Check(in)...)
	}
	return out
}
