package host

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// commLibs are the libraries of the network path a job's collectives run
// through, by file name (the one print_vma_addr logs, "libnccl.so.2",
// "libmlx5.so.1.24.44.0", "libmlx5-rdmav34.so", "libuct_ib.so.0"), with
// the name people know them by.
var commLibs = nameTable{
	{regexp.MustCompile(`^libnccl`), "NCCL"},
	{regexp.MustCompile(`^librccl`), "RCCL"},
	{regexp.MustCompile(`^lib(?:ibverbs|mlx4|mlx5|efa|bnxt_re|irdma|hns|qedr|vmw_pvrdma|rxe|siw)[-_.]`), "the verbs stack"},
	{regexp.MustCompile(`^librdmacm[-_.]`), "librdmacm"},
	{regexp.MustCompile(`^libuc[pstm][-_.]`), "UCX"},
	{regexp.MustCompile(`^libfabric[-_.]`), "libfabric"},
	{regexp.MustCompile(`^lib(?:hcoll|sharp)`), "HCOLL/SHARP"},
}

// commLib names the communication library a file belongs to, "" when it
// is none.
func commLib(file string) string { return commLibs.name(file) }

// nameTable names what a string is by the first of its expressions that
// matches it.
type nameTable []struct {
	re   *regexp.Regexp
	name string
}

// name is the name of the first expression that matches s, "" when none.
func (t nameTable) name(s string) string {
	for _, e := range t {
		if e.re.MatchString(s) {
			return e.name
		}
	}
	return ""
}

// checkCrashes reports processes the kernel logged as killed by a
// segmentation or general protection fault, one finding per process name
// and file: a warning where the file is a communication library (a job
// died in the network path), info elsewhere.
func checkCrashes(in *Input) []finding.Finding {
	type key struct{ task, file string }
	type tally struct {
		n    int
		pids []string
		ev   []finding.Evidence
	}
	ts := map[key]*tally{}
	var keys []key
	for _, e := range in.events() {
		if e.Kind != kmsg.KindCrash {
			continue
		}
		k := key{e.Task, e.Detail}
		t, ok := ts[k]
		if !ok {
			t = &tally{}
			ts[k] = t
			keys = append(keys, k)
		}
		t.n += e.Weight()
		if !e.Folded && len(t.pids) < maxEvidence && e.TaskPID != "" && !slices.Contains(t.pids, e.TaskPID) {
			t.pids = append(t.pids, e.TaskPID)
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := ts[k]
		proc := k.task
		if len(t.pids) > 0 {
			proc += " (pid " + strings.Join(t.pids, ", ") + ")"
		}
		where, lib := "at an address in no file", commLib(k.file)
		if k.file != "" {
			where = "in " + k.file
		}
		sum := fmt.Sprintf("process %s was killed by a memory access fault %s, %s %s", proc, where, plural(t.n, "time", "times"), in.window())
		sev := finding.Info
		if lib != "" {
			sum += fmt.Sprintf(": the job on this node crashed inside %s", lib)
			sev = finding.Warning
		}
		f := catalog.New("kmsg.segfault", finding.Subject{Host: in.Snap.Host}, sum, t.ev...)
		f.Severity = sev
		out = append(out, f)
	}
	return out
}

// checkMemory reports EDAC memory errors per DIMM: uncorrected ones are
// critical (the DIMM needs service), corrected ones info.
func checkMemory(in *Input) []finding.Finding {
	type key struct {
		dimm string
		ue   bool
	}
	type tally struct {
		n  int
		ev []finding.Evidence
	}
	ts := map[key]*tally{}
	var keys []key
	for _, e := range in.events() {
		if e.Kind != kmsg.KindMemory {
			continue
		}
		k := key{e.Detail, e.IsError}
		t, ok := ts[k]
		if !ok {
			t = &tally{}
			ts[k] = t
			keys = append(keys, k)
		}
		if e.Folded {
			t.n += e.Count
		} else {
			t.n += max(e.MemErrors, 1)
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := ts[k]
		var f finding.Finding
		if k.ue {
			f = catalog.New("host.memory_error", finding.Subject{Host: in.Snap.Host},
				fmt.Sprintf("%s on %s %s: data was lost; drain the node and have that DIMM replaced", plural(t.n, "uncorrected memory error", "uncorrected memory errors"), k.dimm, in.window()), t.ev...)
		} else {
			f = catalog.New("host.memory_error", finding.Subject{Host: in.Snap.Host},
				fmt.Sprintf("%s on %s %s: corrected, watch whether they keep coming", plural(t.n, "corrected memory error", "corrected memory errors"), k.dimm, in.window()), t.ev...)
			f.Severity = finding.Info
		}
		out = append(out, f)
	}
	return out
}
