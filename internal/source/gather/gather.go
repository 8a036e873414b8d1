package gather

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/host"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/parse/proc"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// MaxFile bounds every file the doctor reads from a root (a kernel log of a
// busy node is a few MiB).
const MaxFile = 64 << 20

// Options say what to read besides the snapshot.
type Options struct {
	// Live is true for the running host ("/" and not a bundle): the
	// kernel log comes from /dev/kmsg, ethtool statistics from the ioctl,
	// nvidia-smi is run.
	Live bool
	// Since is the kernel-log window, 0 for the whole log.
	Since time.Duration
	// Now is the current time (live roots).
	Now time.Time
	// PID selects proc/<pid>/limits (and environ without another env).
	PID int
	// Env is the NCCL environment from --env or --nccl-env, nil if none.
	Env *ncclenv.Env
	// Sources reads the live sources; nil off Linux or in tests.
	Sources Live
}

// Live are the readers of a running host (live_linux.go): the kernel log from /dev/kmsg, ethtool statistics through the ioctl, and nvidia-smi.
type Live interface {
	KernelLog() (*kmsg.Log, error)
	EthtoolStats(netdev string) (*ethtool.Stats, error)
	NvidiaSMI() (*nvsmi.Matrix, error)
}

// Result is what was read from the node besides the snapshot, plus notes
// on what could not be read. Nil or empty parts mean "not available".
type Result struct {
	// Kernel is the parsed kernel log; Boot the boot time (to date
	// "[ seconds]" stamps), zero when unknown; Since the start of the
	// --since window, zero for the whole log, and Window its length.
	Kernel *kmsg.Log
	Boot   time.Time
	Since  time.Time
	Window time.Duration
	// Ethtool are driver statistics per RoCE netdev.
	Ethtool []*ethtool.Stats
	// SMI is `nvidia-smi topo -m` when available.
	SMI *nvsmi.Matrix
	// Env is the job's NCCL environment: Options.Env, else the job's
	// proc/<pid>/environ; nil when neither.
	Env *ncclenv.Env
	// Interfaces are every entry of sys/class/net, nil when unreadable;
	// InterfacesPartial says the list lacks lo, so is known to be
	// incomplete (a bundle keeps only the PCI-backed interfaces).
	Interfaces        []host.Interface
	InterfacesPartial bool
	// Memlock is RLIMIT_MEMLOCK of the job, nil when unknown.
	Memlock *host.Limit
	// Modules are the loaded kernel modules, nil when unreadable.
	Modules []string
	// Uverbs maps uverbsN to its RDMA device, nil when unreadable.
	Uverbs map[string]string
	// Dev are the /dev/infiniband entries checked; nil when not checked.
	Dev []host.DevEntry
	// Cmdline is proc/cmdline, nil when unreadable. IOMMUs are the
	// entries of sys/class/iommu, nil when it could not be listed.
	Cmdline *string
	IOMMUs  []string

	Notes []string
	// Skipped marks runbook steps with a source that could not be read.
	Skipped map[int]bool
	// Grouped are the snapshot's gaps a note already names together (the
	// config files of the bridges whose ACS was not readable): a text
	// report lists the note instead of one gap line each.
	Grouped []string
}

func (g *Result) Note(format string, a ...any) {
	g.Notes = append(g.Notes, fmt.Sprintf(format, a...))
}

// skip notes a missing source of a runbook step.
func (g *Result) skip(step int, format string, a ...any) {
	g.Note(format, a...)
	if g.Skipped == nil {
		g.Skipped = map[int]bool{}
	}
	g.Skipped[step] = true
}

