package host

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// Xid 45 (ROBUST_CHANNEL_PREEMPTIVE_REMOVAL) is the driver tearing down
// the channels of a process that was killed or hit another error: routine
// on its own (info). When a task then hangs in the kernel (kernel/hung_task.c
// "INFO: task X:pid blocked for more than 120 seconds", in D state) or a
// CPU locks up (kernel/watchdog.c "BUG: soft lockup"), the cleanup did not
// finish: the GPU is stuck, and every process that touches it (nvidia-smi,
// the next job) blocks in D state until the GPU is reset or the host
// rebooted. That is worth acting on: the Xid 45 is then a warning.

// xid45Stall returns the first hung task or soft lockup the log reports
// after the GPU's first Xid 45, if any.
func xid45Stall(in *Input, gpu pcie.Address) (kmsg.Event, bool) {
	var first kmsg.Record
	seen := false
	for _, e := range in.events() {
		switch {
		case e.Kind == kmsg.KindXid && e.Xid == 45 && e.PCI == gpu && !seen:
			first, seen = e.Record, true
		case seen && e.Kind == kmsg.KindOops && !e.IsError && (e.Detail == "hung task" || e.Detail == "soft lockup") && recordAfter(e.Record, first):
			return e, true
		}
	}
	return kmsg.Event{}, false
}

// recordAfter says whether record b was logged after a, by source line,
// sequence number or log time, whichever both carry.
func recordAfter(b, a kmsg.Record) bool {
	switch {
	case a.Line > 0 && b.Line > 0:
		return b.Line > a.Line
	case a.Seq > 0 && b.Seq > 0:
		return b.Seq > a.Seq
	}
	ta, okA := recordTime(a)
	tb, okB := recordTime(b)
	return !okA || !okB || tb >= ta
}

// escalateXid45 makes f, the gpu.xid finding of an Xid 45 on gpu, a
// warning when the log shows a task hung after it, and says why.
func escalateXid45(in *Input, f *finding.Finding, gpu pcie.Address) {
	st, ok := xid45Stall(in, gpu)
	if !ok {
		return
	}
	what := "a task hung in the kernel"
	if st.Detail == "soft lockup" {
		what = "a CPU locked up in the kernel"
	}
	what += fmt.Sprintf(" at line %d", st.Record.Line)
	if st.Task != "" {
		what += fmt.Sprintf(" (%s, pid %s)", st.Task, st.TaskPID)
	}
	f.Summary += fmt.Sprintf("; then %s: the cleanup did not finish, so the GPU is likely stuck and processes that touch it (nvidia-smi, the next job) block in D state until it is reset or the host rebooted", what)
	f.Evidence = append(f.Evidence, in.logEvidence(st.Record))
	f.Severity = finding.Warning
}
