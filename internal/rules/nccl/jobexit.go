package nccl

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ompihelp"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// ResultLine is a program's line that an NCCL call returned an error
// code ("nccl_allreduce returned error code 3" of Azure's node health
// checks): Code is the ncclResult_t (src/nccl.h.in).
type ResultLine struct {
	Line int
	Text string
	Code int
}

// JobDied is the finding of a job whose launcher says a process failed
// (mpirun's "… exited with non-zero status" report, or a rank that exited
// on a signal) beside an NCCL log that shows nothing critical itself: the
// job died, nccl.call_failed, critical. res, when Line is not 0, is a
// line that decodes the NCCL result the program got.
func JobDied(src string, ex ompihelp.JobExit, res ResultLine) finding.Finding {
	who := "a process"
	if ex.Process != "" {
		who = "process " + ex.Process
	}
	sum := fmt.Sprintf("the job died: mpirun reports that %s exited with code %d", who, ex.Code)
	switch {
	case ex.Signal != "":
		sum = "the job died: mpirun reports that a rank exited on signal " + ex.Signal
	case ex.Code == 0:
		sum = "the job died: mpirun reports that a process exited with non-zero status"
	}
	evs := []finding.Evidence{{Source: evidenceAt(src, ex.Line), Value: ex.Text}}
	if res.Line > 0 {
		sum += fmt.Sprintf("; line %d: %q", res.Line, res.Text)
		if errText, ok := ncclResultText[res.Code]; ok {
			sum += fmt.Sprintf(", ncclResult_t %d is '%s'", res.Code, errText)
			if m := ncclErrorMeaning("NCCL", errText); m != "" {
				sum += ": " + m
			}
		}
		evs = append(evs, finding.Evidence{Source: evidenceAt(src, res.Line), Value: res.Text})
	}
	sum += ". Nothing critical in the NCCL log beside it says why: read its warnings, and rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET for the WARN lines of the failed rank"
	return catalog.New("nccl.call_failed", finding.Subject{File: src}, sum, evs...)
}
