package agent

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// summaries lists the active findings of an ID.
func summaries(v *View, id string) []string {
	var out []string
	for _, f := range v.Findings {
		if f.ID == id {
			out = append(out, f.Summary)
		}
	}
	return out
}

// TestKernelLogGrowingRoot follows cmd/dmesg.txt of a simulated node that
// the simulator rewrites and a test appends to between samples: the boot
// log (over a day old) raises nothing, an Xid raises gpu.xid once and is
// counted once however many samples follow, a second one is added to it,
// and the finding ages out a day after the last one.
func TestKernelLogGrowingRoot(t *testing.T) {
	n, err := simnode.Build(simnode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := n.Write(dir); err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	now := t0
	a, err := New(Options{Read: RootSource(r, func() time.Time { return now }), Interval: time.Minute,
		Kernel: FileKernel(r, layout.Dmesg), Boot: RootBoot(r)})
	if err != nil {
		t.Fatal(err)
	}
	uptime := n.Uptime
	gpu := n.Func("gpu3")
	xidLine := func(at time.Duration, code int) string {
		us := at.Microseconds()
		return fmt.Sprintf("[%5d.%06d] NVRM: Xid (PCI:%s): %d, pid=1234, name=python3, test\n", us/1e6, us%1e6, gpu.Addr[:len(gpu.Addr)-2], code)
	}
	steps := []struct {
		name   string
		at     time.Duration // after t0
		change func()
		xids   int    // active gpu.xid findings
		count  uint64 // ibdoctor_kernel_events_total{kind="xid"}
		want   string // in the first gpu.xid summary
	}{
		{name: "boot log is old", at: 0},
		{name: "simulator logs an Xid", at: time.Minute, change: func() {
			if err := n.Apply(simnode.MustParseFaults("xid:gpu3=48")[0]); err != nil {
				t.Fatal(err)
			}
			if err := n.Write(dir); err != nil {
				t.Fatal(err)
			}
		}, xids: 1, count: 1, want: "Xid 48 (ROBUST_CHANNEL_GPU_ECC_DBE) on GPU3"},
		{name: "nothing new: not counted again", at: 2 * time.Minute, xids: 1, count: 1, want: "1 time in the last 24h"},
		{name: "half a line", at: 3 * time.Minute, change: func() {
			appendTo(t, filepath.Join(dir, layout.Dmesg), strings.TrimSuffix(xidLine(uptime+3*time.Minute, 48), "test\n"))
		}, xids: 1, count: 1, want: "1 time"},
		{name: "line completed", at: 4 * time.Minute, change: func() {
			appendTo(t, filepath.Join(dir, layout.Dmesg), "test\n")
		}, xids: 1, count: 2, want: "2 times"},
		{name: "another code", at: 5 * time.Minute, change: func() {
			appendTo(t, filepath.Join(dir, layout.Dmesg), xidLine(uptime+5*time.Minute, 13))
		}, xids: 2, count: 3},
		{name: "still active after 23 h", at: 23 * time.Hour, xids: 2, count: 3},
		{name: "aged out after 24 h", at: 25 * time.Hour, count: 3},
	}
	for _, s := range steps {
		now = t0.Add(s.at)
		if s.change != nil {
			s.change()
		}
		if err := a.Sample(context.Background()); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		v := a.View()
		got := summaries(v, "gpu.xid")
		if len(got) != s.xids {
			t.Errorf("%s: gpu.xid %q, want %d", s.name, got, s.xids)
		}
		if s.want != "" && (len(got) == 0 || !strings.Contains(strings.Join(got, "|"), s.want)) {
			t.Errorf("%s: summaries %q lack %q", s.name, got, s.want)
		}
		var c uint64
		for k, n := range v.KernelEvents {
			if k.Kind == "xid" {
				c += n
			}
		}
		if c != s.count {
			t.Errorf("%s: xid events %d, want %d (%v)", s.name, c, s.count, v.KernelEvents)
		}
		if !v.SourceUp["kmsg"] {
			t.Errorf("%s: kmsg source down", s.name)
		}
	}
}

// TestKernelLogFakeKmsg follows a regular file of /dev/kmsg records given
// as the live reader's path: link flaps and a health error become the
// doctor's findings, counted per kind and RDMA device, and the metric is
// exported.
func TestKernelLogFakeKmsg(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kmsg")
	boot := t0.Add(-time.Hour)
	rec := func(seq int, at time.Duration, text string) string {
		return fmt.Sprintf("6,%d,%d,-;%s\n", seq, at.Microseconds(), text)
	}
	appendTo(t, path, rec(1, time.Second, "Linux version 6.8.0")+rec(2, 2*time.Second, "mlx5_core 0000:3b:00.0: firmware version: 28.39.2048"))
	now := t0
	active := ib.StateActive
	read := func(context.Context) (*snapshot.Snapshot, error) {
		return &snapshot.Snapshot{Host: "gpu001", Taken: now, Devices: []snapshot.Device{{Name: "mlx5_0", PCI: "0000:3b:00.0",
			Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &active}}}}}, nil
	}
	a, err := New(Options{Read: read, Kernel: LiveKernel(path), Boot: func(time.Time) time.Time { return boot }, KernelWindow: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	sample := func() *View {
		t.Helper()
		if err := a.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
		return a.View()
	}
	if v := sample(); len(v.Findings) != 0 || len(v.KernelEvents) != 0 {
		t.Fatalf("quiet log: findings %v events %v", v.Findings, v.KernelEvents)
	}
	seq := 3
	var b strings.Builder
	for i := range 3 {
		at := 59*time.Minute + time.Duration(i)*5*time.Second
		b.WriteString(rec(seq, at, "mlx5_core 0000:3b:00.0 mlx5_0: Port: 1 Link DOWN"))
		b.WriteString(rec(seq+1, at+2*time.Second, "mlx5_core 0000:3b:00.0 mlx5_0: Port: 1 Link ACTIVE"))
		seq += 2
	}
	b.WriteString(rec(seq, 59*time.Minute+30*time.Second, "mlx5_core 0000:3b:00.0: mlx5_health_check:1234:(pid 0): Fatal error 1 detected"))
	appendTo(t, path, b.String())
	now = t0.Add(time.Minute)
	v := sample()
	if got := summaries(v, "kmsg.link_flap"); len(got) != 1 || !strings.Contains(got[0], "went down 3 times in the last 2h") {
		t.Errorf("link flap: %q", got)
	}
	if got := summaries(v, "kmsg.mlx5_health"); len(got) != 1 {
		t.Errorf("health: %q", got)
	}
	want := map[metrics.KernelEvent]uint64{{Kind: "link", Device: "mlx5_0"}: 6, {Kind: "health", Device: "mlx5_0"}: 1}
	if len(v.KernelEvents) != len(want) {
		t.Errorf("events %v, want %v", v.KernelEvents, want)
	}
	for k, n := range want {
		if v.KernelEvents[k] != n {
			t.Errorf("events[%v] = %d, want %d", k, v.KernelEvents[k], n)
		}
	}
	body := scrape(t, a)
	for _, line := range []string{`ibdoctor_kernel_events_total{device="mlx5_0",kind="link"} 6`, `ibdoctor_kernel_records_lost_total 0`, `ibdoctor_source_up{source="kmsg"} 1`} {
		if !strings.Contains(body, line) {
			t.Errorf("metrics lack %s", line)
		}
	}
	now = t0.Add(2*time.Hour + time.Minute) // window of 2 h after the events
	if v := sample(); len(v.Findings) != 0 {
		t.Errorf("after the window: %v", v.Findings)
	}
}

func scrape(t *testing.T, a *Agent) string {
	t.Helper()
	rec := httptest.NewRecorder()
	a.Handler(HandlerOptions{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d", rec.Code)
	}
	return rec.Body.String()
}

// TestKernelLogOops: the agent keeps only the records the rules need, and
// those include the lines of a kernel crash report, so an oops in mlx5_core
// (linux-rdma, "system hang on start-up (mlx5?)", 2023) is the doctor's
// critical kmsg.kernel_oops naming the driver and the faulting function.
func TestKernelLogOops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kmsg")
	boot := t0.Add(-time.Hour)
	var b strings.Builder
	for i, text := range []string{
		"mlx5_core 0000:02:00.0: firmware version: 16.35.2000",
		"BUG: unable to handle page fault for address: ffffffff8ff0ade0",
		"#PF: supervisor read access in kernel mode",
		"Oops: 0000 [#1] PREEMPT SMP PTI",
		"CPU: 0 PID: 117 Comm: kworker/0:6 Not tainted 6.3.0-13028-g7222f123c983 #1",
		"RIP: 0010:__bitmap_or+0x10/0x26",
		"RAX: 0000000000000000 RBX: ffffffff8ff0adc0 RCX: 0000000000000004",
		"Call Trace:",
		" <TASK>",
		" irq_matrix_reserve_managed+0x56/0x10c",
		" mlx5_irq_alloc+0x99/0x319 [mlx5_core]",
		" mlx5_load+0xb1/0x33e [mlx5_core]",
		" </TASK>",
		"Modules linked in: mlx5_core(+) ast drm_kms_helper",
		"CR2: ffffffff8ff0ade0",
		"---[ end trace 0000000000000000 ]---",
		"note: kworker/0:6[117] exited with irqs disabled",
	} {
		fmt.Fprintf(&b, "4,%d,%d,-;%s\n", i+1, (59*time.Minute + time.Duration(i)*time.Millisecond).Microseconds(), text)
	}
	appendTo(t, path, b.String())
	read := func(context.Context) (*snapshot.Snapshot, error) {
		return &snapshot.Snapshot{Host: "gpu001", Taken: t0}, nil
	}
	a, err := New(Options{Read: read, Kernel: LiveKernel(path), Boot: func(time.Time) time.Time { return boot }, KernelWindow: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	v := a.View()
	got := summaries(v, "kmsg.kernel_oops")
	if len(got) != 1 || !strings.Contains(got[0], "in __bitmap_or, called from mlx5_core's mlx5_irq_alloc") {
		t.Errorf("kmsg.kernel_oops: %q", got)
	}
	if n := v.KernelEvents[metrics.KernelEvent{Kind: "oops"}]; n != 1 {
		t.Errorf("oops events %d, want 1: %v", n, v.KernelEvents)
	}
}
