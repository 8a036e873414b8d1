package kmsg

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// A kernel crash report (an oops) spans many records: a header line, the
// faulting task, the registers with the faulting instruction (x86 "RIP:",
// arm64 "pc :", powerpc "NIP"), the call trace, the module list and an
// end marker (arch/x86/kernel/dumpstack.c, arch/arm64/kernel/traps.c,
// kernel/panic.c). The Classifier reads it as it goes and gives one
// KindOops event when the report ends: at its end marker, at the second
// record after the call trace that is no stack frame (the first is often
// the module list or a register), at the next report, or when the log
// ends (Flush). A WARN_ON splat ("WARNING: CPU: 3 PID: 7 at file.c:12
// func+0x1/0x2 [mod]", kernel/panic.c __warn), a hung task and a soft
// lockup are read the same way: a driver bug caught by a check, a task
// stuck in the kernel, not a crash (IsError false).

// reOopsHeader is the first line of a crash report: x86 page faults
// (arch/x86/mm/fault.c show_fault_oops, before and since Linux 5.0),
// "kernel BUG at" (lib/bug.c), a general protection fault of the kernel
// (arch/x86/kernel/traps.c; the user-space one, "traps: prog[pid] general
// protection fault ip:…", is KindCrash), arm64 faults and die()
// ("Internal error: Oops: 96000004 [#1] SMP"), and the "Oops: …" line
// itself when the header before it was cut off (since Linux 6.10 it
// carries the header text: "Oops: general protection fault, …").
var reOopsHeader = regexp.MustCompile(`^(?:Oops: )?(?P<what>BUG: unable to handle (?:page fault|kernel paging request|kernel NULL pointer dereference)|BUG: kernel NULL pointer dereference|kernel BUG at [^\s!]+|general protection fault|Unable to handle kernel (?:paging request|NULL pointer dereference|access to user memory|execute from non-executable memory|write to read-only memory)|Internal error: [^:]+|invalid opcode|Oops)\b`)

// reWarnHeader is a WARN_ON splat's first line (kernel/panic.c __warn):
// the source file and line, the function and module are on it. A mail
// client may wrap the line after "at" or after the source file
// ("WARNING: CPU: 10 PID: 855 at kernel/dma/debug.c:571" /
// "add_dma_entry+0x36a/0x4c0"): the rest is read from the line after it
// (reWarnWrapped, reSanitizerWrapped), else the function and module come
// from the report's RIP/pc line.
var reWarnHeader = regexp.MustCompile(`^WARNING: CPU: \d+ PID: (?P<pid>\d+) at(?:$| (?P<src>\S+:\d+)(?:$| (?P<fn>[\w.$]+)\+0x[0-9a-fA-F]+/0x[0-9a-fA-F]+(?: \[(?P<mod>\w+)\])?))`)

// reRefcountUAF is the message refcount_warn_saturate (lib/refcount.c)
// prints before its WARN_ON splat when a reference count was used after
// it reached zero: "refcount_t: underflow; use-after-free." (a put too
// many) and "refcount_t: addition on 0; use-after-free." (a get on a freed
// object). The saturation cases ("saturated; leaking memory.", "decrement
// hit 0; leaking memory.") leak an object and stay a plain WARN_ON.
var reRefcountUAF = regexp.MustCompile(`^refcount_t: (underflow|addition on 0); use-after-free\.?$`)

// refcountUAF names the memory-safety report of a refcount_t message
// ("refcount_t underflow; use-after-free").
func refcountUAF(t string) (string, bool) {
	m := reRefcountUAF.FindStringSubmatch(t)
	if m == nil {
		return "", false
	}
	return "refcount_t " + m[1] + "; use-after-free", true
}

// reWarnWrapped is the rest of a WARN_ON header wrapped after "at": the
// source file and line, then the function and module when they fit
// ("drivers/infiniband/sw/rdmavt/qp.c:2043 rvt_post_one_wr+0x4e3/0x6d0
// [rdmavt]").
var reWarnWrapped = regexp.MustCompile(`^(?P<src>[\w./+-]+\.(?:[chS]|rs):\d+)(?:$| (?P<fn>[\w.$]+)\+0x[0-9a-fA-F]+/0x[0-9a-fA-F]+(?: \[(?P<mod>\w+)\])?)`)

