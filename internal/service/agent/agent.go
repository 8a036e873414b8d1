package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
	"github.com/ibdoctor/ibdoctor/internal/parse/expect"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/store"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
)

// SnapshotFunc reads one snapshot of the node.
type SnapshotFunc func(ctx context.Context) (*snapshot.Snapshot, error)

// EthtoolFunc reads the ethtool statistics of one netdev.
type EthtoolFunc func(ctx context.Context, netdev string) (map[string]uint64, error)

// Options configure an Agent.
type Options struct {
	// Read takes a snapshot (required).
	Read SnapshotFunc
	// Ethtool reads RoCE netdev statistics; nil skips them.
	Ethtool EthtoolFunc
	// Interval between samples (default 15 s).
	Interval time.Duration
	// Expect is the expectation file for the static rules (nil: defaults).
	Expect *expect.Expectation
	// Thresholds of the rules over time (zero value: trend.Defaults()).
	Thresholds *trend.Thresholds
	// Store persists state across restarts; nil keeps it in memory only.
	Store *store.Store
	// Version is reported in ibdoctor_build_info.
	Version string
	// Logf receives diagnostics (nil: discarded).
	Logf func(format string, a ...any)
	// Log receives one structured line per finding raised and per
	// finding cleared (id, severity, subject, summary); nil logs none.
	Log *slog.Logger
	// Kernel is the kernel log the agent follows (nil: not watched);
	// Boot gives the boot time its "seconds since boot" stamps count
	// from. KernelWindow is how long an event's finding stays active
	// (default DefaultKernelWindow).
	Kernel       KernelReader
	Boot         func(now time.Time) time.Time
	KernelWindow time.Duration
	// KernelNews, when set, hears after each kernel log read whether it
	// was read and whether it reported a PCIe AER error (CachedSource.Kernel).
	KernelNews func(read, aer bool)
}

// Agent samples a node and judges it over time.
type Agent struct {
	opts Options
	th   trend.Thresholds
	keep int

	mu        sync.Mutex // serialises Sample
	history   []trend.Sample
	windows   *trend.Windows // window sums along history, kept between samples
	flaps     []trend.Flap
	best      map[trend.PortKey]float64
	firstSeen map[string]time.Time
	errs      map[string]uint64
	samples   uint64
	kern      kernelState
	active    map[string]finding.Finding // by key, for raised/cleared lines
	cleared   []Cleared                  // recently cleared, oldest first

	view    atomic.Pointer[View]
	expo    atomic.Pointer[exposition]
	metrics *metrics.Collector
}

// View is the published result of the last sample; handlers read it
// without locks.
type View struct {
	metrics.State
	// Active are the findings with their first-seen time, sorted.
	Active []store.Active
	// Cleared are the findings that cleared in the last day (at most
	// MaxCleared), oldest first; the node page and timeline show them.
	Cleared []Cleared
	// Sample is the compact sample the rules judged.
	Sample trend.Sample
	// History is the sample window the rules judged, oldest first, Sample
	// last; the node page charts it.
	History []trend.Sample
	// Interval is the sampling interval.
	Interval time.Duration
}