// Node reads everything the triage rules need from the root. Nothing here
// is fatal: a missing source becomes a note and its rules stay silent.
func Node(fsys fs.FS, snap *snapshot.Snapshot, o Options) *Result {
	g := &Result{Env: o.Env}
	g.Boot = bootTime(fsys, o)
	readKernelLog(g, fsys, o)
	readEthtool(g, fsys, snap, o)
	readSMI(g, fsys, snap, o)
	g.Interfaces = readInterfaces(g, fsys)
	if g.Interfaces != nil && !slices.ContainsFunc(g.Interfaces, func(i host.Interface) bool { return i.Name == "lo" }) {
		g.InterfacesPartial = true
	}
	g.Memlock = readMemlock(g, fsys, o)
	// The job's environment: --pid, else in a saved or simulated root the
	// process proc/self names (on the live host that is ibdoctor itself,
	// so --env says it explicitly).
	if g.Env == nil && (o.PID > 0 || !o.Live) {
		p := path.Join(layout.JobDir(o.PID), layout.EnvironFile)
		if o.PID == 0 {
			if _, err := fs.Stat(fsys, p); err != nil {
				p = ""
			}
		}
		if p != "" {
			readEnviron(g, fsys, p)
		}
	}
	if g.Env == nil {
		g.skip(finding.StepNCCL, "NCCL environment not checked: give --env, --nccl-env FILE or --pid PID")
	} else if _, set := g.Env.Get("NCCL_SOCKET_IFNAME"); set && g.InterfacesPartial {
		g.Note("sys/class/net holds only the PCI network interfaces (no lo): NCCL_SOCKET_IFNAME is judged on what is there")
	}
	if b, err := rootfs.ReadLimited(fsys, layout.Modules, MaxFile); err == nil {
		if m, err := proc.ParseModules(bytes.NewReader(b), layout.Modules); err == nil {
			g.Modules = m
		} else {
			g.skip(finding.StepHost, "kernel modules: %v", err)
		}
	} else {
		g.skip(finding.StepHost, "kernel modules not checked: %s: %v", layout.Modules, errText(err))
	}
	g.Uverbs, g.Dev = readDev(g, fsys)
	readIOMMU(g, fsys)
	noteACS(g, snap)
	return g
}

// noteACS notes, in one line, the bridges between GPUs and NICs whose ACS
// could not be read (their config file a gap: 64 bytes without root), so
// step 2 does not read as fully checked: it names them and how to read
// them, and records their gaps as grouped.
func noteACS(g *Result, snap *snapshot.Snapshot) {
	bridges := snap.P2PBridges()
	var unread []string
	for _, a := range bridges {
		d := snap.PCIDevice(a)
		if d == nil || d.ACS != nil {
			continue
		}
		p := layout.Devices + "/" + d.Path + "/config"
		if gs := snap.GapsUnder(p); len(gs) > 0 {
			unread = append(unread, string(a))
			for _, gp := range gs {
				g.Grouped = append(g.Grouped, gp.Path)
			}
		}
	}
	if len(unread) > 0 {
		g.skip(finding.StepPCIe, "PCIe ACS not checked on %d of %d bridges between GPUs and NICs (%s): their config space beyond the 64-byte header is readable by root only: run the doctor as root, or give the output of sudo lspci -vvv to ibdoctor analyze", len(unread), len(bridges), strings.Join(unread, " "))
	}
}

