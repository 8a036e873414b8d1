package host

import (
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// TestPanicsMCEAndOOM: a kernel panic (kernel/panic.c "Kernel panic - not
// syncing: …") is critical: one kmsg.kernel_oops with the crash report
// before it (an oops, a hung task), else a finding of its own; machine
// checks (arch/x86/kernel/cpu/mce/core.c) are host.machine_check, critical
// when uncorrected; an OOM kill (mm/oom_kill.c) is host.oom_kill, a
// warning, once per process even in the two-line form of older kernels.
// The lines are the kernel's formats, filled in as the kernel prints them.
func TestPanicsMCEAndOOM(t *testing.T) {
	oops := "[  100.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008\n" +
		"[  100.000001] CPU: 5 PID: 4242 Comm: python Tainted: P           OE     5.15.0-112-generic #122-Ubuntu\n" +
		"[  100.000002] RIP: 0010:ext4_foo+0x10/0x20\n" +
		"[  100.000003] Call Trace:\n" +
		"[  100.000004]  ext4_bar+0x63/0xb0\n" +
		"[  100.000005] ---[ end trace 0000000000000000 ]---\n"
	hung := "[  200.000000] INFO: task cache_mgr_event:620917 blocked for more than 120 seconds.\n" +
		"[  200.000001] task:cache_mgr_event state:D stack:    0 pid:620917 ppid:620571 flags:0x00000002\n" +
		"[  200.000002] Call Trace:\n" +
		"[  200.000003]  <TASK>\n" +
		"[  200.000004]  schedule+0x4e/0xc0\n" +
		"[  200.000005]  </TASK>\n"
	panicLine := func(why string) string {
		return "[  300.000000] Kernel panic - not syncing: " + why + "\n[  300.000001] ---[ end Kernel panic - not syncing: " + why + " ]---\n"
	}
	tests := []struct {
		name, log string
		want      []string // ID/severity, sorted as the rules give them
		sum       string   // in the first finding's summary
	}{
		{"oops then panic: one finding", oops + panicLine("Fatal exception"), []string{"kmsg.kernel_oops/critical"}, "NULL pointer dereference) in ext4_foo, task python (pid 4242) in the kernel log: the kernel crashed outside the RDMA and GPU drivers; the host is unstable until it is rebooted, so drain it; then the kernel panicked at line 7"},
		{"oops alone: critical, wherever it crashed", oops, []string{"kmsg.kernel_oops/critical"}, "kernel oops (NULL pointer dereference)"},
		{"hung task then panic", hung + panicLine("hung_task: blocked tasks"), []string{"kmsg.kernel_oops/critical"}, "hung task (blocked for minutes), task cache_mgr_event (pid 620917) at line 1, then the kernel panicked at line 7 (\"Kernel panic - not syncing: hung_task: blocked tasks\")"},
		{"hung task alone", hung, nil, ""},
		{"panic alone", panicLine("Hard LOCKUP"), []string{"kmsg.kernel_oops/critical"}, "The kernel panicked at line 1 (\"Kernel panic - not syncing: Hard LOCKUP\"): the host went down"},
		{"panic before the oops", panicLine("Hard LOCKUP") + oops, []string{"kmsg.kernel_oops/critical", "kmsg.kernel_oops/critical"}, "kernel oops"},
		{"uncorrected machine check", "[ 1.0] mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 7: be00000000800400\n",
			[]string{"host.machine_check/critical"}, "1 uncorrected machine check (CPU 3, bank 7, status 0xbe00000000800400)"},
		{"machine check events logged", "[ 1.0] mce: [Hardware Error]: Machine check events logged\n[ 2.0] mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 12: 9c2000000003110a\n",
			[]string{"host.machine_check/warning"}, "2 machine check lines (CPU 0, bank 12, status 0x9c2000000003110a)"},
		{"OOM kill", "[ 7.0] Out of memory: Killed process 2345 (pt_main_thread) total-vm:152004552kB, anon-rss:98765432kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:200000kB oom_score_adj:0\n",
			[]string{"host.oom_kill/warning"}, "the OOM killer killed pt_main_thread (pid 2345), 1 time"},
		{"OOM kill, older two lines, cgroup", "[ 7.0] Memory cgroup out of memory: Kill process 4242 (python) score 912 or sacrifice child\n[ 7.1] Killed process 4242 (python) total-vm:1234kB, anon-rss:1000kB, file-rss:0kB\n",
			[]string{"host.oom_kill/warning"}, "killed python (pid 4242), 1 time in the kernel log: its memory cgroup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := kmsg.ParseText(strings.NewReader(tt.log), "paste.txt", kmsg.TextOptions{Year: 2026})
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckPastedKernelLog(l, time.Time{}, 0)
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if tt.sum != "" && !strings.Contains(fs[0].Summary, tt.sum) && !strings.Contains(fs[len(fs)-1].Summary, tt.sum) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.sum)
			}
		})
	}
}