// cutHere is the marker the kernel prints before a WARN() or BUG() report
// (include/asm-generic/bug.h CUT_HERE); a WARN() with a message prints
// the message after it and before its "WARNING: CPU: …" header
// (kernel/panic.c __warn_printk, then report_bug and __warn).
const cutHere = "------------[ cut here ]------------"

// maxWarnMsg bounds the message of a WARN() that is kept.
const maxWarnMsg = 240

// reStallHeader is the first line of a report of a task stuck in the
// kernel (no crash): a hung task (kernel/hung_task.c "INFO: task
// kworker/u98:2:12345 blocked for more than 120 seconds.") or a soft
// lockup (kernel/watchdog.c "watchdog: BUG: soft lockup - CPU#12 stuck
// for 23s! [kworker/12:1:456]", "NMI watchdog:" on older kernels).
var reStallHeader = regexp.MustCompile(`^(?:INFO: task (?P<comm>.+):(?P<pid>\d+) blocked for more than \d+ seconds|(?:(?:NMI )?watchdog: )?BUG: soft lockup - CPU#\d+ stuck for \d+s! \[(?P<lcomm>.+):(?P<lpid>\d+)\])`)

// reSanitizerHeader is the first line of a memory-safety report of the
// kernel's sanitizers, which catch a bad access as it happens and go on:
// KASAN (mm/kasan/report.c print_error_description: "BUG: KASAN:
// use-after-free in mlx5_cmd_set_fte+0x200d/0x24c0 [mlx5_core]", also
// slab-out-of-bounds, double-free, invalid-free, null-ptr-deref …, older
// kernels with " at addr …" after the function) and KFENCE
// (mm/kfence/report.c kfence_report_error: "BUG: KFENCE: use-after-free
// read in func+0x1/0x2 [mod]", "invalid free in", "memory corruption in").
// A header a mail or forum editor wrapped ends at "in": its function is
// the next line ("rxe_post_send+0x12f3/0x1880 [rdma_rxe] at addr …",
// reSanitizerWrapped).
var reSanitizerHeader = regexp.MustCompile(`^BUG: (?P<tool>KASAN|KFENCE): (?P<what>[\w -]+?) in(?: (?P<fn>[\w.$]+)(?:\+0x[0-9a-fA-F]+/0x[0-9a-fA-F]+)?(?: \[(?P<mod>\w+)\])?(?:\s|$)|$)`)

// reSanitizerWrapped is the function of a wrapped sanitizer header, the
// start of the line after it.
var reSanitizerWrapped = regexp.MustCompile(`^(?P<fn>[\w.$]+)\+0x[0-9a-fA-F]+/0x[0-9a-fA-F]+(?: \[(?P<mod>\w+)\])?(?:\s|$)`)

// reUBSANHeader is the first line of an undefined-behaviour report
// (lib/ubsan.c ubsan_prologue: "UBSAN: array-index-out-of-bounds in
// drivers/net/ethernet/mellanox/mlx5/core/en_main.c:1234:5"; "UBSAN:
// Undefined behaviour in …" before Linux 5.11): the source file, not the
// function, is on it.
var reUBSANHeader = regexp.MustCompile(`^UBSAN: (?P<what>[\w -]+?) in (?P<src>[\w./+-]+\.[chS](?::\d+){0,2})\b`)

// reOopsTask is the faulting task ("CPU: 0 PID: 117 Comm: kworker/0:6
// Not tainted 6.3.0 #1", lib/dump_stack.c dump_stack_print_info).
var reOopsTask = regexp.MustCompile(`^CPU: \d+ (?:UID: \d+ )?PID: (?P<pid>\d+) Comm: (?P<comm>\S+)`)

// reOopsPC is the faulting instruction: x86 "RIP: 0010:__bitmap_or+0x10/0x26"
// (older kernels "RIP: 0010:[<ffffffffa0123456>]  [<ffffffffa0123456>]
// func+0x1/0x2 [mod]"), arm64 "pc : ib_free_cq+0x16c/0x174", powerpc
// "NIP [c000000000abcdef] func+0x1/0x2 [mod]", i386 "EIP: func+0x1/0x2",
// and the "IP:" line older x86 kernels print under a page fault's header
// (arch/x86/mm/fault.c show_fault_oops: printk(KERN_ALERT "IP:") then
// printk_address(regs->ip), "IP: [<ffffffffa06869ba>]
// iser_cq_tasklet_fn+0x6a/0x230 [ib_iser]"): a report cut before its
// register dump and call trace names its function and module only there.
var reOopsPC = regexp.MustCompile(`^(?:RIP: [0-9a-fA-F]{4}:(?:\[<[0-9a-fA-F]+>\]\s+\[<[0-9a-fA-F]+>\]\s+)?|pc : |NIP \[[0-9a-fA-F]+\] |EIP: (?:[0-9a-fA-F]{4}:\[<[0-9a-fA-F]+>\] )?|IP: \[<[0-9a-fA-F]+>\] )(?P<fn>[\w.$]+)\+0x[0-9a-fA-F]+/0x[0-9a-fA-F]+(?: \[(?P<mod>\w+)\])?`)