// readIOMMU reads the kernel command line and the IOMMU units the kernel
// enabled, for the IOMMU mode check.
func readIOMMU(g *Result, fsys fs.FS) {
	b, err := rootfs.ReadLimited(fsys, layout.Cmdline, 64<<10)
	if err != nil {
		g.skip(finding.StepPCIe, "IOMMU mode not checked: %s: %v", layout.Cmdline, errText(err))
		return
	}
	s := strings.TrimSpace(string(b))
	g.Cmdline = &s
	if ents, err := fs.ReadDir(fsys, layout.ClassIOMMU); err == nil {
		g.IOMMUs = []string{}
		for _, e := range ents {
			g.IOMMUs = append(g.IOMMUs, e.Name())
		}
	}
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func readKernelLog(g *Result, fsys fs.FS, o Options) {
	var err error
	if o.Live && o.Sources != nil {
		g.Kernel, err = o.Sources.KernelLog()
		if err != nil {
			g.Note("live kernel log: %v; trying saved logs", err)
			g.Kernel = nil
		}
	}
	if g.Kernel == nil {
		for _, p := range layout.KernelLogs {
			b, rerr := rootfs.ReadLimited(fsys, p, MaxFile)
			if rerr != nil {
				continue
			}
			if p == layout.Kmsg {
				g.Kernel, err = kmsg.ParseKmsg(bytes.NewReader(b), p)
			} else {
				g.Kernel, err = kmsg.ParseText(bytes.NewReader(b), p, kmsg.TextOptions{Year: o.Now.Year()})
			}
			if err != nil && !errors.Is(err, kmsg.ErrNoData) {
				g.skip(finding.StepKernelLog, "kernel log %s: %v", p, err)
				g.Kernel = nil
				continue
			}
			break
		}
	}
	if g.Kernel == nil {
		g.skip(finding.StepKernelLog, "kernel log not checked: no /dev/kmsg access and no %s", strings.Join(layout.KernelLogs, ", "))
		return
	}
	if n := len(g.Kernel.Errors); n > 0 {
		g.Note("kernel log: %d unparsable line(s) skipped, first: %v", n, g.Kernel.Errors[0])
	}
	if o.Since <= 0 {
		return
	}
	// The window ends now on a live host; in a bundle or a copied root it
	// ends at the log's last dated record, so an old bundle still shows
	// its last day.
	end := o.Now
	if !o.Live {
		end = time.Time{}
		for _, r := range g.Kernel.Records {
			if t, ok := r.WallTime(g.Boot); ok && t.After(end) {
				end = t
			}
		}
	}
	if end.IsZero() {
		g.Note("kernel log has no dated records: --since not applied, the whole log is judged")
		return
	}
	g.Since, g.Window = end.Add(-o.Since), o.Since
}

// bootTime is proc/stat btime, else now − proc/uptime; zero when neither
// is readable. In a bundle the same frame is used for "[ seconds]" stamps
// and the window, so it need not be the real boot time.
func bootTime(fsys fs.FS, o Options) time.Time {
	if b, err := rootfs.ReadLimited(fsys, layout.Stat, 1<<20); err == nil {
		if t, err := proc.ParseBootTime(b, layout.Stat); err == nil {
			return t
		}
	}
	if b, err := rootfs.ReadLimited(fsys, layout.Uptime, 4096); err == nil {
		if up, err := proc.ParseUptime(b, layout.Uptime); err == nil {
			return o.Now.Add(-up)
		}
	}
	return time.Time{}
}

func readEthtool(g *Result, fsys fs.FS, snap *snapshot.Snapshot, o Options) {
	for _, nd := range layout.EthtoolNetDevs(snap) {
		var st *ethtool.Stats
		var err error
		if o.Live && o.Sources != nil {
			st, err = o.Sources.EthtoolStats(nd)
		} else {
			p := layout.Ethtool(nd)
			var b []byte
			if b, err = rootfs.ReadLimited(fsys, p, MaxFile); err == nil {
				st, err = ethtool.Parse(bytes.NewReader(b), nd, p)
			}
		}
		if err != nil {
			g.skip(finding.StepPort, "ethtool statistics of %s not checked: %v", nd, errText(err))
			continue
		}
		g.Ethtool = append(g.Ethtool, st)
	}
}

func readSMI(g *Result, fsys fs.FS, snap *snapshot.Snapshot, o Options) {
	if len(snap.GPUs()) == 0 {
		return
	}
	const p = layout.NvidiaSMITopo
	if b, err := rootfs.ReadLimited(fsys, p, MaxFile); err == nil {
		m, err := nvsmi.Parse(bytes.NewReader(b), p)
		if err != nil {
			g.skip(finding.StepPCIe, "nvidia-smi topology: %v", err)
			return
		}
		if len(m.Unread) > 0 {
			// Those GPU–NIC pairs are not compared with the PCI tree.
			g.skip(finding.StepPCIe, "nvidia-smi topology: cells not read as a link word, not compared: %s %s", p, strings.Join(m.Unread, ", "))
		}
		g.SMI = m
		return
	}
	if o.Live && o.Sources != nil {
		m, err := o.Sources.NvidiaSMI()
		if err != nil {
			g.Note("nvidia-smi topology not compared: %v", err)
			return
		}
		g.SMI = m
	}
}

func readInterfaces(g *Result, fsys fs.FS) []host.Interface {
	ents, err := fs.ReadDir(fsys, layout.ClassNet)
	if err != nil {
		g.skip(finding.StepNCCL, "network interfaces not listed: %s: %v", layout.ClassNet, errText(err))
		return nil
	}
	out := []host.Interface{}
	for _, e := range ents {
		i := host.Interface{Name: e.Name(), Flags: -1}
		dir := path.Join(layout.ClassNet, e.Name())
		if b, err := rootfs.ReadAttr(fsys, dir+"/operstate"); err == nil {
			i.OperState = strings.TrimSpace(string(b))
		}
		if b, err := rootfs.ReadAttr(fsys, dir+"/flags"); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 0, 64); err == nil {
				i.Flags = v
			}
		}
		out = append(out, i)
	}
	return out
}

