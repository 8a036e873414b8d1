package routing_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// TestProductParsersRoundTrip writes fabrics in the real text formats and
// reads them back through the product parsers (internal/ibtools via
// internal/fabric's Build and RoutingInput): the analysis must see the same
// routing — pair counts, link loads, findings — as on the original model.
func TestProductParsersRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ft    routing.FatTree
		brief bool
		edit  func(f *routing.Subnet)
	}{
		{"2-level", routing.FatTree{Pods: 1, LeavesPerPod: 4, SpinesPerPod: 2, HostsPerLeaf: 4}, false, nil},
		{"2-level brief", routing.FatTree{Pods: 1, LeavesPerPod: 4, SpinesPerPod: 2, HostsPerLeaf: 4}, true, nil},
		{"3-level trunks", routing.FatTree{Pods: 2, LeavesPerPod: 3, SpinesPerPod: 2, CoresPerGroup: 2, HostsPerLeaf: 5, LinksPerUplink: 2}, false, nil},
		{"faults", routing.FatTree{Pods: 2, LeavesPerPod: 3, SpinesPerPod: 2, CoresPerGroup: 2, HostsPerLeaf: 4}, false, func(f *routing.Subnet) {
			// Node indices: leaves 0-5, pod spines 6-9, cores 10-13.
			f.Nodes[6].LFT[3] = routing.NoRoute // spine1 forgets a host
			f.Nodes[7].LFT[10] = 1              // spine2 sends a host back down to leaf1 ...
			f.Nodes[0].LFT[10] = 6              // ... which sends it up to spine2: a loop
			f.Nodes[2].LFT = nil                // leaf3 has no table
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.ft.Generate()
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(f)
			}
			var topo, fts bytes.Buffer
			if err := routing.WriteIBNetDiscover(&topo, f, routing.TopologyOptions{Generated: time.Unix(0, 0).UTC()}); err != nil {
				t.Fatal(err)
			}
			if err := routing.WriteDumpFTS(&fts, f, routing.DumpOptions{Brief: tc.brief}); err != nil {
				t.Fatal(err)
			}
			model := fabric.Build(&fabricmodel.Raw{Outputs: []*fabricmodel.Output{
				{Name: "ibnetdiscover", Stdout: topo.Bytes()},
				{Name: "dump_fts", Stdout: fts.Bytes()},
			}})
			back, err := fabric.RoutingInput(model)
			if err != nil {
				t.Fatalf("%v (gaps %+v)", err, model.Gaps)
			}
			r1, err := routing.Analyze(f, routing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r2, err := routing.Analyze(back, routing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r1.Pairs != r2.Pairs || r1.RoutedPairs != r2.RoutedPairs || r1.LIDs != r2.LIDs || r1.DependencyEdges != r2.DependencyEdges {
				t.Errorf("pairs %d/%d vs %d/%d, LIDs %d vs %d, dependencies %d vs %d",
					r1.RoutedPairs, r1.Pairs, r2.RoutedPairs, r2.Pairs, r1.LIDs, r2.LIDs, r1.DependencyEdges, r2.DependencyEdges)
			}
			// Loads by link, named by GUIDs and ports (node order may differ).
			loads := func(f *routing.Subnet, r *routing.Result) []string {
				var out []string
				for _, l := range r.Loads {
					out = append(out, fmt.Sprintf("%x/%d>%x/%d=%d", f.Nodes[l.From.Node].GUID, l.From.Port, f.Nodes[l.To.Node].GUID, l.To.Port, l.Routes))
				}
				slices.Sort(out)
				return out
			}
			if a, b := loads(f, r1), loads(back, r2); !slices.Equal(a, b) {
				t.Errorf("loads differ after the round trip:\n%v\n%v", a, b)
			}
			brief := func(r *routing.Result) []string {
				var out []string
				for _, x := range r.Findings() {
					out = append(out, string(x.Severity)+" "+x.ID+" "+x.Subject.NodeGUID+" "+x.Summary)
				}
				return out
			}
			if a, b := brief(r1), brief(r2); !slices.Equal(a, b) {
				t.Errorf("findings differ after the round trip:\n%q\n%q", a, b)
			}
			if tc.edit != nil && len(r1.Breaks) == 0 {
				t.Error("the faults broke nothing")
			}
		})
	}
}