// reOopsFrame is one frame of a call trace (read by hand, parseFrame; the
// expression is the reference its fuzz test holds it to): " mlx5_irq_alloc+0x99/0x319
// [mlx5_core]", " ? xa_load+0x5e/0x68" (a "?" frame is a return address
// found on the stack, not proven part of the trace), older x86 "
// [<ffffffffa0123456>] func+0x1/0x2 [mod]", arm64 and powerpc frames
// ("[c000000000abcdef] [c000000000123456] func+0x1/0x2 [mod]").
var reOopsFrame = regexp.MustCompile(`^\s*(?:\[<?[0-9a-fA-F]+>?\]\s*){0,2}(?P<unsure>\? )?(?P<fn>[\w.$]+)\+0x[0-9a-fA-F]+/0x[0-9a-fA-F]+(?: \[(?P<mod>\w+)\])?\s*$`)

// reOopsWorkqueue names the workqueue of a kworker that crashed
// ("Workqueue: mlx5_cmd_0000:4b:00.0 cmd_work_handler [mlx5_core]"): the
// mlx5 command workqueue carries its PCI function in its name.
var reOopsWorkqueue = regexp.MustCompile(`^Workqueue: \S*?(?P<pci>` + bdf + `)`)

// oopsState is the report being read.
type oopsState struct {
	open bool
	ev   Event
	// inTrace: the call trace has started; traceDone: a record after it
	// was no frame (the report ends at the next one that is no marker).
	inTrace, traceDone bool
	// sureMod is set once a frame that is not "?" named a module.
	sureMod bool
	// left bounds the records a report without a call trace may span.
	left int
	// wrapped: a sanitizer header ended at "in", its function next.
	wrapped bool
	// warnWrap: a WARN_ON header ended at "at" (1: its source file
	// next) or after its source file (2: its function next).
	warnWrap int
}

// oopsSpan is the most records read as one report before its call trace.
const oopsSpan = 80

