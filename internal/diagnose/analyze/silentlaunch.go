package analyze

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccltests"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// judgeSilentLaunch adds nccl.tests_no_output to an unread output that
// holds a launch line of an nccl-tests binary on two or more ranks
// ("mpirun -np 2 … ./build/all_reduce_perf -b 8 -e 128M") with no output
// of that run after it, when an nccl-tests output of the same file
// printed result rows: the multi-rank run stalled before its banner (or
// its output was left out), and the paste is not healthy for the run
// that did print.
func judgeSilentLaunch(fr *File, d *doc) {
	table := ""
	for _, s := range fr.Segments {
		if s.Kind == KindNCCLTests && !s.Failed && s.Empty == "" {
			table = s.Lines
			break
		}
	}
	if table == "" {
		return
	}
	for i := range fr.Segments {
		s := &fr.Segments[i]
		if s.Kind != KindUnknown {
			continue
		}
		ls := d.lines(Span{Start: s.Start, End: s.End})
		// A launch whose output is the nccl-tests output right below
		// (noise lines between them kept it out of that span) is no
		// silent launch: the next output must start with its own launch.
		ownNext := false
		if i+1 < len(fr.Segments) && fr.Segments[i+1].Kind == KindNCCLTests {
			next := d.lines(Span{Start: fr.Segments[i+1].Start, End: fr.Segments[i+1].Start})
			ownNext = len(next) == 1 && isLaunchLine(next[0])
		}
		last := -1
		for k, l := range ls {
			if isLaunchLine(l) {
				last = k
			}
		}
		for k, l := range ls {
			ranks, prog, ok := perfLaunch(l)
			if !ok || ranks < 2 || k == last && i+1 < len(fr.Segments) && fr.Segments[i+1].Kind == KindNCCLTests && !ownNext {
				continue
			}
			n := s.Start + k
			f := catalog.New("nccl.tests_no_output", finding.Subject{},
				fmt.Sprintf("the %d-rank launch of %s at line %d printed nothing in the paste (no '# nThread' banner, no result row), while the run at lines %s printed its table: the multi-rank job stalled before the test began (MPI or NCCL bootstrap across ranks), or its output was left out",
					ranks, prog, n, table),
				finding.Evidence{Source: fmt.Sprintf("%s:%d", fr.File, n), Value: strings.TrimSpace(l)})
			s.Findings = append(s.Findings, f)
			s.Summary = "not recognised; an nccl-tests launch in it printed nothing"
			break
		}
	}
}

// isLaunchLine says whether l is a command line that starts an
// nccl-tests binary, under a launcher or alone: after a shell prompt
// ("root@h:/#", "$") and NAME=VALUE words, the command is the launcher
// or the binary ("# Collective test starting: all_reduce_perf" is not).
func isLaunchLine(l string) bool {
	f := strings.Fields(l)
	for i, w := range f {
		if w == "$" || w == "#" || strings.Contains(w, "@") && (strings.HasSuffix(w, "$") || strings.HasSuffix(w, "#")) {
			f = f[i+1:]
			break
		}
	}
	for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") {
		f = f[1:]
	}
	if len(f) == 0 {
		return false
	}
	switch path.Base(f[0]) {
	case "mpirun", "mpiexec", "orterun", "prterun", "mpiexec.hydra", "srun", "sudo", "env", "time":
		return slices.ContainsFunc(f[1:], isPerfProgram)
	}
	return isPerfProgram(f[0])
}

// isPerfProgram says whether w names an nccl-tests binary.
func isPerfProgram(w string) bool {
	b := path.Base(w)
	if !strings.HasSuffix(b, "_perf") && !strings.HasSuffix(b, "_perf_mpi") {
		return false
	}
	_, err := nccltests.ParseCollective(b)
	return err == nil
}

// perfLaunch reads a command line that starts an nccl-tests binary under
// mpirun/mpiexec ("-np N", "-n N") or srun ("-n N", "--ntasks=N"): the
// rank count and the binary.
func perfLaunch(l string) (int, string, bool) {
	f := strings.Fields(l)
	start := -1
	for i, w := range f {
		switch path.Base(w) {
		case "mpirun", "mpiexec", "orterun", "prterun", "mpiexec.hydra", "srun":
			start = i
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return 0, "", false
	}
	ranks, prog := 0, ""
	for i := start + 1; i < len(f); i++ {
		w := f[i]
		switch {
		case (w == "-np" || w == "-n" || w == "--np" || w == "--ntasks") && i+1 < len(f):
			ranks, _ = strconv.Atoi(f[i+1])
			i++
		case strings.HasPrefix(w, "--ntasks="):
			ranks, _ = strconv.Atoi(strings.TrimPrefix(w, "--ntasks="))
		default:
			if prog == "" && isPerfProgram(w) {
				prog = path.Base(w)
			}
		}
	}
	return ranks, prog, prog != ""
}
