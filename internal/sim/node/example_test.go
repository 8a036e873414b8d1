package node_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/sim/node"
)

// Build a node with faults and look at what a reader would see; n.Write(dir)
// puts the same bytes on disk.
func ExampleBuild() {
	faults := []string{"width:mlx5_2/1=2", "down:mlx5_8/1", "saturate:mlx5_1/1/symbol_error"}
	var fs []node.Fault
	for _, s := range faults {
		f, err := node.ParseFault(s)
		if err != nil {
			panic(err)
		}
		fs = append(fs, f)
	}
	n, err := node.Build(node.Options{Profile: "h100-ndr", Host: "gpu001", Faults: fs})
	if err != nil {
		panic(err)
	}
	show := map[string]bool{
		n.Device("mlx5_2").Dir() + "/ports/1/rate":                  true,
		n.Device("mlx5_8").Dir() + "/ports/1/rate":                  true,
		n.Device("mlx5_8").Dir() + "/ports/1/phys_state":            true,
		n.Device("mlx5_1").Dir() + "/ports/1/counters/symbol_error": true,
	}
	for _, e := range n.Entries() {
		if show[e.Path] {
			fmt.Printf("%s: %s", e.Path[strings.Index(e.Path, "infiniband/")+len("infiniband/"):], e.Data)
		}
	}
	// Output:
	// mlx5_1/ports/1/counters/symbol_error: 65535
	// mlx5_2/ports/1/rate: 200 Gb/sec (2X NDR)
	// mlx5_8/ports/1/phys_state: 3: Disabled
	// mlx5_8/ports/1/rate: 40 Gb/sec (4X QDR)
}

// Drive a node through a scenario; after each step n.Update(dir) rewrites
// the changed files atomically.
func ExampleLive() {
	n, _ := node.Build(node.Options{})
	sc, _ := node.ScenarioByName("wrap")
	l := node.NewLive(n, sc)
	_, port, _ := n.PortRef("mlx5_5/1")
	for i := 0; i < 7; i++ {
		for _, msg := range l.Step(time.Second) {
			fmt.Println(msg)
		}
		fmt.Println(l.Elapsed, port.HWCounters["out_of_buffer"])
	}
	// Output:
	// t=0s mlx5_5/1 hw_counters/out_of_buffer set 5000 below 2^32
	// 1s 4294962296
	// 2s 4294963296
	// 3s 4294964296
	// 4s 4294965296
	// 5s 4294966296
	// 6s 0
	// 7s 1000
}
