package routing_test

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// A leaf-spine fabric from the tests' generator (fattree_test.go), one
// forwarding entry removed, and the analysis: who cannot reach whom, and
// the traced route.
func ExampleAnalyze() {
	f, err := routing.FatTree{Pods: 1, LeavesPerPod: 4, SpinesPerPod: 2, HostsPerLeaf: 4}.Generate()
	if err != nil {
		panic(err)
	}
	// spine2 (node 5) forgets lid 5, the first host of leaf2.
	f.Nodes[5].LFT[5] = routing.NoRoute
	g, err := routing.New(f)
	if err != nil {
		panic(err)
	}
	r := g.Analyze(routing.Options{})
	fmt.Printf("%d of %d CA pairs routed\n", r.RoutedPairs, r.Pairs)
	for _, fd := range r.Findings() {
		fmt.Println(fd.Severity, fd.ID, fd.Subject.NodeDesc)
	}
	fmt.Println(r.Tree.Describe(f))
	_, err = g.Path(1, 5)
	fmt.Println(err)
	// Output:
	// 228 of 240 CA pairs routed
	// critical fabric.route_missing spine2
	// fat-tree, 2 switch tiers (4, 2 switches); leaves 4 down : 2 up (2.0:1) ×4
	// route from lid 1 to lid 5 breaks at spine2 (guid 0x7cfe900300a00005): no forwarding entry for lid 5
}
