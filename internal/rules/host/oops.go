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

// deviceModules are the kernel modules that drive RDMA and GPU devices,
// with the kind of device: the HCA and RDMA NIC drivers, the RDMA core and
// its upper layers (a crash there takes the RDMA stack down with it: iSER
// ib_iser/ib_isert, SRP, NFS over RDMA, NVMe over RDMA, RDS rds_rdma,
// Lustre's LNet o2ib driver ko2iblnd), the GPU drivers and the modules
// that join the two.
var deviceModules = nameTable{
	{regexp.MustCompile(`^(?:mlx4_\w+|mlx5_\w+|mlxfw|mlx_compat|mlxdevm|ib_\w+|rdma_\w+|iw_\w+|rpcrdma|svcrdma|xprtrdma|nvme_rdma|nvmet_rdma|rds_rdma|ko2iblnd|bnxt_re|irdma|i40iw|efa|hfi1|qib|hns_roce\w*|qedr|mana_ib|erdma|vmw_pvrdma|ocrdma|siw|rdma_rxe|rxe)$`), "RDMA"},
	{regexp.MustCompile(`^(?:nvidia(?:_\w+)?|nv_peer_mem|gdrdrv|amdgpu|amdkfd)$`), "GPU"},
	{regexp.MustCompile(`^devlink$`), "RDMA NIC"},
}

// deviceModule says which kind of device a module drives, "" when none of
// deviceModules.
func deviceModule(mod string) string { return deviceModules.name(mod) }

// sourceModules name the driver of a WARN_ON by the source file it names,
// for a splat whose header and trace name no module (built-in code, or a
// paste cut after the header): the RDMA core and HCA drivers, and devlink
// (net/core/devlink.c, net/devlink/ since Linux 6.3), the device
// management core the mlx5 driver registers every HCA with.
var sourceModules = nameTable{
	{regexp.MustCompile(`^net/(?:core/devlink\.c|devlink/)`), "devlink"},
	{regexp.MustCompile(`^drivers/infiniband/core/`), "ib_core"},
	{regexp.MustCompile(`^drivers/infiniband/hw/mlx5/`), "mlx5_ib"},
	{regexp.MustCompile(`^drivers/net/ethernet/mellanox/mlx5/`), "mlx5_core"},
}

// oopsDriver is the driver a report is about: the module it names, else
// the one its WARN_ON's source file belongs to.
func oopsDriver(e kmsg.Event) string {
	if e.Driver != "" || e.Source == "" {
		return e.Driver
	}
	return sourceModules.name(e.Source)
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
// (elsewhere none), critical in an RDMA driver when a queue pair or the
// connection over it fails after it (reQPFailure).
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
	}
	ts := map[key]*tally{}
	var keys []key
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
		if !e.IsError && len(t.wheres) < maxEvidence && !slices.Contains(t.wheres, w) {
			t.wheres = append(t.wheres, w)
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
			if kind == "RDMA" && len(t.ev) > 0 {
				if r, ok := qpFailureAfter(in, t.firstLine); ok {
					fmt.Fprintf(&b, "; then an RDMA queue pair or the connection over it failed (%q): the warning was no harmless check, the transfers over the driver broke", firstLineOf(r.Text))
					sev = finding.Critical
					t.ev = append(t.ev, in.logEvidence(r))
				}
			}
		}
		f := catalog.New("kmsg.kernel_oops", finding.Subject{Host: in.Snap.Host, PCI: t.pci}, b.String(), t.ev...)
		f.Severity = sev
		out = append(out, f)
	}
	return out
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
