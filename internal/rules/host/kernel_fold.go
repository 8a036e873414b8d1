package host

import (
	"strconv"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// KernelFolder keeps, of the events of a kernel log read as it streams,
// what the kernel-log rules need: every event until the finding it feeds
// has its evidence (the first maxEvidence lines of an Xid, a device's AER
// reports, a link's downs), then only counts, one folded event per kind
// and subject. Its memory grows with the devices and kinds of fault in
// the log, not with the log: a flood of a million AER lines is four lines
// and a count. CheckPastedKernelEvents judges Events as CheckPastedKernelLog
// judges the whole log.
type KernelFolder struct {
	kept   []kmsg.Event
	folds  []kmsg.Event
	groups map[foldGroup]*groupState
	foldAt map[foldKey]int
}

// foldGroup is one tally of the rules: the events that share evidence.
type foldGroup struct {
	rule  string
	pci   pcie.Address
	code  int
	name  string
	extra bool
}

// foldKey tells apart, inside a group, the events the rules count apart.
type foldKey struct {
	g       foldGroup
	sev     string
	process string
	detail  string
	class   string
}

type groupState struct {
	kept int
	// A link's state and its evidence-worthy events (downs, and ups
	// after ups), as checkFlaps counts them.
	up bool
	// ups and downs logged so far: an up after an up counts as a down
	// only while the ups do not yet answer the downs.
	ups, downs int
	// last is the index in kept of the group's latest kept event.
	last int
}

// NewKernelFolder returns an empty folder.
func NewKernelFolder() *KernelFolder {
	return &KernelFolder{groups: map[foldGroup]*groupState{}, foldAt: map[foldKey]int{}}
}

// Add takes the next event of the log.
func (f *KernelFolder) Add(e kmsg.Event) {
	var g foldGroup
	k := foldKey{}
	switch {
	case e.Kind == kmsg.KindAER:
		if e.PCI == "" {
			return // the rule cannot place it
		}
		g = foldGroup{rule: "aer", pci: e.PCI, extra: e.AERDetail}
		k.sev = e.AERSeverity
		if k.sev != kmsg.AERCorrectable {
			k.sev = "uncorrectable"
		}
	case e.Kind == kmsg.KindAERBit, e.Kind == kmsg.KindPCIeBandwidth, e.Kind == kmsg.KindPCIeLinkReport, e.Kind == kmsg.KindSlotPower:
		// The rules name each bit (bandwidth line) once.
		g = foldGroup{rule: string(e.Kind), pci: e.PCI, name: e.Detail}
		if st := f.group(g); st.kept > 0 {
			return
		}
	case e.Kind == kmsg.KindFallenOffBus || e.Kind == kmsg.KindXid && e.Xid == 79:
		g = foldGroup{rule: "off", pci: e.PCI}
	case e.Kind == kmsg.KindGPUResetRequired:
		g = foldGroup{rule: "reset", pci: e.PCI}
		k.detail = e.Detail
	case e.Kind == kmsg.KindGPUInitFailed, e.Kind == kmsg.KindGSPTimeout:
		g = foldGroup{rule: string(e.Kind), pci: e.PCI, name: e.Interface}
		k.detail = e.Detail
	case e.Kind == kmsg.KindGPUFault:
		// checkGPUFault names each hub and process.
		g = foldGroup{rule: "gpufault", pci: e.PCI, name: e.Detail + "\x00" + e.Task + "\x00" + e.TaskPID}
	case e.Kind == kmsg.KindPeerMemSymbol:
		g = foldGroup{rule: "peermem", name: e.Symbol}
	case e.Kind == kmsg.KindXid:
		g = foldGroup{rule: "xid", pci: e.PCI, code: e.Xid}
		k.process = e.XidProcess
	case e.Kind == kmsg.KindLink:
		f.link(e)
		return
	case e.Kind == kmsg.KindModule:
		if !e.IsError && e.Detail != "Cable unplugged" {
			return
		}
		g = foldGroup{rule: "module", pci: e.PCI, name: e.Detail}
	case e.Kind == kmsg.KindBond:
		f.bond(e)
		return
	case e.Kind == kmsg.KindHealth:
		g = foldGroup{rule: "health", pci: e.PCI}
		k.detail, k.class = e.Detail, e.HealthClass
	case e.Kind == kmsg.KindCQ:
		// checkCQ tallies per device; the syndromes, statuses and sides
		// it names are told apart (the queue numbers past the evidence
		// are not).
		g = foldGroup{rule: "cq", pci: e.PCI, name: e.Interface + "\x00" + e.CQ, code: e.Syndrome}
		k.detail, k.class = e.Detail, strconv.Itoa(e.VendorSyndrome)+"/"+strconv.Itoa(e.WCStatus)
	case e.Kind == kmsg.KindTxTimeout:
		// checkTxTimeout names each queue and counts each source's lines
		// per queue (a queue seen twice timed out again); the longest
		// stall is kept in the fold.
		g = foldGroup{rule: "tx", name: e.Interface + "\x00" + e.Detail + "\x00" + e.Queue, pci: e.PCI, extra: e.IsError}
	case e.Kind == kmsg.KindDeviceGone:
		g = foldGroup{rule: "gone", pci: e.PCI, name: e.Interface}
	case e.Kind == kmsg.KindRDMAPeer:
		g = foldGroup{rule: "rdmapeer", name: e.Interface}
		k.detail = e.Detail
	case e.Kind == kmsg.KindModuleLoad:
		// checkModuleLoad names each module's symbols and cites its
		// first lines.
		g = foldGroup{rule: "modload", name: e.Driver + "\x00" + e.Symbol + "\x00" + e.Interface}
		k.detail = e.Detail
	case e.Kind == kmsg.KindCrash:
		g = foldGroup{rule: "crash", name: e.Task + "\x00" + e.Detail}
	case e.Kind == kmsg.KindMemory:
		// checkMemory counts a line's errors, a folded event's Count.
		g = foldGroup{rule: "memory", name: e.Detail, extra: e.IsError}
		if st := f.group(g); st.kept >= maxEvidence {
			f.fold(foldKey{g: g}, e, max(e.MemErrors, 1), 0)
			return
		}
	case e.Kind == kmsg.KindPanic:
		g = foldGroup{rule: "panic", name: e.Detail}
	case e.Kind == kmsg.KindMCE:
		g = foldGroup{rule: "mce", name: e.Detail, extra: e.IsError}
	case e.Kind == kmsg.KindOOM:
		g = foldGroup{rule: "oom", name: e.Task + "\x00" + e.TaskPID}
	case e.Kind == kmsg.KindDriverError:
		// driverErrors counts a driver's lines per device and cites the
		// first and the last: the first two are kept, and past them the
		// latest in place of the one before.
		g = foldGroup{rule: "drverr", name: e.Driver + "\x00" + kmsg.DriverErrorSubject(e)}
		st := f.group(g)
		if st.kept < 2 {
			st.kept++
			st.last = len(f.kept)
			f.kept = append(f.kept, e)
			return
		}
		last := f.kept[st.last]
		f.kept[st.last] = e
		f.fold(foldKey{g: g}, last, 1, 0)
		return
	case e.Kind == kmsg.KindOops:
		g = foldGroup{rule: "oops", name: e.Detail + "\x00" + e.Func + "\x00" + e.Driver + "\x00" + e.DriverFunc + "\x00" + e.Phase, extra: e.IsError}
	default:
		return // no rule reads it
	}
	st := f.group(g)
	if st.kept < maxEvidence {
		st.kept++
		f.kept = append(f.kept, e)
		return
	}
	k.g = g
	f.fold(k, e, 1, 0)
}

func (f *KernelFolder) group(g foldGroup) *groupState {
	st := f.groups[g]
	if st == nil {
		st = &groupState{}
		f.groups[g] = st
	}
	return st
}

// fold counts e in the folded event of key k.
func (f *KernelFolder) fold(k foldKey, e kmsg.Event, n, inferred int) {
	i, ok := f.foldAt[k]
	if !ok {
		i = len(f.folds)
		f.foldAt[k] = i
		e.Folded = true
		f.folds = append(f.folds, e)
	}
	f.folds[i].Count += n
	f.folds[i].StallMs = max(f.folds[i].StallMs, e.StallMs)
	f.folds[i].Inferred += inferred
	if ok {
		f.folds[i].Suppressed += e.Suppressed
	}
}

// link keeps a link's events while they can still be evidence, as
// checkFlaps picks it: its downs, and an up after an up.
func (f *KernelFolder) link(e kmsg.Event) {
	// The link is the interface and the port (0 for a netdev): no name
	// is formatted per event.
	g := foldGroup{rule: "link", name: e.Interface, code: e.Port}
	st := f.group(g)
	inferred := e.Up && st.up && st.ups >= st.downs
	counts := !e.Up || inferred
	if e.Up {
		st.ups++
	} else {
		st.downs++
	}
	st.up = e.Up
	if st.kept < maxEvidence {
		if counts {
			st.kept++
		}
		f.kept = append(f.kept, e)
		return
	}
	if counts {
		f.fold(foldKey{g: g}, e, 1, boolInt(inferred))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Events returns the kept events in log order, then the folded ones.
func (f *KernelFolder) Events() []kmsg.Event {
	return append(f.kept[:len(f.kept):len(f.kept)], f.folds...)
}

// CheckPastedKernelEvents judges the events of a kernel log read from
// source, as CheckPastedKernelLog judges the log: events a KernelFolder
// kept.
func CheckPastedKernelEvents(source string, evs []kmsg.Event) []finding.Finding {
	in := &Input{Snap: &snapshot.Snapshot{}, Kernel: &kmsg.Log{Source: source}, standalone: true, evs: evs, evsDone: true}
	var out []finding.Finding
	for _, check := range kernelFindingChecks {
		out = append(out, check(in)...)
	}
	out = append(out, driverErrors(in, out)...)
	return fileSubjects(out, source)
}

// bond keeps a bond's events while they can be evidence; past that, a
// slave's downs are counted, and of the state lines (no active slave, an
// active slave again, a slave up) only the latest of each is kept, in
// place of the one before: checkBonds orders them by line.
func (f *KernelFolder) bond(e kmsg.Event) {
	g := foldGroup{rule: "bond", name: e.Interface}
	kind := e.Bond
	st := f.group(foldGroup{rule: "bond/" + kind, name: e.Interface, extra: e.Up})
	// One more than the evidence: the event replaced is never evidence.
	if st.kept < maxEvidence+1 {
		st.kept++
		st.last = len(f.kept)
		f.kept = append(f.kept, e)
		return
	}
	if kind == kmsg.BondSlave && !e.Up {
		f.fold(foldKey{g: g, detail: e.Detail}, e, 1, 0)
		return
	}
	f.kept[st.last] = e
}
