package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// TestCachedRootSource changes the simulated node between samples:
// counters, port rate and state are read every sample, a static attribute
// (fw_ver) only at the Nth sample or at once when a net device or an RDMA
// device appears or goes — the sample right after the change, not N
// samples later.
func TestCachedRootSource(t *testing.T) {
	dir, r := simRoot(t, simnode.Options{})
	read := CachedRootSource(r, func() time.Time { return t0 }, 3)
	dev := filepath.Join(dir, "sys/class/infiniband/mlx5_0")
	write := func(rel, v string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dev, rel), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	veth := filepath.Join(dir, "sys/class/net/veth9")
	link9 := filepath.Join(dir, "sys/class/infiniband/mlx5_9")
	target9, err := os.Readlink(link9)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		change   func()
		fw       string
		symbolEr uint64
		gbps     float64
		veth     bool
		mlx59    bool
	}{
		{name: "first sample is full", change: func() { write("ports/1/counters/symbol_error", "1") }, fw: "28.39.2048", symbolEr: 1, gbps: 400, mlx59: true},
		{name: "refresh: counter new, fw kept", change: func() { write("fw_ver", "28.40.1000"); write("ports/1/counters/symbol_error", "2") }, fw: "28.39.2048", symbolEr: 2, gbps: 400, mlx59: true},
		{name: "refresh: rate is not static", change: func() { write("ports/1/rate", "200 Gb/sec (4X HDR)") }, fw: "28.39.2048", symbolEr: 2, gbps: 200, mlx59: true},
		{name: "third after the full one: full", change: func() { write("ports/1/counters/symbol_error", "3") }, fw: "28.40.1000", symbolEr: 3, gbps: 200, mlx59: true},
		{name: "refresh", change: func() { write("fw_ver", "28.41.1000") }, fw: "28.40.1000", symbolEr: 3, gbps: 200, mlx59: true},
		{name: "a net device appears: full", change: func() {
			// A second net device on the PCI function of the first one.
			pci, err := filepath.EvalSymlinks(filepath.Join(dir, "sys/class/net/ens1f0np0/device"))
			if err != nil {
				t.Fatal(err)
			}
			rel, err := filepath.Rel(veth, pci)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(veth, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(rel, filepath.Join(veth, "device")); err != nil {
				t.Fatal(err)
			}
		}, fw: "28.41.1000", symbolEr: 3, gbps: 200, veth: true, mlx59: true},
		{name: "refresh after it", change: func() { write("fw_ver", "28.42.1000") }, fw: "28.41.1000", symbolEr: 3, gbps: 200, veth: true, mlx59: true},
		{name: "the net device goes: full", change: func() {
			if err := os.RemoveAll(veth); err != nil {
				t.Fatal(err)
			}
		}, fw: "28.42.1000", symbolEr: 3, gbps: 200, mlx59: true},
		{name: "refresh again", change: func() { write("fw_ver", "28.43.1000"); write("ports/1/counters/symbol_error", "4") }, fw: "28.42.1000", symbolEr: 4, gbps: 200, mlx59: true},
		{name: "an RDMA device goes: full", change: func() {
			if err := os.Remove(link9); err != nil {
				t.Fatal(err)
			}
		}, fw: "28.43.1000", symbolEr: 4, gbps: 200},
		{name: "refresh without it", change: func() { write("fw_ver", "28.44.1000") }, fw: "28.43.1000", symbolEr: 4, gbps: 200},
		{name: "it comes back: full", change: func() {
			if err := os.Symlink(target9, link9); err != nil {
				t.Fatal(err)
			}
		}, fw: "28.44.1000", symbolEr: 4, gbps: 200, mlx59: true},
	}
	for _, s := range steps {
		s.change()
		snap, err := read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		d := snap.Device("mlx5_0")
		c, _ := d.Ports[0].Counter("symbol_error")
		var gbps float64
		if d.Ports[0].Rate != nil {
			gbps = float64(d.Ports[0].Rate.DeciGbps) / 10
		}
		veth := snap.NetDev("veth9") != nil
		mlx59 := snap.Device("mlx5_9") != nil
		if d.FWVersion != s.fw || c.Value != s.symbolEr || gbps != s.gbps || veth != s.veth || mlx59 != s.mlx59 {
			t.Errorf("%s: fw %s symbol_error %d rate %g veth9 %v mlx5_9 %v, want %s %d %g %v %v",
				s.name, d.FWVersion, c.Value, gbps, veth, mlx59, s.fw, s.symbolEr, s.gbps, s.veth, s.mlx59)
		}
	}
}

