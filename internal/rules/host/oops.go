package host

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// deviceModules are the kernel modules that drive RDMA and GPU devices,
// with the kind of device: the HCA and RDMA NIC drivers, the RDMA core and
// its upper layers (a crash there takes the RDMA stack down with it: iSER
// ib_iser/ib_isert, SRP, NFS over RDMA, NVMe over RDMA, RDS rds_rdma,
// Lustre's LNet o2ib driver ko2iblnd), the GPU drivers and the modules
// that join the two.
var deviceModules = nameTable{
	{regexp.MustCompile(`^(?:mlx4_\w+|mlx5_\w+|mlxfw|mlx_compat|mlxdevm|ib_\w+|rdma_\w+|iw_\w+|rpcrdma|svcrdma|xprtrdma|nvme_rdma|nvmet_rdma|rds_rdma|ko2iblnd|bnxt_re|irdma|i40iw|efa|hfi1|qib|hns_roce\w*|qedr|mana_ib|erdma|vmw_pvrdma|ocrdma|siw|rdma_rxe|rxe|rdmavt|opa_vnic|usnic_verbs|ionic_rdma)$`), "RDMA"},
	{regexp.MustCompile(`^(?:nvidia(?:_\w+)?|nv_peer_mem|gdrdrv|amdgpu|amdkfd)$`), "GPU"},
	{regexp.MustCompile(`^devlink$`), "RDMA NIC"},
}

// deviceModule says which kind of device a module drives, "" when none of
// deviceModules.
func deviceModule(mod string) string { return deviceModules.name(mod) }

// sourceModules name the driver of a WARN_ON by the source file it names,
// for a splat whose header and trace name no module (built-in code, or a
// paste cut after the header): the RDMA core, the HCA and software RDMA
// drivers and upper layers under drivers/infiniband (named by their
// directory, ibDirModules), mlx4 and mlx5, NFS and NVMe over RDMA, and
// devlink (net/core/devlink.c, net/devlink/ since Linux 6.3), the device
// management core the mlx5 driver registers every HCA with.
var sourceModules = nameTable{
	{regexp.MustCompile(`^net/(?:core/devlink\.c|devlink/)`), "devlink"},
	{regexp.MustCompile(`^drivers/infiniband/core/`), "ib_core"},
	{regexp.MustCompile(`^drivers/net/ethernet/mellanox/mlx5/`), "mlx5_core"},
	{regexp.MustCompile(`^drivers/net/ethernet/mellanox/mlx4/`), "mlx4_core"},
	{regexp.MustCompile(`^net/sunrpc/xprtrdma/`), "rpcrdma"},
	{regexp.MustCompile(`^drivers/nvme/host/rdma\.c`), "nvme_rdma"},
	{regexp.MustCompile(`^drivers/nvme/target/rdma\.c`), "nvmet_rdma"},
}

// reIBDir is a source file of a driver under drivers/infiniband: an HCA
// (hw/), a software RDMA device (sw/: rdmavt, rxe, siw) or an upper layer
// (ulp/).
var reIBDir = regexp.MustCompile(`^drivers/infiniband/(?:hw|sw|ulp)/(\w+)/`)

// ibDirModules are the modules built from the directories under
// drivers/infiniband whose module name is not the directory's (the
// Makefiles' obj-$(CONFIG_…) lines).
var ibDirModules = map[string]string{
	"mlx4": "mlx4_ib", "mlx5": "mlx5_ib", "mthca": "ib_mthca", "qib": "ib_qib", "cxgb4": "iw_cxgb4",
	"hns": "hns_roce_hw_v2", "mana": "mana_ib", "usnic": "usnic_verbs", "ionic": "ionic_rdma", "rxe": "rdma_rxe",
	"ipoib": "ib_ipoib", "iser": "ib_iser", "isert": "ib_isert", "srp": "ib_srp", "srpt": "ib_srpt",
}

