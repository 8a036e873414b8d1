package routing

import (
	"io"
	"testing"
	"time"
)

// benchTree is the 3-level fat-tree of the benchmarks: pods of 32 leaves ×
// 32 hosts under 16 pod spines, 16 core switches per core group (radix-48
// leaves and spines, 2:1 oversubscribed like many GPU clusters' storage
// rails). 1 pod = 1,024 HCAs, 4 = 4,096, 16 = 16,384 (1,024 switches).
func benchTree(pods int) FatTree {
	return FatTree{Pods: pods, LeavesPerPod: 32, SpinesPerPod: 16, CoresPerGroup: 16, HostsPerLeaf: 32}
}

var benchSizes = []struct {
	name string
	pods int
}{{"1k", 1}, {"4k", 4}, {"16k", 16}}

// BenchmarkAnalyze is the full routing analysis from the in-memory model:
// every destination from every switch, loads, non-minimal check (all-pairs
// switch BFS), credit-loop search and tree shape.
func BenchmarkAnalyze(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			f, err := benchTree(sz.pods).Generate()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				r, err := Analyze(f, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Findings()) != 0 || r.RoutedPairs != r.Pairs {
					b.Fatalf("generated fat-tree not clean: %d of %d pairs routed", r.RoutedPairs, r.Pairs)
				}
			}
		})
	}
}

// BenchmarkGenerate includes writing both text formats (ibnetdiscover and
// dump_fts), which is the input the parsers of internal/ibtools read.
func BenchmarkGenerate(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, err := benchTree(sz.pods).Generate()
				if err != nil {
					b.Fatal(err)
				}
				cw := &countWriter{}
				if err := WriteIBNetDiscover(cw, f, TopologyOptions{Generated: time.Unix(0, 0)}); err != nil {
					b.Fatal(err)
				}
				if err := WriteDumpFTS(cw, f, DumpOptions{}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(cw.n)/(1<<20), "MiB-text")
			}
		})
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

func TestBenchTreeSizes(t *testing.T) {
	for _, sz := range benchSizes {
		if got, want := benchTree(sz.pods).HCAs(), map[string]int{"1k": 1024, "4k": 4096, "16k": 16384}[sz.name]; got != want {
			t.Errorf("%s: %d HCAs", sz.name, got)
		}
	}
}