// New builds an agent and restores its state from the store.
func New(opts Options) (*Agent, error) {
	if opts.Read == nil {
		return nil, errors.New("agent: no snapshot source")
	}
	if opts.Interval <= 0 {
		opts.Interval = 15 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	th := trend.Defaults()
	if opts.Thresholds != nil {
		th = *opts.Thresholds
	}
	a := &Agent{opts: opts, th: th, windows: trend.NewWindows(), keep: KeepFor(opts.Interval, th), best: map[trend.PortKey]float64{},
		firstSeen: map[string]time.Time{}, errs: map[string]uint64{}, kern: kernelState{counts: map[metrics.KernelEvent]uint64{}}}
	a.metrics = metrics.New(opts.Version, func() *metrics.State {
		if v := a.view.Load(); v != nil {
			return &v.State
		}
		return nil
	})
	a.publish(nil)
	if opts.Store != nil {
		st, err := opts.Store.Load()
		if err != nil {
			opts.Logf("state store unreadable, starting fresh: %v", err)
		} else {
			a.history = trimHistory(st.Samples, a.keep)
			a.flaps = st.Flaps
			a.best = st.BestRate
			a.active = map[string]finding.Finding{}
			for _, f := range st.Findings {
				a.firstSeen[key(f.Finding)] = f.FirstSeen
				a.active[key(f.Finding)] = f.Finding
			}
		}
	}
	return a, nil
}

// KeepFor is how many samples an agent keeps at an interval: two rule
// windows plus two samples, so growth always has a preceding window.
func KeepFor(interval time.Duration, th trend.Thresholds) int {
	if interval <= 0 {
		interval = 15 * time.Second
	}
	return max(int(2*time.Duration(th.Window)/interval)+2, 3)
}

// KeepSamples is how many samples the agent keeps in memory and in the
// store.
func (a *Agent) KeepSamples() int { return a.keep }

// Collector is the Prometheus collector of the agent's metrics.
func (a *Agent) Collector() *metrics.Collector { return a.metrics }

// View returns the last published view, nil before the first sample.
func (a *Agent) View() *View { return a.view.Load() }

func trimHistory(h []trend.Sample, keep int) []trend.Sample {
	if len(h) > keep {
		h = h[len(h)-keep:]
	}
	return h
}

// key identifies a finding for first-seen tracking and de-duplication: a
// port finding by ID, device and port (rules differ in whether they also
// name the netdev), anything else by ID and its whole subject. Xid and
// module findings are one per code or event text on a subject: the part
// of the summary before its first " (" (which holds the counts) tells
// them apart.
func key(f finding.Finding) string {
	s := f.Subject
	what := ""
	if f.ID == "gpu.xid" || f.ID == "kmsg.module_event" {
		what, _, _ = strings.Cut(f.Summary, " (")
	}
	if s.Device != "" {
		return fmt.Sprintf("%s|%s|%d|%s", f.ID, s.Device, s.Port, what)
	}
	return fmt.Sprintf("%s||%d|%s|%s|%s|%s|%s", f.ID, s.Port, s.NetDev, s.PCI, s.GPU, s.File, what)
}

// Sample takes one sample, judges it and publishes the result. A failed
// read of the whole root is returned; per-file problems are gaps, counted
// in collect errors.
func (a *Agent) Sample(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	start := time.Now()
	up := map[string]bool{}
	// A read may not outlast the interval (nor 10 s, for short intervals on
	// a loaded host): a hung device file then shows as a failed sample and a
	// stale /healthz, not as a stuck agent.
	ctx, cancel := context.WithTimeout(ctx, max(a.opts.Interval, 10*time.Second))
	defer cancel()
	snap, err := a.opts.Read(ctx)
	up["sysfs"] = err == nil
	if err != nil {
		a.errs["sys"]++
		a.publishFailure(up, time.Since(start))
		return fmt.Errorf("sample: %w", err)
	}
	for _, g := range snap.Gaps {
		a.errs[g.Path]++
	}
	eth := a.readEthtool(ctx, snap, up)
	cur := trend.FromSnapshot(snap, eth)
	rates, newFlaps := a.advance(cur)

	// Counter totals since the last clear are left to status and check:
	// the agent judges their rates (trend.Check).
	fs := noderules.CheckInput(&noderules.Input{Snap: snap, Expect: a.opts.Expect, Thresholds: noderules.DefaultThresholds, NoCounterTotals: true})
	fs = append(fs, trend.Check(trend.Input{Host: snap.Host, History: a.history, Flaps: a.flaps, Expected: a.best, Windows: a.windows}, a.th)...)
	if a.opts.Kernel != nil {
		kfs, ok, aer := a.sampleKernel(ctx, snap)
		up["kmsg"] = ok
		if a.opts.KernelNews != nil {
			a.opts.KernelNews(ok, aer)
		}
		fs = append(fs, kfs...)
	}
	fs = dedupe(fs)
	catalog.Sort(fs)
	a.noteCleared(fs, snap.Taken)
	active := a.activeSince(fs, snap.Taken)
	a.logTransitions(ctx, fs)

	if a.opts.Store != nil {
		err := a.opts.Store.Commit(store.Interval{Sample: cur, NewFlaps: newFlaps, Findings: active, BestRate: a.best})
		up["store"] = err == nil
		if err != nil {
			a.errs["store"]++
			a.opts.Logf("state store: %v", err)
		}
	}
	a.samples++
	v := &View{
		State: metrics.State{Snapshot: snap, Ethtool: eth, Rates: rates, Findings: fs, CollectErrors: a.copyErrs(),
			SourceUp: up, SampleDuration: time.Since(start), Samples: a.samples,
			KernelEvents: a.kernelCounts(), KernelLost: a.kern.lost},
		Active: active, Cleared: slices.Clone(a.cleared), Sample: cur, History: slices.Clone(a.history), Interval: a.opts.Interval,
	}
	a.publish(v)
	return nil
}

// readEthtool reads the ethtool statistics of the snapshot's netdevs
// when an ethtool reader is set, counting each failure and marking the
// source up only when every read succeeded.
func (a *Agent) readEthtool(ctx context.Context, snap *snapshot.Snapshot, up map[string]bool) trend.Ethtool {
	eth := trend.Ethtool{}
	if a.opts.Ethtool == nil {
		return eth
	}
	ok := true
	for _, nd := range layout.EthtoolNetDevs(snap) {
		st, err := a.opts.Ethtool(ctx, nd)
		if err != nil {
			ok = false
			a.errs["ethtool -S "+nd]++
			continue
		}
		eth[nd] = st
	}
	up["ethtool"] = ok
	return eth
}

// advance adds sample cur to the history: it returns the counter rates
// and the new flaps since the previous sample, drops flaps older than
// the flap window (at least a day), and raises each active port's best
// rate.
func (a *Agent) advance(cur trend.Sample) (rates []trend.CounterRate, newFlaps []trend.Flap) {
	if n := len(a.history); n > 0 {
		prev := &a.history[n-1]
		if !cur.T.After(prev.T) {
			// The clock went backwards (or a restored sample is from the
			// future): start a new window rather than judge nonsense.
			a.history = nil
		} else {
			rates = trend.Rates(prev, &cur)
			newFlaps = trend.Flaps(prev, &cur)
			a.flaps = append(a.flaps, newFlaps...)
		}
	}
	a.history = trimHistory(append(a.history, cur), a.keep)
	cutoff := cur.T.Add(-max(24*time.Hour, time.Duration(a.th.FlapWindow)))
	a.flaps = slices.DeleteFunc(a.flaps, func(f trend.Flap) bool { return f.T.Before(cutoff) })
	for _, p := range cur.Ports {
		k := trend.PortKey{Device: p.Device, Port: p.Port}
		if p.Active() && p.RateGbps > a.best[k] {
			a.best[k] = p.RateGbps
		}
	}
	return rates, newFlaps
}

// activeSince pairs each finding with when it was first seen (taken,
// for a finding new in this sample) and forgets findings that are gone.
func (a *Agent) activeSince(fs []finding.Finding, taken time.Time) []store.Active {
	active := make([]store.Active, 0, len(fs))
	seen := map[string]time.Time{}
	for _, f := range fs {
		k := key(f)
		first, ok := a.firstSeen[k]
		if !ok {
			first = taken
		}
		seen[k] = first
		active = append(active, store.Active{Finding: f, FirstSeen: first})
	}
	a.firstSeen = seen
	return active
}

// publish makes v the view handlers read and renders its metrics once.
func (a *Agent) publish(v *View) {
	if v != nil {
		a.view.Store(v)
	}
	hint := 0
	if old := a.expo.Load(); old != nil {
		hint = len(old.text)
	}
	a.expo.Store(render(a.metrics, hint))
}

// publishFailure keeps the last good sample but updates source_up and the
// error counts, so a broken read is visible in metrics.
func (a *Agent) publishFailure(up map[string]bool, d time.Duration) {
	v := &View{Interval: a.opts.Interval}
	if old := a.view.Load(); old != nil {
		*v = *old
	}
	v.SourceUp = up
	v.CollectErrors = a.copyErrs()
	v.SampleDuration = d
	a.publish(v)
}

func (a *Agent) copyErrs() map[string]uint64 {
	out := make(map[string]uint64, len(a.errs))
	for k, v := range a.errs {
		out[k] = v
	}
	return out
}

// dedupe keeps the first finding of each ID and subject: static rules come
// first, so a rule over time that restates one (a rate shortfall against
// the expectation file) does not double it. One cause, one finding: a rate
// shortfall on a port whose width or speed is degraded is that finding's
// evidence, not a second alert.
func dedupe(fs []finding.Finding) []finding.Finding {
	type portKey struct {
		dev  string
		port int
	}
	degraded := map[portKey]int{} // index in fs of the width/speed finding
	for i, f := range fs {
		k := portKey{f.Subject.Device, f.Subject.Port}
		if _, ok := degraded[k]; !ok && (f.ID == "port.width_degraded" || f.ID == "port.speed_degraded") {
			degraded[k] = i
		}
	}
	merged := func(f finding.Finding) bool {
		i, ok := degraded[portKey{f.Subject.Device, f.Subject.Port}]
		if !ok || f.ID != "port.rate_below_expected" {
			return false
		}
		d := &fs[i]
		for _, e := range f.Evidence {
			if !slices.Contains(d.Evidence, e) {
				d.Evidence = append(d.Evidence, e)
			}
		}
		return true
	}
	keep := make([]bool, len(fs))
	for i, f := range fs {
		keep[i] = !merged(f)
	}
	seen := map[string]bool{}
	var out []finding.Finding
	for i, f := range fs {
		if k := key(f); keep[i] && !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// Run samples at once and then every interval until ctx ends. Failed
// samples are logged and retried at the next interval.
func (a *Agent) Run(ctx context.Context) error {
	if err := a.Sample(ctx); err != nil && ctx.Err() == nil {
		a.opts.Logf("%v", err)
	}
	return a.Tick(ctx)
}

// Tick samples every interval, starting one interval from now, until ctx
// ends (for callers that took the first sample themselves).
func (a *Agent) Tick(ctx context.Context) error {
	t := time.NewTicker(a.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := a.Sample(ctx); err != nil && ctx.Err() == nil {
			a.opts.Logf("%v", err)
		}
	}
}
