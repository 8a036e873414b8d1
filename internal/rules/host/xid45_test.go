package host

import (
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// TestXid45ThenHungTask: an Xid 45 (preemptive cleanup) is info on its
// own, a warning when a hung task or soft lockup follows it in the same
// log (the cleanup never finished). Lines from leptonai/gpud#117 (analyze
// testdata/realworld-fresh19 dmesg-gpud117-ctime-xid45-6-channels-hung-task-d-state.txt).
func TestXid45ThenHungTask(t *testing.T) {
	xid := "[Sat Oct 12 18:35:32 2024] NVRM: Xid (PCI:0000:61:00): 45, pid=1496200, name=distprovers-gpu, Ch 0000000a\n"
	hung := "[Sat Oct 12 18:38:44 2024] INFO: task cache_mgr_event:620917 blocked for more than 120 seconds.\n" +
		"[Sat Oct 12 18:38:44 2024]       Tainted: P           OE     5.15.0-97-generic #107-Ubuntu\n" +
		"[Sat Oct 12 18:38:44 2024] task:cache_mgr_event state:D stack:    0 pid:620917 ppid:620571 flags:0x00000002\n" +
		"[Sat Oct 12 18:38:44 2024] Call Trace:\n" +
		"[Sat Oct 12 18:38:44 2024]  <TASK>\n"
	lockup := "[Sat Oct 12 18:36:10 2024] watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [nvidia-smi:4567]\n"
	tests := []struct {
		name, log string
		want      finding.Severity
		sum       string
	}{
		{"alone", xid, finding.Info, ""},
		{"then hung task", xid + hung, finding.Warning, "then a task hung in the kernel at line 2 (cache_mgr_event, pid 620917)"},
		{"then soft lockup", xid + lockup, finding.Warning, "then a CPU locked up in the kernel at line 2 (nvidia-smi, pid 4567)"},
		{"hung task before", hung + xid, finding.Info, ""},
		{"other GPU", strings.Replace(xid, "61:00", "62:00", 1) + hung + xid, finding.Info, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := kmsg.ParseText(strings.NewReader(tt.log), "paste.txt", kmsg.TextOptions{Year: 2024})
			if err != nil {
				t.Fatal(err)
			}
			var got *finding.Finding
			fs := CheckPastedKernelLog(l, time.Time{}, 0)
			for i := range fs {
				if fs[i].ID == "gpu.xid" && fs[i].Subject.PCI == "0000:61:00.0" {
					got = &fs[i]
				}
			}
			if got == nil {
				t.Fatalf("no gpu.xid for 0000:61:00.0 in %v", ids(fs))
			}
			if got.Severity != tt.want {
				t.Errorf("severity %s, want %s: %s", got.Severity, tt.want, got.Summary)
			}
			if tt.sum != "" && !strings.Contains(got.Summary, tt.sum) {
				t.Errorf("summary %q lacks %q", got.Summary, tt.sum)
			}
			if tt.sum == "" && strings.Contains(got.Summary, "cleanup did not finish") {
				t.Errorf("summary %q blames a stall", got.Summary)
			}
		})
	}
}
