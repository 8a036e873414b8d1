package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// checkOopsAndPanics is checkOops with the kernel's panics: a panic
// (kernel/panic.c "Kernel panic - not syncing: Fatal exception") is the
// host going down, critical. Where a crash report (an oops, a hung task,
// a soft lockup) came before it in the log, that report is its cause
// ("Fatal exception" after an oops, "hung_task: blocked tasks" after a
// hung task): one kmsg.kernel_oops finding, critical, saying the kernel
// then panicked; a panic with no report before it is a finding of its own.
func checkOopsAndPanics(in *Input) []finding.Finding {
	out := checkOops(in)
	evs := in.events()
	seen := map[string]bool{}
	for _, p := range evs {
		if p.Kind != kmsg.KindPanic || p.Folded || seen[p.Detail] {
			continue
		}
		seen[p.Detail] = true
		var prior *kmsg.Event
		for i := range evs {
			e := &evs[i]
			if e.Kind == kmsg.KindOops && !e.Folded && recordAfter(p.Record, e.Record) && e.Record.Line != p.Record.Line {
				if prior == nil || recordAfter(e.Record, prior.Record) {
					prior = e
				}
			}
		}
		panicked := fmt.Sprintf("the kernel panicked at line %d (\"Kernel panic - not syncing: %s\"): the host went down (it stopped, or rebooted), and every job on it died", p.Record.Line, p.Detail)
		pev := in.logEvidence(p.Record)
		if prior != nil {
			pe := in.logEvidence(prior.Record)
			if i := slices.IndexFunc(out, func(f finding.Finding) bool {
				return f.ID == "kmsg.kernel_oops" && slices.ContainsFunc(f.Evidence, func(e finding.Evidence) bool { return e.Source == pe.Source })
			}); i >= 0 {
				out[i].Summary += "; then " + panicked
				out[i].Severity = finding.Critical
				out[i].Evidence = append(out[i].Evidence, pev)
				continue
			}
			what := reportName(*prior)
			f := catalog.New("kmsg.kernel_oops", finding.Subject{Host: in.Snap.Host, PCI: string(prior.PCI)},
				fmt.Sprintf("%s at line %d, then %s", what, prior.Record.Line, panicked), pe, pev)
			f.Severity = finding.Critical
			out = append(out, f)
			continue
		}
		f := catalog.New("kmsg.kernel_oops", finding.Subject{Host: in.Snap.Host}, strings.ToUpper(panicked[:1])+panicked[1:], pev)
		f.Severity = finding.Critical
		out = append(out, f)
	}
	return out
}

// reportName names a crash report: "hung task (cache_mgr_event, pid
// 620917)", "kernel oops (page fault) in mlx5_core's mlx5_cmd_comp_handler".
func reportName(e kmsg.Event) string {
	var b strings.Builder
	if memorySafety(e.Detail) {
		fmt.Fprintf(&b, "kernel memory-safety report (%s)%s", e.Detail, oopsWhere(e.Func, e.Driver, e.DriverFunc))
	} else if e.IsError {
		fmt.Fprintf(&b, "kernel oops (%s)%s", e.Detail, oopsWhere(e.Func, e.Driver, e.DriverFunc))
	} else if n := stallNamesOf(e.Detail); n[0] != "" {
		b.WriteString(n[0] + oopsWhere(e.Func, e.Driver, e.DriverFunc))
	} else {
		b.WriteString(e.Detail)
	}
	if e.Task != "" {
		fmt.Fprintf(&b, ", task %s (pid %s)", e.Task, e.TaskPID)
	}
	return b.String()
}

// checkMCE reports the x86 machine checks the kernel logged: uncorrected
// errors (MCi_STATUS UC, or a machine check exception) are critical, other
// machine check lines ("Machine check events logged", corrected bank
// errors) a warning.
func checkMCE(in *Input) []finding.Finding {
	type tally struct {
		n      int
		where  []string
		ev     []finding.Evidence
		logged bool
	}
	var ts [2]*tally // [0] corrected or unknown, [1] uncorrected
	for _, e := range in.events() {
		if e.Kind != kmsg.KindMCE {
			continue
		}
		i := boolInt(e.IsError)
		if ts[i] == nil {
			ts[i] = &tally{}
		}
		t := ts[i]
		t.n += e.Weight()
		if e.Folded {
			continue
		}
		if e.Detail == "events logged" {
			t.logged = true
		} else if len(t.where) < maxEvidence && !slices.Contains(t.where, e.Detail) {
			t.where = append(t.where, e.Detail)
		}
		if len(t.ev) < maxEvidence {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for i := len(ts) - 1; i >= 0; i-- {
		t := ts[i]
		if t == nil {
			continue
		}
		where := ""
		if len(t.where) > 0 {
			where = " (" + strings.Join(t.where, "; ") + ")"
		}
		var sum string
		sev := finding.Warning
		if i == 1 {
			sum = fmt.Sprintf("%s%s %s: the hardware did not correct it, data was lost; drain the node and decode the bank (ras-mc-ctl --errors, mcelog) to find the failing DIMM or CPU", plural(t.n, "uncorrected machine check", "uncorrected machine checks"), where, in.window())
			sev = finding.Critical
		} else {
			sum = fmt.Sprintf("%s%s %s: the CPU reported hardware errors (most often corrected ones); decode them (ras-mc-ctl --errors, mcelog) and watch whether they keep coming", plural(t.n, "machine check line", "machine check lines"), where, in.window())
		}
		f := catalog.New("host.machine_check", finding.Subject{Host: in.Snap.Host}, sum, t.ev...)
		f.Severity = sev
		out = append(out, f)
	}
	return out
}

// checkOOM reports the processes the OOM killer killed, one finding per
// process name: a warning (a job that died).
func checkOOM(in *Input) []finding.Finding {
	type tally struct {
		pids   []string
		n      int
		cgroup bool
		ev     []finding.Evidence
	}
	ts := map[string]*tally{}
	var names []string
	for _, e := range in.events() {
		if e.Kind != kmsg.KindOOM {
			continue
		}
		t, ok := ts[e.Task]
		if !ok {
			t = &tally{}
			ts[e.Task] = t
			names = append(names, e.Task)
		}
		t.cgroup = t.cgroup || strings.HasPrefix(e.Detail, "Memory cgroup")
		if e.Folded {
			t.n += e.Count
			continue
		}
		if slices.Contains(t.pids, e.TaskPID) {
			continue // the "Kill process" and "Killed process" lines of older kernels: one kill
		}
		t.n++
		if len(t.pids) < maxEvidence {
			t.pids = append(t.pids, e.TaskPID)
		}
		if len(t.ev) < maxEvidence {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, name := range names {
		t := ts[name]
		of := "the host"
		if t.cgroup {
			of = "its memory cgroup (a container or job limit)"
		}
		sum := fmt.Sprintf("the OOM killer killed %s (pid %s), %s %s: %s ran out of memory; a job process killed this way is a job that died", name, strings.Join(t.pids, ", "), plural(t.n, "time", "times"), in.window(), of)
		out = append(out, catalog.New("host.oom_kill", finding.Subject{Host: in.Snap.Host}, sum, t.ev...))
	}
	return out
}