// TestCachedRootSourceSeesStaticChanges: through the agent as the command
// wires it (CachedRootSource at its defaults), a PCIe link that trains
// down to x8 raises pcie.link_degraded within QuasiStaticEvery samples
// without a full read, a port rate drop is in the very next sample, and a
// firmware change is seen by the next full read (DefaultFullReadEvery).
func TestCachedRootSourceSeesStaticChanges(t *testing.T) {
	l := newLiveNode(t, "h100-ndr", "traffic")
	a, err := New(Options{Read: CachedRootSource(l.root, l.now, DefaultFullReadEvery)})
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	sample := func() *View {
		t.Helper()
		taken++
		if err := a.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
		return a.View()
	}
	has := func(v *View, id, dev string) bool {
		for _, f := range v.Findings {
			if f.ID == id && (f.Subject.Device == dev || strings.Contains(f.Summary, dev)) {
				return true
			}
		}
		return false
	}
	apply := func(faults ...string) {
		t.Helper()
		for _, f := range simnode.MustParseFaults(faults...) {
			if err := l.live.Node.Apply(f); err != nil {
				t.Fatal(err)
			}
		}
		l.step(15 * time.Second)
	}
	sample() // the first sample is a full read
	sample()
	apply("pcie-width:mlx5_4=8", "speed:mlx5_1/1=HDR", "fw:mlx5_5=28.36.1010")
	v := sample()
	if r := v.Snapshot.Device("mlx5_1").Ports[0].Rate; r == nil || r.Gbps() != 200 {
		t.Errorf("rate of mlx5_1 port 1 after the drop: %v, want 200 Gb/s in the next sample", r)
	}
	seen := 0
	for n := 1; n <= QuasiStaticEvery; n++ {
		if n > 1 {
			v = sample()
		}
		if has(v, "pcie.link_degraded", "mlx5_4") {
			seen = n
			break
		}
	}
	if seen == 0 {
		t.Errorf("pcie.link_degraded of mlx5_4 not raised within %d samples", QuasiStaticEvery)
	}
	fw := func() string { return a.View().Snapshot.Device("mlx5_5").FWVersion }
	if fw() != "28.39.2048" {
		t.Errorf("fw_ver of mlx5_5 %s before the full read: the samples between read it", fw())
	}
	// The next full read is the one after DefaultFullReadEvery samples.
	for fw() != "28.36.1010" && taken <= DefaultFullReadEvery {
		sample()
	}
	if fw() != "28.36.1010" || taken != DefaultFullReadEvery+1 {
		t.Errorf("fw_ver of mlx5_5 %s at sample %d, want the new one at sample %d (the full read)", fw(), taken, DefaultFullReadEvery+1)
	}
}

// TestCachedSourceAER: once the agent follows the kernel log, a PCI
// function's AER counts are read a quarter of the samples (here: not at the
// first refresh), at once after a kernel log that reported an AER error,
// and every sample again when the kernel log cannot be read.
func TestCachedSourceAER(t *testing.T) {
	dir, r := simRoot(t, simnode.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		read, aer bool // the kernel news before each refresh
		seenFirst bool // the new count is seen at the first refresh
	}{
		{"no kernel log", false, false, true},
		{"kernel log, no AER", true, false, false},
		{"kernel log reported AER", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := NewCachedSource(r, func() time.Time { return t0 }, 1<<20)
			s, err := src.Read(ctx) // full
			if err != nil {
				t.Fatal(err)
			}
			// A function whose position is not due at the first refresh.
			pos := -1
			for i := range s.PCI {
				if s.PCI[i].AER != nil && (1+i)%QuasiStaticEvery != 0 {
					pos = i
					break
				}
			}
			if pos < 0 {
				t.Fatal("no PCI function with AER counters")
			}
			file := filepath.Join(dir, "sys/devices", s.PCI[pos].Path, "aer_dev_correctable")
			old, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(file, old, 0o644)
			body := strings.Replace(strings.Replace(string(old), "RxErr 0", "RxErr 7", 1), "TOTAL_ERR_COR 0", "TOTAL_ERR_COR 7", 1)
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			for pass := 1; pass <= QuasiStaticEvery; pass++ {
				src.Kernel(tc.read, tc.aer && pass == 1)
				if s, err = src.Read(ctx); err != nil {
					t.Fatal(err)
				}
				seen := s.PCI[pos].AER.Correctable == 7
				due := (pass+pos)%QuasiStaticEvery == 0
				if want := tc.seenFirst || !tc.read || due || (pass > 1 && seenBefore(pass, pos)); seen != want {
					t.Errorf("refresh %d: correctable = %d, seen %v, want %v", pass, s.PCI[pos].AER.Correctable, seen, want)
				}
			}
		})
	}
}