// oopsLine reads one record for the crash report; it returns the event
// of a report that ended before or at this record.
func (c *Classifier) oopsLine(r Record) bool {
	o := &c.oops
	ended := false
	finish := func() {
		if o.open {
			c.oopsDone, ended = o.ev, true
		}
		*o = oopsState{}
	}
	c.shutdownLine(r.Text)
	if c.warnLeft > 0 {
		if c.warnLeft--; c.warnLeft == 0 {
			c.cutHere, c.warnMsg = false, ""
		}
	}
	rest := r.Text
	for i := 0; rest != ""; i++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "refcount_t: ") {
			c.refcount = t
			continue
		}
		if t == cutHere {
			c.cutHere, c.warnMsg, c.warnLeft = true, "", 4
			continue
		}
		// The header expressions run only on lines that start like a
		// header: inside a report most lines are frames and registers.
		hdr := maybeOopsHeader(t)
		if c.cutHere && !hdr {
			c.warnLine(t, i == 0 && (r.HasMono || r.HasRel || !r.Time.IsZero()))
		}
		if !o.open && !hdr {
			continue
		}
		if hdr {
			if m := reWarnHeader.FindStringSubmatch(t); m != nil {
				finish()
				*o = oopsState{open: true, left: oopsSpan, ev: Event{Kind: KindOops, Record: r, Detail: "WARNING", TaskPID: m[1], Source: m[2], Func: m[3], Driver: m[4], Phase: c.phase(), Message: c.warnMsg}}
				c.cutHere, c.warnMsg, c.warnLeft = false, "", 0
				if what, ok := refcountUAF(c.refcount); ok && m[3] == "refcount_warn_saturate" {
					// A reference dropped once too often: the object may
					// already be freed and in use by another owner.
					o.ev.Detail = what
					o.ev.Message = c.refcount
				}
				c.refcount = ""
				switch {
				case m[2] == "":
					o.warnWrap = 1
				case m[3] == "":
					o.warnWrap = 2
				}
				if m[4] != "" {
					o.ev.DriverFunc, o.sureMod = m[3], true
					o.module(m[4])
				}
				continue
			}
			if m := reStallHeader.FindStringSubmatch(t); m != nil {
				finish()
				ev := Event{Kind: KindOops, Record: r, Detail: "hung task", Task: m[1], TaskPID: m[2], Phase: c.phase()}
				if m[1] == "" {
					ev.Detail, ev.Task, ev.TaskPID = "soft lockup", m[3], m[4]
				}
				*o = oopsState{open: true, left: oopsSpan, ev: ev}
				continue
			}
			if m := reSanitizerHeader.FindStringSubmatch(t); m != nil {
				// A bad access caught as it happened: a crash in all but
				// name, the memory it touched belongs to someone else.
				finish()
				*o = oopsState{open: true, left: oopsSpan, ev: Event{Kind: KindOops, Record: r, IsError: true, Detail: m[1] + " " + m[2], Func: m[3], Driver: m[4], Phase: c.phase()}, wrapped: m[3] == ""}
				if m[4] != "" {
					o.ev.DriverFunc, o.sureMod = m[3], true
				}
				continue
			}
			if m := reUBSANHeader.FindStringSubmatch(t); m != nil {
				// Undefined behaviour the kernel went on after; often
				// harmless (an index past a one-element array used as a
				// flexible array): read like a WARN_ON.
				finish()
				*o = oopsState{open: true, left: oopsSpan, ev: Event{Kind: KindOops, Record: r, Detail: "UBSAN " + m[1], Source: m[2], Phase: c.phase()}}
				continue
			}
			if m := reOopsHeader.FindStringSubmatch(t); m != nil && (i == 0 || !o.open) {
				if o.open && !o.inTrace && o.ev.IsError {
					// "Oops: 0000 [#1]" after "BUG: unable to handle …",
					// "invalid opcode" after "kernel BUG at": the same report.
					continue
				}
				finish()
				*o = oopsState{open: true, left: oopsSpan, ev: Event{Kind: KindOops, Record: r, IsError: true, Detail: oopsWhat(m[1]), Phase: c.phase()}}
				continue
			}
		}
		if !o.open {
			continue
		}
		if o.warnWrap != 0 && o.warnWrapped(t) {
			continue
		}
		if o.wrapped {
			o.wrapped = false
			if m := reSanitizerWrapped.FindStringSubmatch(t); m != nil {
				o.ev.Func = m[1]
				if m[2] != "" {
					o.ev.Driver, o.ev.DriverFunc, o.sureMod = m[2], m[1], true
					o.module(m[2])
				}
				continue
			}
		}
		if strings.HasPrefix(t, "---[ end trace") || strings.HasPrefix(t, "---[ end Kernel panic") {
			finish()
			continue
		}
		if strings.HasPrefix(t, "Call Trace:") || strings.HasPrefix(t, "Call trace:") {
			o.inTrace = true
			continue
		}
		if o.inTrace && !o.traceDone && strings.Contains(t, "+0x") {
			if fr, ok := parseFrame(t); ok {
				o.frame(fr.fn, fr.mod, fr.unsure)
				if p := framePhase(fr.fn); p != "" && !fr.unsure && o.ev.Phase == "" {
					o.ev.Phase = p
				}
				continue
			}
		}
		if o.inTrace && isStackMarker(t) {
			continue
		}
		if o.traceDone {
			finish()
			continue
		}
		if o.inTrace {
			o.traceDone = true
			continue
		}
		if m := matchPrefixed(reOopsTask, t, "CPU: "); m != nil {
			o.ev.TaskPID, o.ev.Task = m[1], m[2]
		} else if m := matchPC(t); m != nil && o.ev.Func == "" {
			o.ev.Func = m[1]
			if m[2] != "" {
				o.ev.Driver, o.ev.DriverFunc, o.sureMod = m[2], m[1], true
				o.module(m[2])
			}
		} else if m := matchPrefixed(reOopsWorkqueue, t, "Workqueue: "); m != nil && o.ev.PCI == "" {
			o.ev.PCI = addr(m[1])
		}
		if o.left--; o.left <= 0 {
			finish()
		}
	}
	return ended
}