// oopsDriver is the driver a report is about: the module it names, else
// the one its WARN_ON's source file belongs to. A source path an
// out-of-tree build prints in full ("/var/lib/dkms/mlnx-ofed-kernel/
// 5.8/build/drivers/infiniband/…") is read from its "drivers/" or
// "net/" part.
func oopsDriver(e kmsg.Event) string {
	if e.Driver != "" || e.Source == "" {
		return e.Driver
	}
	src := e.Source
	for _, top := range []string{"/drivers/", "/net/"} {
		if i := strings.Index(src, top); i >= 0 && strings.HasPrefix(src, "/") {
			src = src[i+1:]
			break
		}
	}
	if m := reIBDir.FindStringSubmatch(src); m != nil {
		if mod, ok := ibDirModules[m[1]]; ok {
			return mod
		}
		if deviceModule(m[1]) != "" {
			return m[1]
		}
	}
	return sourceModules.name(src)
}

// checkOops reports the kernel's crash reports (oops) and, in RDMA and
// GPU drivers, its WARN_ON splats: one finding per kind, faulting function
// and driver. A crash is critical wherever it happened: the task that
// crashed was killed holding its locks, so the host is unstable until it
// is rebooted and must be drained. A memory checker's report (KASAN,
// KFENCE) is critical in a driver of an RDMA or GPU device and a warning
// elsewhere: the checker caught the bad access and the kernel went on (it
// stops only with panic_on_warn or kasan.fault=panic), so the node can
// finish its jobs; a crash that follows is a report of its own. A
// WARN_ON of refcount_warn_saturate after a refcount_t use-after-free
// message (lib/refcount.c) is read as such a report. A
// WARN_ON, hung task or soft lockup in such a driver is a warning
// (elsewhere none), critical for a hung task when the log reports two
// or more (hungReports: tasks blocked behind the stuck one), critical
// in an RDMA driver when a queue pair or the
// connection over it fails after it (reQPFailure) or when a driver its
// call trace runs through logs an error right after it (failedAfter):
// the operation it was in failed. A WARN()'s message is quoted.
func checkOops(in *Input) []finding.Finding {
	type key struct {
		crash                     bool
		what, fn, drv, dfn, phase string
	}
	type tally struct {
		n      int
		wheres []string // of the warnings
		tasks  []string
		pci    string
		ev     []finding.Evidence
		// firstLine is the line of the first report's record.
		firstLine int
		// failed is a driver's error line right after a warning of the
		// tally (failedAfter), failedBy the driver that logged it.
		failed   *kmsg.Event
		failedBy string
	}
	ts := map[key]*tally{}
	var keys []key
	var drvErrs []kmsg.Event
	for _, e := range in.events() {
		if e.Kind == kmsg.KindDriverError && !e.Folded {
			drvErrs = append(drvErrs, e)
		}
	}
	for _, e := range in.events() {
		if e.Kind != kmsg.KindOops {
			continue
		}
		drv := oopsDriver(e)
		if !e.IsError && deviceModule(drv) == "" && !memorySafety(e.Detail) {
			continue
		}
		k := key{e.IsError, e.Detail, e.Func, drv, e.DriverFunc, e.Phase}
		if !e.IsError {
			k = key{what: e.Detail, drv: drv} // the warnings (hung tasks …) of a driver: one finding
		}
		t, ok := ts[k]
		if !ok {
			t = &tally{}
			ts[k] = t
			keys = append(keys, k)
		}
		t.n += e.Weight()
		if e.Folded {
			continue
		}
		w := strings.TrimPrefix(oopsWhere(e.Func, e.Driver, e.DriverFunc), " in ")
		if e.Driver == "" && drv != "" && w == "" {
			w = e.Source // an UBSAN header names only its source file
		} else if e.Driver == "" && drv != "" {
			w += " (" + e.Source + ")" // where the driver was read from
		}
		if e.Message != "" {
			w += ` ("` + e.Message + `")`
		}
		if !e.IsError && len(t.wheres) < maxEvidence && !slices.Contains(t.wheres, w) {
			t.wheres = append(t.wheres, w)
		}
		if !e.IsError && t.failed == nil && deviceModule(drv) == "RDMA" {
			if d, by, ok := failedAfter(e, drv, drvErrs); ok {
				t.failed, t.failedBy = &d, by
			}
		}
		if task := e.Task + " (pid " + e.TaskPID + ")"; e.Task != "" && len(t.tasks) < maxEvidence && !slices.Contains(t.tasks, task) {
			t.tasks = append(t.tasks, task)
		}
		if t.pci == "" {
			t.pci = string(e.PCI)
		}
		if len(t.ev) < maxEvidence {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
		if t.firstLine == 0 {
			t.firstLine = e.Record.Line
		}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := ts[k]
		kind := deviceModule(k.drv)
		var b strings.Builder
		names, memErr := stallNamesOf(k.what), memorySafety(k.what)
		switch {
		case memErr:
			fmt.Fprintf(&b, "kernel memory-safety report (%s)%s%s", k.what, oopsWhere(k.fn, k.drv, k.dfn), phaseNames[k.phase])
		case k.crash:
			fmt.Fprintf(&b, "kernel oops (%s)%s%s", k.what, oopsWhere(k.fn, k.drv, k.dfn), phaseNames[k.phase])
		default:
			fmt.Fprintf(&b, "%s in %s", plural(t.n, names[0], names[1]), strings.Join(t.wheres, "; "))
		}
		if len(t.tasks) > 0 {
			fmt.Fprintf(&b, ", task %s", strings.Join(t.tasks, ", "))
		}
		if t.pci != "" {
			fmt.Fprintf(&b, ", device %s", t.pci)
		}
		if t.n > 1 && k.crash {
			fmt.Fprintf(&b, ", %d times", t.n)
		}
		fmt.Fprintf(&b, " %s", in.window())
		sev := finding.Critical
		switch {
		case memErr && kind != "":
			fmt.Fprintf(&b, ": the kernel's memory checker caught the %s driver %s touching memory it does not own (a driver bug); kernel memory may be corrupted, so its devices and the host are unreliable until it is rebooted", kind, k.drv)
		case memErr && strings.HasPrefix(k.what, "refcount_t "):
			b.WriteString(": the kernel's refcount_t check caught an object's reference count dropped below zero or taken from zero (lib/refcount.c: a reference put once too often or taken on a freed object, a kernel bug) and the kernel went on; the object may be freed while still in use, so kernel memory may be corrupted: reboot the host once its jobs end, and find the module from the call trace (the frames after refcount_warn_saturate)")
			sev = finding.Warning
		case memErr:
			b.WriteString(": the kernel's memory checker caught a bad access outside the RDMA and GPU drivers (a kernel bug) and the kernel went on; kernel memory may be corrupted, so reboot the host once its jobs end")
			sev = finding.Warning
		case k.crash && kind != "":
			fmt.Fprintf(&b, ": the %s driver %s crashed; its devices are unusable and the host may hang until it is rebooted", kind, k.drv)
		case k.crash:
			b.WriteString(": the kernel crashed outside the RDMA and GPU drivers; the host is unstable until it is rebooted, so drain it")
		default:
			fmt.Fprintf(&b, ": "+names[2], kind, k.drv)
			sev = finding.Warning
			if n := hungReports(in); k.what == "hung task" && n >= 2 {
				// kernel/hung_task.c reports each task blocked past
				// hung_task_timeout_secs (120 s by default): several
				// reports with one in a device driver are tasks queued
				// behind a lock the stuck one holds (rtnl, the RDMA
				// core's devices lock), so the host's stack is stuck.
				fmt.Fprintf(&b, "; the log reports %d hung tasks: the others are blocked behind the lock this one holds (rtnl, the RDMA core's devices lock, a workqueue), so network and RDMA configuration on the host hangs until it is rebooted", n)
				sev = finding.Critical
			} else if kind == "RDMA" && len(t.ev) > 0 {
				if r, ok := qpFailureAfter(in, t.firstLine); ok {
					fmt.Fprintf(&b, "; then an RDMA queue pair or the connection over it failed (%q): the warning was no harmless check, the transfers over the driver broke", firstLineOf(r.Text))
					sev = finding.Critical
					t.ev = append(t.ev, in.logEvidence(r))
				} else if t.failed != nil {
					caller := "its caller"
					if len(t.tasks) > 0 {
						caller = "task " + strings.Join(t.tasks, ", ")
					}
					fmt.Fprintf(&b, "; right after it %s, which the warning's call trace runs through, logged an error (%q): the call the warning was in failed and returned the error to %s, so the warning was no harmless check", t.failedBy, firstLineOf(t.failed.Record.Text), caller)
					sev = finding.Critical
					t.ev = append(t.ev, in.logEvidence(t.failed.Record))
				}
			}
		}
		f := catalog.New("kmsg.kernel_oops", finding.Subject{Host: in.Snap.Host, PCI: t.pci}, b.String(), t.ev...)
		f.Severity = sev
		out = append(out, f)
	}
	return out
}

// hungReports counts the hung task reports ("INFO: task X:pid blocked
// for more than N seconds", kernel/hung_task.c) of the log, in any
// driver or none.
func hungReports(in *Input) int {
	n := 0
	for _, e := range in.events() {
		if e.Kind == kmsg.KindOops && !e.IsError && e.Detail == "hung task" {
			n += e.Weight()
		}
	}
	return n
}

// reQPFailure is a kernel line, of an RDMA upper layer, that says a
// queue pair failed or the connection over it dropped: the async event a
// ULP's QP event handler prints with ib_event_msg()
// (drivers/infiniband/core/verbs.c: "QP fatal error", "QP request
// error", "QP access error", "CQ error", "device fatal error"; iSER's
// iser_qp_event_callback "iser: iser_qp_event_callback: qp event QP
// request error (2)", nvme-rdma's and srp's "QP event …"), or libiscsi's
// iscsi_conn_error_event "connection26:0: detected conn error (1011)".
var reQPFailure = regexp.MustCompile(`(?i)\bqp event (?:QP fatal error|QP request error|QP access error|CQ error|device fatal error)\b|\bdetected conn error \(\d+\)`)

// qpFailureAfter returns the first record after line that says a queue
// pair or the connection over it failed (reQPFailure).
func qpFailureAfter(in *Input, line int) (kmsg.Record, bool) {
	if in.Kernel == nil {
		return kmsg.Record{}, false
	}
	for _, r := range in.Kernel.Since(in.Since, in.Boot) {
		if r.Line > line && reQPFailure.MatchString(r.Text) {
			return r, true
		}
	}
	return kmsg.Record{}, false
}

// failWindow is how soon after a WARN_ON splat's header an error line of
// a driver in its call trace must come to be the failure of the operation
// the warning was in: the driver returns the error as the warning's call
// unwinds, within the time the report takes to print.
const failWindow = 5 * time.Second

// failLines bounds, for a log without times, how many lines after the
// header such an error line may be: a report spans up to some 150 lines.
const failLines = 250

// failedAfter returns the first of the driver error lines errs (in log
// order) that comes right after the WARN_ON splat e (failWindow) from
// a driver its call trace runs through (e.Modules, or drv, the driver the
// report is about), and that driver's name. An RDMA device's class lines
// ("infiniband mlx5_0: …", drivers/infiniband/core/device.c) count for
// any RDMA driver in the trace.
func failedAfter(e kmsg.Event, drv string, errs []kmsg.Event) (kmsg.Event, string, bool) {
	mods := strings.Fields(e.Modules)
	if drv != "" && !slices.Contains(mods, drv) {
		mods = append(mods, drv)
	}
	t0, ok0 := recordTime(e.Record)
	for _, d := range errs {
		if !recordAfter(d.Record, e.Record) || d.Record.Line == e.Record.Line && d.Record.Line > 0 {
			continue
		}
		t1, ok1 := recordTime(d.Record)
		switch {
		case ok0 && ok1:
			if t1-t0 > failWindow {
				return kmsg.Event{}, "", false
			}
		case e.Record.Line > 0 && d.Record.Line-e.Record.Line > failLines:
			return kmsg.Event{}, "", false
		}
		by := strings.ReplaceAll(d.Driver, "-", "_")
		switch {
		case slices.Contains(mods, by):
			return d, by, true
		case by == "infiniband":
			for _, m := range mods {
				if deviceModule(m) == "RDMA" {
					return d, m, true
				}
			}
		}
	}
	return kmsg.Event{}, "", false
}

// firstLineOf is s up to its first newline.
func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// stallNames are, for the reports that are no crash (kmsg.Event.Detail),
// their name, plural, and what they mean for the driver (a format of the
// kind of device and the module).
var stallNames = map[string][3]string{
	"WARNING":     {"kernel warning (WARN_ON)", "kernel warnings (WARN_ON)", "a check in the %s driver %s failed; it went on, but the device may be left in a bad state"},
	"hung task":   {"hung task (blocked for minutes)", "hung tasks (blocked for minutes)", "a task waited in the %s driver %s and did not come back (a firmware command or the device not answering); the device is likely stuck until the driver is reloaded or the host rebooted"},
	"soft lockup": {"soft lockup (a CPU stuck in the kernel)", "soft lockups (a CPU stuck in the kernel)", "a CPU spun in the %s driver %s for seconds without yielding, usually polling a device that does not answer"},
}

// memorySafety reports a crash report's kind (kmsg.Event.Detail) that a
// memory checker of the kernel gave: KASAN (mm/kasan/report.c) or KFENCE
// (mm/kfence/report.c), a bad access caught as it happened.
func memorySafety(what string) bool {
	return strings.HasPrefix(what, "KASAN ") || strings.HasPrefix(what, "KFENCE ") || strings.HasPrefix(what, "refcount_t ")
}

// stallNamesOf are stallNames of a report that is no crash; an UBSAN
// report ("UBSAN array-index-out-of-bounds", lib/ubsan.c) names its kind.
func stallNamesOf(what string) [3]string {
	if kind, ok := strings.CutPrefix(what, "UBSAN "); ok {
		return [3]string{"undefined-behaviour report (UBSAN " + kind + ")", "undefined-behaviour reports (UBSAN " + kind + ")",
			"the kernel's undefined-behaviour checker flagged code of the %s driver %s; it went on, often harmlessly (an index past a one-element array used as a flexible array), but an index or shift out of range can corrupt memory: report it to the driver's maintainers"}
	}
	return stallNames[what]
}

// phaseNames say when a crash came (kmsg.Event.Phase).
var phaseNames = map[string]string{
	"probe":    " while the driver was probing its device",
	"removal":  " while the driver was removing its device",
	"shutdown": " while the host was shutting down",
}

// oopsWhere names where a report faulted: " in __bitmap_or, called from
// mlx5_core's mlx5_irq_alloc", " in mlx5_core's mlx5_cmd_comp_handler".
func oopsWhere(fn, drv, dfn string) string {
	switch {
	case fn == "" && drv == "":
		return ""
	case drv == "":
		return " in " + fn
	case fn == "" || fn == dfn:
		return fmt.Sprintf(" in %s's %s", drv, dfn)
	}
	return fmt.Sprintf(" in %s, called from %s's %s", fn, drv, dfn)
}
