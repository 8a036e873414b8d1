package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/proc"
	"github.com/ibdoctor/ibdoctor/internal/rules/host"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// DefaultKernelWindow is how long a finding raised by a kernel-log event
// stays active after the event (an Xid logged at 10:00 is reported until
// 10:00 the next day), unless Options.KernelWindow says otherwise.
const DefaultKernelWindow = 24 * time.Hour

// maxKernelRecords bounds the kernel-log records the agent keeps (only
// those the rules judge: Xid, AER, link, module and health messages, and
// the NVRM and CPER lines around them); older ones are dropped first.
const maxKernelRecords = 4096

// maxKernelKeys bounds the {kind, device} series of
// ibdoctor_kernel_events_total; events past it count under device "other".
const maxKernelKeys = 512

// maxKernelRead bounds the records (or bytes of a text file, ×256) read in
// one interval: a huge backlog is read over several intervals.
const maxKernelRead = 16384

// KernelRead is what one read of the kernel log returned.
type KernelRead struct {
	// Records are the records logged since the last read, in order.
	Records []kmsg.Record
	// Lost counts records the kernel overwrote before they were read.
	Lost uint64
	// Errors are records or lines that did not parse (each skipped only
	// itself).
	Errors []*kmsg.ParseError
	// Notes say what else happened (an overrun, a file read again from
	// its start), for the agent's log.
	Notes []string
}

// KernelReader reads a kernel log incrementally: each Read returns only
// what was logged since the one before.
type KernelReader interface {
	// Name is the source evidence cites ("/dev/kmsg", "cmd/dmesg.txt").
	Name() string
	Read(ctx context.Context) (KernelRead, error)
}

// FileKernel follows a saved kernel log under a root (cmd/dmesg.txt,
// cmd/journalctl-k.txt, cmd/kmsg.txt): the first Read parses the whole
// file, later ones only the bytes appended since (a file that shrank is
// read again from its start). A bundle never changes, so it is read once.
func FileKernel(r *rootfs.Root, name string) KernelReader {
	return &fileKernel{root: r, name: name}
}

type fileKernel struct {
	root    *rootfs.Root
	name    string
	off     int64
	lines   int
	pending []byte
}

func (k *fileKernel) Name() string { return k.name }

func (k *fileKernel) Read(context.Context) (KernelRead, error) {
	var out KernelRead
	f, err := k.root.FS().Open(k.name)
	if err != nil {
		return out, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return out, err
	}
	size := fi.Size()
	if size < k.off {
		out.Notes = append(out.Notes, fmt.Sprintf("%s shrank from %d to %d bytes: read again from its start", k.name, k.off, size))
		k.off, k.lines, k.pending = 0, 0, nil
	}
	if size == k.off {
		return out, nil
	}
	if s, ok := f.(io.Seeker); ok {
		if _, err := s.Seek(k.off, io.SeekStart); err != nil {
			return out, err
		}
	} else if _, err := io.CopyN(io.Discard, f, k.off); err != nil {
		return out, err
	}
	chunk := make([]byte, min(size-k.off, maxKernelRead*256))
	n, err := io.ReadFull(f, chunk)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return out, err
	}
	k.off += int64(n)
	data := append(k.pending, chunk[:n]...)
	k.pending = nil
	end := bytes.LastIndexByte(data, '\n') + 1
	if rest := data[end:]; len(rest) > 0 && len(rest) <= 64<<10 {
		k.pending = append([]byte(nil), rest...) // a line still being written
	}
	data = data[:end]
	if len(data) == 0 {
		return out, nil
	}
	var l *kmsg.Log
	if k.name == layout.Kmsg {
		l, err = kmsg.ParseKmsg(bytes.NewReader(data), k.name)
	} else {
		l, err = kmsg.ParseText(bytes.NewReader(data), k.name, kmsg.TextOptions{})
	}
	if err != nil && !errors.Is(err, kmsg.ErrNoData) {
		return out, err
	}
	for i := range l.Records {
		l.Records[i].Line += k.lines
	}
	for _, e := range l.Errors {
		e.Line += k.lines
	}
	k.lines += bytes.Count(data, []byte{'\n'})
	out.Records, out.Errors = l.Records, l.Errors
	return out, nil
}

// RootKernelLog picks the saved kernel log of a root: the first of
// cmd/dmesg.txt, cmd/journalctl-k.txt and cmd/kmsg.txt that exists; ok is
// false when none does.
func RootKernelLog(r *rootfs.Root) (string, bool) {
	for _, name := range layout.KernelLogs {
		if _, err := fs.Stat(r.FS(), name); err == nil {
			return name, true
		}
	}
	return "", false
}

