package routing_test

import (
	"bytes"
	"testing"
	"time"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// fabricBenchTree matches the routing benchmark's fabric: pods of 32 leaves
// × 32 hosts under 16 pod spines and 16 cores per core group; 1 pod =
// 1,024 HCAs, 16 pods = 16,384 HCAs and 1,024 switches.
func fabricBenchTree(pods int) routing.FatTree {
	return routing.FatTree{Pods: pods, LeavesPerPod: 32, SpinesPerPod: 16, CoresPerGroup: 16, HostsPerLeaf: 32}
}

// benchRaw renders a generated fat-tree in the real text formats
// (ibnetdiscover, dump_fts -n to keep the 16k input near 200 MB).
func benchRaw(b *testing.B, pods int) *fabricmodel.Raw {
	f, err := fabricBenchTree(pods).Generate()
	if err != nil {
		b.Fatal(err)
	}
	var top, fts bytes.Buffer
	if err := routing.WriteIBNetDiscover(&top, f, routing.TopologyOptions{Generated: time.Unix(0, 0)}); err != nil {
		b.Fatal(err)
	}
	if err := routing.WriteDumpFTS(&fts, f, routing.DumpOptions{Brief: true}); err != nil {
		b.Fatal(err)
	}
	return &fabricmodel.Raw{Outputs: []*fabricmodel.Output{
		{Name: "ibnetdiscover", Stdout: top.Bytes()},
		{Name: "dump_fts", Stdout: fts.Bytes()},
	}}
}

// BenchmarkEndToEnd is internal/rules/fabric's check of a synthetic 3-level
// fat-tree from its text outputs (here, beside the test-only generator):
// parse ibnetdiscover and dump_fts, build the model, every fabric check,
// and the full routing analysis (all destinations from all switches,
// loads, credit loops).
func BenchmarkEndToEnd(b *testing.B) {
	for _, sz := range []struct {
		name string
		pods int
	}{{"1k", 1}, {"4k", 4}, {"16k", 16}} {
		b.Run(sz.name, func(b *testing.B) {
			raw := benchRaw(b, sz.pods)
			in := 0
			for _, o := range raw.Outputs {
				in += len(o.Stdout)
			}
			b.SetBytes(int64(in))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				f := fabric.Build(raw)
				if len(f.LFTs) == 0 || len(f.Nodes) == 0 {
					b.Fatalf("nothing parsed: %+v", f.Gaps)
				}
				fs := fabric.Check(f, fabric.Options{})
				rfs, res, err := fabric.CheckRouting(f, routing.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(fs)+len(rfs) != 0 || res.RoutedPairs != res.Pairs {
					b.Fatalf("generated fat-tree not clean: %d findings, %d+%d; %d of %d pairs", len(fs), len(rfs), len(f.Gaps), res.RoutedPairs, res.Pairs)
				}
			}
		})
	}
}