func readMemlock(g *Result, fsys fs.FS, o Options) *host.Limit {
	p := path.Join(layout.JobDir(o.PID), layout.LimitsFile)
	b, err := rootfs.ReadLimited(fsys, p, 1<<20)
	if err != nil {
		g.skip(finding.StepHost, "locked-memory limit not checked: %s: %v", p, errText(err))
		return nil
	}
	l, err := proc.ParseLimits(bytes.NewReader(b), p)
	if err != nil {
		g.skip(finding.StepHost, "locked-memory limit: %v", err)
		return nil
	}
	return l
}

// readDev maps uverbsN to RDMA devices and checks that dev/infiniband holds
// an openable entry for each, and rdma_cm.
func readDev(g *Result, fsys fs.FS) (map[string]string, []host.DevEntry) {
	uv := map[string]string{}
	ents, err := fs.ReadDir(fsys, layout.ClassVerbs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		g.skip(finding.StepContainer, "uverbs devices not mapped: %s: %v", layout.ClassVerbs, errText(err))
		return nil, nil
	}
	var paths []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "uverbs") {
			continue
		}
		b, err := rootfs.ReadAttr(fsys, layout.VerbsIBDev(e.Name()))
		if err != nil {
			continue
		}
		uv[e.Name()] = strings.TrimSpace(string(b))
		paths = append(paths, layout.Uverbs(e.Name()))
	}
	if _, err := fs.Stat(fsys, layout.Dev); err != nil {
		g.skip(finding.StepContainer, "container device access not checked: the root has no dev/")
		return uv, nil
	}
	paths = append(paths, layout.RdmaCM)
	var out []host.DevEntry
	for _, p := range paths {
		e := host.DevEntry{Path: p}
		if _, err := fs.Stat(fsys, p); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				e.Exists, e.Err = true, errText(err)
			}
			out = append(out, e)
			continue
		}
		e.Exists = true
		f, err := fsys.Open(p)
		if err != nil {
			e.Err = errText(err)
		} else {
			e.Openable = true
			f.Close()
		}
		out = append(out, e)
	}
	return uv, out
}

// readEnviron reads a job's environment from proc/<pid>/environ.
func readEnviron(g *Result, fsys fs.FS, p string) {
	b, err := rootfs.ReadLimited(fsys, p, MaxFile)
	if err != nil {
		g.skip(finding.StepNCCL, "NCCL environment: %s: %v", p, errText(err))
		return
	}
	e, err := ncclenv.Parse(bytes.NewReader(b), p)
	if err != nil {
		g.skip(finding.StepNCCL, "NCCL environment: %v", err)
		return
	}
	g.Env = e
}