// RootBoot returns the boot time of a root: proc/stat btime, else now −
// proc/uptime; zero when neither is readable. Kernel-log stamps are
// seconds since boot; records of unknown time are dated when read.
func RootBoot(r *rootfs.Root) func(now time.Time) time.Time {
	return func(now time.Time) time.Time {
		if b, err := rootfs.ReadLimited(r.FS(), layout.Stat, 1<<20); err == nil {
			if t, err := proc.ParseBootTime(b, layout.Stat); err == nil {
				return t
			}
		}
		if b, err := rootfs.ReadLimited(r.FS(), layout.Uptime, 4096); err == nil {
			if up, err := proc.ParseUptime(b, layout.Uptime); err == nil {
				return now.Add(-up)
			}
		}
		return time.Time{}
	}
}

// kernelState is what the agent keeps of the kernel log.
type kernelState struct {
	recs   []kmsg.Record // judged records within the window, oldest first
	counts map[metrics.KernelEvent]uint64
	lost   uint64
	boot   time.Time
}

// relevant says whether the rules need a record: it is an event, or an
// NVRM or CPER line an event on a later line is read with, a line of a
// kernel crash report, or the hex line of a dumped error CQE that holds
// its syndromes.
func relevant(r kmsg.Record) bool {
	return len(kmsg.Classify(r)) > 0 || strings.Contains(r.Text, "NVRM:") || strings.Contains(r.Text, "[Hardware Error]") || kmsg.OopsPart(r.Text) ||
		strings.HasPrefix(r.Text, "00000030: ")
}

// eventDevice names the device of an event for the metric: the RDMA
// device at its PCI address, else the interface, else the address.
func eventDevice(s *snapshot.Snapshot, e kmsg.Event) string {
	if e.PCI != "" {
		for i := range s.Devices {
			if s.Devices[i].PCI == e.PCI {
				return s.Devices[i].Name
			}
		}
	}
	if e.Interface != "" {
		return e.Interface
	}
	return string(e.PCI)
}

// sampleKernel reads what the kernel logged since the last sample, counts
// its events, keeps the records the rules judge within the window and
// judges them. It returns the findings, whether the read worked and
// whether it reported a PCIe AER error.
func (a *Agent) sampleKernel(ctx context.Context, snap *snapshot.Snapshot) (fs []finding.Finding, ok, aer bool) {
	k := &a.kern
	now := snap.Taken
	if k.boot.IsZero() && a.opts.Boot != nil {
		k.boot = a.opts.Boot(now)
	}
	rd, err := a.opts.Kernel.Read(ctx)
	ok = err == nil
	if err != nil {
		a.errs[a.opts.Kernel.Name()]++
		a.opts.Logf("kernel log: %v", err)
	}
	for _, n := range rd.Notes {
		a.opts.Logf("kernel log: %s", n)
	}
	if rd.Lost > 0 {
		k.lost += rd.Lost
		a.opts.Logf("kernel log: %d records were overwritten in the ring buffer before they were read", rd.Lost)
	}
	if n := len(rd.Errors); n > 0 {
		a.errs[a.opts.Kernel.Name()] += uint64(n)
		a.opts.Logf("kernel log: %d unparsable records skipped, first: %v", n, rd.Errors[0])
	}
	for i := range rd.Records {
		r := &rd.Records[i]
		t, known := r.WallTime(k.boot)
		if !known || t.After(now) {
			t = now // undated, or dated ahead of the clock: read now
		}
		r.Time = t
	}
	for _, e := range kmsg.Events(rd.Records) {
		aer = aer || e.Kind == kmsg.KindAER || e.Kind == kmsg.KindAERBit
		key := metrics.KernelEvent{Kind: string(e.Kind), Device: eventDevice(snap, e)}
		if _, seen := k.counts[key]; !seen && len(k.counts) >= maxKernelKeys {
			key.Device = "other"
		}
		k.counts[key]++
	}
	since := now.Add(-a.kernelWindow())
	keep := k.recs[:0]
	for _, r := range k.recs {
		if !r.Time.Before(since) {
			keep = append(keep, r)
		}
	}
	for _, r := range rd.Records {
		if !r.Time.Before(since) && relevant(r) {
			keep = append(keep, r)
		}
	}
	if len(keep) > maxKernelRecords {
		keep = append(keep[:0:0], keep[len(keep)-maxKernelRecords:]...)
	}
	k.recs = keep
	if len(k.recs) == 0 {
		return nil, ok, aer
	}
	return host.CheckKernelLog(&host.Input{
		Snap: snap, Kernel: &kmsg.Log{Source: a.opts.Kernel.Name(), Records: k.recs},
		Since: since, Window: a.kernelWindow(),
	}), ok, aer
}

func (a *Agent) kernelWindow() time.Duration {
	if a.opts.KernelWindow > 0 {
		return a.opts.KernelWindow
	}
	return DefaultKernelWindow
}

func (a *Agent) kernelCounts() map[metrics.KernelEvent]uint64 {
	if a.opts.Kernel == nil {
		return nil
	}
	out := make(map[metrics.KernelEvent]uint64, len(a.kern.counts))
	for k, v := range a.kern.counts {
		out[k] = v
	}
	return out
}
