package agent

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// bigRead is 10 ports with full counters/ and hw_counters/ sets.
func bigRead(context.Context) (*snapshot.Snapshot, error) {
	s, _ := fakeRead(context.Background())
	base := s.Devices[0]
	s.Devices = nil
	for i := 0; i < 10; i++ {
		d := base
		d.Name = fmt.Sprintf("mlx5_%d", i)
		p := base.Ports[0]
		p.Device = d.Name
		for _, sp := range ib.PortCounterSpecs {
			p.Counters = append(p.Counters, snapshot.Counter{Name: sp.Name, Value: 12345, Spec: sp})
		}
		for _, n := range []string{"out_of_buffer", "out_of_sequence", "duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err",
			"local_ack_timeout_err", "rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent", "rx_write_requests", "rx_read_requests"} {
			p.HWCounters = append(p.HWCounters, snapshot.Counter{Name: n, Value: 99, Spec: ib.HWCounterSpec(n)})
		}
		d.Ports = []snapshot.Port{p}
		s.Devices = append(s.Devices, d)
	}
	s.Sort()
	return s, nil
}

// BenchmarkServeMetrics is one /metrics scrape: the cached sample text plus
// the per-scrape process metrics.
func BenchmarkServeMetrics(b *testing.B) {
	a, err := New(Options{Read: bigRead})
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Sample(context.Background()); err != nil {
		b.Fatal(err)
	}
	h := a.Handler(HandlerOptions{})
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		_, _ = io.Copy(io.Discard, rec.Body)
	}
}

// BenchmarkSample is one interval's work after the read: rates, rules over
// time, static rules and rendering.
func BenchmarkSample(b *testing.B) {
	a, err := New(Options{Read: bigRead})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := a.Sample(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIntervalSample is one interval's whole sample of the simulated
// h100-ndr node (8 NDR HCAs + 2 RoCE ports) from a directory: the read,
// ethtool from the saved files, rates, rules and rendering. "full" reads
// the whole device tree every interval; "counters" is what
// CachedRootSource does between full reads (sysfs.Refresh).
func BenchmarkIntervalSample(b *testing.B) {
	n, err := simnode.Build(simnode.Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := n.Write(dir); err != nil {
		b.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, bc := range []struct {
		name string
		read SnapshotFunc
	}{
		{"full", RootSource(r, nil)},
		{"counters", CachedRootSource(r, nil, 1<<30)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a, err := New(Options{Read: bc.read, Ethtool: EthtoolFor(r)})
			if err != nil {
				b.Fatal(err)
			}
			if err := a.Sample(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := a.Sample(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInterval is one interval of `ibdoctor agent --root` on the
// simulated h100-ndr node, wired as the command wires it (the cached
// source at its default full-read period, saved ethtool output, the
// saved kernel log), followed by one /metrics scrape: the unit the agent's
// cost is compared with node_exporter's per scrape. "counters" never
// re-reads the whole tree. cpu-ms/op is the process's user+system CPU per
// interval (getrusage), which a loaded machine inflates less than ns/op.
// The snapshots' clock steps 15 s per sample, so the rules judge a history
// as long as the agent keeps at its default interval (two windows), not
// one that grows with b.N.
func BenchmarkInterval(b *testing.B) {
	n, err := simnode.Build(simnode.Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := n.Write(dir); err != nil {
		b.Fatal(err)
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, bc := range []struct {
		name  string
		every int
	}{{"default", DefaultFullReadEvery}, {"counters", 1 << 30}} {
		b.Run(bc.name, func(b *testing.B) {
			t := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			clock := func() time.Time { t = t.Add(15 * time.Second); return t }
			src := NewCachedSource(r, clock, bc.every)
			opts := Options{Read: src.Read, KernelNews: src.Kernel, Ethtool: EthtoolFor(r), Boot: RootBoot(r), Interval: 15 * time.Second}
			if name, ok := RootKernelLog(r); ok {
				opts.Kernel = FileKernel(r, name)
			}
			a, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			h := a.Handler(HandlerOptions{})
			if err := a.Sample(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				if err := a.Sample(context.Background()); err != nil {
					b.Fatal(err)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
				_, _ = io.Copy(io.Discard, rec.Body)
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}