// seenBefore reports whether position pos was due at a refresh before pass.
func seenBefore(pass, pos int) bool {
	for p := 1; p < pass; p++ {
		if (p+pos)%QuasiStaticEvery == 0 {
			return true
		}
	}
	return false
}

// TestKernelNews: the agent tells its source after each sample whether
// the kernel log was read and whether it reported a PCIe AER error.
func TestKernelNews(t *testing.T) {
	for _, tc := range []struct {
		faults []string
		aer    bool
	}{{nil, false}, {[]string{"aer:mlx5_2/correctable/RxErr=12"}, true}} {
		t.Run(strings.Join(tc.faults, ","), func(t *testing.T) {
			_, r := simRoot(t, simnode.Options{Faults: simnode.MustParseFaults(tc.faults...)})
			name, ok := RootKernelLog(r)
			if !ok {
				t.Fatal("the simulated node has no kernel log")
			}
			var news [][2]bool
			a, err := New(Options{Read: CachedRootSource(r, nil, DefaultFullReadEvery), Kernel: FileKernel(r, name), Boot: RootBoot(r),
				KernelNews: func(read, aer bool) { news = append(news, [2]bool{read, aer}) }})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Sample(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(news) != 1 || news[0] != [2]bool{true, tc.aer} {
				t.Errorf("news = %v, want [[true %v]]", news, tc.aer)
			}
		})
	}
}

// TestCachedSourceChain: with a full-read period of 1, every sample reads
// again the identities (a new fw_ver is seen at once), and the PCI chain
// (a PCI function's numa_node) only every ChainEvery samples.
func TestCachedSourceChain(t *testing.T) {
	dir, r := simRoot(t, simnode.Options{})
	ctx := context.Background()
	src := NewCachedSource(r, func() time.Time { return t0 }, 1)
	s, err := src.Read(ctx) // full
	if err != nil {
		t.Fatal(err)
	}
	addr := s.Device("mlx5_0").PCI
	var path string
	for _, d := range s.PCI {
		if d.Address == addr {
			path = d.Path
		}
	}
	numa := func(s *snapshot.Snapshot) int {
		for _, d := range s.PCI {
			if d.Address == addr && d.NUMANode != nil {
				return *d.NUMANode
			}
		}
		return -2
	}
	if numa(s) != 0 {
		t.Fatalf("numa_node of %s = %d, want 0", addr, numa(s))
	}
	write := func(rel, v string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sys/devices/"+path+"/numa_node", "1")
	write("sys/class/infiniband/mlx5_0/fw_ver", "28.40.1000")
	for i := 1; i <= ChainEvery; i++ {
		if s, err = src.Read(ctx); err != nil {
			t.Fatal(err)
		}
		if fw := s.Device("mlx5_0").FWVersion; fw != "28.40.1000" {
			t.Errorf("sample %d: fw_ver %s, want the new one at once", i, fw)
		}
		if got, want := numa(s), map[bool]int{false: 0, true: 1}[i == ChainEvery]; got != want {
			t.Errorf("sample %d: numa_node %d, want %d (the PCI chain is read every %d samples)", i, got, want, ChainEvery)
		}
	}
}

// simRoot writes a simulated node into a temporary directory and opens it
// as a root, closed when the test ends.
func simRoot(t *testing.T, o simnode.Options) (string, *rootfs.Root) {
	t.Helper()
	n, err := simnode.Build(o)
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
	t.Cleanup(func() { r.Close() })
	return dir, r
}
