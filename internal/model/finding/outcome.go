package finding

// VerdictNotJudged is the verdict of a run that judged nothing: no input
// could be read, or what was read held nothing to judge (a test output
// without a result row, a log without a message, a host without RDMA
// ports). It is never "healthy": healthy means something was judged and
// nothing was wrong.
const VerdictNotJudged = "not_judged"

// Outcome is the head of every judging command's JSON document (check,
// doctor, analyze, fabric, perf, nccl, the agent's health): the verdict,
// the exit code, and, when nothing was judged, what was missing. Commands
// embed it, so the three keys sit where "verdict" always stood.
type Outcome struct {
	// Verdict is "healthy", "warning", "critical" or "not_judged".
	Verdict string `json:"verdict"`
	// ExitCode is 0, 1, 2, or 3 when nothing was judged.
	ExitCode int `json:"exit_code"`
	// NotJudged says what was missing when Verdict is "not_judged".
	NotJudged string `json:"not_judged,omitempty"`
}

// Judge returns the outcome of fs, and fs with every nil list made empty
// (nil fs too) so JSON consumers never see null. missing is "" when
// something was judged; otherwise it says what was missing and the
// outcome is "not_judged" with exit 3, whatever fs holds.
func Judge(fs []Finding, missing string) (Outcome, []Finding) {
	fs = NoNulls(fs)
	if missing != "" {
		return Outcome{Verdict: VerdictNotJudged, ExitCode: ExitCannot, NotJudged: missing}, fs
	}
	return Outcome{Verdict: Verdict(fs), ExitCode: ExitCode(fs)}, fs
}

// NotJudged is the outcome of a run that judged nothing, missing saying
// what was missing.
func NotJudged(missing string) Outcome {
	o, _ := Judge(nil, missing)
	return o
}

// IsJudged says whether the outcome is a verdict on something.
func (o Outcome) IsJudged() bool { return o.Verdict != VerdictNotJudged }

// NoNulls returns fs ([] for nil) with every finding's nil lists made
// empty.
func NoNulls(fs []Finding) []Finding {
	if fs == nil {
		return []Finding{}
	}
	for i := range fs {
		if fs[i].Evidence == nil {
			fs[i].Evidence = []Evidence{}
		}
		if fs[i].Causes == nil {
			fs[i].Causes = []string{}
		}
		if fs[i].Remedy == nil {
			fs[i].Remedy = []string{}
		}
	}
	return fs
}