// oopsStarts are the first words of the headers reOopsHeader,
// reWarnHeader, reStallHeader, reSanitizerHeader ("BUG: ") and
// reUBSANHeader read: most records start with none.
var oopsStarts = []string{"BUG: ", "kernel BUG at ", "general protection fault", "Unable to handle kernel ", "Internal error: ", "invalid opcode", "Oops", "WARNING: CPU: ",
	"INFO: task ", "watchdog: BUG: soft lockup", "NMI watchdog: BUG: soft lockup", "UBSAN: "}

func maybeOopsHeader(t string) bool {
	switch t[0] {
	case 'B', 'k', 'g', 'U', 'I', 'i', 'O', 'W', 'w', 'N':
	default:
		return false
	}
	for _, p := range oopsStarts {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// frame reads one frame of the call trace: the first module a sure frame
// names is the driver the report is about (a "?" frame only until one is).
func (o *oopsState) frame(fn, mod string, unsure bool) {
	if mod != "" && !unsure {
		o.module(mod)
	}
	if mod == "" || o.sureMod {
		return
	}
	if !unsure {
		o.ev.Driver, o.ev.DriverFunc, o.sureMod = mod, fn, true
	} else if o.ev.Driver == "" {
		o.ev.Driver, o.ev.DriverFunc = mod, fn
	}
}

// maxModules bounds the modules an oops event lists.
const maxModules = 8

// module adds mod to the modules the report names (Event.Modules).
func (o *oopsState) module(mod string) {
	ms := o.ev.Modules
	if ms == mod || strings.HasPrefix(ms, mod+" ") || strings.HasSuffix(ms, " "+mod) || strings.Contains(ms, " "+mod+" ") {
		return
	}
	if strings.Count(ms, " ") >= maxModules-1 && ms != "" {
		return
	}
	if ms != "" {
		ms += " "
	}
	o.ev.Modules = ms + mod
}

// warnWrapped reads the line after a wrapped WARN_ON header: its source
// file, function and module (reWarnWrapped) or its function and module
// (reSanitizerWrapped). It reports whether the line was that rest.
func (o *oopsState) warnWrapped(t string) bool {
	ww := o.warnWrap
	o.warnWrap = 0
	fn, mod := "", ""
	if ww == 1 {
		m := reWarnWrapped.FindStringSubmatch(t)
		if m == nil {
			return false
		}
		o.ev.Source, fn, mod = m[1], m[2], m[3]
	} else {
		m := reSanitizerWrapped.FindStringSubmatch(t)
		if m == nil {
			return false
		}
		fn, mod = m[1], m[2]
	}
	if fn != "" && o.ev.Func == "" {
		o.ev.Func = fn
		if mod != "" {
			o.ev.Driver, o.ev.DriverFunc, o.sureMod = mod, fn, true
			o.module(mod)
		}
	}
	return true
}

// warnLine reads a line after a "cut here" marker, before the header: the
// message of a WARN(). A mail client may wrap it over more lines, which
// carry no stamp; a stamped record after it (stampedStart: the line starts
// one) ends it, so only the message's first line is kept.
func (c *Classifier) warnLine(t string, stampedStart bool) {
	switch {
	case stampedStart && c.warnMsg != "":
		c.cutHere = false
	case c.warnMsg == "":
		c.warnMsg = clip(t, maxWarnMsg)
	case len(c.warnMsg) < maxWarnMsg:
		c.warnMsg = clip(c.warnMsg+" "+t, maxWarnMsg)
	}
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// framePhase says what a frame of a call trace was doing: probing a
// device ("probe_one", "local_pci_probe"), removing it ("remove_one",
// "mlx5r_remove", "pci_device_remove"), shutting it down
// ("pci_device_shutdown", device_shutdown, a PCI driver's shutdown
// callback "shutdown" or "mlx5_shutdown"); "" for any other function. A
// driver's own "shutdown" of one of its objects (nvme-rdma's
// nvme_rdma_shutdown_ctrl, run when a controller is deleted) is no host
// shutdown.
func framePhase(fn string) string {
	switch {
	case strings.Contains(fn, "probe"):
		return "probe"
	case strings.Contains(fn, "remove"):
		return "removal"
	case fn == "shutdown" || strings.HasSuffix(fn, "_shutdown") || strings.HasPrefix(fn, "kernel_restart") || strings.HasPrefix(fn, "kernel_power_off"):
		return "shutdown"
	}
	return ""
}

// shutdownLine notes the lines that say the host is going down
// (systemd-shutdown's "Rebooting." and "Powering off.", kernel/reboot.c
// "reboot: Restarting system", mlx5's "Shutdown was called"), and a new
// boot ("Linux version …") that ends it.
func (c *Classifier) shutdownLine(t string) {
	switch {
	case strings.HasPrefix(t, "Linux version "):
		c.goingDown = false
	case strings.HasPrefix(t, "systemd-shutdown") && (strings.Contains(t, "Rebooting") || strings.Contains(t, "Powering off")),
		strings.HasPrefix(t, "reboot: "), strings.Contains(t, ": Shutdown was called"):
		c.goingDown = true
	}
}

// phase is the Phase of a report that starts now, before its trace is read.
func (c *Classifier) phase() string {
	if c.goingDown {
		return "shutdown"
	}
	return ""
}

// isStackMarker reports the lines between the frames of a trace: the
// context markers ("<TASK>", "</IRQ>") and the registers of an exception
// frame inside it.
func isStackMarker(t string) bool {
	if strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && len(t) <= 8 {
		return true
	}
	return matchPC(t) != nil || strings.HasPrefix(t, "Code: ") || strings.HasPrefix(t, "RSP: ") ||
		strings.HasPrefix(t, "R") && strings.Contains(t, ": 0") && strings.Count(t, ": ") >= 2
}

// matchPrefixed runs re on t only when t starts with prefix, the literal
// start of every line re matches: most lines of a log do not.
func matchPrefixed(re *regexp.Regexp, t, prefix string) []string {
	if !strings.HasPrefix(t, prefix) {
		return nil
	}
	return re.FindStringSubmatch(t)
}

// matchPC runs reOopsPC on lines that start like one of its registers.
func matchPC(t string) []string {
	for _, p := range pcStarts {
		if strings.HasPrefix(t, p) {
			return reOopsPC.FindStringSubmatch(t)
		}
	}
	return nil
}

// pcStarts are the literal starts of the lines reOopsPC reads.
var pcStarts = []string{"RIP: ", "pc : ", "NIP [", "EIP: ", "IP: [<"}

// oopsWhat names a crash from its header.
func oopsWhat(h string) string {
	switch {
	case strings.Contains(h, "NULL pointer"):
		return "NULL pointer dereference"
	case strings.HasPrefix(h, "BUG: unable to handle"), strings.HasPrefix(h, "Unable to handle kernel"):
		return "page fault"
	case strings.HasPrefix(h, "kernel BUG at"):
		return h
	case h == "general protection fault":
		return "general protection fault"
	case h == "invalid opcode":
		return "invalid opcode (a BUG() assertion)"
	}
	return "oops"
}

// Flush returns the event of a crash report the log ended in.
func (c *Classifier) Flush() []Event {
	if !c.oops.open {
		return nil
	}
	c.out[0] = c.oops.ev
	c.oops = oopsState{}
	return c.out[:1]
}

// OopsPart reports whether a record may be a line of a crash report the
// Classifier reads (its header, task, faulting instruction, workqueue,
// "Call Trace:", a frame that names a module, the end marker, the lines
// that say the host is going down or booting): a reader
// that keeps only the records the rules need keeps these too.
func OopsPart(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	switch {
	case maybeOopsHeader(t):
		return reOopsHeader.MatchString(t) || reWarnHeader.MatchString(t) || reStallHeader.MatchString(t) ||
			reSanitizerHeader.MatchString(t) || reUBSANHeader.MatchString(t)
	case strings.HasPrefix(t, "Call Trace:"), strings.HasPrefix(t, "Call trace:"), strings.HasPrefix(t, "---[ end trace"):
		return true
	case strings.HasPrefix(t, "CPU: "):
		return reOopsTask.MatchString(t)
	case strings.HasPrefix(t, "Workqueue: "):
		return reOopsWorkqueue.MatchString(t)
	case strings.HasPrefix(t, "systemd-shutdown"), strings.HasPrefix(t, "reboot: "), strings.HasPrefix(t, "Linux version "), strings.Contains(t, ": Shutdown was called"):
		return true // when a report came (Classifier.shutdownLine)
	case !strings.Contains(t, "+0x"):
		return false
	case reOopsPC.MatchString(t):
		return true
	}
	fr, ok := parseFrame(t)
	return ok && fr.mod != ""
}
